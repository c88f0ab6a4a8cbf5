"""Names that moved keep working for one release, with a DeprecationWarning that says where to.

    __getattr__ = moved_names(__name__, {"checkers_rgb": "jaxcheckers.checkers.drawing:board_rgb"})

The new home is written as text and imported on first use, so a shared module that once held a
game's code does not import the game.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["moved_names"]


def moved_names(module: str, moved: Mapping[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` serving each old name of `moved` ("old" -> "package.module:new")
    from its new home, with a DeprecationWarning naming it; AttributeError for any other name."""

    def __getattr__(name: str) -> Any:
        if name not in moved:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        home, _, new = moved[name].partition(":")
        warnings.warn(
            f"{module}.{name} moved to {home}.{new}; the old name goes in the next release",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module(home), new)

    return __getattr__
