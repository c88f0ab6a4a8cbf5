"""The networks that ship with the package, so trained players play right after install.

    jaxcheckers play --white ppo:pretrained                  # the checkers PPO policy, no search
    jaxcheckers play --white mcts:pretrained                 # the AlphaZero network with search
    jaxcheckers play --game chess --white ppo:pretrained     # the chess network, no search

Each game ships its own: `pretrained` is the game's raw policy (checkers: a PPO run's; chess: a
network distilled from the 2-ply alpha-beta, training/distill.py), `pretrained-alphazero` an
AlphaZero run's network (the better one to search with; checkers only); `mcts:pretrained`
searches with the second. Each is a run's network parameters (flax msgpack) and the run's
settings (the trainer, the game, its options and the network's shape, JSON), in files named
after the game; reading them needs flax only. They are written by
`jaxcheckers.training.checkpoints.export_network(run_dir, name)` from a `jaxcheckers train` run
(README, "Trained players that ship").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
from flax import serialization

from jaxcheckers.agents.networks import network_for

__all__ = ["NAME", "SEARCH_NAME", "NAMES", "DEFAULT_GAME", "DIRECTORY", "stem", "games", "load"]

NAME = "pretrained"
SEARCH_NAME = "pretrained-alphazero"
DIRECTORY = Path(__file__).parent
# name -> its file stem in DIRECTORY for a game (<stem>.msgpack: the params, <stem>.json: the
# settings)
NAMES = {NAME: "{game}", SEARCH_NAME: "{game}-alphazero"}
DEFAULT_GAME = "checkers"  # the game of a name asked for without one (the first that shipped)


def stem(name: str, game: str = DEFAULT_GAME) -> str:
    """The file stem of the network `name` of `game`."""
    return NAMES[name].format(game=game)


def games(name: str = NAME, directory: Path = DIRECTORY) -> list[str]:
    """The games for which a network called `name` ships."""
    found = []
    for path in sorted(Path(directory).glob("*.json")):
        game = json.loads(path.read_text()).get("game")
        if game is not None and path.stem == stem(name, game):
            found.append(game)
    return found


def load(
    name: str = NAME, directory: Path = DIRECTORY, game: str = DEFAULT_GAME
) -> tuple[Any, Any, dict]:
    """(params, network, settings) of the shipped network called `name` for `game`; ValueError
    naming the games it ships for when there is none for `game`."""
    directory = Path(directory)
    path = directory / f"{stem(name, game)}.json"
    if not path.is_file():
        shipped = ", ".join(games(name, directory)) or "none"
        raise ValueError(f"no {name} network ships for {game} (it ships for: {shipped})")
    settings = json.loads(path.read_text())
    network, shapes = network_for(settings)
    template = jax.tree.map(lambda x: jnp.zeros(x.shape, x.dtype), shapes)
    params = serialization.from_bytes(template, path.with_suffix(".msgpack").read_bytes())
    return params, network, settings
