"""A trained policy as an agent: `act(state, key) -> action` for one game, like every agent.

    agent = policy_agent(network.apply, params)            # greedy: the most probable legal move
    agent, env_options = load_policy("runs/quick")         # from a `jaxcheckers train` run
    env = jaxcheckers.make(**env_options)

This module needs only jax; `load_policy` imports the trainer's network and checkpoint code (the
`training` extra) when it is called.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

__all__ = ["policy_agent", "load_policy"]

_ILLEGAL_LOGIT = -1e9  # as training.networks: finite, so a game with no legal move gives no NaN


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


def load_policy(checkpoint_path: str, *, greedy: bool = True) -> tuple[Callable, dict]:
    """The agent saved by `jaxcheckers train`, and the options of the env it was trained on.

    checkpoint_path: a run directory (its latest checkpoint is used) or one of its
    `checkpoints/<step>` directories. The second value is a dict for `jaxcheckers.make(**it)`
    (it holds "name", the game, and the game's options).
    """
    from training.checkpoints import load_params

    params, network, config = load_params(checkpoint_path)
    return policy_agent(network.apply, params, greedy=greedy), {
        "name": config.game,
        **config.env_options,
    }
