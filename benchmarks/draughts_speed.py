"""Random play with the legal moves generated every step: jaxcheckers' draughts (batched, on this
CPU) next to dame-rs (Rust) and py-draughts (Python), and next to our checkers, in one run.

    .venv/bin/python -m benchmarks.draughts_speed            # batch 1024, 3 s per library
    .venv/bin/python -m benchmarks.draughts_speed --batch 4096 \
        --out benchmarks/results/draughts_speed_4096.json

The JAX games go through `benchmarks.common`'s harness (a jitted `lax.scan` of vmapped random
play, auto-reset, the same sampler). A JAX step is one hop (a capture of three pieces is three
steps, each with its own legal mask). The libraries play one game at a time in a Python loop:
list the legal moves, push a random one, start again when the game is over; their figure is
positions (move lists) a second. Every system runs in turns, round by round (7 rounds, the
libraries about `--seconds`/7 a round), so that a change in the machine's speed falls on all of
them alike; each figure is the median of its rounds, and each ratio against dame-rs the median of
the rounds' own ratios.

The libraries make no observation, so the JAX games run twice: with their observation not read
(draughts and checkers compute it on reading, so it is not computed: the same work as the
libraries', the legal moves every step and the move played) and with it read every step, summed
over the batch, as an RL rollout reads it. Draughts runs a third time with its step skipped
(`common.step_skipped`: the harness around draughts' State, observation read, what the harness
alone allows the game). Prints a markdown table and writes
`benchmarks/results/draughts_speed.json`.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a file: make `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import (
    RESULTS_DIR,
    TimedRollout,
    jaxcheckers_game,
    machine,
    markdown_table,
    measure_together,
    rate,
    step_skipped,
)
from jaxcheckers.argtypes import check_writable, positive_float, positive_int

ROUNDS = 7


class LibraryRun:
    """Random play through one outside library, run by run (as `common.TimedRollout`): each run
    plays on for about `seconds` from where the last one stopped."""

    def __init__(self, name: str, seconds: float, seed: int = 0):
        self.name, self.seconds = name, seconds
        self.rng = random.Random(seed)
        if name == "dame-rs":
            import dame

            self.new, self.over = dame.Board, None
        else:
            import draughts

            self.new, self.over = draughts.StandardBoard, lambda board: board.game_over
        self.board, self.games = self.new(), 0
        self.rates: list[float] = []

    def run(self) -> None:
        positions, start = 0, time.perf_counter()
        while time.perf_counter() - start < self.seconds:
            legal = self.board.legal_moves
            positions += 1
            if not legal or (self.over is not None and self.over(self.board)):
                self.board, self.games = self.new(), self.games + 1
                continue
            self.board.push(self.rng.choice(legal))
        self.rates.append(positions / (time.perf_counter() - start))

    def result(self) -> dict:
        return {
            "name": self.name,
            "positions_per_s": statistics.median(self.rates),
            "rounds": self.rates,
            "games": self.games,
        }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=positive_int, default=1024)
    parser.add_argument("--seconds", type=positive_float, default=3.0, help="per outside library")
    parser.add_argument("--out", default=str(RESULTS_DIR / "draughts_speed.json"))
    args = parser.parse_args(argv)
    try:  # before anything is timed: a file that cannot be written costs nothing
        check_writable(args.out)
    except ValueError as error:
        parser.error(f"--out: {error}")

    draughts, checkers = jaxcheckers_game("draughts"), jaxcheckers_game("checkers")
    plays = [  # (the game, its observation read every step)
        (draughts, False), (draughts, True), (step_skipped(draughts), True),
        (checkers, False), (checkers, True),
    ]
    rollouts = [TimedRollout(game, args.batch, read_observation=read) for game, read in plays]
    runs = [LibraryRun(name, args.seconds / ROUNDS) for name in ("dame-rs", "py-draughts")]
    dame_run = runs[0]
    timed = measure_together([*rollouts, *runs], runs=ROUNDS)
    ours, libraries = timed[: len(rollouts)], timed[len(rollouts) :]

    def against_dame(rates: list[float]) -> float:
        """The median over the rounds of a system's rate over dame-rs' in the same round."""
        return statistics.median(r / d for r, d in zip(rates, dame_run.rates, strict=True))

    rows, jax_results = [], []
    for rollout, r in zip(rollouts, ours, strict=True):
        rates = [rollout.batch_size * rollout.num_steps * rollout.calls / t for t in r.run_s]
        ratio = against_dame(rates)
        jax_results.append({**r.to_json(), "vs_dame_rs": ratio})
        how = f"batch {r.batch_size}, observation {'read' if r.observation_read else 'not read'}"
        rows.append([r.name, how, rate(r.steps_per_s), f"{ratio:.2f}×"])
    for lib in libraries:
        ratio = against_dame(lib["rounds"])
        lib["vs_dame_rs"] = ratio
        rows.append([lib["name"], "one game", rate(lib["positions_per_s"]), f"{ratio:.2f}×"])
    print(markdown_table(["random play", "how", "steps (positions) / s", "vs dame-rs"], rows))
    out = {
        "machine": machine(),
        "command_args": {"batch": args.batch, "seconds": args.seconds, "out": args.out},
        "jax": jax_results,
        "libraries": libraries,
    }
    path = Path(args.out)
    path.write_text(json.dumps(out, indent=2, default=str) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
