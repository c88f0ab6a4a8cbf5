"""Throughput on the default device (a GPU where there is one): jaxcheckers' chess next to pgx's
chess in one process, and jaxcheckers' checkers and international draughts, at large batch sizes.

    python -m benchmarks.device_speed [--chess-batch-sizes 1024 4096 16384] [--runs 3]
    python -m benchmarks.device_speed --systems "jaxcheckers draughts" --draughts-lanes 4096 65536

`--draughts-lanes` times draughts once for each number of lanes its capture search runs in
(`draughts.lanes.compacted_width`, patched while the rollout is traced; `own`, the default, the
rules' own choice: the whole batch off a CPU), `--draughts-unroll` for each number of rounds the
search runs between two checks of its loop's condition (`lanes.rounds_a_check`; each check
costs a GPU a wait for its host), `--draughts-barriers off` with the fusion barriers that the
rules put in for XLA on the CPU (`core.computed_once`) taken out while it is traced.
`--profile DIR` traces one run of each rollout first (jax.profiler) and adds its busiest events
(on a GPU, its kernels) to the results.

The shared harness (`benchmarks.common`: random legal actions, the observation read every step,
auto-reset); every rollout is compiled first, then they take turns run by run. The figures only
mean something next to each other: the ratio is taken within the run, each system at its best
batch size. Writes results/device_speed.json; `benchmarks.report` puts it in BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import gzip
import itertools
import json
import re
from pathlib import Path

import jax

from benchmarks import common
from jaxcheckers.argtypes import (
    check_writable,
    check_writable_folder,
    positive_float,
    positive_int,
)

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
        type=count_or_own,
        nargs="+",
        default=[None],
        help="the capture search's lanes to time draughts with, each in turn; `own`: the "
        "rules' own choice (the default)",
    )
    parser.add_argument(
        "--draughts-unroll",
        type=count_or_own,
        nargs="+",
        default=[None],
        help="rounds of the capture search between two checks of the loop's condition, each in "
        "turn (with each of --draughts-lanes); `own`: the rules' own choice (the default)",
    )
    parser.add_argument(
        "--draughts-barriers",
        choices=("on", "off"),
        nargs="+",
        default=["on"],
        help="draughts with the rules' fusion barriers (`core.computed_once`, put in for XLA on "
        "the CPU) as they are, or taken out while it is traced (at the rules' own lanes and "
        "rounds); each in turn (default: on)",
    )
    parser.add_argument(
        "--systems",
        nargs="+",
        choices=(OURS_CHESS, PGX_CHESS, OURS_CHECKERS, OURS_DRAUGHTS),
        default=(OURS_CHESS, PGX_CHESS, OURS_CHECKERS, OURS_DRAUGHTS),
        help="which to time (the chess ratio needs both chess systems)",
    )
    parser.add_argument(
        "--profile",
        metavar="DIR",
        default=None,
        help="before the timing, trace one run of each rollout into DIR (jax.profiler, "
        "perfetto JSON; not timed) and add each one's busiest events to the results",
    )
    parser.add_argument("--out", default=str(common.RESULTS_DIR / "device_speed.json"))
    args = parser.parse_args(argv)
    try:
        check_writable(args.out)
    except ValueError as error:
        parser.error(f"--out: {error}")
    try:
        if args.profile is not None:
            check_writable_folder(args.profile)
    except ValueError as error:
        parser.error(f"--profile: {error}")

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
        # Without the barriers at the rules' own schedule only: each row compiles the step.
        schedules = [("on", lanes, rounds) for lanes, rounds in
                     itertools.product(args.draughts_lanes, args.draughts_unroll)]
        schedules += [("off", None, None)] if "off" in args.draughts_barriers else []
        for barriers, lanes, rounds in schedules:
            label = ", ".join([OURS_DRAUGHTS, *([f"{lanes} lanes"] if lanes else []),
                               *([f"{rounds} rounds a check"] if rounds else []),
                               *(["no barriers"] if barriers == "off" else [])])
            game = common.jaxcheckers_game("draughts", label=label)
            for batch in args.draughts_batch_sizes:
                with search_schedule(lanes, rounds), fusion_barriers(barriers == "on"):
                    rollouts.append(common.TimedRollout(game, batch, min_run_s=args.seconds))
    traced = profile(rollouts, Path(args.profile)) if args.profile else None
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
    if traced is not None:
        results["profile"] = traced
    print(render_markdown(results))
    path = Path(args.out)
    path.write_text(json.dumps(results, indent=2, default=str))
    print(f"wrote {path}")
    return 0


def count_or_own(text: str) -> int | None:
    """A positive count (lanes, rounds), or None for `own` (the rules' own choice)."""
    return None if text == "own" else positive_int(text)


def search_schedule(lanes: int | None, rounds: int | None):
    """Draughts' capture search traced with `lanes` lanes and `rounds` rounds a check of its
    loop (None: the rules' own choice)."""
    from jaxcheckers.draughts import lanes as loop

    patches = []
    if lanes is not None:
        patches.append((loop, "compacted_width", lambda batch: min(lanes, batch)))
    if rounds is not None:
        patches.append((loop, "rounds_a_check", lambda batch: rounds))
    return traced_with(patches)


def fusion_barriers(on: bool):
    """Draughts traced with `core.computed_once` as it is, or (`on` False) as the identity in
    every module that draughts' rollout reads it from."""
    from jaxcheckers import core
    from jaxcheckers.agents import random
    from jaxcheckers.draughts import env, rules

    def identity(values, runtime):
        return values

    modules = () if on else (core, random, env, rules)
    return traced_with([(module, "computed_once", identity) for module in modules])


@contextlib.contextmanager
def traced_with(patches: list[tuple[object, str, object]]):
    """Within, each (module, name, value) of `patches` set, and each name's own value back after.
    The caches of traced programs are cleared on both sides: the env's step is traced once per
    set of rules, and a trace made otherwise would be reused."""
    if not patches:
        yield
        return
    jax.clear_caches()
    own = [(module, name, getattr(module, name)) for module, name, _ in patches]
    for module, name, value in patches:
        setattr(module, name, value)
    try:
        yield
    finally:
        for module, name, value in own:
            setattr(module, name, value)
        jax.clear_caches()


TRACE_FILES = "**/perfetto_trace.json.gz"


def profile(rollouts, folder: Path, top: int = 25) -> dict:
    """For each rollout, its busiest events in one traced run (a folder of perfetto JSON each
    under `folder`; the run is left out of the rollout's timings): by name, the total
    milliseconds and the count, busiest first. Events nest (a loop holds its body's kernels),
    so the totals overlap."""
    summary = {}
    for rollout in rollouts:
        name = f"{rollout.game.name}, batch {rollout.batch_size}"
        where = folder / re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-")
        earlier = set(where.glob(TRACE_FILES))  # a folder profiled before keeps its traces
        with jax.profiler.trace(str(where), create_perfetto_trace=True):
            rollout.run()
        rollout.run_s.pop(), rollout.run_cpu_s.pop()
        (trace,) = set(where.glob(TRACE_FILES)) - earlier
        summary[name] = busiest_events(trace, top)
    return summary


def busiest_events(trace: Path, top: int) -> list[dict]:
    """The `top` event names of a perfetto trace by total duration, leaving out Python's frames
    (named `$file:line function`)."""
    events = json.loads(gzip.open(trace).read())
    events = events["traceEvents"] if isinstance(events, dict) else events
    total, count = collections.Counter(), collections.Counter()
    for event in events:
        if event.get("ph") == "X" and not event["name"].startswith("$"):
            total[event["name"]] += event.get("dur", 0)
            count[event["name"]] += 1
    return [{"name": name, "ms": round(us / 1000, 3), "count": count[name]}
            for name, us in total.most_common(top)]


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
