"""A/B: this tree's games against the same games at an earlier commit, timed in one process.

    .venv/bin/python -m benchmarks.ab --base b3c4d60 --games checkers chess --batch-sizes 4096

The base commit's `jaxcheckers` package is taken out of git (`git archive`) into a temporary
folder under the name `jaxcheckers_base`, so both versions load side by side; each game's two
versions then run in turns, run by run (`common.measure_together`), so that a change in the
machine's load falls on both alike. Prints a table with the ratio new/base and writes
`benchmarks/results/ab-BASE.json`.
"""

from __future__ import annotations

import argparse
import importlib
import io
import json
import re
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the commit to compare with")
    parser.add_argument("--games", nargs="+", default=["checkers", "chess"])
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[4096])
    parser.add_argument("--runs", type=int, default=7, help="timed runs per figure (median)")
    parser.add_argument("--min-run-s", type=float, default=0.5, help="shortest timed run")
    parser.add_argument("--out-dir", type=Path, default=RESULTS_DIR)
    args = parser.parse_args(argv)

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
                rollouts = [TimedRollout(v, batch, min_run_s=args.min_run_s) for v in versions]
                new, old = measure_together(rollouts, runs=args.runs)
                ratio = new.steps_per_s / old.steps_per_s
                rows.append([name, str(batch), rate(new.steps_per_s), rate(old.steps_per_s),
                             f"{ratio:.3f}"])
                records.append({"game": name, "batch_size": batch, "base": args.base,
                                "new_steps_per_s": new.steps_per_s,
                                "base_steps_per_s": old.steps_per_s, "ratio": ratio,
                                "new_runs_s": new.run_s, "base_runs_s": old.run_s})
    device = jax.devices()[0]
    print(f"Random play with auto-reset on {device.platform} ({device.device_kind}), "
          f"median of {args.runs} runs, the two versions in turns:\n")
    print(markdown_table(["game", "batch", "this tree", args.base, "ratio"], rows))
    args.out_dir.mkdir(parents=True, exist_ok=True)
    path = args.out_dir / f"ab-{args.base}.json"
    path.write_text(json.dumps({"device": device.platform, "results": records}, indent=2) + "\n")
    print(f"\nwritten to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
