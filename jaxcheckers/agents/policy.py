"""A trained policy as an agent: `act(state, key) -> action` for one game, like every agent.

    agent = policy_agent(network.apply, params)            # greedy: the most probable legal move
    agent, env_options = load_policy("runs/quick")         # from a `jaxcheckers train` run
    env = jaxcheckers.make(**env_options)

A run directory (what `jaxcheckers train` writes) holds `config.json` and
`checkpoints/<update>/params`. Reading one needs flax and orbax-checkpoint (the `training`
extra), never the trainer itself; the networks that ship with the package need jax alone.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp

from jaxcheckers.agents import pretrained
from jaxcheckers.checkpoints import CHECKPOINT_DIR, find_run_dir, read_settings, restore_params
from jaxcheckers.games import DEFAULT

__all__ = ["policy_agent", "load_policy", "load_params"]
_ILLEGAL_LOGIT = -1e9  # as networks.ILLEGAL_LOGIT (kept here so that acting needs jax alone)


def policy_agent(apply_fn: Callable, params: Any, *, greedy: bool = True) -> Callable:
    """An agent from an actor-critic `apply_fn(params, observation[B, ...]) -> (logits, value)`.

    greedy: play the most probable legal action; otherwise sample from the masked policy.
    """

    def act(state, key: jax.Array) -> jax.Array:
        logits, _ = apply_fn(params, state.observation[None])
        logits = jnp.where(state.legal_action_mask, logits[0], _ILLEGAL_LOGIT)
        if greedy:
            return jnp.argmax(logits).astype(jnp.int32)
        return jax.random.categorical(key, logits).astype(jnp.int32)

    return act


def load_policy(
    checkpoint_path: str | Path, *, greedy: bool = True, game: str | None = None
) -> tuple[Callable, dict]:
    """The agent saved by `jaxcheckers train`, and the options of the env it was trained on.

    checkpoint_path: a run directory (its latest checkpoint is used), one of its
    `checkpoints/<step>` directories, or the name of a network shipped with the package
    ("pretrained", "pretrained-alphazero"), the network of `game` (default `games.DEFAULT`).
    The second value is a dict for `jaxcheckers.make(**it)` (the game as "name", its options).
    """
    params, network, settings = load_params(checkpoint_path, game=game)
    return policy_agent(network.apply, params, greedy=greedy), {
        "name": settings["game"],
        **settings.get("env_options", {}),
    }


def load_params(path: str | Path, game: str | None = None) -> tuple[Any, Any, dict]:
    """(params, network, run settings as a dict) of the checkpoint at `path`, or of the network
    shipped under that name for `game` (default `games.DEFAULT`).

    The params are checked against the checksum saved beside them; given a run directory, a
    damaged latest checkpoint is skipped (said on stderr) for the newest good one.
    """
    if str(path) in pretrained.NAMES:  # a network that ships with the package
        return pretrained.load(str(path), game=game or DEFAULT)
    run_dir, step = find_run_dir(path)
    settings = read_settings(run_dir)
    from jaxcheckers.agents.networks import network_for  # flax: the `training` extra
    network, template = network_for(settings)
    return restore_params(run_dir / CHECKPOINT_DIR, template, step), network, settings
