"""A/B: this tree's games against the same games at an earlier commit, timed in one process.

    .venv/bin/python -m benchmarks.ab --base b3c4d60 --games checkers chess --batch-sizes 4096

The base commit's `jaxcheckers` package is taken out of git (`git archive`) into a temporary
folder under the name `jaxcheckers_base`, so both versions load side by side, each with its own
random player (the harness's sampler); each game's two versions then run in turns, run by run,
each run the same number of calls (`paired_ratios`), so that a change in the machine's load falls
on both alike. The ratio new/base is the median over the rounds of each round's own ratio,
printed with its quartiles (the spread the machine's load leaves) and the same ratio in CPU time;
writes `benchmarks/results/ab-BASE.json`.
"""

from __future__ import annotations

import argparse
import importlib
import io
import json
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

if __package__ in (None, ""):  # run as a file: make `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import jax

from benchmarks.common import (
    RESULTS_DIR,
    JaxGame,
    TimedRollout,
    markdown_table,
    measure_together,
    rate,
)
from jaxcheckers.argtypes import positive_float, positive_int, writable_folder
from jaxcheckers.games import names

BASE_PACKAGE = "jaxcheckers_base"


def load_base(revision: str, folder: Path):
    """The package `jaxcheckers` of `revision`, importable as `jaxcheckers_base`."""
    archive = subprocess.run(
        ["git", "archive", "--format=tar", revision, "jaxcheckers"],
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    package = folder / BASE_PACKAGE
    (folder / "jaxcheckers").rename(package)
    for source in package.rglob("*.py"):
        text = source.read_text(encoding="utf-8")
        source.write_text(re.sub(r"\bjaxcheckers\b(?=[.\s])", BASE_PACKAGE, text), "utf-8")
    sys.path.insert(0, str(folder))
    return importlib.import_module(BASE_PACKAGE)


def game(package, name: str, label: str) -> JaxGame:
    env = package.make(name)
    return JaxGame(label, env.reset, env.step, env.num_actions)


def random_player(package):
    """The harness's sampler as `package` draws it (its own `random_legal_actions` on the packed
    legal actions), so that a change to the random player is timed as well as the games'."""

    random = importlib.import_module(f"{package.__name__}.agents.random")

    def sample(key: jax.Array, legal: jax.Array) -> jax.Array:
        return random.random_legal_actions(key, legal)

    sample.reads_packed = True
    return sample


def paired_ratios(new: TimedRollout, old: TimedRollout, runs: int) -> dict[str, float]:
    """Times `new` and `old` in `runs` rounds (`measure_together`), each run the same number of
    calls, and gives the ratio new/base of each round's throughputs: median and quartiles over
    the rounds, in wall-clock and in CPU time.

    A round's two runs lie seconds apart, so a load that changes more slowly cancels out of its
    ratio; the median of the rounds' ratios is steadier than the ratio of two medians, which
    pairs runs taken under different loads."""
    calls = max(new.calls, old.calls)  # each estimated from its own warm-up; the longer wins
    new.calls = old.calls = calls
    timed = measure_together([new, old], runs=runs)
    wall = [base / this for this, base in zip(timed[0].run_s, timed[1].run_s, strict=True)]
    cpu = [base / this for this, base in zip(timed[0].run_cpu_s, timed[1].run_cpu_s, strict=True)]
    quartiles = statistics.quantiles(wall, n=4) if runs > 1 else [wall[0]] * 3
    return {"timed": timed, "ratio": statistics.median(wall), "ratio_q1": quartiles[0],
            "ratio_q3": quartiles[2], "cpu_ratio": statistics.median(cpu)}


def check_base_and_games(parser: argparse.ArgumentParser, base: str, games: list[str]) -> None:
    """Ends the script in one argparse line unless `base` is a commit here and every one of
    `games` is a registered game (before anything is archived or compiled)."""
    known = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{base}^{{commit}}"],
                           capture_output=True)
    if known.returncode:
        parser.error(f"--base: {base!r} is not a commit of this repository")
    unknown = [name for name in games if name not in names()]
    if unknown:
        parser.error(f"--games: unknown {', '.join(unknown)}; available: {', '.join(names())}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the commit to compare with")
    parser.add_argument("--games", nargs="+", default=["checkers", "chess"])
    parser.add_argument("--batch-sizes", type=positive_int, nargs="+", default=[4096])
    parser.add_argument("--runs", type=positive_int, default=15,
                        help="timed rounds per figure (median)")
    parser.add_argument("--min-run-s", type=positive_float, default=0.5, help="shortest timed run")
    parser.add_argument("--out-dir", type=writable_folder, default=str(RESULTS_DIR))
    parser.add_argument("--observation-unread", action="store_true",
                        help="play without reading the observation (`common.make_rollout`)")
    args = parser.parse_args(argv)
    check_base_and_games(parser, args.base, args.games)

    import jaxcheckers

    rows, records = [], []
    with tempfile.TemporaryDirectory() as folder:
        base = load_base(args.base, Path(folder))
        for name in args.games:
            for batch in args.batch_sizes:
                versions = [
                    game(jaxcheckers, name, f"{name} (this tree)"),
                    game(base, name, f"{name} ({args.base})"),
                ]
                rollouts = [
                    TimedRollout(v, batch, sampler=random_player(package), min_run_s=args.min_run_s,
                                 read_observation=not args.observation_unread)
                    for v, package in zip(versions, (jaxcheckers, base), strict=True)
                ]
                paired = paired_ratios(*rollouts, runs=args.runs)
                new, old = paired.pop("timed")
                rows.append([name, str(batch), rate(new.steps_per_s), rate(old.steps_per_s),
                             f"{paired['ratio']:.3f}",
                             f"{paired['ratio_q1']:.3f}–{paired['ratio_q3']:.3f}",
                             f"{paired['cpu_ratio']:.3f}"])
                records.append({"game": name, "batch_size": batch, "base": args.base,
                                "observation_read": not args.observation_unread,
                                "new_steps_per_s": new.steps_per_s,
                                "base_steps_per_s": old.steps_per_s, **paired,
                                "calls_per_run": new.calls_per_run,
                                "new_runs_s": new.run_s, "base_runs_s": old.run_s,
                                "new_runs_cpu_s": new.run_cpu_s, "base_runs_cpu_s": old.run_cpu_s})
    device = jax.devices()[0]
    print(f"Random play with auto-reset on {device.platform} ({device.device_kind}), "
          f"{args.runs} rounds, the two versions in turns; ratio: the median of the rounds' "
          "ratios, with their quartiles and the median ratio in CPU time:\n")
    print(markdown_table(["game", "batch", "this tree", args.base, "ratio", "quartiles",
                          "CPU ratio"], rows))
    args.out_dir.mkdir(parents=True, exist_ok=True)
    path = args.out_dir / f"ab-{args.base}.json"
    path.write_text(json.dumps({"device": device.platform, "results": records}, indent=2) + "\n")
    print(f"\nwritten to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
