"""jaxcheckers: board games as pure JAX environments, batched with `jax.vmap`.

    env = jaxcheckers.make("checkers")
    state = env.reset(key)
    state = env.step(state, action)

Every game is an entry of the registry, `jaxcheckers.games`; `register` adds one.
`jaxcheckers.testing.check_game(name_or_env)` checks that a game keeps the State contract.
"""

# No `from __future__ import annotations` and no module imports here: each would be a public
# name of the package (`jaxcheckers.re`); `dir(jaxcheckers)` is `__all__` and the subpackages.
from jaxcheckers import games as _games
from jaxcheckers.core import AutoResetStep, Env, State, step_autoreset
from jaxcheckers.games import GameSpec, make, register

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
GAMES = tuple(_games.BUILTIN)


def _version() -> str:
    """The installed distribution's version; from a source tree that is not installed, the
    version its pyproject.toml declares; "0+unknown" when neither is there."""
    import importlib.metadata
    import re
    from pathlib import Path

    try:
        return importlib.metadata.version("jaxcheckers")
    except importlib.metadata.PackageNotFoundError:
        pass
    try:
        pyproject = (Path(__file__).resolve().parent.parent / "pyproject.toml").read_text()
    except OSError:
        return "0+unknown"
    found = re.search(r'^version\s*=\s*"([^"]+)"', pyproject, re.MULTILINE)
    return found.group(1) if found else "0+unknown"


__version__ = _version()
