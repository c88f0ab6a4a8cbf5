"""The networks that ship with the package, so trained players play right after install.

    jaxcheckers play --white ppo:pretrained        # the PPO policy, no search
    jaxcheckers play --white mcts:pretrained       # the AlphaZero network with search

Two checkers networks: `pretrained`, a PPO run's policy (the better raw policy), and
`pretrained-alphazero`, an AlphaZero run's network (the better one to search with);
`mcts:pretrained` searches with the second. Each is a run's network parameters (flax msgpack) and
the run's settings (the trainer, the game, its options and the network's shape, JSON); reading
them needs flax only. They are written by `jaxcheckers.training.checkpoints.export_network(run_dir,
name)` from a `jaxcheckers train` run (README, "Trained players that ship").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
from flax import serialization

from jaxcheckers.agents.networks import network_for

__all__ = ["NAME", "SEARCH_NAME", "NAMES", "DIRECTORY", "load"]

NAME = "pretrained"
SEARCH_NAME = "pretrained-alphazero"
DIRECTORY = Path(__file__).parent
# name -> file stem in DIRECTORY (<stem>.msgpack: the params, <stem>.json: the settings)
NAMES = {NAME: "checkers", SEARCH_NAME: "checkers-alphazero"}


def load(name: str = NAME, directory: Path = DIRECTORY) -> tuple[Any, Any, dict]:
    """(params, network, settings) of the shipped network called `name`."""
    stem = NAMES[name]
    settings = json.loads((directory / f"{stem}.json").read_text())
    network, shapes = network_for(settings)
    template = jax.tree.map(lambda x: jnp.zeros(x.shape, x.dtype), shapes)
    params = serialization.from_bytes(template, (directory / f"{stem}.msgpack").read_bytes())
    return params, network, settings
