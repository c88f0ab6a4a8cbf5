"""Gymnasium vector API: `CheckersVectorEnv` (batched in JAX) against `SyncVectorEnv`.

    .venv/bin/python -m benchmarks.gym_vector                  # N = 1, 16, 256, 1024
    .venv/bin/python -m benchmarks.gym_vector --quick          # N = 16, 256, one round

Both sides are what a Gymnasium user runs: numpy actions in, numpy observations, rewards and infos
out, NEXT_STEP autoreset, the 8×8 game against the random opponent (the opponent's hops are played
inside each learner step). `SyncVectorEnv` steps N `CheckersEnv`s one after another, each of them
one jitted call; `CheckersVectorEnv` steps all N under one jitted, vmapped call. The learner's
actions are drawn the same way on both sides (uniformly among the legal ones, from
`info["action_mask"]`, in numpy), and that cost is part of both loops, as it would be for a user.

A figure is learner steps per second (N × vector steps / seconds) of a run of at least
`--min-run-s`, after a warm-up. The two sides take turns run by run (`--runs` each), and the table
gives each side's best run, the one least slowed by other work on a shared machine; the JSON also
keeps the medians. Prints a markdown table and writes `benchmarks/results/gym_vector.json`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as a file: make `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import gymnasium  # noqa: E402  (the adapters extra)

from benchmarks.common import RESULTS_DIR, machine, markdown_table, rate  # noqa: E402
from jaxcheckers.adapters.gymnasium import CheckersEnv, CheckersVectorEnv  # noqa: E402
from jaxcheckers.argtypes import positive_float, positive_int, writable_file  # noqa: E402

DEFAULT_SIZES = (1, 16, 256, 1024)


def random_legal_actions(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """int64 (N,): a uniformly random legal action per row of `masks` (0 where none is legal)."""
    noise = rng.random(masks.shape)
    return np.argmax(np.where(masks > 0, noise, -1.0), axis=1)


class TimedVectorEnv:
    """One vector env, reset and warmed up, timed run by run (each run continues the games)."""

    def __init__(self, name: str, envs, min_run_s: float):
        self.name, self.envs = name, envs
        self.rng = np.random.default_rng(0)
        _, self.info = envs.reset(seed=0)
        self._steps(2)  # compiles (the first time a size or the single env is seen)
        start = time.perf_counter()
        self._steps(5)
        per_step = (time.perf_counter() - start) / 5
        self.steps_per_run = max(3, int(min_run_s / max(per_step, 1e-6)))
        self.run_s: list[float] = []

    def _steps(self, count: int) -> None:
        for _ in range(count):
            actions = random_legal_actions(self.rng, self.info["action_mask"])
            *_, self.info = self.envs.step(actions)

    def run(self) -> None:
        start = time.perf_counter()
        self._steps(self.steps_per_run)
        self.run_s.append(time.perf_counter() - start)

    def steps_per_s(self, run_s: float) -> float:
        return self.envs.num_envs * self.steps_per_run / run_s


def sync_vector_env(num_envs: int) -> gymnasium.vector.SyncVectorEnv:
    return gymnasium.vector.SyncVectorEnv([CheckersEnv for _ in range(num_envs)])


def measure(num_envs: int, runs: int, min_run_s: float) -> dict:
    timed = [
        TimedVectorEnv("jax", CheckersVectorEnv(num_envs), min_run_s),
        TimedVectorEnv("sync", sync_vector_env(num_envs), min_run_s),
    ]
    for _ in range(runs):  # the two take turns run by run, so both meet the same load
        for side in timed:
            side.run()
    record: dict = {"num_envs": num_envs}
    for side in timed:
        rates = [side.steps_per_s(run_s) for run_s in side.run_s]
        record[f"{side.name}_best_steps_per_s"] = max(rates)
        record[f"{side.name}_median_steps_per_s"] = statistics.median(rates)
        side.envs.close()
    record["speedup_best"] = record["jax_best_steps_per_s"] / record["sync_best_steps_per_s"]
    record["speedup_median"] = record["jax_median_steps_per_s"] / record["sync_median_steps_per_s"]
    return record


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-envs", type=positive_int, nargs="+", default=list(DEFAULT_SIZES))
    parser.add_argument("--runs", type=positive_int, default=9)
    parser.add_argument("--min-run-s", type=positive_float, default=0.3)
    parser.add_argument("--quick", action="store_true", help="N = 16 and 256, 3 runs")
    parser.add_argument("--out", type=writable_file, default=str(RESULTS_DIR / "gym_vector.json"))
    args = parser.parse_args()
    if args.quick:
        args.num_envs, args.runs = [16, 256], 3

    header = ["N", "CheckersVectorEnv (JAX)", "SyncVectorEnv", "speed-up", "speed-up (medians)"]
    rows, records = [], []
    for num_envs in args.num_envs:
        record = measure(num_envs, args.runs, args.min_run_s)
        records.append(record)
        rows.append(
            [
                num_envs,
                rate(record["jax_best_steps_per_s"]),
                rate(record["sync_best_steps_per_s"]),
                f"{record['speedup_best']:.1f}×",
                f"{record['speedup_median']:.1f}×",
            ]
        )
        print(markdown_table(header, rows[-1:]), flush=True)

    print("\nlearner steps per second, best run (8×8, random opponent, NEXT_STEP autoreset)")
    print(markdown_table(header, rows))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    result = {
        "benchmark": "gym_vector",
        "machine": machine(),
        "settings": vars(args) | {"out": str(args.out)},
        "results": records,
    }
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
