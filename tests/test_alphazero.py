"""The search-guided self-play trainer: value targets in closed form, and a tiny run under jit."""

from __future__ import annotations

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jaxcheckers.training.alphazero import AlphaZeroConfig, make_train, value_targets


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
    from jaxcheckers.training.alphazero import make_trainer

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
