"""The `ladder` command: a round-robin among agents, then Elo ratings fitted jointly with 95% CIs.

    jaxcheckers ladder random alphabeta:1 alphabeta:2 alphabeta:3 --games 100 --out DIR
    jaxcheckers ladder --game tictactoe random perfect mcts:uniform:8 --games 20
    jaxcheckers ladder random alphabeta:3 ppo:pretrained --openings ballots --out DIR
    jaxcheckers ladder random alphabeta:1 ... alphabeta:8 --neighbours 4 --out DIR --resume

Every pair plays `--games` games through `match.round_robin` (seats swapped every other game,
`--opening-plies` random turns first, or with `--openings DECK` every opening of the game's
deck with both colours); with `--neighbours K` only the pairs at most K apart in the order
given (weakest first: the results far apart are foregone). The ratings come from
`ratings.fit_ratings` (logistic Elo, `random` or the first agent anchored at 0, a prior of
`--prior-draws` virtual draws against the anchor that keeps perfect records finite); the table
shows the fit without the prior beside it whenever that one is finite, and says under it when
the games leave tiers apart (`ratings.separated_tiers`: their gaps are floors, not
measurements). With `--out DIR` the games are saved after every pair (`--resume` plays the rest
of a stopped ladder) and the report is written to DIR/ladder.md, ladder.json and ladder.png.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import shlex
import sys
import time
from pathlib import Path

import jax
import numpy as np

from jaxcheckers import files, memory
from jaxcheckers import match as engine
from jaxcheckers import ratings as elo
from jaxcheckers.agents import make_agent
from jaxcheckers.argtypes import (
    add_agents_argument,
    add_game_arguments,
    add_opening_arguments,
    check_openings,
    check_writable_folder,
    env_from_arguments,
    games_count,
    non_negative_float,
    openings_from_arguments,
    positive_int,
    seed,
)
from jaxcheckers.deprecation import moved_names

__all__ = ["fit_report", "games_played", "write_report", "add_arguments", "run"]

GAMES_FILE = "ladder-games.json"  # the pairs played so far, kept until the report is written
REPORT_FILES = ("ladder.json", "ladder.md", "ladder.png")  # a finished ladder's, never overwritten
LOCK_FILE = "ladder.lock"  # in --out while a ladder plays into it: "HOST PID"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_agents_argument(parser)
    add_game_arguments(parser)
    parser.add_argument(
        "--games",
        type=games_count,
        default=None,
        help="games per pair (default 100; with --openings, every opening with both colours)",
    )
    add_opening_arguments(parser, default_plies=2)
    parser.add_argument(
        "--neighbours",
        type=positive_int,
        default=None,
        metavar="K",
        help="each agent plays only the K agents listed after it (list them weakest first): "
        "fewer games where the result is foregone; default every pair",
    )
    parser.add_argument("--seed", type=seed, default=0)
    parser.add_argument("--batch-size", type=positive_int, default=None, help="games at once")
    parser.add_argument(
        "--prior-draws",
        type=non_negative_float,
        default=elo.DEFAULT_PRIOR_DRAWS,
        help="virtual draws of each agent against the anchor, keeping perfect records finite",
    )
    parser.add_argument("--out", metavar="DIR", default=None, help="write ladder.md/json/png here")
    parser.add_argument("--no-plot", action="store_true", help="skip the PNG (no matplotlib)")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="play the pairs a stopped ladder left (same command; it saves to --out after a pair)",
    )


def run(args: argparse.Namespace) -> int:
    names = list(dict.fromkeys(args.agents))
    if len(names) < 2:
        print("ladder: give at least two different agents", file=sys.stderr)
        return 2
    if args.resume and args.out is None:
        print(
            "ladder: --resume needs --out DIR, the folder the stopped ladder saved to",
            file=sys.stderr,
        )
        return 2
    if args.out is not None and not args.no_plot:
        try:
            import matplotlib  # noqa: F401
        except ModuleNotFoundError:
            print(
                "ladder: the plot needs matplotlib (pip install 'jaxcheckers[training]'), "
                "or pass --no-plot",
                file=sys.stderr,
            )
            return 1
    if args.out is None:
        return _play(args, names, None)
    out = check_writable_folder(args.out)  # before the games: a read-only --out costs nothing
    with files.lock(out / LOCK_FILE, out, "playing a ladder into it"):  # one ladder a folder
        return _play(args, names, out)


def _play(args: argparse.Namespace, names: list[str], out: Path | None) -> int:
    """Plays the ladder (the rest of a stopped one with --resume), writes its report to `out`."""
    check_openings(args)  # before the env: a typo costs nothing
    env = env_from_arguments(args)
    deck, games, opening_plies = openings_from_arguments(args, env)
    memory.check_batch(env, games, args.batch_size)
    args.games, args.opening_plies = games, opening_plies  # as played, for the report
    command = _command_line(args)
    saved = out / GAMES_FILE if out else None
    if saved is not None and not args.resume:
        if saved.exists():
            raise ValueError(
                f"{saved} holds a stopped ladder's games: add --resume to play the rest "
                "(the same command), or remove the file to start again"
            )
        files.refuse_finished([out / name for name in REPORT_FILES], "a finished ladder", "--out")
    schedule = [
        (names[i], names[j]) for _, i, j in engine.scheduled_pairs(len(names), args.neighbours)
    ]
    pairs, spent = _played_so_far(saved, command, schedule, games) if args.resume else ([], 0.0)
    agents = {name: make_agent(name, env) for name in names}

    started = time.perf_counter() - spent
    entrants = [(name, agents[name]) for name in names]
    try:
        for a, b, _, s, seconds in engine.round_robin(
            env,
            entrants,
            games,
            jax.random.key(args.seed),
            opening_plies=opening_plies,
            batch_size=args.batch_size,
            deck=deck,
            first_pair=len(pairs),
            neighbours=args.neighbours,
        ):
            pair = elo.PairResult(a, b, s.wins, s.draws, s.losses)
            pairs.append({**dataclasses.asdict(pair), "seconds": round(seconds, 2)})
            print(
                f"{a} vs {b}: {s.wins} / {s.draws} / {s.losses} (score {s.score:.3f}), "
                f"{seconds:.1f} s",
                file=sys.stderr,
                flush=True,
            )
            if saved is not None:  # a stopped ladder keeps every pair it finished
                report = _games_report(args, command, names, pairs, time.perf_counter() - started)
                _write_json(saved, report)
    except KeyboardInterrupt:
        if saved is None:
            raise
        print(
            f"ladder: stopped after {len(pairs)} of {len(schedule)} pairs, kept in {saved} "
            "(--resume plays the rest)",
            file=sys.stderr,
        )
        return 130

    report = _games_report(args, command, names, pairs, time.perf_counter() - started)
    try:
        report, text = fit_report(report)
    except (ValueError, np.linalg.LinAlgError) as error:
        # The games cost minutes to hours: they are kept whatever the fit does.
        kept = _keep_games(report, out)
        print(
            f"ladder: the rating fit failed ({error}); the games are kept in {kept}",
            file=sys.stderr,
        )
        return 1
    print(text, flush=True)
    if out is not None:
        write_report(report, out, plot=not args.no_plot)
        saved.unlink(missing_ok=True)  # ladder.json holds every pair now
        print(f"written to {out}/", file=sys.stderr)
    return 0


def _games_report(args, command: str, names: list[str], pairs: list[dict], wall: float) -> dict:
    """The ladder's games before the fit: the settings, the machine and every pair played."""
    machine = f"{platform.machine()}, {os.cpu_count()} CPU cores, jax {jax.__version__}"
    machine += f" on {jax.devices()[0].platform}"
    return {
        "command": command,
        "game": args.game,
        "board_size": args.board_size,
        "options": dict(args.option),
        "games_per_pair": args.games,
        "openings": args.openings,
        "opening_plies": args.opening_plies,
        "neighbours": args.neighbours,
        "seed": args.seed,
        "prior_draws": args.prior_draws,
        "wall_seconds": round(wall, 1),
        "machine": machine,
        "agents": names,
        "pairs_planned": len(engine.scheduled_pairs(len(names), args.neighbours)),
        "pairs": pairs,
    }


def _played_so_far(saved: Path, command: str, schedule: list[tuple[str, str]], games: int):
    """(the pairs a stopped ladder saved, its wall time), when `saved` holds this command's
    first pairs of `schedule` (the (a, b) of each pair to play, in order), each of `games`
    games; ValueError, one line, when it does not exist, is not such a file, or holds another
    ladder: checked before any game, so a damaged file never costs the games after it."""
    if not saved.exists():
        if any((saved.parent / name).exists() for name in REPORT_FILES):
            raise ValueError(f"--resume: {saved.parent} holds a finished ladder: nothing to resume")
        raise ValueError(f"--resume: {saved} does not exist (no stopped ladder there)")
    try:
        report = json.loads(saved.read_text(encoding="utf-8"))
        pairs, wall = report["pairs"], files.saved_seconds(report["wall_seconds"], "wall_seconds")
        played = [(p["a"], p["b"]) for p in pairs]
        for p in pairs:
            counts = [files.saved_count(p[f], f, games) for f in ("wins", "draws", "losses")]
            if sum(counts) != games:
                raise ValueError(f"{p['a']} vs {p['b']} has {sum(counts)} games, not {games}")
            files.saved_seconds(p["seconds"], "seconds")
    except (OSError, ValueError, TypeError, KeyError) as error:  # JSON errors are ValueErrors
        raise ValueError(f"--resume: {saved} is not a ladder's saved games ({error})") from None
    if _without_out(report.get("command")) != _without_out(command):
        raise ValueError(f"--resume: {saved} holds another ladder: {report.get('command')}")
    if played != schedule[: len(played)]:
        raise ValueError(f"--resume: {saved} holds pairs this ladder does not play in that order")
    print(f"resuming: {len(pairs)} of {len(schedule)} pairs played", file=sys.stderr)
    return pairs, wall


def _without_out(command) -> str | None:
    """The command less its --out (the last option): the folder the file was found in is the
    one asked for, however it was spelt (`d`, `./d/`, an absolute path)."""
    return command.split(" --out ")[0] if isinstance(command, str) else None


def _write_json(path: Path, report: dict) -> None:
    files.write_whole(path, json.dumps(report, indent=2) + "\n")


def _keep_games(report: dict, out: Path | None) -> str:
    """Writes the played games (the report before its fit) to OUT/ladder-games.json, or to a
    file in the working directory without --out; returns where."""
    path = (out or Path(".")) / GAMES_FILE
    try:
        _write_json(path, report)
    except OSError:
        print(json.dumps(report, indent=2), flush=True)
        return "the JSON printed above"
    return str(path)


def fit_report(report: dict) -> tuple[dict, str]:
    """Adds the fit (anchor, ratings, tiers) to a report of played pairs; returns it and the
    table (with the tiers note) as text. Refitting a saved ladder.json needs no games."""
    names = report["agents"]
    fields = ("a", "b", "wins", "draws", "losses")
    results = [elo.PairResult(*(pair[f] for f in fields)) for pair in report["pairs"]]
    anchor = elo.choose_anchor(names)
    ratings = elo.fit_ratings(names, results, anchor=anchor, prior_draws=report["prior_draws"])
    without_prior = _fit_without_prior(names, results, anchor) if report["prior_draws"] else None
    tiers = elo.separated_tiers(names, results)
    report = {
        **report,
        "anchor": anchor,
        "interval": "95%, rating ± 1.96·se, se from the observed Fisher information",
        "ratings": [dataclasses.asdict(r) for r in ratings],
        "ratings_without_prior": without_prior and [dataclasses.asdict(r) for r in without_prior],
        "tiers": tiers,
    }
    note = elo.tiers_note(tiers, report["prior_draws"])
    return report, elo.markdown_table(ratings, without_prior) + (f"\n\n{note}" if note else "")


def _fit_without_prior(names, results, anchor) -> list[elo.Rating] | None:
    """The maximum-likelihood fit, or None when the results leave it at infinity."""
    try:
        return elo.fit_ratings(names, results, anchor=anchor, prior_draws=0)
    except ValueError:
        return None


def write_report(report: dict, out: str | os.PathLike, *, plot: bool = True) -> None:
    """DIR/ladder.md (header, table, tiers, crosstable, command), ladder.json, ladder.png."""
    out = Path(out)
    ratings = [elo.Rating(**r) for r in report["ratings"]]
    without_prior = report.get("ratings_without_prior")
    without_prior = without_prior and [elo.Rating(**r) for r in without_prior]
    size = report["board_size"]
    header = (
        f"Elo ratings, anchor `{report['anchor']}` = 0, 95% CIs from the observed information; "
        f"{report['game']}"
        + (f" {size}×{size}" if size else "")
        + "".join(f", {key}={value}" for key, value in report.get("options", {}).items())
        + f", {games_played(report)}, "
        + f"prior: {report['prior_draws']:g} virtual draw(s) against the anchor.\n"
    )
    note = elo.tiers_note(report["tiers"], report["prior_draws"])
    scores = [
        {**p, "score": (p["wins"] + p["draws"] / 2) / max(p["wins"] + p["draws"] + p["losses"], 1)}
        for p in report["pairs"]
    ]
    (out / "ladder.md").write_text(
        f"{header}\n{elo.markdown_table(ratings, without_prior)}\n\n"
        + (f"{note}\n\n" if note else "")
        + "Scores (row against column):\n\n```\n"
        + f"{elo.round_robin_table(report['agents'], scores)}\n```\n\n"
        + f"`{report['command']}`: {report['wall_seconds']:.0f} s ({report['machine']})\n",
        encoding="utf-8",
    )
    (out / "ladder.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    if plot:
        title = (
            f"{report['game']}, {report['games_per_pair']} games a pair, anchor {report['anchor']}"
        )
        elo.plot_ratings(ratings, out / "ladder.png", title=title)


def games_played(report: dict) -> str:
    """Which games a ladder's report holds, in words: how many a pair, how they opened, which
    pairs met."""
    if report.get("openings"):
        opening = f"openings from the {report['openings']} deck (each with both colours)"
    else:
        opening = f"{report['opening_plies']} random opening turns"
    k = report.get("neighbours")
    pairs = "every pair" if k is None else f"each agent against the {k} listed after it"
    return f"{report['games_per_pair']} games a pair, both seats, {opening}, {pairs}"


def _command_line(args: argparse.Namespace) -> str:
    """The command that reruns this ladder (every setting that changes the games)."""
    words = ["jaxcheckers", "ladder", *args.agents, "--game", args.game]
    if args.board_size is not None:
        words += ["--board-size", str(args.board_size)]
    for key, value in args.option:
        words += ["--option", shlex.quote(f"{key}={value}")]
    words += ["--games", str(args.games)]
    if args.openings:
        words += ["--openings", args.openings]
    else:
        words += ["--opening-plies", str(args.opening_plies)]
    if args.neighbours is not None:
        words += ["--neighbours", str(args.neighbours)]
    words += ["--seed", str(args.seed)]
    if args.batch_size is not None:  # it splits the keys, so it changes a random agent's games
        words += ["--batch-size", str(args.batch_size)]
    if args.prior_draws != elo.DEFAULT_PRIOR_DRAWS:
        words += ["--prior-draws", f"{args.prior_draws:g}"]
    if args.out is not None:
        words += ["--out", os.path.normpath(args.out)]
    return " ".join(words)


# The rating model moved to jaxcheckers.ratings, and the names this module took from the arena
# to their homes; each is served here for one release.
_MOVED = {
    **{
        name: f"jaxcheckers.ratings:{name}"
        for name in (
            "Z_95",
            "ELO_SCALE",
            "DEFAULT_PRIOR_DRAWS",
            "PairResult",
            "Rating",
            "expected_score",
            "choose_anchor",
            "fit_ratings",
            "separated_tiers",
            "markdown_table",
            "tiers_note",
            "plot_ratings",
            "round_robin_table",
        )
    },
    "round_robin": "jaxcheckers.match:round_robin",
    "scheduled_pairs": "jaxcheckers.match:scheduled_pairs",
}
__getattr__ = moved_names(__name__, _MOVED)
