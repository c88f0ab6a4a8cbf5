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
import importlib.util
import sys

SUBCOMMANDS = {
    "demo": ("jaxcheckers.demo", "play random games, print one and the throughput"),
    "perft": ("jaxcheckers.perft", "count the positions reachable in k moves"),
    "arena": ("jaxcheckers.arena", "play agents against each other"),
    "play": ("jaxcheckers.play", "play a game in the terminal"),
}
ENTRY_POINT_GROUP = "jaxcheckers.commands"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="jaxcheckers", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    modules = {}
    requested = (sys.argv[1:] if argv is None else argv)[:1]
    for name, (module_name, help_text) in available_commands().items():
        sub = commands.add_parser(name, help=help_text)
        # Only the chosen subcommand's module is imported (training pulls in flax and optax).
        if requested == [name]:
            module = _import(module_name)
            module.add_arguments(sub)
            modules[name] = module
    args = parser.parse_args(argv)
    return int(modules[args.command].run(args) or 0)


def available_commands() -> dict[str, tuple[str, str]]:
    """name -> (module, help): the library's subcommands, then the entry-point group's."""
    found = dict(SUBCOMMANDS)
    for entry in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(entry.name, (entry.value, f"see jaxcheckers {entry.name} --help"))
    return found


# The option of each game that `--board-size` sets (games without one refuse the flag).
SIZE_OPTIONS = {"checkers": "board_size", "tictactoe": "size"}


def add_game_arguments(parser: argparse.ArgumentParser, default: str = "checkers") -> None:
    """`--game` and `--board-size`, shared by every subcommand that plays a game."""
    from jaxcheckers import GAMES

    parser.add_argument("--game", choices=GAMES, default=default, help=f"default {default}")
    parser.add_argument("--board-size", type=int, default=None, help="n of an n×n board")


def env_from_arguments(args: argparse.Namespace, **options):
    """The env `--game` and `--board-size` name, with extra `options`; ValueError if refused."""
    import jaxcheckers

    if args.board_size is not None:
        if args.game not in SIZE_OPTIONS:
            raise ValueError(f"{args.game} has no --board-size")
        options[SIZE_OPTIONS[args.game]] = args.board_size
    try:
        return jaxcheckers.make(args.game, **options)
    except TypeError as error:  # an option the game does not take
        raise ValueError(f"{args.game}: {error}") from None


def _import(module_name: str):
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        raise SystemExit(_missing_message(error.name)) from None
    for required in getattr(module, "REQUIRES", ()):
        if not _importable(required):
            raise SystemExit(_missing_message(required))
    return module


def _importable(module_name: str) -> bool:
    try:
        return importlib.util.find_spec(module_name) is not None
    except ModuleNotFoundError:  # a missing parent package
        return False


def _missing_message(module_name: str | None) -> str:
    return (
        f"jaxcheckers: this command needs the package '{module_name}'; install the extra that "
        "provides it, e.g. pip install 'jaxcheckers[training]'"
    )


if __name__ == "__main__":
    sys.exit(main())
