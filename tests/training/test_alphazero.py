"""The search-guided self-play trainer: the conventions of its targets and loss on scripted
games and closed-form cases, and tiny runs under jit."""

from __future__ import annotations

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jaxcheckers.training.alphazero import (
    AlphaZeroConfig,
    Batch,
    loss_terms,
    make_train,
    make_trainer,
    opening_lengths,
    record_move,
    value_targets,
)
from jaxcheckers.training.opponents import batched_autoreset_step

import jaxcheckers
from jaxcheckers.agents import make_agent, search
from tests.tictactoe.lines import lost_lines

TICTACTOE = jaxcheckers.make("tictactoe")


def test_value_targets_flip_sign_when_the_turn_passes_and_keep_it_mid_capture():
    # One game over four moves: A, B, B again (a capture goes on), then A wins (+1 to A).
    reward = jnp.array([[0.0], [0.0], [0.0], [1.0]])
    same = jnp.array([[False], [True], [False], [False]])
    ended = jnp.array([[False], [False], [False], [True]])
    z = value_targets(reward, same, ended, bootstrap=jnp.array([0.7]))
    assert z[:, 0].tolist() == [1.0, -1.0, -1.0, 1.0]  # the bootstrap is cut off by the end


def test_value_targets_bootstrap_unfinished_games_and_stop_at_game_ends():
    # Game 1 ends at t=1 with a loss for its mover (−1); a new game then runs past the end.
    reward = jnp.array([0.0, -1.0, 0.0])[:, None]
    same = jnp.zeros((3, 1), bool)
    ended = jnp.array([False, True, False])[:, None]
    z = value_targets(reward, same, ended, bootstrap=jnp.array([0.25]))
    np.testing.assert_allclose(z[:, 0], [1.0, -1.0, -0.25])


def test_each_ply_of_a_scripted_game_gets_its_movers_outcome():
    # X: 0, 1, 2 (the top row) and O: 3, 4; X wins on the fifth move. Then a new game starts
    # (auto-reset) and its first move (X at 4) is cut off by the end of the rollout.
    states = jax.vmap(TICTACTOE.reset)(jax.random.split(jax.random.key(0), 1))
    samples = []
    for ply, square in enumerate([0, 3, 1, 4, 2, 4]):
        stepped = batched_autoreset_step(
            TICTACTOE, states, jnp.int32([square]), jax.random.key(ply)
        )
        random_move = jnp.array([ply == 0])  # as if the first move had been a random opening
        samples.append(record_move(states, random_move, jnp.ones((1, 9)) / 9, stepped.final))
        states = stepped.state
    samples = jax.tree.map(lambda *x: jnp.stack(x), *samples)
    assert samples.reward[:, 0].tolist() == [0, 0, 0, 0, 1, 0]  # X's reward, on the winning move
    assert samples.ended[:, 0].tolist() == [False] * 4 + [True, False]
    assert samples.value_weight[:, 0].tolist() == [0, 1, 1, 1, 1, 1]
    assert samples.first_player_reward[:, 0].tolist() == [0, 0, 0, 0, 1, 0]
    assert samples.game_length[:, 0].tolist() == [0, 0, 0, 0, 5, 0]
    # O to move after X's 4: the bootstrap is O's view of it, so X's target is its negative.
    z = value_targets(samples.reward, samples.same_mover_next, samples.ended, jnp.array([0.25]))
    assert z[:, 0].tolist() == [1.0, -1.0, 1.0, -1.0, 1.0, -0.25]


def test_a_fresh_opening_length_only_for_games_that_started():
    started = jnp.array([True, False] * 500)
    lengths = opening_lengths(jax.random.key(0), started, jnp.full(1000, 7, jnp.int32), 4)
    assert set(np.asarray(lengths[1::2]).tolist()) == {7}
    assert set(np.asarray(lengths[::2]).tolist()) == {0, 1, 2, 3, 4}


def _constant_apply(params, observation):
    """A 'network' whose outputs are its params, to check the loss in closed form."""
    del observation
    return params["logits"], params["value"]


def test_the_loss_sees_legal_actions_only_and_no_value_of_random_moves():
    mask = jnp.array([[True, True, False], [True, True, True]])
    batch = Batch(
        observation=jnp.zeros((2, 1)),
        legal_action_mask=mask,
        policy_target=jnp.array([[0.5, 0.5, 0.0], [1.0, 0.0, 0.0]]),
        value_target=jnp.array([1.0, -1.0]),
        value_weight=jnp.array([1.0, 0.0]),  # the second move was a random opening move
    )
    params = {"logits": jnp.zeros((2, 3)), "value": jnp.array([0.5, 0.9])}
    total, (policy, value, _) = loss_terms(params, _constant_apply, batch, value_coef=2.0)
    expected_policy = (np.log(2) + np.log(3)) / 2  # uniform over 2 legal, then over 3
    np.testing.assert_allclose(policy, expected_policy, rtol=1e-6)
    np.testing.assert_allclose(value, 0.25, rtol=1e-6)  # (0.5 - 1)^2, the other left out
    np.testing.assert_allclose(total, expected_policy + 2 * 0.25, rtol=1e-6)
    # An illegal action's logit changes neither the loss nor gets a gradient.
    moved = {**params, "logits": params["logits"].at[0, 2].set(30.0)}
    assert float(loss_terms(moved, _constant_apply, batch, 2.0)[0]) == pytest.approx(float(total))
    grads = jax.grad(lambda p: loss_terms(p, _constant_apply, batch, 2.0)[0])(params)
    assert float(grads["logits"][0, 2]) == 0.0 and float(grads["value"][1]) == 0.0


@pytest.fixture(scope="module")
def tiny_run():
    config = AlphaZeroConfig(
        game="tictactoe",
        num_envs=8,
        rollout_length=4,
        total_steps=8 * 4 * 3,
        num_simulations=4,
        max_num_considered_actions=4,
        num_minibatches=2,
        hidden_sizes=(16,),
    )
    train = make_train(config)
    traced = chex.assert_max_traces(train, n=1)
    jitted = jax.jit(traced)
    return config, jitted(jax.random.key(0)), jitted


def test_a_tiny_run_trains_under_one_jit(tiny_run):
    config, (state, metrics), jitted = tiny_run
    assert int(state.update_step) == config.num_updates == 3
    assert metrics["policy_loss"].shape == (3,)
    assert np.isfinite(np.asarray(metrics["policy_loss"])).all()
    assert np.isfinite(np.asarray(metrics["value_loss"])).all()
    jitted(jax.random.key(1))  # a second seed reuses the compiled run (no retrace)


def test_the_run_changes_the_network(tiny_run):
    config, (state, _), _ = tiny_run
    start = make_trainer(config).init(jax.random.key(0))
    moved = jax.tree.map(lambda a, b: float(jnp.abs(a - b).max()), start.params, state.params)
    assert max(jax.tree.leaves(moved)) > 0


@pytest.mark.slow
def test_checkers_self_play_runs():
    config = AlphaZeroConfig(
        num_envs=4,
        rollout_length=2,
        total_steps=8,
        num_simulations=2,
        max_num_considered_actions=2,
        num_minibatches=2,
        hidden_sizes=(8,),
        env_options={"board_size": 6},
    )
    state, metrics = jax.jit(make_train(config))(jax.random.key(0))
    assert int(state.update_step) == 1
    assert state.env_state.current_player.shape == (4,)
    assert np.isfinite(np.asarray(metrics["value_loss"])).all()


@pytest.mark.slow  # the helper serves the slow test below only
def test_every_line_helper_sees_losses_only_where_there_are_some():
    perfect = make_agent("perfect", TICTACTOE)
    assert lost_lines(TICTACTOE, perfect, 0)[0] == lost_lines(TICTACTOE, perfect, 1)[0] == 0
    assert lost_lines(TICTACTOE, make_agent("random", TICTACTOE), 1)[0] > 0


@pytest.mark.slow
def test_the_quick_tictactoe_run_never_loses_a_line_with_search():
    # The tic-tac-toe target: `jaxcheckers train --algo alphazero --game tictactoe` (the quick
    # preset; a few minutes), then search with its network at 32 simulations loses no line of
    # the game tree, in either seat, whatever the other side plays.
    from jaxcheckers.training.config import preset

    config = preset("quick", "alphazero", game="tictactoe", eval_every=0)
    state, metrics = jax.jit(make_train(config))(jax.random.key(config.seed))
    network = make_trainer(config).network
    agent = search.search_agent(
        TICTACTOE, search.network_evaluator(network.apply), state.params, num_simulations=32
    )
    for seat in (0, 1):
        lost, decisions = lost_lines(TICTACTOE, agent, seat)
        assert decisions > 50 and lost == 0, (seat, lost)
    assert float(metrics["first_player_wins"][-1]) < 0.6  # 1.0 in the collapse
