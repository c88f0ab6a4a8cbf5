"""Checkpoints with orbax: the whole TrainState (to resume exactly) and the params (to play).

A run directory holds `config.json` (the TrainConfig) and `checkpoints/<update>/` with two items:
"state" (params, optimizer state, games in progress, PRNG key, update count, snapshot) and
"params" (the network parameters alone, what `load_policy` reads).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jax
import orbax.checkpoint as ocp

from training.config import TrainConfig, config_from_json, config_to_json

__all__ = ["RunCheckpoints", "write_config", "read_config", "find_run_dir", "load_params"]

CONFIG_FILE = "config.json"
CHECKPOINT_DIR = "checkpoints"


def write_config(run_dir: str | Path, config: TrainConfig) -> None:
    path = Path(run_dir)
    path.mkdir(parents=True, exist_ok=True)
    (path / CONFIG_FILE).write_text(config_to_json(config) + "\n")


def read_config(run_dir: str | Path) -> TrainConfig:
    return config_from_json((Path(run_dir) / CONFIG_FILE).read_text())


def find_run_dir(path: str | Path) -> tuple[Path, int | None]:
    """(run directory, checkpoint step or None for the latest) for a run or checkpoint path."""
    path = Path(path).resolve()
    if (path / CONFIG_FILE).exists():
        return path, None
    if path.parent.name == CHECKPOINT_DIR and (path.parent.parent / CONFIG_FILE).exists():
        return path.parent.parent, int(path.name)
    raise FileNotFoundError(
        f"{path} is neither a training run directory nor one of its checkpoints"
    )


class RunCheckpoints:
    """Saves and restores the checkpoints of one run directory."""

    def __init__(self, run_dir: str | Path, max_to_keep: int = 3):
        directory = Path(run_dir).resolve() / CHECKPOINT_DIR
        self.manager = ocp.CheckpointManager(
            directory,
            options=ocp.CheckpointManagerOptions(max_to_keep=max_to_keep, create=True),
        )

    def save(self, step: int, train_state: Any) -> None:
        self.manager.save(
            int(step),
            args=ocp.args.Composite(
                state=ocp.args.StandardSave(train_state),
                params=ocp.args.StandardSave(train_state.params),
            ),
            force=True,
        )
        self.manager.wait_until_finished()

    def latest_step(self) -> int | None:
        return self.manager.latest_step()

    def restore_state(self, template: Any, step: int | None = None) -> Any:
        """The TrainState saved at `step` (latest by default), laid out like `template`."""
        step = self.latest_step() if step is None else step
        if step is None:
            raise FileNotFoundError("no checkpoint to resume from")
        restored = self.manager.restore(
            step, args=ocp.args.Composite(state=ocp.args.StandardRestore(template))
        )
        return type(template)(*restored["state"])

    def restore_params(self, template: Any, step: int | None = None) -> Any:
        step = self.latest_step() if step is None else step
        if step is None:
            raise FileNotFoundError("no checkpoint in this run")
        restored = self.manager.restore(
            step, args=ocp.args.Composite(params=ocp.args.StandardRestore(template))
        )
        return restored["params"]

    def close(self) -> None:
        self.manager.close()


def load_params(path: str | Path):
    """(params, network, config) of the checkpoint at `path` (a run dir or a checkpoint dir)."""
    from training.networks import make_network
    from training.ppo import make_env

    run_dir, step = find_run_dir(path)
    config = read_config(run_dir)
    env = make_env(config)
    network = make_network(config, env.num_actions, tuple(env.observation_shape))
    dummy = jax.numpy.zeros((1, *env.observation_shape), jax.numpy.float32)
    template = jax.eval_shape(network.init, jax.random.PRNGKey(0), dummy)
    checkpoints = RunCheckpoints(run_dir)
    try:
        params = checkpoints.restore_params(template, step)
    finally:
        checkpoints.close()
    return params, network, config
