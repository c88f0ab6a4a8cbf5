"""Writing a command's results without losing any: one process at a time per results folder or
file (a lock), a finished result never written over, files replaced whole, and a saved file's
numbers checked before a command trusts them.

    with files.lock(out / "ladder.lock", out, "playing a ladder into it"):
        files.refuse_finished([out / "ladder.json"], "a finished ladder", "--out DIR")
        ...
        files.write_whole(out / "ladder-games.json", json.dumps(report))
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
from collections.abc import Iterable
from pathlib import Path

__all__ = ["lock", "refuse_finished", "write_whole", "saved_count", "saved_seconds"]

MAX_SECONDS = 1e10  # some 300 years: more in a saved file is damage, not a long run


@contextlib.contextmanager
def lock(path: str | Path, guarded: str | Path, doing: str):
    """Holds the lock file `path` for this process while it writes `guarded` (a folder or a
    file): ValueError if another live process holds it ("`guarded` is in use: process P is
    `doing`"); a lock left by a process that is gone (killed) is replaced, with a word."""
    path = Path(path)
    while not _create(path, f"{socket.gethostname()} {os.getpid()}\n"):
        holder = _lock_holder(path)
        if holder is None:  # released meanwhile: try again
            continue
        host, pid = holder
        if host != socket.gethostname():
            raise ValueError(
                f"{guarded} is locked by process {pid} on {host}; if it has ended, remove {path}"
            )
        if pid is not None and _alive(pid):
            raise ValueError(f"{guarded} is in use: process {pid} is {doing} (lock {path})")
        stale = f"{path}: replaced the stale lock of process {pid}, no longer running"
        print(stale, file=sys.stderr)
        path.unlink(missing_ok=True)
    try:
        yield path
    finally:
        path.unlink(missing_ok=True)


def _create(path: Path, text: str) -> bool:
    """Makes the file `path` holding `text` in one step (a hard link to a file written first),
    so that no one reads it half written; False if it exists."""
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    partial.write_text(text)
    try:
        os.link(partial, path)
    except FileExistsError:
        return False
    except OSError:  # a file system without hard links: made in place (briefly empty)
        try:
            descriptor = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            return False
        with os.fdopen(descriptor, "w") as file:
            file.write(text)
    finally:
        partial.unlink(missing_ok=True)
    return True


def _lock_holder(path: Path) -> tuple[str, int | None] | None:
    """(host, pid) the lock names; None if it is gone; no pid if it is damaged."""
    try:
        host, pid = path.read_text().split()
        return host, int(pid)
    except FileNotFoundError:
        return None
    except (OSError, ValueError):  # damaged (it is never half written): stale
        return socket.gethostname(), None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    return True


def refuse_finished(paths: Iterable[str | Path], what: str, option: str) -> None:
    """ValueError, one line, when any of `paths` exists: it holds `what`, which is never
    written over; the line says to give another `option` or to remove it."""
    for path in paths:
        if Path(path).exists():
            raise ValueError(
                f"{path} holds {what}, which is not overwritten: give another {option}, "
                "or remove it to start again"
            )


def write_whole(path: str | Path, text: str) -> None:
    """Writes `text` through a temporary file: a stop while writing leaves the previous whole,
    and a reader never sees half a file."""
    path = Path(path)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)


def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:37]}..."


def saved_count(value, name: str, high: int) -> int:
    """`value` read from a saved file, if it is an integer from 0 to `high`; ValueError naming
    `name` otherwise (a string "1", a float, true, or 10**400 are not counts)."""
    if type(value) is not int or not 0 <= value <= high:
        raise ValueError(f"{name} must be an integer from 0 to {high}, got {_shown(value)}")
    return value


def saved_seconds(value, name: str) -> float:
    """`value` read from a saved file, if it is a finite number of seconds, 0 or more."""
    if type(value) not in (int, float) or not 0 <= value < MAX_SECONDS:  # NaN fails too
        raise ValueError(f"{name} must be a number of seconds, 0 or more, got {_shown(value)}")
    return float(value)
