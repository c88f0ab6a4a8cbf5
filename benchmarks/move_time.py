"""Seconds a move of an agent, one game at a time, as `jaxcheckers play` asks it.

    python -m benchmarks.move_time mcts:pretrained:1024 [--game checkers] [--games 2]

The agent plays `--games` games against a random opponent (after `--opening-plies` random
turns) and every one of its own moves is timed, wall clock and CPU time of the process, after a
first compiling move. Prints the median, the 90th percentile and the maximum, and writes
results/move_time.json (one entry per agent, replaced when measured again).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import jax
import numpy as np

import jaxcheckers
from benchmarks.common import agent_or_exit
from jaxcheckers.agents.random import random_agent
from jaxcheckers.argtypes import games_count, non_negative_int, seed

RESULTS = Path(__file__).resolve().parent / "results" / "move_time.json"


def own_move_times(env, agent, games: int, opening_plies: int, seed: int) -> np.ndarray:
    """(wall, cpu) seconds of each move the agent made, [moves, 2]."""
    act, other, step = jax.jit(agent), jax.jit(random_agent), jax.jit(env.step)
    times = []
    for game in range(games):
        key = jax.random.key(seed + game)
        state = env.reset(key)
        agent_seat, turns = game % 2, 0
        act(state, key).block_until_ready()  # compiles (once)
        while not bool(state.terminated | state.truncated):
            key, move_key = jax.random.split(key)
            mover = int(state.current_player)
            if turns < opening_plies or mover != agent_seat:
                action = other(state, move_key)
            else:
                wall, cpu = time.perf_counter(), time.process_time()
                action = act(state, move_key).block_until_ready()
                times.append((time.perf_counter() - wall, time.process_time() - cpu))
            state = step(state, action)
            turns += int(state.current_player) != mover
    return np.array(times)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("agent")
    parser.add_argument("--game", default="checkers", choices=sorted(jaxcheckers.GAMES))
    parser.add_argument("--games", type=games_count, default=2)
    parser.add_argument("--opening-plies", type=non_negative_int, default=2)
    parser.add_argument("--seed", type=seed, default=0)
    args = parser.parse_args(argv)
    env = jaxcheckers.make(args.game)
    agent = agent_or_exit(parser, args.agent, env)
    times = own_move_times(env, agent, args.games, args.opening_plies, args.seed)
    row = {"moves": len(times), "load_average": os.getloadavg()}
    for column, name in ((0, "wall"), (1, "cpu")):
        row[f"{name}_median_s"] = float(np.median(times[:, column]))
        row[f"{name}_p90_s"] = float(np.percentile(times[:, column], 90))
        row[f"{name}_max_s"] = float(times[:, column].max())
    print(
        f"{args.agent} ({args.game}): {row['moves']} moves, wall median "
        f"{row['wall_median_s']:.3f} s, 90% {row['wall_p90_s']:.3f} s, max "
        f"{row['wall_max_s']:.3f} s; CPU median {row['cpu_median_s']:.3f} s "
        f"(load {row['load_average'][0]:.1f})"
    )
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    results[f"{args.game} {args.agent}"] = row
    RESULTS.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
