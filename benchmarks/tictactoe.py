"""Throughput of jaxcheckers' tic-tac-toe against pgx's `tic_tac_toe`, measured in the same run.

Both games go through one harness: a jitted `lax.scan` of T steps of batched random play, each
game reset on the step it ends, actions drawn by the same cheap sampler
(`jaxcheckers.agents.random.random_legal_action`). Prints a table (steps per second, median of
several runs, and the ratio) and writes it as JSON.

    .venv/bin/python benchmarks/tictactoe.py [--batch-sizes 1024 4096 ...] [--steps 64]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from pathlib import Path

import jax

import jaxcheckers.core as core
from jaxcheckers.agents.random import random_legal_action
from jaxcheckers.tictactoe import TicTacToe


def jaxcheckers_step(env):
    def step(state, action, key):
        return core.step_autoreset(env, state, action, key).state

    return env.reset, step


def pgx_step(env):
    def step(state, action, key):
        final = env.step(state, action)
        fresh = env.init(key)
        return core.tree_where(final.terminated | final.truncated, fresh, final)

    return env.init, step


def make_rollout(init, step, batch_size: int, num_steps: int):
    """A jitted function key -> total reward seen, running num_steps × batch_size env steps."""
    batched_step = jax.vmap(step)
    batched_action = jax.vmap(random_legal_action)

    def one_step(carry, _):
        state, key = carry
        key, action_key, reset_key = jax.random.split(key, 3)
        actions = batched_action(jax.random.split(action_key, batch_size), state.legal_action_mask)
        state = batched_step(state, actions, jax.random.split(reset_key, batch_size))
        return (state, key), state.rewards.sum()

    @jax.jit
    def rollout(key):
        key, init_key = jax.random.split(key)
        state = jax.vmap(init)(jax.random.split(init_key, batch_size))
        _, rewards = jax.lax.scan(one_step, (state, key), None, length=num_steps)
        return rewards.sum()

    return rollout


def compare(games: dict, batch_size: int, num_steps: int, repeats: int) -> dict[str, float]:
    """Steps per second of each game: the median of `repeats` timed runs after one compiling run.

    The games' runs alternate, so that a change in the machine's load falls on all of them alike.
    """
    rollouts = {
        name: make_rollout(init, step, batch_size, num_steps)
        for name, (init, step) in games.items()
    }
    for rollout in rollouts.values():
        rollout(jax.random.key(0)).block_until_ready()  # compile
    times = {name: [] for name in rollouts}
    for seed in range(repeats):
        for name, rollout in rollouts.items():
            start = time.perf_counter()
            rollout(jax.random.key(seed + 1)).block_until_ready()
            times[name].append(time.perf_counter() - start)
    return {name: batch_size * num_steps / statistics.median(t) for name, t in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[1024, 4096, 16384, 65536])
    parser.add_argument("--steps", type=int, default=64, help="scan length T")
    parser.add_argument("--repeats", type=int, default=5, help="runs per figure (median)")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/tictactoe.json"))
    args = parser.parse_args()

    import pgx  # only the benchmark needs it (the `bench` extra)

    games = {
        "jaxcheckers": jaxcheckers_step(TicTacToe(size=3)),
        "pgx": pgx_step(pgx.make("tic_tac_toe")),
    }
    rows = []
    print(f"{'batch':>7} {'jaxcheckers steps/s':>20} {'pgx steps/s':>14} {'ratio':>6}")
    for batch_size in args.batch_sizes:
        speed = compare(games, batch_size, args.steps, args.repeats)
        ratio = speed["jaxcheckers"] / speed["pgx"]
        print(
            f"{batch_size:>7} {speed['jaxcheckers']:>20,.0f} {speed['pgx']:>14,.0f} {ratio:>6.2f}"
        )
        rows.append({"batch_size": batch_size, **speed, "ratio": ratio})

    args.out.parent.mkdir(parents=True, exist_ok=True)
    result = {
        "benchmark": "tictactoe 3x3 random play, auto-reset",
        "steps": args.steps,
        "repeats": args.repeats,
        "device": str(jax.devices()[0]),
        "machine": platform.machine(),
        "jax": jax.__version__,
        "rows": rows,
    }
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
