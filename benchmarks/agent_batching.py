"""An agent asked over a batch of games: vmapped, or through `agents.act_where`.

    python -m benchmarks.agent_batching [--agents alphabeta:3 alphabeta:5] [--batch 16]

Plays `--plies` random plies in each of `--batch` checkers games (so they differ), then times one
move of the agent for the whole batch three ways: `jax.vmap(agent)` over every game;
`act_where` with every game needing a move; `act_where` with every other game needing one (as
in a match, where half the games wait for the opponent). Reports CPU seconds of the process per
game asked (the median of `--repeats`), less swayed by other jobs on a shared machine than wall
time, and writes results/agent_batching.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import jax
import jax.numpy as jnp

import jaxcheckers
from jaxcheckers.agents import act_where, make_agent
from jaxcheckers.agents.random import random_agent
from jaxcheckers.argtypes import positive_int, writable_file


def random_positions(env, games: int, plies: int):
    state = jax.vmap(env.reset)(jax.random.split(jax.random.key(0), games))
    act, step = jax.jit(jax.vmap(random_agent)), jax.jit(jax.vmap(env.step))
    for ply in range(plies):
        state = step(state, act(state, jax.random.split(jax.random.key(ply + 1), games)))
    return state


def cpu_seconds(run, repeats: int) -> float:
    jax.block_until_ready(run())  # compiles
    times = []
    for _ in range(repeats):
        start = time.process_time()
        jax.block_until_ready(run())
        times.append(time.process_time() - start)
    return statistics.median(times)


def measure(spec: str, batch: int, plies: int, repeats: int) -> dict:
    env = jaxcheckers.make("checkers")
    agent = make_agent(spec, env)
    states = random_positions(env, batch, plies)
    keys = jax.random.split(jax.random.key(7), batch)
    every, half = jnp.ones(batch, bool), jnp.arange(batch) % 2 == 0
    vmapped = jax.jit(jax.vmap(agent))
    asked = jax.jit(act_where, static_argnums=0)
    row = {"agent": spec, "batch": batch, "game_by_game": bool(getattr(agent, "game_by_game", 0))}
    row["vmap_s_per_game"] = cpu_seconds(lambda: vmapped(states, keys), repeats) / batch
    row["act_where_all_s_per_game"] = (
        cpu_seconds(lambda: asked(agent, states, keys, every), repeats) / batch
    )
    row["act_where_half_s_per_game_asked"] = (
        cpu_seconds(lambda: asked(agent, states, keys, half), repeats) / (batch // 2)
    )
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", nargs="+", default=["alphabeta:3", "alphabeta:5"])
    parser.add_argument("--batch", type=positive_int, default=16)
    parser.add_argument("--plies", type=positive_int, default=12)
    parser.add_argument("--repeats", type=positive_int, default=3)
    parser.add_argument(
        "--out", type=writable_file, default="benchmarks/results/agent_batching.json"
    )
    args = parser.parse_args()
    rows = []
    header = f"{'agent':>14} {'batch':>5} {'vmap':>9} {'act_where':>10} {'half asked':>11}"
    print(header + "  CPU s/game")
    for spec in args.agents:
        row = measure(spec, args.batch, args.plies, args.repeats)
        rows.append(row)
        print(
            f"{spec:>14} {args.batch:>5} {row['vmap_s_per_game']:9.4f} "
            f"{row['act_where_all_s_per_game']:10.4f} "
            f"{row['act_where_half_s_per_game_asked']:11.4f}",
            flush=True,
        )
    report = {"device": jax.devices()[0].device_kind, "load_average": os.getloadavg(), "rows": rows}
    with open(args.out, "w") as file:
        json.dump(report, file, indent=2)


if __name__ == "__main__":
    main()
