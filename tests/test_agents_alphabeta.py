"""Alpha-beta against a plain minimax written in Python over the reference rules."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxcheckers
from jaxcheckers.agents import alphabeta, make_agent
from jaxcheckers.agents.random import random_agent
from jaxcheckers.checkers.positions import absolute_board, from_board
from tests.reference import ReferenceCheckers

N = 8
CAPACITY = alphabeta.default_capacity(N)
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
        scores[first] = max(scores.get(first, -10**9), score)
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
        return alphabeta.root_values(
            state.position, state.jumper, depth=depth, n=N, capacity=CAPACITY
        )

    return jax.jit(jax.vmap(root))


def stack(states):
    return jax.tree.map(lambda *xs: jnp.stack(xs), *states)


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_alphabeta_equals_plain_minimax_on_random_positions(depth):
    positions = random_positions()
    assert sum(int(p.jumper) >= 0 for p in positions) >= 5  # mid-capture roots are covered
    count = 40 if depth < 3 else 16
    positions = positions[:count]
    roots = batched_root(depth)(stack(positions))
    assert not np.asarray(roots.overflow).any()
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
    with pytest.raises(ValueError, match="not checkers"):
        make_agent("alphabeta:2", jaxcheckers.make("tictactoe"))
