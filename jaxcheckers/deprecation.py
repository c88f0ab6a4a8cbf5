"""Names that moved keep working for one release, with a DeprecationWarning that says where to.

    __getattr__ = moved_names(__name__, {"checkers_rgb": "jaxcheckers.checkers.drawing:board_rgb"})
    __getattr__ = moved_module(__name__, new_home)   # a module that moved whole

`moved_names` writes the new home as text and imports it on first use, so a shared module that
once held a game's code does not import the game. `moved_module` is for a shim left at a moved
module's old path, which imports its new home (tests/test_architecture.py lists those shims).
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

__all__ = ["moved_names", "moved_module"]


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


def moved_module(module: str, home: ModuleType) -> Callable[[str], Any]:
    """A module `__getattr__` for the old path `module` of a module that moved whole to `home`:
    each name `home` has is served from there, with a DeprecationWarning naming the new path;
    AttributeError for any other name."""

    def __getattr__(name: str) -> Any:
        if name.startswith("__") or not hasattr(home, name):
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        warnings.warn(
            f"{module} moved to {home.__name__}; the old path goes in the next release",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(home, name)

    return __getattr__
