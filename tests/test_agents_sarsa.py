"""SARSA: features and rewards against hand-computed values; training and the weights file."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxcheckers
from jaxcheckers.agents import make_agent, random_agent, sarsa
from jaxcheckers.checkers.pdn import hops_of_move
from jaxcheckers.checkers.positions import from_board
from jaxcheckers.core import compiled_step

ENV = jaxcheckers.make("checkers")

# Black (to move, the learner): men on 9 and 10, a king on 1. White: men on 14 and 23, a king on 31.
SCRIPTED = [
    ".B......",
    "........",
    ".b.b....",
    "..w.....",
    "........",
    "....w...",
    "........",
    "....W...",
]


def play(state, move):
    for action in hops_of_move(ENV, state, move):
        state = compiled_step(ENV)(state, jnp.int32(action))
    return state


def test_features_of_a_double_jump_by_hand():
    s = from_board(ENV, SCRIPTED, player=0)
    start = sarsa.counts(s.board)
    assert start.tolist() == [2, 1, 2, 1]
    after = play(s, "9x18x27")  # takes 14 and 23; white's king on 31 can then take 27
    phi = sarsa.features(start, after.board, 8)
    assert phi.tolist() == [2, 1, 2, 1, -2, 0, -2, 1]
    single = play(s, "10x17")  # takes 14 only; nothing of black's can be jumped after it
    assert sarsa.features(start, single.board, 8).tolist() == [2, 1, 2, 1, -1, 0, -1, 0]


def test_pieces_under_attack_counts_each_piece_once():
    board = [
        "........",
        "........",
        "........",
        "..b.b...",
        "...W....",
        "........",
        "........",
        "........",
    ]
    # White to move: its king on 4,3 can jump 3,2 or 3,4 (two pieces, two jumps).
    state = from_board(ENV, board, player=1)
    assert float(sarsa.pieces_under_attack(state.board, 8)) == 2.0


@pytest.mark.parametrize(
    "before, after, outcome, over, expected",
    [
        ([2, 1, 2, 1], [1, 1, 0, 1], 0, False, -0.4 + 2 * 0.2),  # a man lost, two men taken
        ([2, 0, 1, 0], [1, 1, 1, 0], 0, False, -0.1),  # a man crowned: nothing lost
        ([1, 1, 2, 0], [1, 0, 1, 0], 0, False, -0.5 + 0.2),  # a king lost, a man taken
        ([1, 0, 1, 1], [1, 0, 1, 0], 0, False, 0.3),  # a king taken
        ([1, 0, 1, 0], [1, 0, 0, 0], 1, True, 500.2),  # the last man taken: a win
        ([1, 0, 1, 0], [0, 0, 1, 0], -1, True, -500.4),  # the last man lost: a loss
        ([3, 0, 3, 0], [3, 0, 3, 0], 0, False, -0.1),  # nothing happened
        ([3, 0, 3, 0], [3, 0, 3, 0], 0, True, 0.0),  # a draw
    ],
)
def test_rewards_by_hand(before, after, outcome, over, expected):
    value = sarsa.reward(
        jnp.asarray(before, jnp.float32), jnp.asarray(after, jnp.float32), outcome, over
    )
    assert float(value) == pytest.approx(expected, abs=1e-4)


def test_greedy_agent_follows_the_best_whole_move():
    # Weights that only like taking opponent men: the double jump beats the single one.
    weights = np.zeros(8, np.float32)
    weights[4] = -1.0
    act = jax.jit(sarsa.make_sarsa_agent(weights, ENV))
    state = from_board(ENV, SCRIPTED, player=0)
    for _ in range(2):
        state = compiled_step(ENV)(state, act(state, jax.random.key(0)))
    assert int(state.current_player) == 1
    assert (np.asarray(state.board) == 1).sum() + (np.asarray(state.board) == 2).sum() == 1


@pytest.mark.slow
def test_short_training_run_learns_something():
    env = jaxcheckers.make("checkers", board_size=6)
    config = sarsa.SarsaConfig(num_envs=8, num_steps=60)
    weights, results = sarsa.train(env, random_agent, config, jax.random.key(0))
    assert np.isfinite(np.asarray(weights)).all() and np.abs(np.asarray(weights)).sum() > 0
    assert float(results.sum()) >= 1  # some games finished and were counted


def test_weights_file_round_trip_and_agent_spec(tmp_path):
    env = jaxcheckers.make("checkers", board_size=6)
    weights = np.arange(8, dtype=np.float32) - 3.5
    path = tmp_path / "w.json"
    sarsa.save_weights(path, weights, board_size=6, config=sarsa.SarsaConfig())
    loaded, record = sarsa.load_weights(path)
    assert np.allclose(loaded, weights) and record["features"] == list(sarsa.FEATURE_NAMES)
    act = jax.jit(make_agent(f"sarsa:{path}", env))
    state = env.reset(jax.random.key(0))
    assert bool(state.legal_action_mask[act(state, jax.random.key(1))])
    with pytest.raises(ValueError):
        make_agent(f"sarsa:{path}", ENV)  # trained on 6×6
    with pytest.raises(ValueError):
        make_agent(f"sarsa:{tmp_path / 'missing.json'}", ENV)
