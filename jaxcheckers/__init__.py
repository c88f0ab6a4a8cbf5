"""jaxcheckers: board games as pure JAX environments, batched with `jax.vmap`.

    env = jaxcheckers.make("checkers")
    state = env.reset(key)
    state = env.step(state, action)

Every game is an entry of the registry, `jaxcheckers.games`; `register` adds one.
"""

from __future__ import annotations

from jaxcheckers.core import AutoResetStep, Env, State, step_autoreset
from jaxcheckers.games import BUILTIN, GameSpec, make, register

__all__ = [
    "make",
    "register",
    "GameSpec",
    "GAMES",
    "Env",
    "State",
    "AutoResetStep",
    "step_autoreset",
]

# The built-in games; `jaxcheckers.games.names()` adds those registered or installed.
GAMES = tuple(BUILTIN)
