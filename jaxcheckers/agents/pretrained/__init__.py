"""The networks that ship with the package, so trained players play right after install.

    jaxcheckers play --white ppo:pretrained        # the PPO policy, no search
    jaxcheckers play --white mcts:pretrained       # the AlphaZero network with search

Two checkers networks: `pretrained`, a PPO run's policy (the better raw policy), and
`pretrained-alphazero`, an AlphaZero run's network (the better one to search with);
`mcts:pretrained` searches with the second. Each is a run's network parameters (flax msgpack) and
the run's settings (the trainer, the game, its options and the network's shape, JSON); reading
them needs flax only. They are written by `export(run_dir, name)` from a `jaxcheckers train` run
(README, "Trained players that ship").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp

__all__ = ["NAME", "SEARCH_NAME", "NAMES", "load", "export"]

NAME = "pretrained"
SEARCH_NAME = "pretrained-alphazero"
DIRECTORY = Path(__file__).parent
# name -> file stem in DIRECTORY (<stem>.msgpack: the params, <stem>.json: the settings)
NAMES = {NAME: "checkers", SEARCH_NAME: "checkers-alphazero"}


def load(name: str = NAME, directory: Path = DIRECTORY) -> tuple[Any, Any, dict]:
    """(params, network, settings) of the shipped network called `name`."""
    from flax import serialization

    import jaxcheckers
    from jaxcheckers.agents.networks import make_network
    from jaxcheckers.agents.policy import network_options

    stem = NAMES[name]
    settings = json.loads((directory / f"{stem}.json").read_text())
    env = jaxcheckers.make(settings["game"], **settings.get("env_options", {}))
    network = make_network(
        env.num_actions, tuple(env.observation_shape), **network_options(settings)
    )
    dummy = jnp.zeros((1, *env.observation_shape), jnp.float32)
    template = jax.eval_shape(network.init, jax.random.PRNGKey(0), dummy)
    template = jax.tree.map(lambda x: jnp.zeros(x.shape, x.dtype), template)
    params = serialization.from_bytes(template, (directory / f"{stem}.msgpack").read_bytes())
    return params, network, settings


def export(run_dir: str | Path, name: str = NAME, directory: Path = DIRECTORY) -> Path:
    """Writes the latest (verified) params of `run_dir` as the shipped network `name`; returns
    the dir."""
    from flax import serialization

    from jaxcheckers.agents.policy import load_params

    params, _, settings = load_params(run_dir)
    directory.mkdir(parents=True, exist_ok=True)
    stem = NAMES[name]
    (directory / f"{stem}.msgpack").write_bytes(serialization.to_bytes(params))
    keep = ("algo", "game", "env_options", "network", "hidden_sizes", "conv_channels")
    keep += ("conv_blocks",)
    shipped = {key: settings[key] for key in keep if key in settings}
    (directory / f"{stem}.json").write_text(json.dumps(shipped, indent=2, sort_keys=True) + "\n")
    return directory
