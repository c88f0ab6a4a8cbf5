"""Random play with the legal moves generated every step: jaxcheckers' draughts (batched, on this
CPU) next to dame-rs (Rust) and py-draughts (Python), and next to our checkers, in one run.

    .venv/bin/python -m benchmarks.draughts_speed            # batch 1024, 3 s per library
    .venv/bin/python -m benchmarks.draughts_speed --batch 4096

The JAX games go through `benchmarks.common`'s harness (a jitted `lax.scan` of vmapped random
play, auto-reset, the same sampler), median of 5 runs taken in turns. A JAX step is one hop (a
capture of three pieces is three steps, each with its own legal mask). The libraries play one
game at a time in a Python loop: list the legal moves, push a random one, start again when the
game is over; their figure is positions (move lists) a second. Prints a markdown table and writes
`benchmarks/results/draughts_speed.json`.
"""

from __future__ import annotations

import argparse
import json
import random
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
)


def library_rate(name: str, seconds: float, seed: int = 0) -> dict:
    """Positions a second of random play through one outside library, for about `seconds`."""
    rng = random.Random(seed)
    if name == "dame-rs":
        import dame

        new, moves, push, over = dame.Board, lambda b: b.legal_moves, lambda b, m: b.push(m), None
    else:
        import draughts

        new = draughts.StandardBoard
        moves, push = (lambda b: b.legal_moves), (lambda b, m: b.push(m))
        over = lambda b: b.game_over  # noqa: E731
    board, positions, games = new(), 0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        legal = moves(board)
        positions += 1
        if not legal or (over is not None and over(board)):
            board, games = new(), games + 1
            continue
        push(board, rng.choice(legal))
    elapsed = time.perf_counter() - start
    return {"name": name, "positions_per_s": positions / elapsed, "games": games}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--seconds", type=float, default=3.0, help="per outside library")
    args = parser.parse_args(argv)

    games = [jaxcheckers_game("draughts"), jaxcheckers_game("checkers")]
    rollouts = [TimedRollout(game, args.batch) for game in games]
    ours = measure_together(rollouts)
    libraries = [library_rate(name, args.seconds) for name in ("dame-rs", "py-draughts")]

    dame_rate = libraries[0]["positions_per_s"]
    rows = [
        [r.name, f"batch {r.batch_size}", rate(r.steps_per_s), f"{r.steps_per_s / dame_rate:.2f}×"]
        for r in ours
    ]
    rows += [
        [
            lib["name"],
            "one game",
            rate(lib["positions_per_s"]),
            f"{lib['positions_per_s'] / dame_rate:.2f}×",
        ]
        for lib in libraries
    ]
    print(markdown_table(["random play", "how", "steps (positions) / s", "vs dame-rs"], rows))
    out = {
        "machine": machine(),
        "jax": [r._asdict() if hasattr(r, "_asdict") else vars(r) for r in ours],
        "libraries": libraries,
    }
    path = RESULTS_DIR / "draughts_speed.json"
    path.write_text(json.dumps(out, indent=2, default=str) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
