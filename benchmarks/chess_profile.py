"""Chess: where a batched step's time goes, part by part.

    python -m benchmarks.chess_profile [--batch 1024] [--repeats 20] [--hlo DIR]

Plays random games for a few dozen plies to get positions in every phase, then times each part
of a step on its own, jitted and vmapped over the batch: legal-move generation, playing a move,
the whole `env.step` (the rest of it is the draw rules and the plumbing), reading the
observation, reading the mask and sampling from it, and one whole harness step. Prints
microseconds per call and nanoseconds per game; with --hlo, writes each part's optimised HLO
and prints how many fusions and instructions it has.
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from pathlib import Path

import jax
import jax.numpy as jnp

from benchmarks import common
from jaxcheckers.argtypes import positive_int


def positions_in_play(env, batch: int, plies: int, seed: int = 0):
    """A batch of states after `plies` random plies (finished games restarted)."""
    game = common.JaxGame("chess", env.reset, env.step, env.num_actions)
    rollout = common.make_rollout(game, batch, plies)
    states, key, tally = common.initial_carry(game, batch, seed)
    return rollout(states, key, tally)[0]


def timed(function, *args, repeats: int) -> tuple[float, float]:
    """Median seconds of one call, wall and CPU time of this process (after a warm-up call).

    The CPU time is less swayed by other work on a shared machine."""
    jax.block_until_ready(function(*args))
    wall, cpu = [], []
    for _ in range(repeats):
        start, cpu_start = time.perf_counter(), time.process_time()
        jax.block_until_ready(function(*args))
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - cpu_start)
    return statistics.median(wall), statistics.median(cpu)


def hlo_counts(text: str) -> tuple[int, int]:
    """(fusions, instructions) of the entry computation of an optimised HLO module."""
    entry = text[text.index("ENTRY") :]
    entry = entry[: entry.index("\n}")]
    lines = [line for line in entry.splitlines()[1:] if "=" in line]
    fusions = sum(1 for line in lines if re.search(r"= \S+ fusion\(", line))
    return fusions, len(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=positive_int, default=1024)
    parser.add_argument("--plies", type=positive_int, default=40)
    parser.add_argument("--repeats", type=positive_int, default=20)
    parser.add_argument("--hlo", type=Path, help="write each part's optimised HLO here")
    parser.add_argument("--only", nargs="+", help="time only the parts whose names start so")
    args = parser.parse_args()

    import jaxcheckers
    from jaxcheckers.chess import rules

    env = jaxcheckers.make("chess")
    states = positions_in_play(env, args.batch, args.plies)
    key = jax.random.key(1)
    actions = common.sample_legal_actions(key, states.legal_action_mask)
    game = common.JaxGame("chess", env.reset, env.step, env.num_actions)
    one_step = common.make_rollout(game, args.batch, 1)
    carry = common.initial_carry(game, args.batch)
    carry = (states, carry[1], carry[2])

    parts = {
        "legal moves (rules.legal_moves)": (jax.vmap(rules.legal_moves), (states.position,)),
        "play (rules.play)": (
            jax.vmap(rules.play),
            (states.position, actions, states.current_player),
        ),
        "env.step (all of it)": (jax.vmap(env.step), (states, actions)),
        "observation, summed": (lambda s: s.observation.sum(0, dtype=jnp.int32), (states,)),
        "mask, unpacked and summed": (
            lambda s: s.legal_action_mask.sum(0, dtype=jnp.int32),
            (states,),
        ),
        "mask read + sampler": (
            lambda k, s: common.sample_legal_actions(k, s.legal_action_mask),
            (key, states),
        ),
        "harness step (sample, step, reset, observation)": (lambda *c: one_step(*c), carry),
    }
    print(f"batch {args.batch}; per call: µs of wall time; per game: ns of wall and CPU time")
    for name, (function, inputs) in parts.items():
        if args.only and not any(name.startswith(prefix) for prefix in args.only):
            continue
        jitted = jax.jit(function)
        compiled = jitted.lower(*inputs).compile()
        wall, cpu = timed(compiled, *inputs, repeats=args.repeats)
        counts = ""
        if args.hlo:
            args.hlo.mkdir(parents=True, exist_ok=True)
            text = compiled.as_text()
            slug = re.sub(r"\W+", "_", name.split(" (")[0]).strip("_")
            (args.hlo / f"{slug}.hlo.txt").write_text(text)
            fusions, instructions = hlo_counts(text)
            counts = f"  fusions {fusions}, instructions {instructions}"
        per_game = f"{wall * 1e9 / args.batch:8.0f} {cpu * 1e9 / args.batch:8.0f}"
        print(f"{name:50s} {wall * 1e6:10.0f} {per_game}{counts}")


if __name__ == "__main__":
    main()
