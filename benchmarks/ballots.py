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

import argparse
import dataclasses
import json
import os
import re
import time
from pathlib import Path

import jax
import numpy as np

import jaxcheckers
from benchmarks.common import agent_or_exit
from jaxcheckers.arena import _finite, deck_order, each_game, match_batches, summarize
from jaxcheckers.argtypes import positive_int, seed
from jaxcheckers.checkers.ballots import DECK_GAMES, deck

RESULTS = Path(__file__).resolve().parent / "results" / "ballots"
SAVED_FIELDS = {"command", "complete", "games", "games_played", "wall_seconds"}


def results_path(a: str, b: str) -> Path:
    name = re.sub(r"[^A-Za-z0-9.-]+", "-", f"{a}_vs_{b}")
    return RESULTS / f"{name}.json"


def markdown_table(reports: list[dict]) -> str:
    """One row per saved pairing: games played, W / D / L for A, score and its 95% CI, A's
    score with black and with white, ballots A lost with both colours, wall time."""
    rows = [
        "| A | B | games | A: W / D / L | score [95% CI] | as black | as white | "
        "ballots lost both ways | wall s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in reports:
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
        rows.append(
            f"| `{r['a']}` | `{r['b']}` | {played} | {s['wins']} / {s['draws']} / {s['losses']} "
            f"| {s['score']:.3f} [{s['score_low']:.3f}, {s['score_high']:.3f}] | {black} | "
            f"{white} | {lost} | {r['wall_seconds']:.0f} |"
        )
    return "\n".join(rows)


def saved_match(parser, out: Path) -> dict:
    """The match `out` holds; one line and exit 2 when it is not such a file."""
    try:
        report = json.loads(out.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:  # JSON's errors are ValueErrors
        parser.error(f"{out} is not a saved match ({error!r})")
    if not isinstance(report, dict) or not SAVED_FIELDS <= report.keys():
        parser.error(f"{out} is not a saved match (it lacks {', '.join(sorted(SAVED_FIELDS))})")
    return report


def played_so_far(parser, out: Path, command: str) -> tuple[list[dict], float]:
    """The games a stopped match saved and its wall time, when `out` holds this command's."""
    if not out.exists():
        parser.error(f"--resume: {out} does not exist")
    report = saved_match(parser, out)
    if report["command"] != command:
        parser.error(f"--resume: {out} holds another match: {report['command']}")
    if report["complete"]:
        parser.exit(0, f"{out} holds all {report['games_played']} games: nothing to resume\n")
    return report["games"], report["wall_seconds"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", nargs="?")
    parser.add_argument("b", nargs="?")
    parser.add_argument("--table", action="store_true", help="print the saved pairings, then stop")
    parser.add_argument("--games", type=positive_int, default=DECK_GAMES)
    parser.add_argument("--batch-size", type=positive_int, default=24)
    parser.add_argument("--seed", type=seed, default=0)
    parser.add_argument(
        "--out", type=Path, default=None, help="default results/ballots/A_vs_B.json"
    )
    parser.add_argument(
        "--resume", action="store_true", help="play the rest of the match the file holds"
    )
    args = parser.parse_args()
    if args.table:
        reports = [json.loads(p.read_text()) for p in sorted(RESULTS.glob("*.json"))]
        print(markdown_table(reports))
        return
    if args.b is None:
        parser.error("give two agents (or --table)")
    env = jaxcheckers.make("checkers")
    agent_a = agent_or_exit(parser, args.a, env)
    agent_b = agent_or_exit(parser, args.b, env)
    ballots = deck(env)
    out = args.out or results_path(args.a, args.b)
    out.parent.mkdir(parents=True, exist_ok=True)
    command = f"python -m benchmarks.ballots {args.a} {args.b} --games {args.games} "
    command += f"--batch-size {args.batch_size} --seed {args.seed}"
    games, spent = [], 0.0
    if args.resume:
        games, spent = played_so_far(parser, out, command)
    elif out.exists() and not saved_match(parser, out)["complete"]:
        parser.error(
            f"{out} holds a stopped match: add --resume to play the rest (the same command), "
            "or remove the file to start again"
        )
    started = time.perf_counter() - spent
    key = jax.random.key(args.seed)
    batches = match_batches(
        env,
        agent_a,
        agent_b,
        args.games,
        jax.random.fold_in(key, 0),  # as `arena.round_robin` keys its first pair
        batch_size=args.batch_size,
        deck=ballots,
        openings=deck_order(len(ballots.names), args.games, key),
        first_game=len(games),
    )
    for match in batches:
        rows = each_game(match, ballots)
        for row, length in zip(rows, match.length, strict=True):
            row["length"] = int(length)
        games += rows
        summary = summarize(np.array([g["a_score"] for g in games]))
        report = {
            "command": command,
            "a": args.a,
            "b": args.b,
            "openings": "ballots",
            "games_planned": args.games,
            "games_played": len(games),
            "complete": len(games) == args.games,
            "wall_seconds": round(time.perf_counter() - started, 1),
            "load_average": os.getloadavg(),
            "summary": _finite(dataclasses.asdict(summary)),
            "games": games,
        }
        partial = out.with_suffix(".json.part")  # then renamed: a reader never sees half a file
        partial.write_text(json.dumps(report, indent=1, default=str) + "\n")
        partial.replace(out)
        s = summary
        print(
            f"{len(games)}/{args.games} games: {args.a} {s.wins} / {s.draws} / {s.losses}, score "
            f"{s.score:.3f} [{s.score_low:.3f}, {s.score_high:.3f}], "
            f"{report['wall_seconds']:.0f} s",
            flush=True,
        )


if __name__ == "__main__":
    main()
