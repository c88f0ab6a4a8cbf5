"""Agents: pure functions `act(state, key) -> action` for one game; `jax.vmap` them for many.

`make_agent(spec, env)` builds one from a short name such as "random" or "alphabeta:3".
"""

from __future__ import annotations

from typing import Callable

import jax

from jaxcheckers.agents.random import random_agent

Agent = Callable[[object, jax.Array], jax.Array]  # (state, key) -> int32 () action

__all__ = ["Agent", "make_agent", "random_agent", "AGENT_SPECS"]

AGENT_SPECS = {
    "random": "a uniformly random legal action",
}


def make_agent(spec: str, env) -> Agent:
    """The agent named by `spec` ("name" or "name:argument") for `env`."""
    name, _, argument = spec.partition(":")
    if name == "random":
        if argument:
            raise ValueError("the random agent takes no argument")
        return random_agent
    known = ", ".join(AGENT_SPECS)
    raise ValueError(f"unknown agent {spec!r}; known: {known}")
