"""The `arena` command: agents against each other, seats swapped, score with a confidence interval.

    jaxcheckers arena alphabeta:3 random --games 1000
    jaxcheckers arena random alphabeta:1 alphabeta:2 --games 200     (a round-robin table)
    jaxcheckers arena --game tictactoe perfect random --games 100
    jaxcheckers arena ppo:pretrained alphabeta:7 --openings ballots     (312 games)

A front end over the match engine (`jaxcheckers.match`: many games at once, seats swapped every
other game, `--opening-plies` random turns first, or with `--openings DECK` every opening of
the game's deck with both colours) and the statistics (`jaxcheckers.ratings`: score, Wilson
interval, Elo difference). Two agents play one match; more play a round-robin, every pair with
a key of its own, and a table of scores follows.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys

import jax

from jaxcheckers import argtypes, memory, records
from jaxcheckers import match as engine
from jaxcheckers import ratings as elo
from jaxcheckers.agents import make_agent
from jaxcheckers.argtypes import (
    add_game_arguments,
    add_opening_arguments,
    check_openings,
    check_writable,
    env_from_arguments,
    games_count,
    openings_from_arguments,
    positive_int,
    seed,
)
from jaxcheckers.deprecation import moved_names

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    argtypes.add_agents_argument(parser)
    add_game_arguments(parser)
    parser.add_argument(
        "--games",
        type=games_count,
        default=None,
        help="games per pair (default 100; with --openings, every opening with both colours)",
    )
    parser.add_argument("--seed", type=seed, default=0)
    add_opening_arguments(parser, default_plies=0)
    parser.add_argument(
        "--max-steps", type=positive_int, default=None, help="env steps before a game is cut"
    )
    parser.add_argument("--batch-size", type=positive_int, default=None, help="games at once")
    parser.add_argument(
        "--pdn", "--pgn", metavar="FILE", help="save every game to FILE (PDN; for chess, PGN)"
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")


def run(args: argparse.Namespace) -> int:
    if len(args.agents) < 2:
        print("arena: give at least two agents", file=sys.stderr)
        return 2
    twice = sorted({spec for spec in args.agents if args.agents.count(spec) > 1})
    if twice and len(args.agents) > 2:  # two alike is a self-play match; more is a slip
        print(f"arena: an agent given twice in a round-robin: {', '.join(twice)}", file=sys.stderr)
        return 2
    if args.pdn is not None:
        check_writable(args.pdn, new=True)  # before the games: ValueError, one line from the CLI
    try:
        extra = {} if args.max_steps is None else {"max_steps": args.max_steps}
        check_openings(args)  # before the env: a typo costs nothing
        env = env_from_arguments(args, **extra)
        deck, games, opening_plies = openings_from_arguments(args, env)
        memory.check_batch(env, games, args.batch_size)
        agents = {spec: make_agent(spec, env) for spec in dict.fromkeys(args.agents)}
    except (ValueError, OSError) as error:
        print(f"arena: {error}", file=sys.stderr)
        return 2

    names = list(agents)
    if len(names) < 2:
        names = [args.agents[0], args.agents[1]]  # the same agent twice: a self-play match
    entrants = [(name, agents[name]) for name in names]
    results, pdn_games = [], []
    for a, b, match, summary, seconds in engine.round_robin(
        env,
        entrants,
        games,
        jax.random.key(args.seed),
        opening_plies=opening_plies,
        batch_size=args.batch_size,
        record=args.pdn is not None,
        deck=deck,
    ):
        result = {"a": a, "b": b, "seconds": seconds, **dataclasses.asdict(summary)}
        if deck is not None:
            result["each_game"] = engine.each_game(match, deck)
        results.append(result)
        if args.pdn is not None:
            first = len(pdn_games) + 1
            pdn_games += engine.match_games(match, a, b, env, first_round=first, deck=deck)
        if not args.json:
            print(elo.describe(a, b, summary, seconds))
            print()

    if args.json:
        report = {
            "agents": names,
            "openings": args.openings,
            "matches": [elo.finite_json(r) for r in results],
        }
        print(json.dumps(report, indent=2), flush=True)
    elif len(names) > 2:
        print(elo.round_robin_table(names, results), flush=True)
    if args.pdn is not None:  # after the results are out
        text = records.format_games(pdn_games)
        try:
            with open(args.pdn, "w", encoding="utf-8") as file:
                file.write(text)
        except OSError as error:  # checked before the games; it can still fail (a full disk)
            print(f"arena: could not save the games to {args.pdn}: {error}", file=sys.stderr)
            print(text)  # the games are not lost: they go to the screen instead
            return 1
        if not args.json:
            print(f"{len(pdn_games)} games saved to {args.pdn}")
    return 0


# The names that moved to the match engine and the statistics, served for one release.
_MOVED = {
    **{name: f"jaxcheckers.match:{name}" for name in engine.__all__},
    **{
        name: f"jaxcheckers.ratings:{name}"
        for name in (
            "Z_95",
            "Summary",
            "elo_difference",
            "wilson_interval",
            "summarize",
            "describe",
            "round_robin_table",
        )
    },
    "add_agents_argument": "jaxcheckers.argtypes:add_agents_argument",
}
__getattr__ = moved_names(__name__, _MOVED)
