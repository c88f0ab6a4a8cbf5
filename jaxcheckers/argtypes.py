"""Argparse types that validate, shared by every subcommand, and the checks run before work starts.

    parser.add_argument("--games", type=games_count, default=100)
    parser.add_argument("--seed", type=seed, default=0)

Each type raises `argparse.ArgumentTypeError`, so a bad value is one line from argparse (the
`jaxcheckers` parser prints no usage block) and never a traceback from deep inside JAX.
"""

from __future__ import annotations

import argparse
import math
import tempfile
from pathlib import Path

import jax
import numpy as np

from jaxcheckers.agents import agent_specs
from jaxcheckers.games import DEFAULT, OpeningDeck, make, names, opening_deck, spec

__all__ = [
    "MAX_SEED",
    "MAX_GAMES",
    "MAX_STEPS",
    "positive_int",
    "count_at_most",
    "games_count",
    "steps_count",
    "non_negative_int",
    "finite_float",
    "positive_float",
    "non_negative_float",
    "fraction",
    "delay_seconds",
    "seed",
    "positive_int_list",
    "non_negative_float_list",
    "check_writable",
    "check_writable_folder",
    "writable_file",
    "writable_folder",
    "checked_positive_int",
    "add_game_arguments",
    "add_option_argument",
    "checked_make",
    "env_option",
    "game_options",
    "env_from_arguments",
    "add_agents_argument",
    "add_opening_arguments",
    "check_openings",
    "openings_from_arguments",
    "size_options",
]

MAX_SEED = 2**32 - 1  # jax.random.key takes a seed that fits 32 bits without wrapping


def _shown(text: str) -> str:
    """`text` quoted for a message, cut short: a pasted 5,000-digit number stays one line."""
    return repr(text) if len(text) <= 40 else f"{text[:37]!r}... ({len(text):,} characters)"


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:  # also Python's limit of 4,300 digits: no message about sys settings
        raise argparse.ArgumentTypeError(f"expected an integer, got {_shown(text)}") from None


def _float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def positive_int(text: str) -> int:
    value = _int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {_shown(text)}")
    return value


# At a million games a pair the score's 95% interval is ±0.001 at most: more games tell
# nothing more, and every game's result is kept on the host (ballots writes each to JSON).
MAX_GAMES = 1_000_000
# A million steps of every game slot timed: 4·10⁹ steps at demo's default batch, hours on a
# CPU; and far below the 2³¹ steps a compiled loop counts to.
MAX_STEPS = 1_000_000


def count_at_most(maximum: int, why: str):
    """An argparse type: a positive integer up to `maximum`; a larger one is refused in one
    line naming the limit and `why`, before anything is allocated for it."""

    def count(text: str) -> int:
        value = positive_int(text)
        if value > maximum:
            raise argparse.ArgumentTypeError(
                f"must be at most {maximum:,} ({why}), got {_shown(text)}"
            )
        return value

    return count


games_count = count_at_most(MAX_GAMES, "the score's 95% interval is ±0.001 by then")
steps_count = count_at_most(MAX_STEPS, "hours of timing on a CPU at the default --batch")


def non_negative_int(text: str) -> int:
    value = _int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text!r}")
    return value


def finite_float(text: str) -> float:
    return _float(text)


def positive_float(text: str) -> float:
    value = _float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}")
    return value


def non_negative_float(text: str) -> float:
    value = _float(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text!r}")
    return value


MAX_DELAY_SECONDS = 60.0


def delay_seconds(text: str) -> float:
    """A pause after a move: 0 to a minute (more is a typo, not a wish)."""
    value = non_negative_float(text)
    if value > MAX_DELAY_SECONDS:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_DELAY_SECONDS:g} s, got {text!r}")
    return value


def fraction(text: str) -> float:
    value = _float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must lie in [0, 1], got {text!r}")
    return value


def seed(text: str) -> int:
    value = _int(text)
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"must lie in [0, {MAX_SEED}], got {text!r}")
    return value


def _comma_separated(parse, what: str, text: str) -> tuple:
    try:
        return tuple(parse(part.strip()) for part in text.split(","))
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"expected {what} separated by commas, got {text!r}"
        ) from None


def positive_int_list(text: str) -> tuple[int, ...]:
    """Comma-separated positive integers: "256,256" -> (256, 256)."""
    return _comma_separated(positive_int, "positive integers", text)


def non_negative_float_list(text: str) -> tuple[float, ...]:
    """Comma-separated numbers >= 0: "0.1,0.6,0.3" -> (0.1, 0.6, 0.3)."""
    return _comma_separated(non_negative_float, "numbers >= 0", text)


def check_writable(path: str | Path, *, new: bool = False) -> Path:
    """`path` if a file can be written there; ValueError saying why not. Leaves no file behind.

    Run before the work whose result goes there, so that a typo costs nothing. `new`: refuse a
    file that exists already (a game record is never overwritten); a device such as /dev/null
    is not a file.
    """
    if not str(path).strip():  # before Path(), which reads "" as "."
        raise ValueError("an empty file name: give the file to write")
    path = Path(path)
    existed = path.exists()
    if new and path.is_file():
        raise ValueError(f"{path} exists already; give a new file name (it is not overwritten)")
    try:
        with path.open("a" if existed else "x", encoding="utf-8"):
            pass
        if not existed:
            path.unlink()
    except OSError as error:
        raise ValueError(f"cannot write {path}: {error.strerror or error}") from None
    return path


def check_writable_folder(path: str | Path) -> Path:
    """`path`, made if missing, if files can be written in it; ValueError saying why not.

    Run before the work whose results go there: a read-only folder (which `os.access` reports
    writable to root), a file in the way or an empty name costs nothing. A file is really made
    and removed, the one test every file system and user answers truthfully.
    """
    if not str(path).strip():  # before Path(), which reads "" as "."
        raise ValueError("an empty folder name: give the folder to write to")
    folder = Path(path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".jaxcheckers-write-test-"):
            pass
    except FileExistsError:
        raise ValueError(f"{folder} is a file, not a folder: give a folder to write to") from None
    except OSError as error:
        raise ValueError(f"cannot write in {folder}: {error.strerror or error}") from None
    return folder


def writable_file(text: str) -> Path:
    """An argparse type: a file `check_writable` accepts (an output checked before the work)."""
    try:
        return check_writable(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def writable_folder(text: str) -> Path:
    """An argparse type: a folder `check_writable_folder` accepts (made if missing)."""
    try:
        return check_writable_folder(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def checked_positive_int(value: object, name: str) -> int:
    """`value` as an int if it is a positive integer (numpy's too, bools not); ValueError
    naming `name` otherwise. For counts passed in Python rather than typed on a command line."""
    is_integer = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    if not is_integer or value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return int(value)


def add_game_arguments(parser: argparse.ArgumentParser) -> None:
    """`--game` (any registered game), `--board-size` and `--option KEY=VALUE`, shared by every
    subcommand that plays a game."""
    parser.add_argument("--game", choices=names(), default=DEFAULT, help=f"default {DEFAULT}")
    parser.add_argument("--board-size", type=int, default=None, help="n of an n×n board")
    add_option_argument(parser)


def add_option_argument(parser: argparse.ArgumentParser) -> None:
    """`--option KEY=VALUE`, repeatable: any keyword option of the game's env."""
    parser.add_argument(
        "--option",
        type=env_option,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an option of the game's env, as jaxcheckers.make takes it (repeatable): "
        "variant=russian, rule_set=ealt, max_steps=200, repetition_draw=false",
    )


def env_option(text: str) -> tuple[str, object]:
    """`--option`'s KEY=VALUE as (key, value): true/false a bool, none None, a number an int or
    a float, anything else the text."""
    key, equals, value = text.partition("=")
    key = key.strip()
    if not equals or not key.isidentifier():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE (variant=russian): {_shown(text)}")
    value = value.strip()
    words = {"true": True, "false": False, "none": None}
    if value.lower() in words:
        return key, words[value.lower()]
    for number in (int, float):
        try:
            parsed = number(value)
        except ValueError:
            continue
        if math.isfinite(parsed):  # "nan" and "inf" stay words
            return key, parsed
    return key, value


def game_options(args: argparse.Namespace, game: str | None = None) -> dict:
    """The env options of `--board-size` and every `--option` for `game` (default `--game`);
    ValueError for one given twice."""
    game = game or args.game
    options: dict = {}
    pairs = list(getattr(args, "option", None) or [])
    pairs += list(size_options(game, args.board_size).items())
    for key, value in pairs:
        if key in options:
            raise ValueError(f"the {game} option {key} is given twice")
        options[key] = value
    return options


def size_options(game: str, board_size: int | None) -> dict:
    """The env options `--board-size` sets for `game` ({} when not given); ValueError for a game
    without a board-size option."""
    if board_size is None:
        return {}
    option = spec(game).size_option
    if option is None:
        raise ValueError(f"{game} has no --board-size")
    return {option: board_size}


def add_fen_argument(parser: argparse.ArgumentParser) -> None:
    """`--fen`: the position to start from, as the game writes one (`play`, `perft`)."""
    parser.add_argument("--fen", help="start from this position (a FEN of the game)")


def env_and_start(args: argparse.Namespace):
    """The env `--game`, `--board-size` and `--option` name, and the state `--fen` gives (the
    opening without it); ValueError if refused, or if the game reads no position text."""
    env = env_from_arguments(args)
    if args.fen is None:
        return env, env.reset(jax.random.key(0))
    from_fen = spec(args.game).notation.from_fen
    if from_fen is None:
        raise ValueError(f"{args.game} has no position text: --fen cannot be read")
    return env, from_fen(args.fen, **game_options(args))


def env_from_arguments(args: argparse.Namespace, **options):
    """The env `--game`, `--board-size` and `--option` name, with extra `options`; ValueError if
    refused."""
    given = game_options(args)
    for key in sorted(options.keys() & given.keys()):
        raise ValueError(f"the {args.game} option {key} is given twice")
    return checked_make(args.game, **options, **given)


def checked_make(game: str, **options):
    """`make(game, **options)`; an option the game does not take is a one-line ValueError."""
    try:
        return make(game, **options)
    except TypeError as error:
        raise ValueError(f"{game}: {error}") from None


DEFAULT_GAMES = 100  # games a pair without an opening deck


def add_agents_argument(parser: argparse.ArgumentParser) -> None:
    """The positional AGENT... of `arena` and `ladder`, its help listing every agent name."""
    specs = "; ".join(f"{name}: {text}" for name, text in agent_specs().items())
    help_text = f"two or more agents ({specs})".replace("%", "%%")  # argparse formats with %
    parser.add_argument("agents", nargs="+", metavar="AGENT", help=help_text)


def add_opening_arguments(parser: argparse.ArgumentParser, default_plies: int) -> None:
    """`--openings DECK` (a game's opening deck: checkers' `ballots`) and `--opening-plies N`
    (random turns first), shared by `arena` and `ladder`."""
    parser.add_argument(
        "--openings",
        metavar="DECK",
        default=None,
        help="open every game from the game's deck: 'ballots' (checkers: the ACF's 156 "
        "three-move ballots, each with both colours: 312 games a pair; an even --games N plays "
        "N/2 of them, in an order shuffled by --seed)",
    )
    parser.add_argument(
        "--opening-plies",
        type=non_negative_int,
        default=None,
        help=f"random turns at the start of every game (default {default_plies}; none with "
        "--openings)",
    )
    parser.set_defaults(default_opening_plies=default_plies)


def check_openings(args: argparse.Namespace) -> None:
    """ValueError, one line, for `--openings` naming a deck the game lacks or set together with
    `--opening-plies` (checked before any env is built)."""
    if args.openings is None:
        return
    try:
        opening_deck(args.game, args.openings)
    except ValueError as error:
        raise ValueError(
            f"--openings {args.openings}: {error}; use --opening-plies for random opening turns"
        ) from None
    if args.opening_plies:
        raise ValueError(f"--openings {args.openings} sets the opening: leave out --opening-plies")


def openings_from_arguments(args: argparse.Namespace, env) -> tuple[OpeningDeck | None, int, int]:
    """(deck, games a pair, opening plies) from `--openings`, `--games` and `--opening-plies`;
    ValueError, one line, for a deck the game lacks or a count that does not fit it."""
    check_openings(args)
    if args.openings is None:
        games = DEFAULT_GAMES if args.games is None else args.games
        plies = args.opening_plies
        return None, games, args.default_opening_plies if plies is None else plies
    deck = opening_deck(args.game, args.openings)(env)
    whole = 2 * len(deck.names)
    games = whole if args.games is None else args.games
    if games % 2:
        raise ValueError(
            f"--games {games}: each opening is played with both colours, so give an even number "
            f"(the whole deck of {args.openings} is {whole} games)"
        )
    return deck, games, 0
