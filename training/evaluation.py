"""The trainer's evaluations: its policy against fixed agents, through the arena's match runner."""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp

from jaxcheckers.agents.policy import policy_agent
from jaxcheckers.arena import play_games, summarize

__all__ = ["make_policy_evaluator", "summarize"]


def make_policy_evaluator(
    env,
    apply_fn: Callable,
    opponent: Callable,
    num_games: int,
    opening_plies: int = 0,
    greedy: bool = True,
) -> Callable:
    """A jitted `evaluate(params, key) -> A's scores [num_games]` (1 win, 0.5 draw, 0 loss).

    The policy plays first in the even games and second in the odd ones; `arena.summarize`
    turns the scores into counts and a confidence interval.
    """
    a_plays_first = jnp.arange(num_games) % 2 == 0

    def evaluate(params, key):
        agent = policy_agent(apply_fn, params, greedy=greedy)
        return play_games(
            env, agent, opponent, key, a_plays_first, opening_plies=opening_plies
        ).a_score

    return jax.jit(evaluate)
