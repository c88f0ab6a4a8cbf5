"""Evaluate a trained policy against built-in agents, both seats; print and write the results.

    .venv/bin/python -m jaxcheckers.training.evaluate runs/quick --opponents random --games 400
    .venv/bin/python -m jaxcheckers.training.evaluate runs/long --opponents alphabeta:3 \\
        --games 400 --opening-plies 4

The policy plays greedily (its most probable legal move); it takes seat 0 in half the games and
seat 1 in the other half. The first `--opening-plies` steps of each game are random legal moves
for both sides. Writes `eval.json` in the run directory.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import jax
from jaxcheckers.training.checkpoints import find_run_dir, load_params
from jaxcheckers.training.evaluation import make_policy_evaluator, summarize
from jaxcheckers.training.ppo import make_env

from jaxcheckers.agents import make_agent


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", help="a run directory or one of its checkpoints/<update> dirs")
    parser.add_argument("--opponents", default="random", help="comma-separated agent specs")
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--opening-plies", type=int, default=2)
    parser.add_argument("--sample", action="store_true", help="sample moves instead of greedy")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    params, network, config = load_params(args.run)
    env = make_env(config)
    results = {}
    for spec in args.opponents.split(","):
        evaluate = make_policy_evaluator(
            env, network.apply, make_agent(spec, env), args.games,
            opening_plies=args.opening_plies, greedy=not args.sample,
        )  # fmt: skip
        started = time.time()
        outcome = summarize(evaluate(params, jax.random.PRNGKey(args.seed)))
        seconds = time.time() - started
        results[spec] = {
            **outcome._asdict(),
            "games": outcome.games,
            "win_rate": outcome.win_rate,
            "score": outcome.score,
            "opening_plies": args.opening_plies,
            "seconds": round(seconds, 1),
        }
        print(
            f"policy vs {spec}: {outcome.wins} wins, {outcome.draws} draws, {outcome.losses} "
            f"losses of {outcome.games} (win rate {outcome.win_rate:.1%}, score "
            f"{outcome.score:.1%}), {seconds:.0f} s"
        )
    run_dir, _ = find_run_dir(args.run)
    (Path(run_dir) / "eval.json").write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
