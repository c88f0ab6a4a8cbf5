"""The `jaxcheckers` command: one entry point, a subcommand per job.

Each subcommand lives in its own module, imported only when it is used, with two functions:
`add_arguments(parser)` and `run(args) -> int | None`, and optionally `REQUIRES`, the modules it
needs beyond jax (checked before it runs). The library's own subcommands are listed here; others
(the trainer's `train`) register under the `jaxcheckers.commands` entry-point group, so the
library never imports them by name.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import os
import re
import signal
import sys
import threading
from pathlib import Path

from jaxcheckers import extras

SUBCOMMANDS = {
    "demo": ("jaxcheckers.demo", "play random games, print one and the throughput"),
    "perft": ("jaxcheckers.perft", "count the positions reachable in k moves"),
    "arena": ("jaxcheckers.arena", "play agents against each other"),
    "play": ("jaxcheckers.play", "play a game in the terminal"),
    "ladder": ("jaxcheckers.ladder", "round-robin among agents, fitted Elo ratings with CIs"),
}
ENTRY_POINT_GROUP = "jaxcheckers.commands"


def main(argv: list[str] | None = None) -> int:
    """Runs one subcommand. A refused input is one line on stderr and exit status 2, never a
    traceback: argparse types (jaxcheckers.argtypes) reject bad values, and ValueError / OSError
    raised by a command (a bad agent spec, an unreadable run) are caught here
    (JAXCHECKERS_TRACEBACK=1 shows them whole). A missing optional package names the extra to
    install (status 1); Ctrl-C exits with status 130.
    """
    parser = OneLineParser(prog="jaxcheckers", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    modules = {}
    requested = (sys.argv[1:] if argv is None else argv)[:1]
    for name, (module_name, help_text) in available_commands().items():
        sub = commands.add_parser(name, help=help_text)
        # Only the chosen subcommand's module is imported (training pulls in flax and optax).
        if requested == [name]:
            try:
                module = _import(module_name)
            except ModuleNotFoundError as error:
                return _fail(_missing_message(error.name), status=1)
            module.add_arguments(sub)
            modules[name] = module
    args = parser.parse_args(argv)
    use_compilation_cache()
    interrupt = _CtrlC()
    try:
        status = _run(modules[args.command], args)
    finally:
        interrupt.restore()
    if interrupt.received:
        _exit_at_once(status)
    return status


def _run(module, args: argparse.Namespace) -> int:
    try:
        return int(module.run(args) or 0)
    except ModuleNotFoundError as error:  # an optional package needed on the way (orbax, flax)
        return _fail(_missing_message(error.name), status=1)
    except (ValueError, OSError) as error:
        if os.environ.get("JAXCHECKERS_TRACEBACK"):  # for debugging: the whole story
            raise
        return _fail(f"jaxcheckers {args.command}: {_one_line(error)}")
    except KeyboardInterrupt:
        return _fail(f"jaxcheckers {args.command}: interrupted", status=130)


class _CtrlC:
    """Ctrl-C raises KeyboardInterrupt as usual, and is noted: a computation it interrupted
    may still run on XLA's threads, and an interpreter that shuts down under it crashes or
    waits for it to end (minutes for a deep search)."""

    def __init__(self):
        self.received = False
        self.previous = None
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGINT, self._note)

    def _note(self, signum, frame):
        self.received = True
        raise KeyboardInterrupt

    def restore(self) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)


def _exit_at_once(status: int) -> None:
    """Ends the process now, once what was written is out (what had to be saved is saved)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


CACHE_VARIABLE = "JAXCHECKERS_COMPILATION_CACHE"  # a folder, or 0 / off for no cache
CACHE_MIN_COMPILE_SECONDS = 0.5  # compilations shorter than this are not worth a file


def compilation_cache_dir() -> Path | None:
    """Where the command keeps JAX's compiled programs between runs: $JAXCHECKERS_COMPILATION_CACHE
    (0 or off: nowhere), else the user's cache folder ($XDG_CACHE_HOME or ~/.cache)/jaxcheckers/jax.
    None also when JAX_COMPILATION_CACHE_DIR is set: JAX then uses that one as it is."""
    if os.environ.get("JAX_COMPILATION_CACHE_DIR"):
        return None
    chosen = os.environ.get(CACHE_VARIABLE, "").strip()
    if chosen.lower() in ("0", "off", "no", "false"):
        return None
    if chosen:
        return Path(chosen).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "jaxcheckers" / "jax"


def use_compilation_cache() -> None:
    """Turns JAX's persistent compilation cache on for this command (`compilation_cache_dir`):
    a second run of the same command compiles next to nothing."""
    folder = compilation_cache_dir()
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:  # a read-only home: run without the cache
        return
    import jax

    jax.config.update("jax_compilation_cache_dir", str(folder))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", CACHE_MIN_COMPILE_SECONDS)


class OneLineParser(argparse.ArgumentParser):
    """An argument error is one line (with where to find the usage), not the usage block."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _fail(message: str, status: int = 2) -> int:
    print(message, file=sys.stderr)
    return status


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split()) or type(error).__name__
    text = re.sub(r"^\[Errno \d+\] ", "", text)
    if isinstance(error, OSError) and error.filename and str(error.filename) not in text:
        text = f"{error.filename}: {text}"
    return text


def available_commands() -> dict[str, tuple[str, str]]:
    """name -> (module, help): the library's subcommands, then the entry-point group's."""
    found = dict(SUBCOMMANDS)
    for entry in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(entry.name, (entry.value, f"see jaxcheckers {entry.name} --help"))
    return found


def _import(module_name: str):
    """The subcommand's module; ModuleNotFoundError if it or one of its `REQUIRES` is missing."""
    module = importlib.import_module(module_name)
    extras.require(getattr(module, "REQUIRES", ()), "this command")
    return module


def _missing_message(module_name: str | None) -> str:
    """Which extra of jaxcheckers provides `module_name`, read from the installed metadata."""
    return "jaxcheckers: " + extras.missing_message(module_name, "this command")


if __name__ == "__main__":
    sys.exit(main())
