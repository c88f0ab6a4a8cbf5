"""The PPO trainer: GAE against hand-computed values, the masked policy, the losses, the
trainer (opponents, checkpoint/resume, several devices) and a tiny run that learns."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jaxcheckers.training.advantages import self_play_gae
from jaxcheckers.training.checkpoints import (
    RunCheckpoints,
    initial_params,
    load_params,
    write_config,
)
from jaxcheckers.training.config import TrainConfig, config_from_json, config_to_json, preset
from jaxcheckers.training.losses import clipped_surrogate, value_loss

import jaxcheckers
from jaxcheckers.agents import policy
from jaxcheckers.agents.inference import network_options
from jaxcheckers.agents.networks import (
    make_network,
    masked_entropy,
    masked_log_prob,
    sample_action,
)
from jaxcheckers.tictactoe import TicTacToe

REPO = Path(__file__).resolve().parents[2]

# -- GAE ------------------------------------------------------------------------------------------
# One stream of five steps. Player 0 moves (t0); player 1 captures and must jump again (t1, same
# mover next), then wins with its second hop (t2, terminal +1). A new game starts: player 0 (t3),
# player 1 (t4); after t4 it is player 0's turn, whose value is the bootstrap 0.6.
VALUES = np.array([0.1, 0.2, 0.3, 0.4, 0.5], np.float32)
REWARDS = np.array([0.0, 0.0, 1.0, 0.0, 0.0], np.float32)
NEXT_VALUES = np.array([0.2, 0.3, 0.4, 0.5, 0.6], np.float32)  # v_{t+1}; the bootstrap last
SAME_MOVER = np.array([False, True, False, False, False])
TERMINATED = np.array([False, False, True, False, False])


def _gae(gamma, lam, terminated=TERMINATED, episode_end=TERMINATED, next_values=NEXT_VALUES):
    return self_play_gae(
        jnp.asarray(VALUES),
        jnp.asarray(REWARDS),
        jnp.asarray(next_values),
        jnp.asarray(SAME_MOVER),
        jnp.asarray(terminated),
        jnp.asarray(episode_end),
        gamma=gamma,
        gae_lambda=lam,
    )


def test_gae_matches_hand_computed_values_with_a_multi_jump_and_a_game_end():
    # gamma = 0.9, lambda = 0.5, so gamma * lambda = 0.45. Worked by hand, from the end:
    # t4: delta = 0 + 0.9*(-1)*0.6 - 0.5 = -1.04           A = -1.04
    # t3: delta = 0 + 0.9*(-1)*0.5 - 0.4 = -0.85           A = -0.85 + 0.45*(-1)*(-1.04) = -0.382
    # t2: delta = 1 - 0.3 = 0.7 (terminal: no bootstrap)   A = 0.7 (the trace stops here)
    # t1: delta = 0 + 0.9*(+1)*0.3 - 0.2 = 0.07 (same)     A = 0.07 + 0.45*0.7 = 0.385
    # t0: delta = 0 + 0.9*(-1)*0.2 - 0.1 = -0.28           A = -0.28 - 0.45*0.385 = -0.45325
    advantages, returns = _gae(0.9, 0.5)
    expected = np.array([-0.45325, 0.385, 0.7, -0.382, -1.04], np.float32)
    np.testing.assert_allclose(advantages, expected, atol=1e-6)
    np.testing.assert_allclose(returns, expected + VALUES, atol=1e-6)


def test_gae_with_lambda_one_gives_the_terminal_reward_to_both_players_last_moves():
    # Monte-Carlo returns: the winner's hops get +1 and +0.9 (the second hop's win, discounted
    # once to the first hop, same sign); the loser's last move t0 gets -0.9**2.
    _, returns = _gae(0.9, 1.0)
    np.testing.assert_allclose(returns[:3], [-0.81, 0.9, 1.0], atol=1e-6)


def test_gae_bootstraps_a_truncated_game_from_its_last_state_and_stops_the_trace():
    # As if the game were cut (truncated, not terminated) at t2, whose last state, player 0 to
    # move, is worth 0.25 to player 0: t2 bootstraps -0.9*0.25 and nothing flows back from t3.
    next_values = NEXT_VALUES.copy()
    next_values[2] = 0.25
    no_terminal = np.zeros(5, bool)
    advantages, _ = _gae(
        0.9, 0.5, terminated=no_terminal, episode_end=TERMINATED, next_values=next_values
    )
    assert advantages[2] == pytest.approx(1.0 - 0.9 * 0.25 - 0.3, abs=1e-6)
    assert advantages[3] == pytest.approx(-0.382, abs=1e-6)


def test_gae_handles_a_batch_dimension_like_separate_streams():
    values = jnp.stack([jnp.asarray(VALUES), jnp.asarray(VALUES[::-1])], axis=1)
    stacked = self_play_gae(
        values,
        jnp.stack([jnp.asarray(REWARDS)] * 2, axis=1),
        jnp.stack([jnp.asarray(NEXT_VALUES)] * 2, axis=1),
        jnp.stack([jnp.asarray(SAME_MOVER)] * 2, axis=1),
        jnp.stack([jnp.asarray(TERMINATED)] * 2, axis=1),
        jnp.stack([jnp.asarray(TERMINATED)] * 2, axis=1),
        gamma=0.9,
        gae_lambda=0.5,
    )[0]
    np.testing.assert_allclose(stacked[:, 0], _gae(0.9, 0.5)[0], atol=1e-6)


# -- the masked policy ----------------------------------------------------------------------------


def test_sampling_never_picks_an_illegal_action_in_100_000_draws():
    key_logits, key_mask, key_sample = jax.random.split(jax.random.PRNGKey(0), 3)
    num_actions, rows = 32, 1000
    # Large logits favour the illegal actions: masking must still win.
    logits = 50.0 * jax.random.normal(key_logits, (rows, num_actions))
    mask = jax.random.bernoulli(key_mask, 0.1, (rows, num_actions))
    mask = mask.at[:, 0].set(~mask[:, 1:].any(axis=1) | mask[:, 0])  # at least one legal action
    keys = jax.random.split(key_sample, 100)
    draws = jax.jit(jax.vmap(lambda k: sample_action(k, logits, mask)))(keys)  # [100, rows]
    assert draws.size == 10**5
    assert bool(jnp.take_along_axis(mask, draws.T, axis=1).all())


def test_masked_policy_gives_illegal_actions_no_probability_no_gradient_and_no_nan():
    logits = jnp.array([[3.0, -1.0, 2.0, 0.5], [1.0, 2.0, 3.0, 4.0]])
    mask = jnp.array([[True, False, True, False], [False, False, False, False]])

    def objective(logits):
        return (
            masked_log_prob(logits, mask, jnp.array([0, 1])).sum()
            + masked_entropy(logits, mask).sum()
        )

    value, grads = jax.value_and_grad(objective)(logits)
    assert bool(jnp.isfinite(value)) and bool(jnp.isfinite(grads).all())
    assert bool((grads[0, ~mask[0]] == 0).all())
    probs = jnp.exp(masked_log_prob(logits[:1].repeat(4, 0), mask[:1].repeat(4, 0), jnp.arange(4)))
    np.testing.assert_allclose(probs, [0.7310586, 0.0, 0.2689414, 0.0], atol=1e-6)


def test_entropy_is_over_the_legal_actions_only():
    mask = jnp.array([True, True, True, False, False])
    assert float(masked_entropy(jnp.zeros(5), mask)) == pytest.approx(np.log(3.0), abs=1e-6)


@pytest.mark.parametrize("network, shares_features", [("mlp", True), ("mlp-split", False)])
def test_the_split_network_keeps_the_value_off_the_policy_features(network, shares_features):
    model = make_network(9, (3, 3, 2), network=network, hidden_sizes=(16, 8))
    observation = jax.random.normal(jax.random.PRNGKey(0), (4, 3, 3, 2))
    params = model.init(jax.random.PRNGKey(1), observation)

    def touched_by(output: int) -> dict:  # layer name -> whether output 0/1 sends it gradient
        grads = jax.jit(jax.grad(lambda p: model.apply(p, observation)[output].sum()))(params)
        return {name: any(bool((g != 0).any()) for g in jax.tree.leaves(layer))
                for name, layer in grads["params"].items()}  # fmt: skip

    from_logits, from_value = touched_by(0), touched_by(1)
    both = [name for name in from_value if from_value[name] and from_logits[name]]
    assert bool(both) == shares_features
    assert len(params["params"]) == (4 if shares_features else 6)


# -- the losses -----------------------------------------------------------------------------------


def test_clipped_surrogate_takes_the_pessimistic_side_of_the_clip():
    # ratio 1.5 with A = +1: min(1.5, 1.2) = 1.2. ratio 0.5 with A = -1: min(-0.5, -0.8) = -0.8.
    # The loss is minus the mean of (1.2, -0.8), that is -0.2.
    loss = clipped_surrogate(
        jnp.log(jnp.array([1.5, 0.5])), jnp.zeros(2), jnp.array([1.0, -1.0]), 0.2
    )
    assert float(loss) == pytest.approx(-0.2, abs=1e-6)
    assert float(value_loss(jnp.array([1.0, 0.0]), jnp.array([0.0, 0.0]))) == pytest.approx(0.25)


# -- config ---------------------------------------------------------------------------------------


def test_config_round_trips_through_json_and_rejects_bad_values():
    config = preset("quick", env_options={"board_size": 6}, hidden_sizes=(32, 16))
    assert config_from_json(config_to_json(config)) == config
    with pytest.raises(ValueError):
        TrainConfig(num_envs=10, num_minibatches=4)
    with pytest.raises(ValueError):
        TrainConfig(lr_schedule="exponential")
    with pytest.raises(ValueError, match="mlp-split"):
        TrainConfig(network="mlp-shared")


# -- the trainer ----------------------------------------------------------------------------------

TINY = TrainConfig(
    game="tictactoe",
    num_envs=16,
    rollout_length=8,
    total_steps=16 * 8 * 4,
    num_minibatches=2,
    num_epochs=2,
    hidden_sizes=(32,),
)


@functools.cache
def _trainer(**changes):
    from jaxcheckers.training.ppo import make_trainer

    return make_trainer(TINY.replace(**changes), env=TicTacToe())


@functools.cache
def _initial_state(**changes):
    return jax.jit(_trainer(**changes).init)(jax.random.PRNGKey(3))


def test_an_update_changes_the_parameters_and_reports_finite_losses():
    trainer = _trainer()
    state = _initial_state()
    new_state, metrics = trainer.run_updates(jax.tree.map(jnp.copy, state), 1)
    assert int(new_state.update_step) == 1
    assert all(bool(jnp.isfinite(v).all()) for v in metrics.values())
    changed = jax.tree.map(lambda a, b: bool((a != b).any()), state.params, new_state.params)
    assert any(jax.tree.leaves(changed))


LEAGUE = dict(opponent_fraction=0.5, opponents=("random", "snapshot"), opponent_sampling="league")
# Fixed groups, one spec given twice: three quarters of the 16 games, 4 for each entry.
TWICE = dict(opponent_fraction=0.75, opponents=("random", "snapshot", "random"))


# The league case is the resume test's trainer, the groups case the one below: compiled once.
# The league's seats are the slow sample: a league also meets its opponents in the next test.
@pytest.mark.parametrize(
    "changes", [TWICE, pytest.param(LEAGUE, marks=pytest.mark.slow)], ids=["groups", "league"]
)
def test_opponent_games_always_hand_the_learner_its_own_seat(changes):
    # Against random or a snapshot, the learner takes seat 0 in even games, seat 1 in odd ones,
    # so after every update the opponent must have replied (or opened) in all of them.
    # From the start too: init opens the games where the opponent holds seat 0 at random.
    trainer = _trainer(**changes)
    state = jax.tree.map(jnp.copy, _initial_state(**changes))
    np.testing.assert_array_equal(np.asarray(state.env_state.current_player[:8]), np.arange(8) % 2)
    assert (np.asarray(state.env_state.step_count[:8]) == np.arange(8) % 2).all()
    for _ in range(2):
        state, metrics = trainer.run_updates(state, 1)
        players = np.asarray(state.env_state.current_player[:8])
        np.testing.assert_array_equal(players, np.arange(8) % 2)
        assert int(metrics["games"][0]) > 0


def test_fixed_groups_give_each_spec_its_share_and_a_spec_given_twice_its_own_metrics():
    trainer = _trainer(**TWICE)
    state = jax.tree.map(jnp.copy, _initial_state(**TWICE))
    _, metrics = trainer.run_updates(state, 1)  # one update a call: the seat test's compile
    shares = {k: float(v[-1]) for k, v in metrics.items() if k.startswith("share/")}
    third = pytest.approx(1 / 3)
    assert shares == {"share/random": third, "share/snapshot": third, "share/random#2": third}
    scores = {k: float(v[-1]) for k, v in metrics.items() if k.startswith("score/")}
    assert sorted(scores) == ["score/random", "score/random#2", "score/snapshot"]
    assert all(0.0 <= score <= 1.0 for score in scores.values()), scores


def test_a_league_meets_the_opponent_it_scores_worst_against_most():
    # Against random an untrained learner scores about 1/2, against the perfect player at most
    # 1/2 and mostly less; the league must shift the games towards the perfect player (fixed
    # groups keep a third each, above). It reports the running scores.
    changes = dict(opponent_fraction=1.0, opponents=("random", "perfect"), num_envs=32)
    trainer = _trainer(opponent_sampling="league", **changes)
    state = jax.jit(trainer.init)(jax.random.PRNGKey(5))
    state, metrics = trainer.run_updates(state, 6)
    scores = {spec: float(metrics[f"score/{spec}"][-1]) for spec in changes["opponents"]}
    assert scores["perfect"] < 0.5 <= scores["random"] + 0.1, scores
    assert 0.0 <= scores["perfect"] and scores["random"] <= 1.0
    total = float(metrics["share/perfect"][-1] + metrics["share/random"][-1])
    assert total == pytest.approx(1.0)
    assert float(metrics["share/perfect"][-1]) > 0.6, scores


# The league's resume is the slow sample (its own trainer to compile); a league's fast test is
# the one above.
@pytest.mark.parametrize(
    "changes", [{}, pytest.param(LEAGUE, marks=pytest.mark.slow)], ids=["self-play", "league"]
)
def test_resuming_from_a_checkpoint_gives_the_same_parameters(tmp_path, changes):
    trainer = _trainer(**changes)
    start = _initial_state(**changes)
    uninterrupted = start
    for _ in range(2):
        uninterrupted, _ = trainer.run_updates(jax.tree.map(jnp.copy, uninterrupted), 1)

    halfway, _ = trainer.run_updates(jax.tree.map(jnp.copy, start), 1)
    config = TINY.replace(**changes)
    write_config(tmp_path, config)
    checkpoints = RunCheckpoints(tmp_path)
    checkpoints.save(1, halfway)
    restored = checkpoints.restore_state(jax.tree.map(jnp.zeros_like, start))
    checkpoints.close()
    assert int(restored.update_step) == 1
    resumed, _ = trainer.run_updates(restored, 1)

    same = jax.tree.map(lambda a, b: bool((a == b).all()), uninterrupted, resumed)
    assert all(jax.tree.leaves(same))

    # The saved params also load on their own, for play and the arena.
    params, _, stored = load_params(tmp_path)
    assert stored == config
    same_params = jax.tree.map(lambda a, b: bool((a == b).all()), params, halfway.params)
    assert all(jax.tree.leaves(same_params))


def test_a_run_starts_from_another_runs_network_or_a_shipped_one(tmp_path):
    saved = _initial_state()
    write_config(tmp_path, TINY)
    checkpoints = RunCheckpoints(tmp_path)
    checkpoints.save(1, saved)
    checkpoints.close()
    started = jax.jit(_trainer(init_params=str(tmp_path), seed=5).init)(jax.random.PRNGKey(4))
    for params in (started.params, started.snapshot_params):
        assert all(jax.tree.leaves(jax.tree.map(np.array_equal, params, saved.params)))
    other = TINY.replace(init_params=str(tmp_path), hidden_sizes=(16,))
    with pytest.raises(ValueError, match="another network"):
        initial_params(other, make_network(9, (3, 3, 2), hidden_sizes=(16,)), TicTacToe())

    # A shipped network is looked up for the run's game (chess has its own "pretrained").
    shipped, _, settings = policy.load_params("pretrained", game="chess")
    shape = {"network": settings["network"], "hidden_sizes": tuple(settings["hidden_sizes"])}
    chess = TrainConfig(game="chess", init_params="pretrained", **shape)
    env = jaxcheckers.make("chess")
    network = make_network(env.num_actions, env.observation_shape, **network_options(chess))
    loaded = initial_params(chess, network, env)
    assert all(jax.tree.leaves(jax.tree.map(np.array_equal, loaded, shipped)))


FOUR_DEVICES = textwrap.dedent(
    """
    import jax, jax.numpy as jnp
    from jaxcheckers.tictactoe import TicTacToe
    from jaxcheckers.training.config import TrainConfig
    from jaxcheckers.training.ppo import make_trainer
    assert jax.device_count() == 4, jax.devices()
    config = TrainConfig(game="tictactoe", num_envs=16, rollout_length=8, total_steps=256,
                         num_minibatches=2, num_epochs=1, hidden_sizes=(32,))
    trainer = make_trainer(config, env=TicTacToe())
    state = jax.jit(trainer.init)(jax.random.PRNGKey(0))
    new_state, metrics = trainer.run_updates(jax.tree.map(jnp.copy, state), 2)
    assert len(new_state.env_state.current_player.sharding.device_set) == 4
    leaf = jax.tree.leaves(new_state.params)[0]
    assert leaf.sharding.is_fully_replicated
    assert bool(jnp.isfinite(metrics["loss"]).all())
    moved = [bool((a != b).any()) for a, b in
             zip(jax.tree.leaves(state.params), jax.tree.leaves(new_state.params))]
    assert any(moved)
    print("OK", int(metrics["games"].sum()))
    """
)


def test_training_runs_sharded_over_four_forced_cpu_devices():
    # Added to the suite's compile flags (tests/conftest.py), which replacing them would drop.
    flags = f"{os.environ.get('XLA_FLAGS', '')} --xla_force_host_platform_device_count=4"
    env = dict(os.environ, XLA_FLAGS=flags.strip(), JAX_PLATFORMS="cpu")
    result = subprocess.run(
        [sys.executable, "-c", FOUR_DEVICES],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.startswith("OK")


@pytest.mark.slow
def test_a_tiny_tictactoe_run_improves_its_win_rate_against_random():
    from jaxcheckers.training.evaluation import make_policy_evaluator, summarize
    from jaxcheckers.training.ppo import make_trainer

    from jaxcheckers.agents import make_agent

    env = TicTacToe()
    config = TINY.replace(
        num_envs=64,
        rollout_length=16,
        total_steps=64 * 16 * 60,
        num_minibatches=4,
        num_epochs=4,
        learning_rate=3e-3,
        hidden_sizes=(64,),
    )
    trainer = make_trainer(config, env=env)
    evaluate = make_policy_evaluator(env, trainer.network.apply, make_agent("random", env), 400)
    state = jax.jit(trainer.init)(jax.random.PRNGKey(0))
    before = summarize(evaluate(state.params, jax.random.PRNGKey(1)))
    state, _ = trainer.run_updates(state, config.num_updates)
    after = summarize(evaluate(state.params, jax.random.PRNGKey(1)))
    assert after.win_rate > before.win_rate + 0.1, (before, after)
    assert after.losses < before.losses
