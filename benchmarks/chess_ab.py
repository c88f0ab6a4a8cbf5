"""Chess: this checkout's step against another commit's, timed in one process, in turns.

    python -m benchmarks.chess_ab --base COMMIT [--batch 1024] [--rounds 5] [--parts PART ...]
    python -m benchmarks.chess_ab --base COMMIT --game checkers --parts step harness

On a shared machine the load changes from minute to minute, so a change is only measured
against the code before it in the same process: the package at COMMIT is copied (`git archive`)
into a temporary folder under another name, both are compiled, and each part is timed in
alternating order, round by round. Parts: `legal` (`rules.legal_moves`), `order`
(`rules.action_order`), `play` (`rules.play`), `step` (`env.step`), all jitted and vmapped over
the batch at positions 40 random plies in, and `harness` (the throughput benchmark's scan of
sample, step, reset and observation). `--game` times another game's `step` and `harness`
(the other parts are chess's rules). Prints the median and the least ns per game (per
game-step for the harness) of wall and of this process's CPU time.
"""

from __future__ import annotations

import argparse
import importlib
import io
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import jax

from benchmarks import common
from benchmarks.ab import check_base_and_games
from jaxcheckers import GAMES
from jaxcheckers.argtypes import positive_int

BASE_NAME = "jaxcheckers_base"


def import_base(commit: str, folder: Path):
    """The `jaxcheckers` package at `commit`, imported as `jaxcheckers_base`."""
    archive = subprocess.run(
        ["git", "archive", commit, "jaxcheckers"], check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    (folder / "jaxcheckers").rename(folder / BASE_NAME)
    for path in (folder / BASE_NAME).rglob("*.py"):
        text = path.read_text()
        path.write_text(re.sub(r"\bjaxcheckers\b", BASE_NAME, text))
    sys.path.insert(0, str(folder))
    return importlib.import_module(BASE_NAME)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the commit to compare against")
    parser.add_argument("--batch", type=positive_int, default=1024)
    parser.add_argument(
        "--steps", type=positive_int, default=32, help="harness steps per timed call"
    )
    parser.add_argument("--rounds", type=positive_int, default=5)
    parser.add_argument("--parts", nargs="+", default=["legal", "step", "harness"])
    parser.add_argument("--game", default="chess", choices=GAMES)
    args = parser.parse_args()
    check_base_and_games(parser, args.base, [args.game])
    if args.game != "chess" and set(args.parts) - {"step", "harness"}:
        parser.error("for a game other than chess, --parts takes step and harness only")

    import jaxcheckers

    with tempfile.TemporaryDirectory() as folder:
        packages = {"base": import_base(args.base, Path(folder)), "this": jaxcheckers}
        timings = compare(packages, args)
    print(f"batch {args.batch}; ns per game (per game-step for the harness): median [least]")
    for part in args.parts:
        for name in packages:
            wall, cpu = timings[part, name]
            print(
                f"{part:8s} {name:5s} wall {statistics.median(wall):8.0f} [{min(wall):7.0f}]"
                f"  cpu {statistics.median(cpu):8.0f} [{min(cpu):7.0f}]"
            )


def compare(packages: dict, args) -> dict:
    batch = args.batch
    calls = {}
    for name, package in packages.items():
        rules = importlib.import_module(f"{package.__name__}.chess.rules")
        env = package.make(args.game)
        game = common.JaxGame(args.game, env.reset, env.step, env.num_actions)
        carry = common.initial_carry(game, batch)
        states = common.make_rollout(game, batch, 40)(*carry)[0]
        actions = common.sample_legal_actions(jax.random.key(1), states.legal_action_mask)
        parts = {"step": (jax.vmap(env.step), (states, actions))}
        if args.game == "chess":
            parts["legal"] = (jax.vmap(rules.legal_moves), (states.position,))
            parts["order"] = (
                jax.vmap(rules.action_order),
                (jax.jit(jax.vmap(rules.legal_moves))(states.position).bits,),
            )
            parts["play"] = (
                jax.vmap(rules.play),
                (states.position, actions, states.current_player),
            )
        for part in args.parts:
            if part == "harness":
                rollout = common.make_rollout(game, batch, args.steps)
                carry = jax.block_until_ready(rollout(*common.initial_carry(game, batch)))
                calls[part, name] = [rollout, carry, args.steps]
            else:
                function, inputs = parts[part]
                compiled = jax.jit(function).lower(*inputs).compile()
                jax.block_until_ready(compiled(*inputs))
                calls[part, name] = [compiled, inputs, 1]
    timings = {key: ([], []) for key in calls}
    names = list(packages)
    for round_ in range(args.rounds):
        for part in args.parts:
            for name in names if round_ % 2 == 0 else names[::-1]:
                function, inputs, steps = calls[part, name]
                for _ in range(3):
                    wall, cpu = time.perf_counter(), time.process_time()
                    out = jax.block_until_ready(function(*inputs))
                    if part == "harness":  # the rollout's carry is donated: go on from its output
                        inputs = calls[part, name][1] = out
                    timings[part, name][0].append(
                        (time.perf_counter() - wall) / (steps * batch) * 1e9
                    )
                    timings[part, name][1].append(
                        (time.process_time() - cpu) / (steps * batch) * 1e9
                    )
    return timings


if __name__ == "__main__":
    main()
