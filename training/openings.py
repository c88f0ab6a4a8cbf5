"""Random opening turns for training games, so the learner meets the positions a match's random
openings lead to, not only those its own play steers to (a greedy policy trained from the
initial position alone plays its best games there; training/README.md has the measurements).
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp

from jaxcheckers.agents.random import random_agent
from jaxcheckers.core import tree_where

__all__ = ["random_opening_reset"]


def random_opening_reset(env, turns: int) -> Callable[[jax.Array], object]:
    """`reset(key)` for `env` that opens each game with uniformly random legal moves for a number
    of whole turns (every hop of a multi-jump) drawn uniformly from 0..`turns`. Those moves are
    part of no trajectory; a game they end starts again from the plain initial state."""
    if turns == 0:
        return env.reset

    def reset(key: jax.Array):
        start_key, count_key, play_key = jax.random.split(key, 3)
        start = env.reset(start_key)
        wanted = jax.random.randint(count_key, (), 0, turns + 1, dtype=jnp.int32)

        def going(carry):
            state, done, _ = carry
            return (done < wanted) & ~(state.terminated | state.truncated)

        def random_move(carry):
            state, done, key = carry
            key, move_key = jax.random.split(key)
            after = env.step(state, random_agent(state, move_key))
            return after, done + (after.current_player != state.current_player), key

        opened, _, _ = jax.lax.while_loop(going, random_move, (start, jnp.int32(0), play_key))
        return tree_where(opened.terminated | opened.truncated, start, opened)

    return reset
