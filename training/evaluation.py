"""Matches between two agents over a batch of games, both seats; win/draw/loss counts."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxcheckers.agents.policy import policy_agent
from jaxcheckers.agents.random import random_legal_action

__all__ = ["MatchResult", "match_rewards", "summarize", "make_policy_evaluator"]

NO_LIMIT_CAP = 10_000  # steps, for an env that never truncates


class MatchResult(NamedTuple):
    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def win_rate(self) -> float:
        return self.wins / max(self.games, 1)

    @property
    def score(self) -> float:
        """Wins plus half the draws, as a share of the games."""
        return (self.wins + 0.5 * self.draws) / max(self.games, 1)


def match_rewards(
    env, agent: Callable, opponent: Callable, key: jax.Array, num_games: int, opening_plies: int = 0
) -> jax.Array:
    """float32 [num_games]: `agent`'s final reward in each game (pure; jit it).

    `agent` plays seat 0 in the even games and seat 1 in the odd ones. The first `opening_plies`
    steps of every game are random legal moves for both sides, so that deterministic agents
    meet in different positions.
    """
    reset_key, key = jax.random.split(key)
    states = jax.vmap(env.reset)(jax.random.split(reset_key, num_games))
    seat = jnp.arange(num_games, dtype=jnp.int32) % 2
    cap = env.max_steps if env.max_steps is not None else NO_LIMIT_CAP

    def live(carry):
        states, _, _, ply = carry
        return (~(states.terminated | states.truncated)).any() & (ply < cap + opening_plies)

    def play(carry):
        states, total, key, ply = carry
        key, agent_key, opponent_key, random_key = jax.random.split(key, 4)
        keys = lambda k: jax.random.split(k, num_games)  # noqa: E731
        agent_action = jax.vmap(agent)(states, keys(agent_key))
        opponent_action = jax.vmap(opponent)(states, keys(opponent_key))
        random_action = jax.vmap(random_legal_action)(keys(random_key), states.legal_action_mask)
        action = jnp.where(states.current_player == seat, agent_action, opponent_action)
        action = jnp.where(ply < opening_plies, random_action, action)
        states = jax.vmap(env.step)(states, action)
        total = total + jnp.take_along_axis(states.rewards, seat[:, None], axis=1)[:, 0]
        return states, total, key, ply + 1

    init = (states, jnp.zeros(num_games, jnp.float32), key, jnp.int32(0))
    _, total, _, _ = jax.lax.while_loop(live, play, init)
    return total


def summarize(rewards) -> MatchResult:
    rewards = jax.device_get(rewards)
    return MatchResult(
        wins=int((rewards > 0).sum()),
        draws=int((rewards == 0).sum()),
        losses=int((rewards < 0).sum()),
    )


def make_policy_evaluator(
    env,
    apply_fn: Callable,
    opponent: Callable,
    num_games: int,
    opening_plies: int = 0,
    greedy: bool = True,
) -> Callable:
    """A jitted `evaluate(params, key) -> rewards [num_games]` of the policy against `opponent`."""

    def evaluate(params, key):
        agent = policy_agent(apply_fn, params, greedy=greedy)
        return match_rewards(env, agent, opponent, key, num_games, opening_plies)

    return jax.jit(evaluate)
