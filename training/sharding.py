"""How both trainers lay their work over devices: the games along a 1-D mesh axis "data".

The batch of games (and everything recorded per game) is sharded over "data"; parameters,
optimizer state, PRNG keys and metrics are replicated, so that every process reads them locally.
A loss that averages over the whole batch then makes XLA all-reduce the gradients. Minibatches
are shuffled within each device's own games, so the shuffle moves no data between devices.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

__all__ = [
    "DATA_AXIS",
    "data_mesh",
    "Layout",
    "device_minibatches",
    "jitted_updates",
    "whole_run",
]

DATA_AXIS = "data"


def data_mesh(devices=None) -> Mesh:
    """A 1-D mesh named "data" over `devices` (default: every device of every process; one
    process alone: its local devices)."""
    devices = jax.devices() if devices is None else devices
    return Mesh(np.asarray(devices), (DATA_AXIS,))


class Layout:
    """Sharding constraints over `mesh`, for use inside `jit`."""

    def __init__(self, mesh: Mesh):
        self.mesh = mesh
        self.num_devices = mesh.devices.size
        self.batch = NamedSharding(mesh, PartitionSpec(DATA_AXIS))
        self.replicated = NamedSharding(mesh, PartitionSpec())

    def shard(self, tree: Any) -> Any:
        """Every leaf split along its first axis (the games) over the devices."""
        return jax.tree.map(lambda x: jax.lax.with_sharding_constraint(x, self.batch), tree)

    def replicate(self, tree: Any) -> Any:
        """Every leaf whole on every device."""
        return jax.tree.map(lambda x: jax.lax.with_sharding_constraint(x, self.replicated), tree)

    def replicate_all_but(self, state: Any, sharded: tuple[str, ...]) -> Any:
        """A NamedTuple `state` with its fields replicated, except those named in `sharded`."""
        return type(state)(
            **{
                name: value if name in sharded else self.replicate(value)
                for name, value in state._asdict().items()
            }
        )


def device_minibatches(batch: Any, key: jax.Array, num_devices: int, num_minibatches: int) -> Any:
    """[M, N/M, ...] minibatches of `batch` [T, B, ...] (every leaf), shuffled within each
    device's games: device d's rows of every minibatch come from its own B/D games."""

    def split(x):
        steps, games = x.shape[:2]
        per_device = games // num_devices * steps
        minibatch = per_device // num_minibatches
        x = jnp.swapaxes(x, 0, 1)  # [B, T, ...]: games first, so devices own whole rows
        x = x.reshape(num_devices, per_device, *x.shape[2:])
        x = jnp.take(x, jax.random.permutation(key, per_device), axis=1)
        x = x.reshape(num_devices, num_minibatches, minibatch, *x.shape[2:])
        x = jnp.swapaxes(x, 0, 1)  # [M, D, N/(M D), ...]
        return x.reshape(num_minibatches, num_devices * minibatch, *x.shape[3:])

    return jax.tree.map(split, batch)


def jitted_updates(update: Callable, layout: Layout, sharded: tuple[str, ...]) -> Callable:
    """`run_updates(state, n) -> (state, metrics stacked [n])`: n calls of `update(state) ->
    (state, metrics)` in one jitted scan (n static, the state donated); the state's fields
    but `sharded` and the metrics come back replicated."""

    def run_updates(train_state, num_updates: int):
        train_state, metrics = jax.lax.scan(lambda s, _: update(s), train_state, None, num_updates)
        return layout.replicate_all_but(train_state, sharded), layout.replicate(metrics)

    return jax.jit(run_updates, static_argnums=1, donate_argnums=0)


def whole_run(trainer: Any, num_updates: int) -> Callable:
    """`train(key) -> (TrainState, metrics stacked over the updates)`: a trainer's whole run,
    `num_updates` calls of its `update` from its `init(key)`, pure and jittable."""

    def train(key: jax.Array):
        return jax.lax.scan(lambda s, _: trainer.update(s), trainer.init(key), None, num_updates)

    return train
