"""Gymnasium ids of every jaxcheckers env, registered without importing the envs.

    import gymnasium
    env = gymnasium.make("jaxcheckers.adapters.registration:jaxcheckers/Checkers-v0")
    env = gymnasium.make("jaxcheckers.adapters.registration:jaxcheckers/Chess-v0")
    env = gymnasium.make("jaxcheckers/TicTacToe-v0")    # once anything has imported this module
    env = gymnasium.make("jaxcheckers/TicTacToeGym-v0") # a game's own: `adapters.gymnasium_envs`

Every game of the registry that the adapters can play has an id, `jaxcheckers/TITLE-v0`, one
learner against `opponent=`.

Gymnasium 1.x finds third-party ids only through an import: the "module:id" form above imports
this module for you (Gymnasium 0.26–0.29 also read a `gymnasium.envs` entry point; 1.0 dropped
that plugin loader, so there is nothing a package can declare to have its ids resolve with no
import at all). Importing `jaxcheckers.adapters.gymnasium` or `jaxcheckers.tictactoe.gym` registers
every id too.

`refuse_forked_workers` stops `gymnasium.make_vec(..., vectorization_mode="async")` from forking
worker processes out of a process where JAX runs (they would deadlock), with the fix in its
message.
"""

from __future__ import annotations

import functools
import multiprocessing
import sys
import warnings
from collections.abc import Callable
from typing import Any

from jaxcheckers.deprecation import moved_names
from jaxcheckers.extras import needed_for
from jaxcheckers.games import GymnasiumEnv, names, spec

with needed_for("the Gymnasium adapter"):
    import gymnasium

__all__ = ["register_envs", "refuse_forked_workers", "IDS"]

LEARNER_ENTRY = "jaxcheckers.adapters.gymnasium"  # LearnerEnv, LearnerVectorEnv
__getattr__ = moved_names(__name__, {"TICTACTOE_GYM_ID": "jaxcheckers.tictactoe.spec:GYM_ID"})


def register_envs() -> tuple[str, ...]:
    """Registers the id of every game in the registry (one learner against an opponent,
    `jaxcheckers/TITLE-v0`, single and batched) and the ids of the games' own interfaces
    (`GameSpec.adapters.gymnasium_envs`: tic-tac-toe's `jaxcheckers/TicTacToeGym-v0`); returns
    the ids. Call it again after `jaxcheckers.register` to add a game's.
    An installed game that cannot be loaded is skipped with a RuntimeWarning naming it."""
    ids = []
    for name in names():
        try:
            game = spec(name)
        except ValueError as error:  # a broken plug-in must not take the other games with it
            warnings.warn(f"skipped: {error}", RuntimeWarning, stacklevel=2)
            continue
        ids.append(game.gymnasium_id)
        if game.gymnasium_id not in gymnasium.registry:
            gymnasium.register(
                id=game.gymnasium_id,
                entry_point=f"{LEARNER_ENTRY}:LearnerEnv",
                vector_entry_point=f"{LEARNER_ENTRY}:LearnerVectorEnv",
                kwargs={"game": name},
            )
        for env_id, own in game.adapters.gymnasium_envs.items():
            ids.append(env_id)
            if env_id not in gymnasium.registry:
                gymnasium.register(
                    env_id, entry_point=_entry_point(own), vector_entry_point=own.vector_env
                )
    return tuple(ids)


def _entry_point(own: GymnasiumEnv) -> Callable[..., Any]:
    """`own.env` carrying `own.metadata` as an attribute, where `gymnasium.make` reads it before
    it builds the env (a class's own `metadata` would be read there; a function has none)."""
    if not own.metadata:
        return own.env
    entry = functools.partial(own.env)
    entry.metadata = dict(own.metadata)
    return entry


FORK_MESSAGE = (
    "gymnasium.make_vec(..., vectorization_mode='async') would fork its workers from a process "
    "where JAX runs, and forked JAX deadlocks. Start them fresh instead: "
    "gymnasium.make_vec(..., vectorization_mode='async', vector_kwargs={{'context': 'spawn'}}) "
    "(or 'forkserver'), with the script's top level under `if __name__ == '__main__':`. "
    "Or use vectorization_mode='vector_entry_point': all games batched in JAX, in one process. "
    "(This env was being built by {owner}, whose start method is 'fork'.)"
)


def refuse_forked_workers() -> None:
    """Raises RuntimeError when called (from an env's `__init__`) inside the construction of an
    `AsyncVectorEnv` that will start its workers with 'fork'.

    AsyncVectorEnv builds one env in the parent, to read its spaces, before it starts the
    workers: that env's `__init__` is where the parent can still refuse, at once, instead of
    leaving the workers hung. The vector env under construction is found up the call stack.
    """
    frame = sys._getframe(1)
    while frame is not None:
        owner = frame.f_locals.get("self") if frame.f_code.co_name == "__init__" else None
        if isinstance(owner, gymnasium.vector.AsyncVectorEnv):
            context = getattr(owner, "context", None)
            if multiprocessing.get_context(context).get_start_method() == "fork":
                raise RuntimeError(FORK_MESSAGE.format(owner=type(owner).__name__))
            return
        frame = frame.f_back


IDS = register_envs()
