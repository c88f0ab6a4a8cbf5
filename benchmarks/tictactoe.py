"""Random-play throughput of jaxcheckers' 3×3 tic-tac-toe next to pgx's `tic_tac_toe`, same run.

    .venv/bin/python -m benchmarks.tictactoe            # batch sizes 1024 … 65536, both samplers
    .venv/bin/python -m benchmarks.tictactoe --quick    # batch 4096, the default sampler only

Both games go through `benchmarks.common`'s harness (a jitted `lax.scan` of vmapped random play,
auto-reset, every observation read) with the same sampler; each figure is the harness's median of
5 runs. The two games are measured `--rounds` times, alternating, and each keeps its best round,
so that a passing load on this shared machine does not decide the ratio. Also a few larger
boards (k in a row) to show how the cost grows. Prints markdown tables and writes
`benchmarks/results/tictactoe.json`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a file: make `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import (
    RESULTS_DIR,
    SAMPLERS,
    JaxGame,
    machine,
    markdown_table,
    measure_throughput,
    pgx_game,
    rate,
)
from jaxcheckers.argtypes import positive_int, writable_file
from jaxcheckers.tictactoe import TicTacToe

FULL_BATCH_SIZES = (1024, 4096, 16384, 65536)
LARGER_BOARDS = ((3, 3), (4, 4), (5, 4), (10, 5), (15, 5))  # (size, k)
LARGER_BOARDS_BATCH = 4096


def tictactoe_game(size: int = 3, k: int | None = None) -> JaxGame:
    env = TicTacToe(size=size, k=k)
    return JaxGame(f"jaxcheckers tictactoe {size}×{size} k={env.k}", env.reset, env.step,
                   env.num_actions)


def best_of_rounds(games: list[JaxGame], batch_size: int, sampler, rounds: int) -> dict:
    """Each game's best median over `rounds` alternating measurements."""
    best = {}
    for _ in range(rounds):
        for game in games:
            result = measure_throughput(game, batch_size, sampler=sampler)
            if game.name not in best or result.steps_per_s > best[game.name].steps_per_s:
                best[game.name] = result
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="batch 4096, rank sampler, 1 round")
    parser.add_argument(
        "--batch-sizes", type=positive_int, nargs="+", default=list(FULL_BATCH_SIZES)
    )
    parser.add_argument("--samplers", nargs="+", default=list(SAMPLERS), choices=list(SAMPLERS))
    parser.add_argument("--rounds", type=positive_int, default=2)
    parser.add_argument("--out", type=writable_file, default=str(RESULTS_DIR / "tictactoe.json"))
    args = parser.parse_args()
    if args.quick:
        args.batch_sizes, args.samplers, args.rounds = [4096], ["rank"], 1

    ours, theirs = tictactoe_game(), pgx_game("tic_tac_toe")
    rows, records = [], []
    for sampler_name in args.samplers:
        for batch_size in args.batch_sizes:
            best = best_of_rounds([ours, theirs], batch_size, SAMPLERS[sampler_name], args.rounds)
            mine, pgx = best[ours.name].steps_per_s, best[theirs.name].steps_per_s
            rows.append([sampler_name, batch_size, rate(mine), rate(pgx), f"{mine / pgx:.2f}"])
            records.append({"sampler": sampler_name, "batch_size": batch_size,
                            "jaxcheckers": best[ours.name].to_json(),
                            "pgx": best[theirs.name].to_json(), "ratio": mine / pgx})
            print(markdown_table(["sampler", "batch", "jaxcheckers", "pgx", "ratio"], rows[-1:]))

    print("\n3×3 tic-tac-toe, random play, steps/s (median of 5 runs, best of "
          f"{args.rounds} rounds)\n")
    print(markdown_table(["sampler", "batch", "jaxcheckers", "pgx tic_tac_toe", "ratio"], rows))

    boards = []
    if not args.quick:
        for size, k in LARGER_BOARDS:
            result = measure_throughput(tictactoe_game(size, k), LARGER_BOARDS_BATCH)
            boards.append({"size": size, "k": k, **result.to_json()})
        print(f"\nLarger boards, batch {LARGER_BOARDS_BATCH}, rank sampler\n")
        print(markdown_table(
            ["board", "k", "steps/s", "mean game length"],
            [[f"{b['size']}×{b['size']}", b["k"], rate(b["steps_per_s"]),
              f"{b['mean_game_length']:.1f}" if b["mean_game_length"] else "-"] for b in boards],
        ))

    args.out.parent.mkdir(parents=True, exist_ok=True)
    report = {"machine": machine(), "rounds": args.rounds, "comparison": records,
              "larger_boards": boards}
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\nwritten {args.out}")


if __name__ == "__main__":
    main()
