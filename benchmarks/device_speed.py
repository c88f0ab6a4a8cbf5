"""Throughput on the default device (a GPU where there is one): jaxcheckers' chess next to pgx's
chess in one process, and jaxcheckers' checkers and international draughts, at large batch sizes.

    python -m benchmarks.device_speed [--chess-batch-sizes 1024 4096 16384] [--runs 3]
    python -m benchmarks.device_speed --systems "jaxcheckers draughts" --draughts-lanes 4096 65536

`--draughts-lanes` times draughts once for each number of lanes its capture search runs in
(`draughts.rules._compacted_width`, patched while the rollout is traced; `own`, the default, the
rules' own choice: the whole batch off a CPU).

The shared harness (`benchmarks.common`: random legal actions, the observation read every step,
auto-reset); every rollout is compiled first, then they take turns run by run. The figures only
mean something next to each other: the ratio is taken within the run, each system at its best
batch size. Writes results/device_speed.json; `benchmarks.report` puts it in BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import contextlib
import json
from pathlib import Path

import jax

from benchmarks import common
from jaxcheckers.argtypes import positive_float, positive_int

OURS_CHESS = "jaxcheckers chess"
PGX_CHESS = "pgx chess"
OURS_CHECKERS = "jaxcheckers checkers"
OURS_DRAUGHTS = "jaxcheckers draughts"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for game, sizes in (("chess", [1024, 4096, 16384]), ("checkers", [4096, 65536]),
                        ("draughts", [4096, 65536])):
        parser.add_argument(f"--{game}-batch-sizes", type=positive_int, nargs="+", default=sizes)
    parser.add_argument(
        "--seconds", type=positive_float, default=1.5, help="per run of each rollout"
    )
    parser.add_argument("--runs", type=positive_int, default=3)
    parser.add_argument(
        "--draughts-lanes",
        type=lanes_or_own,
        nargs="+",
        default=[None],
        help="the capture search's lanes to time draughts with, each in turn; `own`: the "
        "rules' own choice (the default)",
    )
    parser.add_argument(
        "--systems",
        nargs="+",
        choices=(OURS_CHESS, PGX_CHESS, OURS_CHECKERS, OURS_DRAUGHTS),
        default=(OURS_CHESS, PGX_CHESS, OURS_CHECKERS, OURS_DRAUGHTS),
        help="which to time (the chess ratio needs both chess systems)",
    )
    parser.add_argument("--out", default=str(common.RESULTS_DIR / "device_speed.json"))
    args = parser.parse_args(argv)

    makers = {
        OURS_CHESS: lambda: (
            common.jaxcheckers_game("chess", label=OURS_CHESS),
            args.chess_batch_sizes,
        ),
        PGX_CHESS: lambda: (common.pgx_game("chess"), args.chess_batch_sizes),
        OURS_CHECKERS: lambda: (
            common.jaxcheckers_game("checkers", label=OURS_CHECKERS),
            args.checkers_batch_sizes,
        ),
    }
    systems = [makers[name]() for name in makers if name in args.systems]
    rollouts = [
        common.TimedRollout(game, batch, min_run_s=args.seconds)
        for game, sizes in systems
        for batch in sizes
    ]
    if OURS_DRAUGHTS in args.systems:
        for lanes in args.draughts_lanes:
            label = OURS_DRAUGHTS if lanes is None else f"{OURS_DRAUGHTS}, {lanes} lanes"
            game = common.jaxcheckers_game("draughts", label=label)
            for batch in args.draughts_batch_sizes:
                with search_lanes(lanes):
                    rollouts.append(common.TimedRollout(game, batch, min_run_s=args.seconds))
    rows = [r.to_json() for r in common.measure_together(rollouts, runs=args.runs)]
    best = {name: max((r for r in rows if r["name"] == name), key=lambda r: r["steps_per_s"])
            for name in {r["name"] for r in rows}}
    results = {
        "machine": common.machine(),
        "device_kind": jax.devices()[0].device_kind,
        "command_args": vars(args),
        "throughput": rows,
        "chess_vs_pgx": (
            best[OURS_CHESS]["steps_per_s"] / best[PGX_CHESS]["steps_per_s"]
            if OURS_CHESS in best and PGX_CHESS in best
            else None
        ),
    }
    print(render_markdown(results))
    path = Path(args.out)
    path.write_text(json.dumps(results, indent=2, default=str))
    print(f"wrote {path}")
    return 0


def lanes_or_own(text: str) -> int | None:
    """A number of lanes, or None for `own` (the rules' own choice)."""
    return None if text == "own" else positive_int(text)


@contextlib.contextmanager
def search_lanes(lanes: int | None):
    """Draughts' capture search traced with `lanes` lanes (None: the rules' own choice). The
    caches of traced programs are cleared first: the env's step is traced once per set of rules,
    and a trace made with other lanes would be reused."""
    from jaxcheckers.draughts import rules

    if lanes is None:
        yield
        return
    jax.clear_caches()
    own = rules._compacted_width
    rules._compacted_width = lambda batch: min(lanes, batch)
    try:
        yield
    finally:
        rules._compacted_width = own
        jax.clear_caches()


def render_markdown(results: dict) -> str:
    """The table of a device_speed.json, with the chess ratio."""
    rows = [[r["name"], f"{r['batch_size']:,}", common.rate(r["steps_per_s"])]
            for r in results["throughput"]]
    table = common.markdown_table(["system", "batch", "steps/s"], rows)
    machine = results["machine"]
    where = (f"On {results['device_kind']} (jax {machine['jax']}, {machine['date_utc']} UTC, "
             f"commit {machine['commit']})")
    if results["chess_vs_pgx"] is None:  # not both chess systems timed
        return f"{where}:\n\n{table}\n"
    return (f"{where}: jaxcheckers chess at its best batch is "
            f"**{results['chess_vs_pgx']:.1f}×** pgx chess at its best.\n\n{table}\n")


if __name__ == "__main__":
    raise SystemExit(main())
