"""A trained policy as an agent: `act(state, key) -> action` for one game, like every agent.

    agent = policy_agent(network.apply, params)            # greedy: the most probable legal move
    agent, env_options = load_policy("runs/quick")         # from a `jaxcheckers train` run
    env = jaxcheckers.make(**env_options)

A run directory (what `jaxcheckers train` writes) holds `config.json` and
`checkpoints/<update>/params`. Reading one needs flax and orbax-checkpoint (the `training`
extra), never the trainer itself.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp

__all__ = [
    "policy_agent",
    "load_policy",
    "load_params",
    "find_run_dir",
    "network_options",
    "CONFIG_FILE",
    "CHECKPOINT_DIR",
]

CONFIG_FILE = "config.json"
CHECKPOINT_DIR = "checkpoints"
_ILLEGAL_LOGIT = -1e9  # as networks.ILLEGAL_LOGIT (kept here so that acting needs jax alone)
_NETWORK_FIELDS = ("network", "hidden_sizes", "conv_channels", "conv_blocks")


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


def load_policy(checkpoint_path: str | Path, *, greedy: bool = True) -> tuple[Callable, dict]:
    """The agent saved by `jaxcheckers train`, and the options of the env it was trained on.

    checkpoint_path: a run directory (its latest checkpoint is used) or one of its
    `checkpoints/<step>` directories. The second value is a dict for `jaxcheckers.make(**it)`
    (it holds "name", the game, and the game's options).
    """
    params, network, settings = load_params(checkpoint_path)
    return policy_agent(network.apply, params, greedy=greedy), {
        "name": settings["game"],
        **settings.get("env_options", {}),
    }


def load_params(path: str | Path) -> tuple[Any, Any, dict]:
    """(params, network, run settings as a dict) of the checkpoint at `path`."""
    import jaxcheckers
    from jaxcheckers.agents.networks import make_network

    run_dir, step = find_run_dir(path)
    settings = json.loads((run_dir / CONFIG_FILE).read_text())
    env = jaxcheckers.make(settings["game"], **settings.get("env_options", {}))
    network = make_network(
        env.num_actions, tuple(env.observation_shape), **network_options(settings)
    )
    dummy = jnp.zeros((1, *env.observation_shape), jnp.float32)
    template = jax.eval_shape(network.init, jax.random.PRNGKey(0), dummy)
    return _restore_params(run_dir / CHECKPOINT_DIR, template, step), network, settings


def network_options(settings: Any) -> dict:
    """The keyword options of `networks.make_network` from run settings (a dict or a config)."""
    get = settings.get if isinstance(settings, dict) else lambda name: getattr(settings, name)
    return {name: get(name) for name in _NETWORK_FIELDS if get(name) is not None}


def find_run_dir(path: str | Path) -> tuple[Path, int | None]:
    """(run directory, checkpoint step or None for the latest) for a run or checkpoint path."""
    path = Path(path).resolve()
    if (path / CONFIG_FILE).exists():
        return path, None
    if path.parent.name == CHECKPOINT_DIR and (path.parent.parent / CONFIG_FILE).exists():
        return path.parent.parent, int(path.name)
    raise FileNotFoundError(
        f"{path} is neither a training run directory nor one of its checkpoints"
    )


def _restore_params(directory: Path, template: Any, step: int | None) -> Any:
    import orbax.checkpoint as ocp

    with ocp.CheckpointManager(directory) as manager:
        step = manager.latest_step() if step is None else step
        if step is None:
            raise FileNotFoundError(f"no checkpoint in {directory.parent}")
        restored = manager.restore(
            step, args=ocp.args.Composite(params=ocp.args.StandardRestore(template))
        )
    return restored["params"]
