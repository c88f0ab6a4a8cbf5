"""Chess alpha-beta: compile time and seconds a move, one game at a time, by depth and position.

    python -m benchmarks.chess_alphabeta [--depths 1 2 3] [--repeats 3]

Each depth is compiled once (`jax.jit` of `chess_alphabeta.search`), then searched from each
position with `--repeats` keys; the table shows the median seconds a move. Prints a table and
writes results/chess_alphabeta.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import jax

import jaxcheckers
from jaxcheckers.argtypes import count_at_most, positive_int, writable_file
from jaxcheckers.chess import alphabeta as chess_alphabeta
from jaxcheckers.chess import state_from_fen

POSITIONS = {
    "opening": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "italian": "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "kiwipete": "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "endgame": "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
}
search_depth = count_at_most(chess_alphabeta.MAX_DEPTH, "chess alpha-beta's deepest search")


def measure(depth: int, repeats: int) -> dict:
    env = jaxcheckers.make("chess")
    search = jax.jit(lambda state, key: chess_alphabeta.search(env, state, key, depth))
    states = {name: state_from_fen(fen) for name, fen in POSITIONS.items()}
    start = time.perf_counter()
    search(states["opening"], jax.random.key(0)).value.block_until_ready()
    row = {"depth": depth, "compile_and_first_s": time.perf_counter() - start}
    for name, state in states.items():
        times = []
        for seed in range(repeats):
            start = time.perf_counter()
            search(state, jax.random.key(seed)).value.block_until_ready()
            times.append(time.perf_counter() - start)
        row[name] = statistics.median(times)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depths", type=search_depth, nargs="+", default=[1, 2, 3])
    parser.add_argument("--repeats", type=positive_int, default=3)
    parser.add_argument(
        "--out", type=writable_file, default="benchmarks/results/chess_alphabeta.json"
    )
    args = parser.parse_args()
    rows = [measure(depth, args.repeats) for depth in args.depths]
    print(f"{'depth':>5} {'compile s':>10} " + " ".join(f"{name:>9}" for name in POSITIONS))
    for row in rows:
        cells = " ".join(f"{row[name]:9.3f}" for name in POSITIONS)
        print(f"{row['depth']:>5} {row['compile_and_first_s']:10.1f} {cells}")
    report = {"positions": POSITIONS, "load_average": os.getloadavg(), "rows": rows}
    with open(args.out, "w", encoding="utf-8") as file:
        json.dump(report, file, indent=2)
    print(f"seconds a move (median of {args.repeats}); written to {args.out}")


if __name__ == "__main__":
    main()
