"""The `jaxcheckers` command: one entry point, a subcommand per job.

Each subcommand lives in its own module, imported only when it is used, with two functions:
`add_arguments(parser)` and `run(args) -> int | None`.
"""

from __future__ import annotations

import argparse
import importlib
import sys

SUBCOMMANDS = {
    "train": ("training.cli", "train a PPO self-play policy"),
    "demo": ("jaxcheckers.demo", "play random games, print one and the throughput"),
    "perft": ("jaxcheckers.perft", "count the positions reachable in k moves"),
    "arena": ("jaxcheckers.arena", "play agents against each other"),
    "play": ("jaxcheckers.play", "play a game in the terminal"),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="jaxcheckers", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    modules = {}
    requested = (sys.argv[1:] if argv is None else argv)[:1]
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        sub = commands.add_parser(name, help=help_text)
        # Only the chosen subcommand's module is imported (training pulls in flax and optax).
        if requested == [name]:
            module = _import(module_name)
            if module is not None:
                module.add_arguments(sub)
                modules[name] = module
    args = parser.parse_args(argv)
    if args.command not in modules:
        parser.error(f"'{args.command}' is not available in this installation")
    return int(modules[args.command].run(args) or 0)


def _import(module_name: str):
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name == module_name:
            return None
        raise SystemExit(
            f"jaxcheckers: this command needs the package '{error.name}'; install the extra "
            "that provides it, e.g. pip install 'jaxcheckers[training]'"
        ) from error


if __name__ == "__main__":
    sys.exit(main())
