"""`jaxcheckers demo`: random games, one of them printed, and the batched throughput."""

from __future__ import annotations

import argparse
import sys
import time

import jax
import numpy as np

from jaxcheckers.agents.random import random_legal_action, random_play_step
from jaxcheckers.argtypes import (
    add_game_arguments,
    env_from_arguments,
    positive_int,
    seed,
    steps_count,
)
from jaxcheckers.games import spec
from jaxcheckers.memory import state_bytes, too_large


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--batch", type=positive_int, default=4096, help="games played at once")
    parser.add_argument("--steps", type=steps_count, default=200, help="steps per game slot timed")
    parser.add_argument("--seed", type=seed, default=0)
    add_game_arguments(parser)


def print_one_game(env, key) -> None:
    """One random game: its moves as the game writes them, then the last position."""
    game = spec(env.id)
    step = jax.jit(env.step)
    state = env.reset(key)
    notation = []
    while not (bool(state.terminated) or bool(state.truncated)):
        key, pick = jax.random.split(key)
        action = int(random_legal_action(pick, state.legal_action_mask))
        game.dialect.write(env, notation, [], state, action)
        state = step(state, action)
    print(" ".join(notation))
    if game.drawing.text is not None:
        print(game.drawing.text(state))


def throughput(env, batch: int, steps: int, key) -> float:
    def one_step(carry, _):
        state, key = carry
        key, now = jax.random.split(key)
        out = random_play_step(env, state, now)
        return (out.state, key), out.final.observation.sum()

    @jax.jit
    def run(state, key):
        (state, _), seen = jax.lax.scan(one_step, (state, key), None, length=steps)
        return state, seen.sum()

    state = jax.vmap(env.reset)(jax.random.split(key, batch))
    state, _ = jax.block_until_ready(run(state, key))  # compile and warm up
    start = time.perf_counter()
    jax.block_until_ready(run(state, key))
    return batch * steps / (time.perf_counter() - start)


def run(args: argparse.Namespace) -> int:
    env = env_from_arguments(args)
    # The batch, the next one, the sampler's mask and keys: four copies at once, on the safe side.
    refused = too_large(4 * args.batch * state_bytes(env), f"--batch {args.batch:,} games")
    if refused:
        print(f"demo: {refused}; try a smaller --batch", file=sys.stderr)
        return 1
    key = jax.random.PRNGKey(args.seed)
    print(f"One random game of {env}:")
    print_one_game(env, key)
    rate = throughput(env, args.batch, args.steps, key)
    device = jax.devices()[0]
    print(f"\nRandom play, {args.batch} games at once on {device.platform}: {rate:,.0f} steps/s")
    return 0 if np.isfinite(rate) else 1
