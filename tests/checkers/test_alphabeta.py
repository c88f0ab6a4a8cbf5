"""Alpha-beta against a plain minimax written in Python over the reference rules."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxcheckers
from jaxcheckers.agents import act_where, make_agent
from jaxcheckers.agents.random import random_agent
from jaxcheckers.checkers import alphabeta
from jaxcheckers.checkers.positions import absolute_board, from_board
from jaxcheckers.core import compiled_step
from tests.checkers.reference import ReferenceCheckers

N = 8
OLD_CAPACITY = N * N // 2  # the complete moves a node kept before every move was searched
ENV = jaxcheckers.make("checkers", board_size=N)


# -- the reference: plain minimax over whole turns, no pruning ------------------------------------


def reference_game(state) -> ReferenceCheckers:
    board = absolute_board(state).tolist()
    player = int(state.current_player)
    jumper = None
    if int(state.jumper) >= 0:
        square = int(state.jumper) if player == 0 else N * N - 1 - int(state.jumper)
        jumper = divmod(square, N)
    return ReferenceCheckers(
        N,
        board=board,
        player=player,
        jumper=jumper,
        forty_move_draw=False,
        repetition_draw=False,
        max_steps=None,
    )


def whole_turns(game: ReferenceCheckers, first=None):
    """(first hop, game after the whole turn) for every complete move, hop by hop."""
    for action in sorted(game.legal_actions()):
        after = game.copy()
        after.step(action)
        start = action if first is None else first
        if not after.game_over and after.jumper is not None:
            yield from whole_turns(after, start)
        else:
            yield start, after


def reference_score(game: ReferenceCheckers, depth: int) -> int:
    """Minimax score for the side to move: ±500 for a decided game, material at the horizon."""
    mover = game.player
    if game.terminated:
        return 500 * int(game.rewards[mover])
    if depth == 0:
        sign = 1 if mover == 0 else -1
        return sign * sum(value for row in game.board for value in row)
    return max(-reference_score(child, depth - 1) for _, child in whole_turns(game))


def reference_root(game: ReferenceCheckers, depth: int) -> dict[int, int]:
    """Best score reached through each first hop."""
    scores: dict[int, int] = {}
    for first, child in whole_turns(game):
        score = -reference_score(child, depth - 1)
        scores[first] = max(scores.get(first, -(10**9)), score)
    return scores


# -- positions from random games -------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def random_positions(count: int = 40, seed: int = 3):
    """Live positions (some mid-capture) from random games: a list of unbatched states."""
    games = 8
    step = jax.jit(jax.vmap(ENV.step))
    act = jax.jit(jax.vmap(random_agent))
    state = jax.vmap(ENV.reset)(jax.random.split(jax.random.key(seed), games))
    rng = np.random.default_rng(seed)
    positions = []
    for ply in range(120):
        state = step(state, act(state, jax.random.split(jax.random.key(seed * 1000 + ply), games)))
        live = ~np.asarray(state.terminated | state.truncated)
        mid_capture = np.asarray(state.jumper) >= 0
        for g in np.flatnonzero(live & ((rng.random(games) < 0.05) | mid_capture)):
            positions.append(jax.tree.map(lambda x, g=g: x[g], state))
    rng.shuffle(positions)
    mids = [p for p in positions if int(p.jumper) >= 0][: count // 4]
    others = [p for p in positions if int(p.jumper) < 0][: count - len(mids)]
    return mids + others


@functools.cache
def batched_root(depth: int):
    def root(state):
        return alphabeta.root_values(state.position, state.jumper, depth=depth, n=N)

    return jax.jit(jax.vmap(root))


def stack(states):
    return jax.tree.map(lambda *xs: jnp.stack(xs), *states)


# Depth 2 is the fast sample (depth one is searched whole in the crowded positions' test below).
@pytest.mark.parametrize(
    "depth", [pytest.param(d, marks=pytest.mark.slow) if d != 2 else d for d in (1, 2, 3)]
)
def test_alphabeta_equals_plain_minimax_on_random_positions(depth):
    positions = random_positions()
    assert sum(int(p.jumper) >= 0 for p in positions) >= 5  # mid-capture roots are covered
    count = 40 if depth < 3 else 16
    positions = positions[:count]
    roots = batched_root(depth)(stack(positions))
    for i, state in enumerate(positions):
        expected = reference_root(reference_game(state), depth)
        valid = np.asarray(roots.valid[i])
        values = np.asarray(roots.values[i])[valid]
        firsts = np.asarray(roots.first_actions[i])[valid]
        assert set(firsts.tolist()) == set(expected)
        best = max(expected.values())
        assert values.max() == best
        # Every move that reaches the best score is known exactly, so ties are broken fairly.
        best_firsts = {a for a, v in expected.items() if v == best}
        assert set(firsts[values == best].tolist()) == best_firsts


def test_agent_breaks_ties_at_random_among_best_moves():
    opening = ENV.reset(jax.random.key(0))
    # Forty copies: the batch shape of the minimax test, so the compiled search is reused.
    root = jax.tree.map(lambda x: x[0], batched_root(2)(stack([opening] * 40)))
    choose_many = jax.jit(jax.vmap(alphabeta.choose, in_axes=(None, 0)))
    actions = np.asarray(choose_many(root, jax.random.split(jax.random.key(1), 64)))
    expected = reference_root(reference_game(opening), 2)
    best = max(expected.values())
    assert set(actions.tolist()) <= {a for a, v in expected.items() if v == best}
    assert len(set(actions.tolist())) > 1  # several moves tie at the opening


def test_asked_game_by_game_it_plays_what_it_plays_vmapped():
    agent = make_agent("alphabeta:1", ENV)
    assert agent.game_by_game
    positions = stack(random_positions()[:12])
    keys = jax.random.split(jax.random.key(4), 12)
    needed = jnp.arange(12) % 3 != 0
    asked = jax.jit(act_where, static_argnums=0)(agent, positions, keys, needed)
    vmapped = jax.jit(jax.vmap(agent))(positions, keys)
    assert np.array_equal(asked, np.where(needed, vmapped, 0))


def test_agent_takes_the_double_jump_and_finishes_it():
    # Black (player 0, moving down) on 9 can take 14 then 23; the agent must take both.
    board = [
        "........",
        "........",
        ".b......",
        "..w.....",
        "........",
        "....w...",
        "........",
        "w.......",
    ]
    state = from_board(ENV, board, player=0)
    act = jax.jit(make_agent("alphabeta:1", ENV))
    step = jax.jit(ENV.step)
    key = jax.random.key(0)
    state = step(state, act(state, key))
    assert int(state.current_player) == 0 and int(state.jumper) >= 0
    state = step(state, act(state, key))
    assert int(state.current_player) == 1
    assert (absolute_board(state) < 0).sum() == 1


def test_depth_must_be_positive():
    with pytest.raises(ValueError):
        make_agent("alphabeta:0", ENV)
    with pytest.raises(ValueError):
        make_agent("alphabeta:x", ENV)


def test_alphabeta_refuses_a_game_that_is_not_checkers():
    with pytest.raises(
        ValueError, match="^alphabeta plays checkers, chess and draughts, not tictactoe$"
    ):
        make_agent("alphabeta:2", jaxcheckers.make("tictactoe"))


# -- crowded positions: every legal move is searched ----------------------------------------------

# Ten black kings, one white man on 29: 38 legal hops. The king on 21 steps to 25 and white, whose
# only man is then blocked (25 taken, 18 behind it held), has no move: the one win in one.
TRAP = [
    "........",
    "..B.B.B.",
    "........",
    "..B.B.B.",
    "........",
    "B.B.B.B.",
    "........",
    "w.......",
]
# Seven black kings among eleven white pieces: 34 complete moves (capture sequences that branch).
CAPTURE_TREE = [
    "...B...B",
    "B...B...",
    ".W.W.W.w",
    "........",
    ".w.W.W.w",
    "........",
    ".W.w.w.B",
    "B...B...",
]


def winning_first_hops(state) -> set[int]:
    """The first hops that win at once, found by playing every legal action with the env."""
    step = compiled_step(ENV)
    mover = int(state.current_player)
    wins: set[int] = set()

    def explore(s, first):
        for action in np.flatnonzero(np.asarray(s.legal_action_mask)):
            after = step(s, jnp.int32(action))
            start = int(action) if first is None else first
            if bool(after.terminated):
                if float(after.rewards[mover]) > 0:
                    wins.add(start)
            elif int(after.current_player) == mover:  # mid-capture: the same turn goes on
                explore(after, start)

    explore(state, None)
    return wins


def crowded_positions(count: int = 12, seed: int = 5):
    """Random positions of 8 to 12 black kings against 1 to 3 white pieces, black to move."""
    rng = np.random.default_rng(seed)
    dark = [(r, c) for r in range(N) for c in range(N) if (r + c) % 2]
    states = [from_board(ENV, TRAP, player=0), from_board(ENV, CAPTURE_TREE, player=0)]
    while len(states) < count:
        board = np.zeros((N, N), np.int8)
        kings, whites = int(rng.integers(8, 13)), int(rng.integers(1, 4))
        picks = rng.choice(len(dark), kings + whites, replace=False)
        for i in picks[:kings]:
            board[dark[i]] = 2
        for i in picks[kings:]:
            r, c = dark[i]
            board[r, c] = -2 if r == 0 or rng.random() < 0.3 else -1
        state = from_board(ENV, board, player=0)
        if not bool(state.terminated):
            states.append(state)
    return states


def test_depth_one_searches_every_legal_move_of_crowded_positions():
    positions = crowded_positions()
    assert int(positions[0].legal_action_mask.sum()) == 38
    assert max(int(p.legal_action_mask.sum()) for p in positions) > OLD_CAPACITY
    padded = positions + [positions[0]] * (40 - len(positions))  # the compiled batch of 40
    roots = batched_root(1)(stack(padded))
    for i, state in enumerate(positions):
        valid = np.asarray(roots.valid[i])
        firsts = np.asarray(roots.first_actions[i])[valid]
        values = np.asarray(roots.values[i])[valid]
        assert set(firsts.tolist()) == set(np.flatnonzero(state.legal_action_mask).tolist())
        assert set(firsts[values == alphabeta.WIN].tolist()) == winning_first_hops(state)
    trap = from_board(ENV, TRAP, player=0)
    assert winning_first_hops(trap) == {3 * N * N + 5 * N}  # 21-25: the king on (5, 0) goes SE
    act = jax.jit(make_agent("alphabeta:1", ENV))
    assert int(act(trap, jax.random.key(0))) == 3 * N * N + 5 * N


@pytest.mark.parametrize("depth", [1, 2])
def test_a_position_with_more_capture_sequences_than_squares_is_searched_whole(depth):
    state = from_board(ENV, CAPTURE_TREE, player=0)
    game = reference_game(state)
    assert len(list(whole_turns(game))) > OLD_CAPACITY  # more complete moves than the old capacity
    root = jax.tree.map(lambda x: x[0], batched_root(depth)(stack([state] * 40)))
    expected = reference_root(game, depth)
    valid = np.asarray(root.valid)
    values = dict(
        zip(
            np.asarray(root.first_actions)[valid].tolist(),
            np.asarray(root.values)[valid].tolist(),
            strict=True,
        )
    )
    best = max(expected.values())
    assert max(values.values()) == best
    tied = {a for a, v in expected.items() if v == best}
    assert {a for a, v in values.items() if v == best} == tied
    assert set(values) == set(expected)


def test_alphabeta_refuses_the_crowning_variant_it_does_not_search():
    with pytest.raises(ValueError, match="crowning"):
        make_agent("alphabeta:2", jaxcheckers.make("checkers", crowning="continues"))
