"""Search over the env with mctx: the value signs across turns, and choices with known answers."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import mctx
import numpy as np
import pytest

import jaxcheckers
from jaxcheckers.agents.search import (
    QTRANSFORM,
    make_recurrent_fn,
    make_root,
    search_agent,
    uniform_evaluator,
)
from jaxcheckers.checkers import positions, render

CHECKERS = jaxcheckers.make("checkers")
# Black to move must capture. b on 9 can take both white men in a double jump and win at once;
# b on 19 can take one, and then white's man on 14 takes back.
DOUBLE_JUMP_WINS = [
    "........",
    "........",
    ".b......",
    "..w.....",
    ".....b..",
    "....w...",
    "........",
    "........",
]


def hops(state) -> dict[str, int]:
    return {text: action for action, text in render.legal_moves(state)}


def batch(state):
    return jax.tree.map(lambda x: jnp.asarray(x)[None], state)


def test_the_discount_keeps_the_sign_mid_capture_and_flips_it_when_the_turn_passes():
    state = positions.from_board(CHECKERS, DOUBLE_JUMP_WINS, player=0)
    legal = hops(state)
    assert set(legal) == {"9x18", "19x26"}
    recurrent_fn = make_recurrent_fn(CHECKERS, uniform_evaluator(CHECKERS.num_actions))
    for move, discount in (("9x18", 1.0), ("19x26", -1.0)):
        output, after = recurrent_fn(None, None, jnp.int32([legal[move]]), batch(state))
        assert float(output.discount[0]) == discount, move
        assert float(output.reward[0]) == 0.0
    # The second hop of the double jump ends the game: reward +1 to its mover, discount 0.
    after = CHECKERS.step(state, legal["9x18"])
    (last,) = hops(after).values()
    output, _ = recurrent_fn(None, None, jnp.int32([last]), batch(after))
    assert (float(output.reward[0]), float(output.discount[0])) == (1.0, 0.0)


def test_search_starts_the_capture_that_wins_two_hops_later():
    state = positions.from_board(CHECKERS, DOUBLE_JUMP_WINS, player=0)
    agent = search_agent(
        CHECKERS, uniform_evaluator(CHECKERS.num_actions), None, num_simulations=16
    )
    action = int(jax.jit(agent)(state, jax.random.key(0)))
    assert action == hops(state)["9x18"]


TICTACTOE = jaxcheckers.make("tictactoe")


def tictactoe_after(moves):
    state = TICTACTOE.reset(jax.random.key(0))
    for move in moves:
        state = TICTACTOE.step(state, move)
    return state


@pytest.mark.parametrize(
    "moves, best",
    [
        ([0, 3, 1, 4], 2),  # X (to move) completes the top row
        ([0, 4, 1], 2),  # O (to move) must block the top row
        ([4, 0, 8, 2], 1),  # O completes the top row rather than block X's 4-8 diagonal
    ],
)
def test_search_finds_the_forced_tictactoe_move(moves, best):
    state = tictactoe_after(moves)
    assert bool(np.asarray(state.legal_action_mask)[best])
    agent = search_agent(
        TICTACTOE, uniform_evaluator(TICTACTOE.num_actions), None, num_simulations=128
    )
    assert int(jax.jit(agent)(state, jax.random.key(1))) == best


def _root_search(state, num_simulations: int):
    """mctx's Gumbel MuZero search with flat priors from `state`: its output and summary."""
    evaluate = uniform_evaluator(TICTACTOE.num_actions)
    states = batch(state)
    output = mctx.gumbel_muzero_policy(
        None,
        jax.random.key(0),
        make_root(evaluate, None, states),
        make_recurrent_fn(TICTACTOE, evaluate),
        num_simulations=num_simulations,
        invalid_actions=~states.legal_action_mask,
        gumbel_scale=0.0,
        qtransform=QTRANSFORM,
    )
    return output, output.search_tree.summary()


def test_a_win_in_one_is_worth_one_to_the_mover_at_the_root():
    # X (to move) completes the top row with 2.
    output, summary = _root_search(tictactoe_after([0, 3, 1, 4]), 32)
    assert float(summary.qvalues[0, 2]) == 1.0
    assert int(output.action[0]) == 2
    assert int(np.argmax(output.action_weights[0])) == 2


def test_a_lost_position_is_worth_minus_one_to_the_mover_at_the_root():
    # X: 0, 1, 3 threatens 2 and 6; O (to move, on 4 and 8) blocks one, and X wins at the other.
    state = tictactoe_after([0, 4, 1, 8, 3])
    _, summary = _root_search(state, 64)
    visited = np.asarray(summary.visit_counts[0]) > 0
    assert visited.sum() == int(state.legal_action_mask.sum()) == 4
    # Each q is a mean over its visits, the first of which (before X's win was found) saw 0.
    assert (np.asarray(summary.qvalues[0])[visited] < -0.5).all()
    assert float(summary.value[0]) < -0.5


def test_nearly_equal_values_leave_the_improved_policy_near_the_prior():
    # The value net of the collapse: X wins from everywhere (0.95 for X to move, -0.95 for O),
    # give or take 0.001. O's Q-values are then all about -0.95, and the search's policy must
    # stay near the flat prior, not follow the noise (as min-max rescaled Q-values would,
    # stretching 0.001 to the whole range).
    def evaluate(params, states):
        del params
        noise = 0.001 * jnp.sin(states.board.astype(jnp.float32) @ jnp.arange(1.0, 10.0))
        value = jnp.where(states.current_player == 0, 0.95, -0.95) + noise
        return jnp.zeros((states.board.shape[0], 9)), value

    states = batch(tictactoe_after([4]))
    output = mctx.gumbel_muzero_policy(
        None,
        jax.random.key(0),
        make_root(evaluate, None, states),
        make_recurrent_fn(TICTACTOE, evaluate),
        num_simulations=32,
        invalid_actions=~states.legal_action_mask,
        qtransform=QTRANSFORM,
    )
    weights = np.asarray(output.action_weights[0])[np.asarray(states.legal_action_mask[0])]
    assert weights.max() / weights.min() < 1.1


@pytest.mark.slow  # compiling a chess search takes minutes on two cores
def test_an_alphazero_self_play_step_runs_on_chess():
    """pgx's AlphaZero example's step, on chess: a batch of searches with this module's
    recurrent_fn, then every game stepped with the action searched; the policy targets cover
    the legal moves only."""
    chess = jaxcheckers.make("chess")
    evaluate = uniform_evaluator(chess.num_actions)
    recurrent_fn = make_recurrent_fn(chess, evaluate)

    @jax.jit
    def self_play_step(states, key):
        output = mctx.gumbel_muzero_policy(
            None,
            key,
            make_root(evaluate, None, states),
            recurrent_fn,
            num_simulations=8,
            invalid_actions=~states.legal_action_mask,
            qtransform=QTRANSFORM,
            gumbel_scale=1.0,
        )
        return jax.vmap(chess.step)(states, output.action), output

    states = jax.vmap(chess.reset)(jax.random.split(jax.random.key(0), 2))
    after, output = self_play_step(states, jax.random.key(1))
    legal = np.asarray(states.legal_action_mask)
    actions = np.asarray(output.action)
    assert legal[np.arange(2), actions].all()
    weights = np.asarray(output.action_weights)
    np.testing.assert_allclose(weights.sum(-1), 1.0, rtol=1e-5)
    assert (weights[~legal] == 0).all()
    np.testing.assert_array_equal(after.current_player, 1)
    assert not bool(after.terminated.any())
