"""Checkpoints with orbax: the whole TrainState (to resume exactly) and the params (to play).

A run directory holds `config.json` (the TrainConfig) and `checkpoints/<update>/` with two items:
"state" (params, optimizer state, games in progress, PRNG key, update count, snapshot) and
"params" (the network parameters alone, what `load_policy` reads).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orbax.checkpoint as ocp
from jaxcheckers.training.config import TrainConfig, config_from_json, config_to_json

from jaxcheckers.agents import policy
from jaxcheckers.agents.policy import CHECKPOINT_DIR, CONFIG_FILE, find_run_dir

__all__ = ["RunCheckpoints", "write_config", "read_config", "find_run_dir", "load_params"]


def write_config(run_dir: str | Path, config: TrainConfig) -> None:
    path = Path(run_dir)
    path.mkdir(parents=True, exist_ok=True)
    (path / CONFIG_FILE).write_text(config_to_json(config) + "\n")


def read_config(run_dir: str | Path) -> TrainConfig:
    return config_from_json((Path(run_dir) / CONFIG_FILE).read_text())


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
    params, network, _ = policy.load_params(path)
    run_dir, _ = find_run_dir(path)
    return params, network, read_config(run_dir)
