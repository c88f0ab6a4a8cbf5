"""One agent against another over checkers' three-move ballots, saved after every batch.

    python -m benchmarks.ballots ppo:pretrained alphabeta:7
    python -m benchmarks.ballots mcts:ppo:pretrained:64 alphabeta:8 --batch-size 1
    python -m benchmarks.ballots --table        # every saved pairing as a markdown table

The games of `jaxcheckers arena A B --openings ballots --seed S --batch-size N` (312 games:
the ACF's 156 ballots, each with both colours, in the same order and seats), a batch at a time;
after each batch the results so far go to results/ballots/A_vs_B.json: the score with its 95%
interval, wins / draws / losses, and every game (its ballot, A's colour, A's score, its length).
A long match stopped part way keeps what it played, and the file says how many games it holds;
`--resume` plays the rest of it (the same games it would have played had it not stopped).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import sys
import time
from pathlib import Path

import jax
import numpy as np

import jaxcheckers
from benchmarks.common import agent_or_exit
from jaxcheckers import files
from jaxcheckers.argtypes import (
    MAX_GAMES,
    check_writable,
    check_writable_folder,
    games_count,
    positive_int,
    seed,
)
from jaxcheckers.checkers.ballots import DECK_GAMES, deck
from jaxcheckers.cli import OneLineParser
from jaxcheckers.match import deck_order, each_game, match_batches
from jaxcheckers.ratings import finite_json, summarize

RESULTS = Path(__file__).resolve().parent / "results" / "ballots"
SAVED_FIELDS = {"command", "complete", "games", "games_played", "wall_seconds"}
GAME_FIELDS = {"opening", "a_plays_first", "a_score"}


def results_path(a: str, b: str) -> Path:
    name = re.sub(r"[^A-Za-z0-9.-]+", "-", f"{a}_vs_{b}")
    return RESULTS / f"{name}.json"


TABLE_HEADER = [
    "| A | B | games | A: W / D / L | score [95% CI] | as black | as white | "
    "ballots lost both ways | wall s |",
    "|---|---|---|---|---|---|---|---|---|",
]


def markdown_table(reports: list[dict]) -> str:
    """One row per saved pairing: games played (and the seed, if not 0), W / D / L for A, score
    and its 95% CI, A's score with black and with white, ballots A lost with both colours, wall
    time."""
    return "\n".join([*TABLE_HEADER, *(table_row(r) for r in reports)])


def table_row(r: dict) -> str:
    """A saved pairing's row of `markdown_table`; KeyError, TypeError or ValueError when the
    file lacks what the row shows."""
    s, games = r["summary"], r["games"]
    by_colour = [
        [g["a_score"] for g in games if g["a_plays_first"] == first] for first in (True, False)
    ]
    pairs: dict[str, list[float]] = {}
    for g in games:
        pairs.setdefault(g["opening"], []).append(g["a_score"])
    lost = sum(1 for v in pairs.values() if len(v) == 2 and max(v) == 0)
    black, white = (f"{np.mean(c):.3f}" if c else "-" for c in by_colour)
    played = f"{r['games_played']}" + ("" if r["complete"] else f" of {r['games_planned']}")
    seed = re.search(r"--seed (\d+)", r["command"])  # another seed: other alpha-beta tie-breaks
    played += f", seed {seed[1]}" if seed and seed[1] != "0" else ""
    return (
        f"| `{r['a']}` | `{r['b']}` | {played} | {s['wins']} / {s['draws']} / {s['losses']} "
        f"| {s['score']:.3f} [{s['score_low']:.3f}, {s['score_high']:.3f}] | {black} | "
        f"{white} | {lost} | {r['wall_seconds']:.0f} |"
    )


def print_table() -> int:
    """Prints every saved pairing's row; a file that is not a saved match is named on stderr
    (one line each) and left out: 1 when there was one, else 0."""
    rows, status = list(TABLE_HEADER), 0
    for path in sorted(RESULTS.glob("*.json")):
        try:
            rows.append(table_row(check_saved(json.loads(path.read_text(encoding="utf-8")))))
        except (OSError, ValueError, KeyError, TypeError) as error:
            print(f"ballots: left out {path}: not a saved match ({error})", file=sys.stderr)
            status = 1
    print("\n".join(rows))
    return status


def check_saved(report) -> dict:
    """`report` if it has a saved match's fields with their types; ValueError naming the first
    that is missing or wrong (before a resumed match trusts them)."""
    if not isinstance(report, dict) or not SAVED_FIELDS <= report.keys():
        raise ValueError(f"it lacks {', '.join(sorted(SAVED_FIELDS))}")
    if type(report["command"]) is not str or type(report["complete"]) is not bool:
        raise ValueError("command must be text and complete true or false")
    games = report["games"]
    if type(games) is not list or not all(_is_game(g) for g in games):
        raise ValueError(
            "games must be a list of games, each with " + ", ".join(sorted(GAME_FIELDS))
        )
    if files.saved_count(report["games_played"], "games_played", MAX_GAMES) != len(games):
        raise ValueError(f"games_played is {report['games_played']}, yet {len(games)} games")
    files.saved_seconds(report["wall_seconds"], "wall_seconds")
    return report


def _is_game(game) -> bool:
    return (
        isinstance(game, dict)
        and GAME_FIELDS <= game.keys()
        and type(game["opening"]) is str
        and type(game["a_plays_first"]) is bool
        and game["a_score"] in (0, 0.5, 1)
        and type(game["a_score"]) in (int, float)
    )


def saved_match(parser, out: Path) -> dict:
    """The match `out` holds; one line and exit 2 when it is not such a file."""
    try:
        return check_saved(json.loads(out.read_text(encoding="utf-8")))
    except (OSError, ValueError) as error:  # JSON's errors are ValueErrors
        parser.error(f"{out} is not a saved match ({error})")


def played_so_far(parser, out: Path, command: str, args) -> tuple[list[dict], float]:
    """The games a stopped match saved and its wall time, when `out` holds this command's."""
    if not out.exists():
        parser.error(f"--resume: {out} does not exist")
    report = saved_match(parser, out)
    if report["command"] != command:
        parser.error(f"--resume: {out} holds another match: {report['command']}")
    if report["complete"]:
        parser.exit(0, f"{out} holds all {report['games_played']} games: nothing to resume\n")
    played = len(report["games"])
    if played >= args.games or played % args.batch_size:
        parser.error(
            f"--resume: {out} holds {played} games, not whole batches of {args.batch_size} "
            f"short of {args.games}: not a stopped match of this command"
        )
    return report["games"], report["wall_seconds"]


def main() -> int:
    parser = OneLineParser(prog="python -m benchmarks.ballots", description=__doc__.splitlines()[0])
    parser.add_argument("a", nargs="?")
    parser.add_argument("b", nargs="?")
    parser.add_argument("--table", action="store_true", help="print the saved pairings, then stop")
    parser.add_argument(
        "--games", type=games_count, default=DECK_GAMES, help="an even number (both colours)"
    )
    parser.add_argument("--batch-size", type=positive_int, default=24)
    parser.add_argument("--seed", type=seed, default=0)
    parser.add_argument("--out", default=None, help="default results/ballots/A_vs_B.json")
    parser.add_argument(
        "--resume", action="store_true", help="play the rest of the match the file holds"
    )
    args = parser.parse_args()
    if args.table:
        return print_table()
    if args.b is None:
        parser.error("give two agents (or --table)")
    if args.games % 2:
        parser.error(
            f"--games {args.games}: each ballot is played with both colours, so give an even "
            f"number (the whole deck is {DECK_GAMES} games)"
        )
    if args.out is not None and not args.out.strip():
        parser.error("--out '': an empty file name, give the file to write")
    out = results_path(args.a, args.b) if args.out is None else Path(args.out)
    if out.exists() and not out.is_file():  # it is replaced whole: a device would be replaced
        parser.error(f"{out} is not a file: give the file to write the match to")
    try:  # before any game: a folder or file that cannot be written costs nothing
        check_writable(check_writable_folder(out.parent) / out.name)
        with files.lock(out.with_name(out.name + ".lock"), out, "playing a match into it"):
            stopped = play(parser, args, out)
    except ValueError as error:
        parser.error(str(error))
    except KeyboardInterrupt:  # before the first batch (building the agents, the deck)
        print(f"ballots: interrupted before a game was played ({out} as it was)", file=sys.stderr)
        stopped = True
    if stopped:  # Ctrl-C: what was played is saved; end now, not after XLA's threads
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(130)
    return 0


def play(parser, args, out: Path) -> bool:
    """Plays the match (the rest of it with --resume) into `out`; True if Ctrl-C stopped it."""
    command = f"python -m benchmarks.ballots {args.a} {args.b} --games {args.games} "
    command += f"--batch-size {args.batch_size} --seed {args.seed}"
    games, spent = [], 0.0
    if args.resume:
        games, spent = played_so_far(parser, out, command, args)
    elif out.exists():
        report = saved_match(parser, out)
        if not report["complete"]:
            parser.error(
                f"{out} holds a stopped match: add --resume to play the rest (the same "
                "command), or remove the file to start again"
            )
        what = f"a complete match ({report['games_played']} games)"
        files.refuse_finished([out], what, "--out FILE")
    env = jaxcheckers.make("checkers")
    agent_a = agent_or_exit(parser, args.a, env)
    agent_b = agent_or_exit(parser, args.b, env)
    ballots = deck(env)
    started = time.perf_counter() - spent
    key = jax.random.key(args.seed)
    batches = match_batches(
        env,
        agent_a,
        agent_b,
        args.games,
        jax.random.fold_in(key, 0),  # as `match.round_robin` keys its first pair
        batch_size=args.batch_size,
        deck=ballots,
        openings=deck_order(len(ballots.names), args.games, key),
        first_game=len(games),
    )
    saved = len(games)
    try:
        for match in batches:
            games += _rows(match, ballots)
            try:
                _save(args, out, command, games, time.perf_counter() - started)
            except OSError as error:  # checked before the games; it can still fail (disk full)
                raise ValueError(
                    f"could not save to {out} ({error.strerror or error}); it keeps the {saved} "
                    "games saved before (--resume plays the rest)"
                ) from None
            saved = len(games)
    except KeyboardInterrupt:  # the file holds the batches saved whole, nothing after them
        # A Ctrl-C between a save and `saved = ...` stops it after the file took the batch.
        saved = max(saved, _games_saved_in(out))
        kept = f"kept in {out} (--resume plays the rest)" if saved else "nothing saved"
        print(f"ballots: stopped after {saved} of {args.games} games, {kept}", file=sys.stderr)
        return True
    return False


def _games_saved_in(out: Path) -> int:
    """games_played of the match file `out` (0 if there is none to read)."""
    try:
        return int(json.loads(out.read_text())["games_played"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0


def _rows(match, ballots) -> list[dict]:
    rows = each_game(match, ballots)
    for row, length in zip(rows, match.length, strict=True):
        row["length"] = int(length)
    return rows


def _save(args, out: Path, command: str, games: list[dict], wall: float) -> None:
    """Writes the games so far (and their summary) to `out`, whole, and prints the score."""
    summary = summarize(np.array([g["a_score"] for g in games]))
    report = {
        "command": command,
        "a": args.a,
        "b": args.b,
        "openings": "ballots",
        "games_planned": args.games,
        "games_played": len(games),
        "complete": len(games) == args.games,
        "wall_seconds": round(wall, 1),
        "load_average": os.getloadavg(),
        "summary": finite_json(dataclasses.asdict(summary)),
        "games": games,
    }
    files.write_whole(out, json.dumps(report, indent=1, default=str) + "\n")
    s = summary
    print(
        f"{len(games)}/{args.games} games: {args.a} {s.wins} / {s.draws} / {s.losses}, score "
        f"{s.score:.3f} [{s.score_low:.3f}, {s.score_high:.3f}], {report['wall_seconds']:.0f} s",
        flush=True,
    )


if __name__ == "__main__":
    sys.exit(main())
