"""Chess: random-play throughput of jaxcheckers' chess next to OpenSpiel's C++ chess and pgx's
chess, perft(5) from the start next to python-chess and OpenSpiel, compile time and state bytes.

    python -m benchmarks.chess_speed [--batch-sizes 1024 4096] [--seconds 3]

Every JAX game goes through the shared harness (`benchmarks.common`): random legal actions, the
observation read (summed) every step, auto-reset. OpenSpiel plays random legal moves from Python
and reads `observation_tensor()` every step. Prints a table and writes results/chess.json.
"""

from __future__ import annotations

import argparse
import json
import random
import time

import jax

from benchmarks import common

OURS = "jaxcheckers chess"


def openspiel_rate(seconds: float, seed: int = 0) -> dict:
    import pyspiel

    game = pyspiel.load_game("chess")
    rng = random.Random(seed)
    state = game.new_initial_state()
    steps = games = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(256):
            if state.is_terminal():
                state = game.new_initial_state()
                games += 1
            state.observation_tensor()
            state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
    elapsed = time.perf_counter() - start
    return {
        "name": "OpenSpiel chess (C++, from Python)",
        "steps_per_s": steps / elapsed,
        "games_ended": games,
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[1024, 4096])
    parser.add_argument("--pgx-batch", type=int, default=1024)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--perft-depth", type=int, default=5)
    parser.add_argument("--skip-pgx", action="store_true")
    args = parser.parse_args()

    import jaxcheckers
    from jaxcheckers.perft import perft

    ours = common.jaxcheckers_game("chess", label=OURS)
    env = jaxcheckers.make("chess")
    states = jax.vmap(env.reset)(jax.random.split(jax.random.key(0), args.batch_sizes[0]))
    compile_s = common.compile_times(
        jax.vmap(env.step), states, jax.numpy.zeros(args.batch_sizes[0], jax.numpy.int32)
    )
    results = {
        "machine": common.machine(),
        "compile_vmap_step": compile_s,
        "state_bytes": common.state_bytes(ours),
        "throughput": [],
    }
    rollouts = [common.TimedRollout(ours, b, min_run_s=args.seconds / 3) for b in args.batch_sizes]
    if not args.skip_pgx:
        rollouts.append(
            common.TimedRollout(
                common.pgx_game("chess"), args.pgx_batch, min_run_s=args.seconds / 3
            )
        )
    for result in common.measure_together(rollouts, runs=3):
        results["throughput"].append(result.to_json())
    results["throughput"].append(openspiel_rate(args.seconds))

    depth = args.perft_depth
    counts = {}
    counts["jaxcheckers chess"] = timed(perft, env, depth)
    counts["OpenSpiel chess"] = timed(openspiel_perft, depth)
    counts["python-chess"] = timed(python_chess_perft, depth)
    results["perft"] = {
        name: {"depth": depth, "count": c, "seconds": s} for name, (c, s) in counts.items()
    }

    rows = [
        [r["name"], r.get("batch_size", 1), common.rate(r["steps_per_s"])]
        for r in results["throughput"]
    ]
    print(common.markdown_table(["system", "batch", "steps/s"], rows))
    print()
    print(
        common.markdown_table(
            ["perft", "depth", "count", "seconds"],
            [[name, depth, c, f"{s:.1f}"] for name, (c, s) in counts.items()],
        )
    )
    print(
        f"\ncompile jit(vmap(step)): {compile_s['total_s']:.1f} s; "
        f"state: {results['state_bytes']['total']} bytes per game"
    )
    path = common.RESULTS_DIR / "chess.json"
    path.write_text(json.dumps(results, indent=2, default=str))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
