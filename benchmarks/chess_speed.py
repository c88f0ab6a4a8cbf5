"""Chess: random-play throughput of jaxcheckers' chess next to OpenSpiel's C++ chess and pgx's
chess, perft(5) from the start next to python-chess and OpenSpiel, compile time and state bytes.

    python -m benchmarks.chess_speed [--batch-sizes 64 256 1024 4096] [--seconds 3]

Every JAX game goes through the shared harness (`benchmarks.common`): random legal actions, the
observation read (summed) every step, auto-reset. OpenSpiel plays random legal moves from Python
and reads `observation_tensor()` every step. All of them are compiled first, then take turns run
by run, so that the load of the shared machine falls on each alike; the ratios are taken within
the run, each system at its best batch size. Prints tables and writes results/chess.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time

import jax

from benchmarks import common
from jaxcheckers.argtypes import positive_float, positive_int

OURS = "jaxcheckers chess"
OPENSPIEL = "OpenSpiel chess (C++, from Python)"
PGX = "pgx chess"


class OpenSpielRun:
    """OpenSpiel's chess played at random from Python, `observation_tensor()` read each step;
    timed run by run, like `common.TimedRollout`, so that it can take turns with the others."""

    def __init__(self, seconds: float, seed: int = 0):
        import pyspiel

        self.game = pyspiel.load_game("chess")
        self.rng = random.Random(seed)
        self.state = self.game.new_initial_state()
        self.seconds = seconds
        self.rates: list[float] = []
        self.games = 0

    def run(self) -> None:
        steps = 0
        start = time.perf_counter()
        while time.perf_counter() - start < self.seconds:
            for _ in range(256):
                if self.state.is_terminal():
                    self.state = self.game.new_initial_state()
                    self.games += 1
                self.state.observation_tensor()
                self.state.apply_action(self.rng.choice(self.state.legal_actions()))
                steps += 1
        self.rates.append(steps / (time.perf_counter() - start))

    def result(self) -> dict:
        return {
            "name": OPENSPIEL,
            "batch_size": 1,
            "steps_per_s": statistics.median(self.rates),
            "runs_steps_per_s": self.rates,
            "games_ended": self.games,
        }


def python_chess_perft(depth: int) -> int:
    import chess

    def count(board, d):
        if d == 1:
            return board.legal_moves.count()
        total = 0
        for move in board.legal_moves:
            board.push(move)
            total += count(board, d - 1)
            board.pop()
        return total

    return count(chess.Board(), depth)


def openspiel_perft(depth: int) -> int:
    import pyspiel

    def count(state, d):
        actions = state.legal_actions()
        if d == 1:
            return len(actions)
        return sum(count(state.child(a), d - 1) for a in actions)

    return count(pyspiel.load_game("chess").new_initial_state(), depth)


def timed(function, *args):
    start = time.perf_counter()
    value = function(*args)
    return value, time.perf_counter() - start


def best(rows: list[dict], name: str) -> dict | None:
    mine = [row for row in rows if row["name"] == name]
    return max(mine, key=lambda row: row["steps_per_s"]) if mine else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--batch-sizes", type=positive_int, nargs="+", default=[64, 256, 1024, 4096]
    )
    parser.add_argument("--pgx-batch-sizes", type=positive_int, nargs="+", default=[64, 256])
    parser.add_argument(
        "--seconds", type=positive_float, default=3.0, help="per run of each system"
    )
    parser.add_argument("--runs", type=positive_int, default=3)
    parser.add_argument("--perft-depth", type=positive_int, default=5)
    parser.add_argument("--skip-pgx", action="store_true")
    args = parser.parse_args()

    import jaxcheckers
    from jaxcheckers.perft import perft

    load_at_start = os.getloadavg()
    ours = common.jaxcheckers_game("chess", label=OURS)
    env = jaxcheckers.make("chess")
    batch = args.batch_sizes[0]
    states = jax.vmap(env.reset)(jax.random.split(jax.random.key(0), batch))
    compile_s = common.compile_times(
        jax.vmap(env.step), states, jax.numpy.zeros(batch, jax.numpy.int32)
    )
    results = {
        "machine": common.machine(),
        "command_args": vars(args),
        "compile_vmap_step": {"batch_size": batch, **compile_s},
        "state_bytes": common.state_bytes(ours),
        "throughput": [],
    }
    rollouts = [common.TimedRollout(ours, b, min_run_s=args.seconds) for b in args.batch_sizes]
    if not args.skip_pgx:
        pgx = common.pgx_game("chess")
        results["pgx_state_bytes"] = common.state_bytes(pgx)["total"]
        rollouts += [
            common.TimedRollout(pgx, b, min_run_s=args.seconds) for b in args.pgx_batch_sizes
        ]
    openspiel = OpenSpielRun(args.seconds)
    for _ in range(args.runs):  # in turns: a busy spell costs each figure about one run
        for rollout in rollouts:
            rollout.run()
        openspiel.run()
    results["throughput"] = [r.result().to_json() for r in rollouts] + [openspiel.result()]

    rows = results["throughput"]
    ours_best, pgx_best = best(rows, OURS), best(rows, PGX)
    ratios = {"ours_best_batch": ours_best["batch_size"]}
    ratios["vs_openspiel"] = ours_best["steps_per_s"] / openspiel.result()["steps_per_s"]
    if pgx_best:
        ratios["vs_pgx"] = ours_best["steps_per_s"] / pgx_best["steps_per_s"]
    results["ratios"] = ratios
    path = common.RESULTS_DIR / "chess.json"
    path.write_text(json.dumps(results, indent=2, default=str))  # again with perft below

    depth = args.perft_depth
    _, kernel_s = timed(perft, env, 2)  # compiles perft's kernels (the same at every depth)
    counts = {
        "jaxcheckers chess": timed(perft, env, depth),
        "OpenSpiel chess": timed(openspiel_perft, depth),
        "python-chess": timed(python_chess_perft, depth),
    }
    results["perft"] = {
        name: {"depth": depth, "count": c, "seconds": s} for name, (c, s) in counts.items()
    }
    results["perft"]["jaxcheckers chess"]["first_call_s (perft(2), compiling)"] = kernel_s
    results["load_average_at_end"] = os.getloadavg()
    results["load_average_at_start"] = load_at_start
    results["machine"]["load_average_at_end"] = list(results["load_average_at_end"])

    print(render_markdown(results))
    path.write_text(json.dumps(results, indent=2, default=str))
    print(f"wrote {path}")


def render_markdown(results: dict) -> str:
    """The tables of a chess.json: throughput with ratios, perft, compile and state bytes."""
    rows = results["throughput"]
    openspiel = best(rows, OPENSPIEL)["steps_per_s"]
    pgx = best(rows, PGX)
    table = [
        [
            r["name"],
            f"{r['batch_size']:,}",
            common.rate(r["steps_per_s"]),
            f"{r['steps_per_s'] / openspiel:.1f}×",
            f"{r['steps_per_s'] / pgx['steps_per_s']:.1f}×" if pgx else "–",
        ]
        for r in rows
    ]
    out = [
        common.markdown_table(["system", "batch", "steps/s", "vs OpenSpiel", "vs pgx"], table),
        "",
    ]
    perft_rows = [
        [name, p["depth"], f"{p['count']:,}", f"{p['seconds']:.2f}"]
        for name, p in results["perft"].items()
    ]
    out.append(common.markdown_table(["perft from the start", "depth", "count", "s"], perft_rows))
    compile_s = results["compile_vmap_step"]
    pgx_bytes = results.get("pgx_state_bytes")
    out.append(
        f"\nCompile of jit(vmap(step)) at batch {compile_s.get('batch_size', '?')}: "
        f"{compile_s['total_s']:.1f} s wall ({compile_s['cpu_s']:.1f} s CPU); perft's kernels "
        f"{results['perft']['jaxcheckers chess'].get('first_call_s (perft(2), compiling)', 0):.1f}"
        f" s (perft(2), first call). State: {results['state_bytes']['total']:,} bytes per game"
        + (f" (pgx chess: {pgx_bytes:,})." if pgx_bytes else ".")
    )
    start = ", ".join(f"{x:.1f}" for x in results.get("load_average_at_start", ()))
    end = ", ".join(f"{x:.1f}" for x in results.get("load_average_at_end", ()))
    out.append(f"Load average (1, 5, 15 min): {start} at the start, {end} at the end.")
    return "\n".join(out)


if __name__ == "__main__":
    main()
