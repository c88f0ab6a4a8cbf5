"""Optional packages: which extra of jaxcheckers installs each, and the one-line error that says so.

    with needed_for("the mcts agent"):
        import mctx     # missing: ModuleNotFoundError "the mcts agent needs the package 'mctx'
                        # (mctx), which the 'training' extra installs: pip install ..."

The extras are read from the installed package's metadata (pyproject's
[project.optional-dependencies]), so no list of them is kept here.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import importlib.util
import re
from collections.abc import Iterable, Iterator

__all__ = ["MissingExtra", "needed_for", "require", "missing_message", "provider", "pyplot"]


class MissingExtra(ModuleNotFoundError):
    """An optional package is missing; the message (one line) names the extra that installs it."""


def provider(module_name: str) -> tuple[str | None, str | None]:
    """(distribution, extra) of the jaxcheckers extra that requires `module_name`'s package;
    (None, None) when none does or jaxcheckers is not installed (run from a source tree)."""
    top = module_name.split(".")[0]
    names = {module_name.replace(".", "-").lower(), top.lower(), top.replace("_", "-").lower()}
    try:
        requirements = importlib.metadata.requires("jaxcheckers") or []
    except importlib.metadata.PackageNotFoundError:
        return None, None
    for requirement in requirements:
        found = re.match(r"([A-Za-z0-9_.-]+).*extra\s*==\s*['\"]([\w-]+)['\"]", requirement)
        if found and found.group(1).lower() in names and found.group(2) != "dev":
            return found.group(1), found.group(2)
    return None, None


def missing_message(module_name: str | None, user: str) -> str:
    """One line: `user` needs the package `module_name`, and the extra that installs it."""
    distribution, extra = provider(module_name or "")
    if extra is None:  # no extra names it (a plug-in's own module, a typo): no extra to advise
        return f"{user} needs the module '{module_name}', which is not installed"
    return (
        f"{user} needs the package '{module_name}' ({distribution}), which the '{extra}' extra "
        f"installs: pip install 'jaxcheckers[{extra}]'"
    )


@contextlib.contextmanager
def needed_for(user: str) -> Iterator[None]:
    """Imports in this block that fail for a missing third-party package raise `MissingExtra`
    (a ModuleNotFoundError) with `missing_message`; a message already made passes unchanged."""
    try:
        yield
    except MissingExtra:
        raise
    except ModuleNotFoundError as error:
        if not error.name or error.name.split(".")[0] == "jaxcheckers":
            raise
        raise MissingExtra(missing_message(error.name, user), name=error.name) from None


def require(module_names: Iterable[str], user: str) -> None:
    """`MissingExtra` for the first of `module_names` that cannot be imported (nothing is
    imported: only found)."""
    for name in module_names:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ModuleNotFoundError, ValueError):  # a missing parent package; a None entry
            found = False
        if not found:
            raise MissingExtra(missing_message(name, user), name=name)


def pyplot(user: str):
    """matplotlib.pyplot on the Agg backend (pictures into files, no window); `MissingExtra`
    naming the extra when matplotlib is not installed."""
    with needed_for(user):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    return plt
