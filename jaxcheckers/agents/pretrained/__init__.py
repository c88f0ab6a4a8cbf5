"""The networks that ship with the package, so trained players play right after install.

    jaxcheckers play --white ppo:pretrained        # the PPO policy, no search
    jaxcheckers play --white mcts:pretrained       # the AlphaZero network with search

Two checkers networks: `pretrained`, a PPO run's policy (the better raw policy), and
`pretrained-alphazero`, an AlphaZero run's network (the better one to search with);
`mcts:pretrained` searches with the second (search needs mctx, the `training` extra). Each is a
run's network parameters (<stem>.msgpack, flax's msgpack layout) and the run's settings
(<stem>.json: the trainer, the game, its options and the network's shape). Reading and playing
them needs jax, numpy and msgpack only (`jaxcheckers.agents.inference` applies the network).
They are written by `jaxcheckers.training.checkpoints.export_network(run_dir, name)` from a
`jaxcheckers train` run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jax.numpy as jnp
import msgpack
import numpy as np

from jaxcheckers.agents.inference import PlainNetwork, plain_network

__all__ = ["NAME", "SEARCH_NAME", "NAMES", "DIRECTORY", "load", "read_params"]

NAME = "pretrained"
SEARCH_NAME = "pretrained-alphazero"
DIRECTORY = Path(__file__).parent
# name -> file stem in DIRECTORY (<stem>.msgpack: the params, <stem>.json: the settings)
NAMES = {NAME: "checkers", SEARCH_NAME: "checkers-alphazero"}

_NDARRAY = 1  # flax.serialization's msgpack extension code for an array


def load(name: str = NAME, directory: Path = DIRECTORY) -> tuple[Any, PlainNetwork, dict]:
    """(params, network, settings) of the shipped network called `name`: the network as a
    `PlainNetwork` (`network.apply(params, observation)`), built from the settings beside the
    params for the game they name. ValueError (one line) if the two files do not fit."""
    stem = NAMES[name]
    settings = json.loads((Path(directory) / f"{stem}.json").read_text())
    network, env = plain_network(settings)
    path = Path(directory) / f"{stem}.msgpack"
    params = read_params(path)
    try:
        network.check(params, tuple(env.observation_shape), env.num_actions)
    except ValueError as error:
        raise ValueError(f"{path} does not fit {stem}.json: {error}") from None
    return params, network, settings


def read_params(path: str | Path) -> Any:
    """The params tree saved by `flax.serialization.to_bytes` at `path`: nested dicts of numpy
    arrays, as `flax.serialization.msgpack_restore` reads them, without flax."""

    def array(code: int, data: bytes) -> Any:
        if code != _NDARRAY:
            raise ValueError(f"{path} holds a msgpack extension ({code}) that is not an array")
        shape, dtype, buffer = msgpack.unpackb(data, raw=True)
        return np.frombuffer(buffer, dtype=jnp.dtype(dtype.decode())).reshape(shape, order="C")

    try:
        return msgpack.unpackb(
            Path(path).read_bytes(), ext_hook=array, raw=False, strict_map_key=False
        )
    except (msgpack.UnpackException, ValueError, TypeError) as error:
        raise ValueError(f"{path} is not a params file: {error}") from None
