"""Random games played by the JAX env and the plain-Python reference side by side.

At every step both must agree on the legal actions, the board and the observation planes, the
player to move, the rewards and whether the game is over: 130 games in the fast suite, 340 with
the slow tests, over board sizes and rule variants.
"""

from __future__ import annotations

import functools
import random

import jax
import numpy as np
import pytest

import jaxcheckers
from jaxcheckers.checkers.positions import absolute_board_jax, to_mover_frame
from tests.checkers.reference import ReferenceCheckers

ILLEGAL_ACTION_RATE = 0.002  # now and then try an illegal action, to cover the forfeit rule

# Each variant compiles its own env: the fast suite plays four (8×8 from the start and from random
# endgames, both no-move rules, the crowning variant), the slow one all.
SLOW = pytest.mark.slow
VARIANTS = [
    # (games, options, from random endgames?, the endings this sample must reach, so that
    #  every rule is really exercised)
    (50, dict(board_size=8), False, {"win", "repetition", "forfeit"}),
    pytest.param(50, dict(board_size=6), False, {"win"}, marks=SLOW),
    pytest.param(40, dict(board_size=10), False, {"win"}, marks=SLOW),
    pytest.param(40, dict(board_size=8, no_moves="pass"), False, {"win", "repetition"}, marks=SLOW),
    (30, dict(board_size=8), True, {"win", "repetition"}),
    (20, dict(board_size=8, no_moves="pass"), True, {"win", "repetition"}),
    pytest.param(30, dict(board_size=8, repetition_draw=False), True, {"win"}, marks=SLOW),
    pytest.param(
        30,
        dict(board_size=8, forty_move_draw=False, max_steps=300),
        True,
        {"repetition"},
        marks=SLOW,
    ),
    pytest.param(
        20,
        dict(board_size=6, repetition_draw=False, no_moves="pass", max_steps=300),
        True,
        {"win"},
        marks=SLOW,
    ),
    # ealt/Checkers' rules: a man crowned by a capture captures on as a king
    (
        30,
        dict(board_size=8, crowning="continues", no_moves="pass"),
        False,
        {"win", "crowned mid-capture"},
    ),
]


def random_endgame(n: int, rng: random.Random) -> tuple[list[list[int]], int]:
    """A random legal position with a few men and kings a side, and a random side to move."""
    dark = [(r, c) for r in range(n) for c in range(n) if (r + c) % 2]
    board = [[0] * n for _ in range(n)]
    squares = rng.sample(dark, 2 * rng.randint(1, 4))
    for i, (r, c) in enumerate(squares):
        sign = 1 if i % 2 == 0 else -1
        crowning_row = n - 1 if sign == 1 else 0
        king = rng.random() < 0.6 or r == crowning_row
        board[r][c] = sign * (2 if king else 1)
    return board, rng.randint(0, 1)


def ending(game: ReferenceCheckers) -> str:
    if game.truncated:
        return "truncated"
    if game.rewards == [0.0, 0.0]:
        return "forty-move" if game.quiet_plies >= 80 else "repetition"
    return "forfeit" if min(game.rewards) == -1 and max(game.rewards) == 0 else "win"


def kings_of(game: ReferenceCheckers) -> int:
    return sum(abs(value) == 2 for row in game.board for value in row)


@functools.cache
def batched(options: tuple):
    env = jaxcheckers.make("checkers", **dict(options))

    def observe(state):
        return absolute_board_jax(state.board, state.current_player), state.observation

    step = jax.jit(jax.vmap(env.step))
    reset = jax.jit(jax.vmap(env.reset))
    return env, reset, step, jax.jit(jax.vmap(observe))


def reference_for(options: dict, **position) -> ReferenceCheckers:
    return ReferenceCheckers(
        options.get("board_size", 8),
        **position,
        no_moves=options.get("no_moves", "lose"),
        forty_move_draw=options.get("forty_move_draw", True),
        repetition_draw=options.get("repetition_draw", True),
        max_steps=options.get("max_steps", 1000),
        crowning=options.get("crowning", "ends"),
    )


# The board value each observation plane marks, in the mover's frame: own men, own kings, ...
PLANES = (1, 2, -1, -2)


def assert_same(state, seen, game: ReferenceCheckers, where: str) -> None:
    n = game.n
    absolute, observation = seen
    assert np.array_equal(absolute.reshape(n, n), np.array(game.board)), where
    mover_board = to_mover_frame(np.array(game.board), int(state.current_player)).reshape(n, n)
    assert np.array_equal(observation, mover_board[..., None] == np.array(PLANES)), where
    assert set(np.flatnonzero(state.legal_action_mask).tolist()) == game.legal_actions(), where
    assert bool(state.terminated) == game.terminated, where
    assert bool(state.truncated) == game.truncated, where
    assert list(np.asarray(state.rewards)) == game.rewards, where
    if not (game.terminated or game.truncated):
        assert int(state.current_player) == game.player, where


def starts(options: dict, games: int, endgames: bool, rng: random.Random):
    """The first JAX states (batched) and their reference twins."""
    env, reset, _, _ = batched(tuple(sorted(options.items())))
    if not endgames:
        return reset(jax.random.split(jax.random.PRNGKey(0), games)), [
            reference_for(options) for _ in range(games)
        ]
    positions = [random_endgame(env.board_size, rng) for _ in range(games)]
    refs = [reference_for(options, board=board, player=player) for board, player in positions]
    frames = np.stack([to_mover_frame(np.array(b), p) for b, p in positions])
    players = np.array([p for _, p in positions], np.int32)
    start = jax.jit(jax.vmap(env.start))
    return start(frames, players, np.full(games, -1, np.int32)), refs


@pytest.mark.parametrize(
    "games,options,endgames,endings",
    VARIANTS,
    ids=[f"{v[1]}-endgames={v[2]}" for v in (getattr(v, "values", v) for v in VARIANTS)],
)
def test_random_games_agree_with_reference(games, options, endgames, endings):
    env, reset, step, observe = batched(tuple(sorted(options.items())))
    rng = random.Random(sum(map(ord, str(options))) + endgames)
    state, refs = starts(options, games, endgames, rng)
    endings_seen = set()
    for ply in range(env.max_steps or 10_000):
        host = jax.tree.map(np.asarray, state)
        seen = jax.tree.map(np.asarray, observe(state))
        actions = np.zeros(games, np.int32)
        for g, game in enumerate(refs):
            view = jax.tree.map(lambda x, g=g: x[g], host)
            game_seen = jax.tree.map(lambda x, g=g: x[g], seen)
            assert_same(view, game_seen, game, f"{options} game {g} ply {ply}")
            legal = sorted(game.legal_actions())
            if legal and rng.random() < ILLEGAL_ACTION_RATE:
                actions[g] = rng.randrange(-3, env.num_actions + 3)  # usually illegal
            elif legal:
                actions[g] = rng.choice(legal)
            was_over = game.terminated or game.truncated
            kings = kings_of(game)
            game.step(int(actions[g]))
            if not was_over and (game.terminated or game.truncated):
                endings_seen.add(ending(game))
            if game.jumper is not None and kings_of(game) > kings:  # crowned, and captures on
                endings_seen.add("crowned mid-capture")
        if all(game.terminated or game.truncated for game in refs):
            break
        state = step(state, actions)
    else:
        raise AssertionError("games did not end within max_steps")
    # The last step was played by the reference only: play it in JAX too and compare.
    state = jax.tree.map(np.asarray, step(state, actions))
    seen = jax.tree.map(np.asarray, observe(state))
    for g, game in enumerate(refs):
        view, game_seen = (jax.tree.map(lambda x, g=g: x[g], tree) for tree in (state, seen))
        assert_same(view, game_seen, game, f"{options} game {g} at the end")
    assert endings <= endings_seen, f"this sample never ended by {endings - endings_seen}"
