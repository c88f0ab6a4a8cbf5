"""Both self-play trainers on international draughts: a tiny PPO run and a tiny AlphaZero (mctx)
run, each of whose updates changes the network with finite losses, and whose network then plays
draughts in `arena` through the shared agents. Slow (each compiles the draughts step into a
trainer); the trainers' fast samples run on tic-tac-toe and checkers in tests/training."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytest.importorskip("flax")
pytest.importorskip("mctx")

from jaxcheckers.training import alphazero, ppo  # noqa: E402
from jaxcheckers.training.config import AlphaZeroConfig, TrainConfig  # noqa: E402

from jaxcheckers.cli import main  # noqa: E402

pytestmark = pytest.mark.slow

PPO = TrainConfig(
    game="draughts", num_envs=8, rollout_length=4, total_steps=64, num_minibatches=2,
    hidden_sizes=(16,), eval_every=0,
)  # fmt: skip
ALPHAZERO = AlphaZeroConfig(
    game="draughts", num_envs=4, rollout_length=2, total_steps=16, num_simulations=2,
    max_num_considered_actions=2, num_minibatches=2, hidden_sizes=(8,), eval_every=0,
)  # fmt: skip


def _changed(before, after) -> bool:
    moved = jax.tree.map(lambda a, b: bool((a != b).any()), before, after)
    return any(jax.tree.leaves(moved))


def test_a_ppo_update_on_draughts_changes_the_network_with_finite_losses():
    trainer = ppo.make_trainer(PPO)
    state = jax.jit(trainer.init)(jax.random.key(0))
    new_state, metrics = trainer.run_updates(jax.tree.map(jnp.copy, state), 1)
    assert int(new_state.update_step) == 1
    assert all(bool(jnp.isfinite(v).all()) for v in metrics.values())
    assert _changed(state.params, new_state.params)


def test_alphazero_self_play_on_draughts_runs_and_learns():
    start = alphazero.make_trainer(ALPHAZERO).init(jax.random.key(0))
    state, metrics = jax.jit(alphazero.make_train(ALPHAZERO))(jax.random.key(0))
    assert int(state.update_step) == ALPHAZERO.num_updates == 2
    assert state.env_state.board.shape == (4, 50)  # four games of 10×10 international draughts
    assert np.isfinite(np.asarray(metrics["value_loss"])).all()
    assert _changed(start.params, state.params)


def test_a_network_trained_on_draughts_plays_it_in_arena(tmp_path, capsys):
    run = tmp_path / "run"
    flags = ["--game", "draughts", "--num-envs", "8", "--rollout-length", "4"]
    common = ["--eval-every", "0", "--no-progress", "--out", str(run)]
    assert main(["train", *flags, "--total-steps", "64", *common]) == 0
    capsys.readouterr()
    arena = ["arena", "--game", "draughts", f"ppo:{run}", "random", "--games", "2", "--json"]
    assert main(arena) == 0
    assert '"games": 2' in capsys.readouterr().out
