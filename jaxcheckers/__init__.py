"""jaxcheckers: board games as pure JAX environments, batched with `jax.vmap`.

    env = jaxcheckers.make("checkers")
    state = env.reset(key)
    state = env.step(state, action)
"""

from __future__ import annotations

from jaxcheckers.core import AutoResetStep, Env, State, step_autoreset

__all__ = ["make", "GAMES", "Env", "State", "AutoResetStep", "step_autoreset"]

GAMES = ("checkers", "chess", "tictactoe")


def make(name: str, **options) -> Env:
    """The environment called `name`, built with keyword `options` (see each game's docstring).

    Games are imported on demand, so importing jaxcheckers loads no game you do not use.
    """
    if name == "checkers":
        from jaxcheckers.checkers import Checkers

        return Checkers(**options)
    if name == "chess":
        from jaxcheckers.chess import Chess

        return Chess(**options)
    if name == "tictactoe":
        from jaxcheckers.tictactoe import TicTacToe

        return TicTacToe(**options)
    raise ValueError(f"unknown game {name!r}; available: {', '.join(GAMES)}")
