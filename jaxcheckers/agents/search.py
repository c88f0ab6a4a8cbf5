"""Search with DeepMind's mctx over any jaxcheckers game: the env's own pure `step` is the model.

    recurrent_fn = make_recurrent_fn(env, evaluate)     # for mctx.*_policy; embedding = State
    root = make_root(evaluate, params, states)          # mctx.RootFnOutput for a batch [B]
    agent = search_agent(env, evaluate, params, num_simulations=64)   # act(state, key)

`evaluate(params, states[B]) -> (logits [B, A], value [B])` scores positions from the view of
the player to move there: a policy network (`network_evaluator(apply_fn)`), or
`uniform_evaluator` (flat priors, value 0: plain search that learns only from game ends).

mctx backs a child's value up to its parent as `reward + discount * value`, with values from
the view of the player to move at each node. So the discount is −1 where the turn passes to the
opponent, +1 where the same player moves again (a checkers capture that goes on), and 0 once
the game is over; the reward is that of the player who made the move.

Every search here completes Q-values with `QTRANSFORM`: mctx's mix-value completion without
its min-max rescaling. Values and rewards already lie in [-1, 1]; rescaling would stretch the
differences between nearly equal Q-values (a value net that says "lost" everywhere) to the full
[0, 1] range, so that noise steers the improved policy: one half of the tic-tac-toe collapse
that training/README.md describes.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from jaxcheckers.extras import needed_for

with needed_for("search (the mcts agent)"):
    import mctx

from jaxcheckers.agents import game_by_game

__all__ = [
    "make_recurrent_fn",
    "make_root",
    "search_agent",
    "network_evaluator",
    "uniform_evaluator",
    "ILLEGAL_LOGIT",
    "QTRANSFORM",
]

ILLEGAL_LOGIT = -1e9  # finite: a finished game (no legal move) gives flat priors, not NaN

QTRANSFORM = functools.partial(mctx.qtransform_completed_by_mix_value, rescale_values=False)

Evaluate = Callable[[Any, Any], tuple[jax.Array, jax.Array]]


def network_evaluator(apply_fn: Callable) -> Evaluate:
    """`evaluate` from an actor-critic `apply_fn(params, observation[B, ...])`."""

    def evaluate(params, states):
        logits, value = apply_fn(params, states.observation)
        return logits, value

    return evaluate


def uniform_evaluator(num_actions: int) -> Evaluate:
    """Flat priors and a value of 0 everywhere: search guided by game results alone."""

    def evaluate(params, states):
        del params
        batch = states.current_player.shape[0]
        return jnp.zeros((batch, num_actions), jnp.float32), jnp.zeros(batch, jnp.float32)

    return evaluate


def make_recurrent_fn(env, evaluate: Evaluate) -> Callable:
    """mctx's `recurrent_fn(params, key, action [B], states [B]) -> (output, next states)`."""

    def recurrent_fn(params, key, action, states):
        del key  # the rules are deterministic
        mover = states.current_player
        after = jax.vmap(env.step)(states, action)
        over = after.terminated | after.truncated
        reward = jnp.take_along_axis(after.rewards, mover[:, None], axis=1)[:, 0]
        discount = jnp.where(after.current_player == mover, 1.0, -1.0)
        logits, value = evaluate(params, after)
        output = mctx.RecurrentFnOutput(
            reward=reward.astype(jnp.float32),
            discount=jnp.where(over, 0.0, discount).astype(jnp.float32),
            prior_logits=jnp.where(after.legal_action_mask, logits, ILLEGAL_LOGIT),
            value=jnp.where(over, 0.0, value).astype(jnp.float32),
        )
        return output, after

    return recurrent_fn


def make_root(evaluate: Evaluate, params, states) -> mctx.RootFnOutput:
    """The search root for a batch of states [B]."""
    logits, value = evaluate(params, states)
    return mctx.RootFnOutput(
        prior_logits=jnp.where(states.legal_action_mask, logits, ILLEGAL_LOGIT),
        value=value.astype(jnp.float32),
        embedding=states,
    )


def search_agent(
    env,
    evaluate: Evaluate,
    params,
    *,
    num_simulations: int,
    max_num_considered_actions: int = 16,
    gumbel_scale: float = 0.0,
) -> Callable:
    """An agent `act(state, key) -> action` that runs Gumbel MuZero search from `state`.

    gumbel_scale 0 (the default) plays the best action by sequential halving, deterministic;
    1 samples as in self-play. Marked `game_by_game`: on a CPU a match asks it one game at a
    time, only where it is to move, since a vmapped search costs every game of the batch many
    times over (figures: docs/experiments.md).
    """
    if num_simulations < 1:
        raise ValueError(f"num_simulations must be positive, got {num_simulations}")
    recurrent_fn = make_recurrent_fn(env, evaluate)

    def act(state, key: jax.Array) -> jax.Array:
        states = jax.tree.map(lambda x: x[None], state)
        output = mctx.gumbel_muzero_policy(
            params,
            key,
            make_root(evaluate, params, states),
            recurrent_fn,
            num_simulations=num_simulations,
            invalid_actions=~states.legal_action_mask,
            max_num_considered_actions=max_num_considered_actions,
            gumbel_scale=gumbel_scale,
            qtransform=QTRANSFORM,
        )
        return output.action[0].astype(jnp.int32)

    return game_by_game(act)
