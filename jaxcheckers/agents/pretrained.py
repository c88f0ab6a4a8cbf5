"""The policy that ships with the package, so `ppo:pretrained` plays right after install.

    jaxcheckers play --white ppo:pretrained        # or mcts:pretrained, its network with search

The files in `pretrained/` are a run's network parameters (flax msgpack) and the run's settings
(the game, its options and the network's shape, JSON); reading them needs flax only. They are
written by `export(run_dir)` from a `jaxcheckers train` run (README, "A policy that ships").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp

__all__ = ["NAME", "load", "export"]

NAME = "pretrained"
DIRECTORY = Path(__file__).parent / "pretrained"
PARAMS_FILE, SETTINGS_FILE = "checkers.msgpack", "checkers.json"


def load(directory: Path = DIRECTORY) -> tuple[Any, Any, dict]:
    """(params, network, settings) of the shipped policy."""
    from flax import serialization

    import jaxcheckers
    from jaxcheckers.agents.networks import make_network
    from jaxcheckers.agents.policy import network_options

    settings = json.loads((directory / SETTINGS_FILE).read_text())
    env = jaxcheckers.make(settings["game"], **settings.get("env_options", {}))
    network = make_network(
        env.num_actions, tuple(env.observation_shape), **network_options(settings)
    )
    dummy = jnp.zeros((1, *env.observation_shape), jnp.float32)
    template = jax.eval_shape(network.init, jax.random.PRNGKey(0), dummy)
    template = jax.tree.map(lambda x: jnp.zeros(x.shape, x.dtype), template)
    params = serialization.from_bytes(template, (directory / PARAMS_FILE).read_bytes())
    return params, network, settings


def export(run_dir: str | Path, directory: Path = DIRECTORY) -> Path:
    """Writes the latest (verified) params of `run_dir` as the shipped policy; returns the dir."""
    from flax import serialization

    from jaxcheckers.agents.policy import load_params

    params, _, settings = load_params(run_dir)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / PARAMS_FILE).write_bytes(serialization.to_bytes(params))
    keep = ("game", "env_options", "network", "hidden_sizes", "conv_channels", "conv_blocks")
    shipped = {key: settings[key] for key in keep if key in settings}
    (directory / SETTINGS_FILE).write_text(json.dumps(shipped, indent=2, sort_keys=True) + "\n")
    return directory
