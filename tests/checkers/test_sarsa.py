"""SARSA: features and rewards against hand-computed values; training and the weights file."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxcheckers
from jaxcheckers.agents import make_agent, random_agent
from jaxcheckers.checkers import sarsa
from jaxcheckers.checkers.bitboard import layout
from jaxcheckers.checkers.pdn import hops_of_move
from jaxcheckers.checkers.positions import from_board
from jaxcheckers.checkers.sarsa_trainer import SarsaConfig, train
from jaxcheckers.core import compiled_step
from tests.checkers.test_alphabeta import TRAP

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


LAY = layout(8)


def test_features_of_a_double_jump_by_hand():
    s = from_board(ENV, SCRIPTED, player=0)
    start = sarsa.counts(s.position)
    assert start.tolist() == [2, 1, 2, 1]
    after = play(s, "9x18x27")  # takes 14 and 23; white's king on 31 can then take 27
    phi = sarsa.features(start, after.position, LAY)
    assert phi.tolist() == [2, 1, 2, 1, -2, 0, -2, 1]
    single = play(s, "10x17")  # takes 14 only; nothing of black's can be jumped after it
    assert sarsa.features(start, single.position, LAY).tolist() == [2, 1, 2, 1, -1, 0, -1, 0]


def under_attack(board, player=1):
    state = from_board(ENV, board, player=player)
    return float(sarsa.pieces_under_attack(state.position, LAY))


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
    assert under_attack(board) == 2.0


def test_a_double_jump_attacks_both_pieces_it_takes():
    board = [
        "........",
        "........",
        "........",
        "....b...",
        "........",
        "..b.....",
        ".w......",
        "........",
    ]
    # White's man on 6,1 takes 5,2 and then 3,4: one first hop, two pieces under attack.
    assert under_attack(board) == 2.0
    branching = [
        "........",
        "........",
        "........",
        "..b.b...",
        "........",
        "..b.....",
        ".w......",
        "........",
    ]
    # After taking 5,2 the man goes on over 3,2 or over 3,4: three pieces, one first hop.
    assert under_attack(branching) == 3.0
    # A man crowned by a capture stops there (American rules): the piece beyond is safe.
    crowned = [
        "........",
        "..b.b...",
        ".w......",
        "........",
        "........",
        "........",
        "........",
        "........",
    ]
    assert under_attack(crowned) == 1.0


@pytest.mark.parametrize(
    "before, after, outcome, expected",
    [
        ([2, 0, 1, 0], [1, 1, 1, 0], 0, -0.4 + 0.5),  # a man crowned: +0.1, no living reward
        ([2, 1, 2, 1], [1, 1, 0, 1], 0, -0.1),  # a man lost, two men taken: 0, so living reward
        ([2, 1, 3, 1], [1, 1, 0, 1], 0, -0.4 + 3 * 0.2),  # a man lost, three men taken
        ([1, 1, 2, 0], [1, 0, 1, 0], 0, -0.5 + 0.2),  # a king lost, a man taken
        ([1, 0, 1, 1], [1, 0, 1, 0], 0, 0.3),  # a king taken
        ([1, 0, 1, 0], [1, 0, 0, 0], 1, 500.2),  # the last man taken: a win
        ([1, 0, 1, 0], [0, 0, 1, 0], -1, -500.4),  # the last man lost: a loss
        ([3, 0, 3, 0], [3, 0, 3, 0], 1, 500.0),  # a win by blocking: no living reward
        ([3, 0, 3, 0], [3, 0, 3, 0], -1, -500.0),  # a loss by being blocked
        ([3, 0, 3, 0], [3, 0, 3, 0], 0, -0.1),  # nothing happened (also a draw): living reward
    ],
)
def test_rewards_by_hand(before, after, outcome, expected):
    value = sarsa.reward(jnp.asarray(before, jnp.float32), jnp.asarray(after, jnp.float32), outcome)
    assert float(value) == pytest.approx(expected, abs=1e-4)


def test_defaults_are_the_original_code_s():
    config = SarsaConfig()
    assert (config.alpha, config.gamma, config.epsilon, config.halve_every) == (0.01, 0.1, 0.5, 0)


@pytest.mark.slow  # its own compile of the agent; the greedy choice below is the fast sample
def test_every_legal_move_of_a_crowded_position_can_be_chosen():
    state = from_board(ENV, TRAP, player=0)
    legal = set(np.flatnonzero(state.legal_action_mask).tolist())
    assert len(legal) == 38
    explore = jax.jit(jax.vmap(sarsa.make_sarsa_agent(np.zeros(8), ENV, epsilon=1.0), (None, 0)))
    # 500 uniform draws miss one of 38 moves with probability below 38·(37/38)^500 < 10⁻⁴.
    chosen = set(np.asarray(explore(state, jax.random.split(jax.random.key(0), 500))).tolist())
    assert chosen == legal


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
    config = SarsaConfig(num_envs=8, num_steps=60)
    weights, results = train(env, random_agent, config, jax.random.key(0))
    assert np.isfinite(np.asarray(weights)).all() and np.abs(np.asarray(weights)).sum() > 0
    assert float(results.sum()) >= 1  # some games finished and were counted


def test_weights_file_round_trip_and_agent_spec(tmp_path):
    env = jaxcheckers.make("checkers", board_size=6)
    weights = np.arange(8, dtype=np.float32) - 3.5
    path = tmp_path / "w.json"
    sarsa.save_weights(path, weights, board_size=6, config=SarsaConfig())
    loaded, record = sarsa.load_weights(path)
    assert np.allclose(loaded, weights) and record["features"] == list(sarsa.FEATURE_NAMES)
    act = jax.jit(make_agent(f"sarsa:{path}", env))
    state = env.reset(jax.random.key(0))
    assert bool(state.legal_action_mask[act(state, jax.random.key(1))])
    with pytest.raises(ValueError):
        make_agent(f"sarsa:{path}", ENV)  # trained on 6×6
    with pytest.raises(ValueError):
        make_agent(f"sarsa:{tmp_path / 'missing.json'}", ENV)


@pytest.mark.parametrize(
    "change, word",
    [({"weights": [float("nan")] * 8}, "finite"), ({"feature_scale": 0}, "feature_scale")],
)
def test_weights_that_cannot_play_are_refused_when_loaded(change, word, tmp_path):
    import json

    path = tmp_path / "w.json"
    sarsa.save_weights(path, np.ones(8), board_size=8)
    record = {**json.loads(path.read_text()), **change}
    path.write_text(json.dumps(record))
    with pytest.raises(ValueError, match=word):
        make_agent(f"sarsa:{path}", jaxcheckers.make("checkers"))
