"""The one interface both trainers keep, and the trainer a config is for.

    trainer = make_trainer(config, mesh=mesh)     # PPO, AlphaZero or distillation, by its class
    state = jax.jit(trainer.init)(key)
    state, metrics = trainer.run_updates(state, 10)

`jaxcheckers train`, the evaluations and the checkpoints see a trainer only through `Trainer`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from jax.sharding import Mesh
from jaxcheckers.training import alphazero, distill, ppo
from jaxcheckers.training.config import algorithm_of

__all__ = ["Trainer", "make_trainer", "TRAINERS"]


class Trainer(Protocol):
    """What every trainer's `make_trainer(config, env=None, mesh=None)` returns."""

    config: Any  # its config (training.config: TrainConfig, AlphaZeroConfig)
    env: Any  # the env it trains on
    network: Any  # the flax module whose params it trains
    mesh: Mesh  # the devices its batch is sharded over
    init: Callable  # key -> TrainState
    update: Callable  # TrainState -> (TrainState, metrics)   (not jitted)
    run_updates: Callable  # (TrainState, n) -> (TrainState, metrics stacked [n])   (jitted)


# config.ALGORITHMS' names -> the function that builds that trainer.
TRAINERS: dict[str, Callable[..., Trainer]] = {
    "ppo": ppo.make_trainer,
    "alphazero": alphazero.make_trainer,
    "distill": distill.make_trainer,
}


def make_trainer(config: Any, env=None, mesh: Mesh | None = None) -> Trainer:
    """The trainer `config` is for (by its class), built for `env` (default: the config's)."""
    return TRAINERS[algorithm_of(config)](config, env=env, mesh=mesh)
