"""The distillation trainer (`training/distill.py`): its targets and loss in closed form, its
settings, and a few updates on draughts (and, with the slow tests, chess) with the depth-1
alpha-beta as the teacher."""

from __future__ import annotations

import argparse
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jaxcheckers.training import distill
from jaxcheckers.training.cli import add_arguments, config_from_args
from jaxcheckers.training.config import DistillConfig, config_from_json, config_to_json

from jaxcheckers.bits import unpack_mask

NEG = -1_000_000  # the teacher's score of an illegal move


def test_the_targets_are_every_best_legal_move_and_the_squashed_best_score():
    values = jnp.array([[3, 1, 3, 7, NEG], [NEG, NEG, NEG, NEG, NEG], [-2, -5, NEG, NEG, NEG]])
    legal = jnp.array(
        [[True, True, True, False, False], [False] * 5, [True, True, False, False, False]]
    )  # 7 scores an illegal move: not a target
    best, value = distill.teacher_targets(values, legal, 3.0)
    np.testing.assert_array_equal(
        best,
        [[True, False, True, False, False], [False] * 5, [True, False, False, False, False]],
    )
    np.testing.assert_allclose(value, [math.tanh(1.0), 0.0, math.tanh(-2 / 3)], rtol=1e-6)
    mate, _ = distill.teacher_targets(jnp.array([10_001, 5]), jnp.array([True, True]), 3.0)
    assert distill.teacher_targets(jnp.array([10_001, 5]), jnp.array([True, True]), 3.0)[1] == 1.0
    np.testing.assert_array_equal(mate, [True, False])


def test_the_loss_is_the_cross_entropy_to_the_best_moves_and_the_value_error():
    logits = jnp.array([[0.0, 0.0, 0.0, 0.0, 5.0], [2.0, 0.0, 0.0, 0.0, 0.0]])
    values = jnp.array([0.5, -0.5])

    def apply(params, observation):
        return logits * params, values

    batch = distill.Batch(
        observation=jnp.zeros((2, 1)),
        legal_action_mask=jnp.array(
            [[True, True, True, True, False], [True, True, False, False, False]]
        ),
        best=jnp.array([[True, True, False, False, False], [False, True, False, False, False]]),
        value=jnp.array([1.0, -0.5]),
    )
    total, (policy, value, entropy, accuracy) = distill.loss_terms(1.0, apply, batch, 0.5)
    # Game 0: four legal moves of equal logits (the illegal 5.0 is masked), two best: log 4.
    # Game 1: p(1) = 1 / (e^2 + 1).
    expected_policy = (math.log(4) + math.log(math.e**2 + 1)) / 2
    assert float(policy) == pytest.approx(expected_policy, rel=1e-5)
    assert float(value) == pytest.approx((0.25 + 0.0) / 2)
    assert float(total) == pytest.approx(expected_policy + 0.5 * 0.125, rel=1e-5)
    p = 1 / (math.e**2 + 1)
    game1 = -(p * math.log(p) + (1 - p) * math.log(1 - p))
    assert float(entropy) == pytest.approx((math.log(4) + game1) / 2, rel=1e-5)
    # Greedy: game 0 takes move 0 (first of the ties: a best move), game 1 move 0 (not best).
    assert float(accuracy) == 0.5


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"player_weights": (1.0, 0.0)}, "player_weights"),
        ({"player_weights": (0.0, 0.0, 0.0)}, "player_weights"),
        ({"player_weights": (1.0, -1.0, 1.0)}, "player_weights"),
        ({"random_move_prob": 1.5}, "random_move_prob"),
        ({"teacher": ""}, "teacher"),
        ({"buffer_size": 0}, "buffer_size"),
    ],
)
def test_bad_settings_are_refused(changes, message):
    with pytest.raises(ValueError, match=message):
        DistillConfig(**changes)


def test_the_settings_survive_json():
    config = DistillConfig(player_weights=(0.5, 0.25, 0.25), teacher="alphabeta:1")
    assert config_from_json(config_to_json(config)) == config


TINY = DistillConfig(
    teacher="alphabeta:1",
    num_envs=4,
    rollout_length=2,
    total_steps=24,
    buffer_size=16,
    batch_size=8,
    gradient_steps=2,
    hidden_sizes=(8,),
    opening_plies=1,
    eval_every=0,
)


def test_a_buffer_that_is_not_a_multiple_of_an_update_is_refused():
    with pytest.raises(ValueError, match="multiple"):
        distill.make_trainer(TINY.replace(buffer_size=12))
    with pytest.raises(ValueError, match="scores no moves"):
        distill.make_trainer(TINY.replace(teacher="random"))


# The trainer is game-neutral: tic-tac-toe's perfect player teaches the fast sample (it compiles
# in a second), draughts' and chess's alpha-beta the slow ones.
@pytest.mark.parametrize(
    "game, teacher, network",
    [
        ("tictactoe", "perfect", "mlp"),
        pytest.param("draughts", "alphabeta:1", "mlp", marks=pytest.mark.slow),
        pytest.param("chess", "alphabeta:1", "mlp-tactical", marks=pytest.mark.slow),
    ],
)
def test_updates_fill_the_buffer_with_legal_targets_and_learn(game, teacher, network):
    config = TINY.replace(game=game, teacher=teacher, network=network, opening_plies=0)
    trainer = distill.make_trainer(config)
    state = jax.jit(trainer.init)(jax.random.key(0))
    state, metrics = trainer.run_updates(state, 3)  # 24 positions into a ring of 16
    assert metrics["update"].tolist() == [1, 2, 3]
    assert metrics["buffer"].tolist() == [8, 16, 16]
    assert np.isfinite(metrics["loss"]).all()
    buffer = jax.device_get(state.buffer)
    legal = np.asarray(unpack_mask(buffer.legal, trainer.env.num_actions))
    best = np.asarray(unpack_mask(buffer.best, trainer.env.num_actions))
    assert (best <= legal).all() and best.any(axis=1).all()  # every position has a best move
    assert (np.abs(buffer.value) <= 1).all()
    # The observations stored are the positions': tic-tac-toe's legal moves are the empty
    # squares of the board stored with them; in the other games the mover has pieces in each.
    if game == "tictactoe":
        assert (legal == ~buffer.observation.reshape(16, 9, 2).any(axis=-1)).all()
    else:
        assert buffer.observation.reshape(16, -1).any(axis=1).all()
    # The student's parameters moved.
    fresh = jax.jit(trainer.init)(jax.random.key(0)).params
    moved = jax.tree.map(lambda a, b: float(jnp.abs(a - b).max()), fresh, state.params)
    assert max(jax.tree.leaves(moved)) > 0


@pytest.mark.slow  # compiles a second chess trainer, its parameters baked in
def test_the_student_can_start_from_another_runs_network(tmp_path):
    from jaxcheckers.training.checkpoints import RunCheckpoints, write_config

    trainer = distill.make_trainer(TINY)
    state = jax.jit(trainer.init)(jax.random.key(1))
    write_config(tmp_path, TINY)
    checkpoints = RunCheckpoints(tmp_path)
    checkpoints.save(1, state)
    checkpoints.close()
    started = distill.make_trainer(TINY.replace(init_params=str(tmp_path), seed=5))
    params = jax.jit(started.init)(jax.random.key(2)).params
    assert jax.tree.all(jax.tree.map(np.array_equal, params, state.params))
    with pytest.raises(ValueError, match="another network"):
        distill.make_trainer(TINY.replace(init_params=str(tmp_path), hidden_sizes=(16,)))


def test_the_seats_weights_come_from_the_command_line():
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--algo", "distill", "--player-weights", "0.1,0.6,0.3"])
    assert config_from_args(args).player_weights == (0.1, 0.6, 0.3)
    with pytest.raises(SystemExit):
        parser.parse_args(["--player-weights", "0.1,-1,0.3"])
