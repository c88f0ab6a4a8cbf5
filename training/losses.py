"""The PPO loss: clipped surrogate, value regression and the entropy bonus of the masked policy."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxcheckers.agents.networks import masked_entropy, masked_log_prob

__all__ = ["Batch", "LossTerms", "clipped_surrogate", "value_loss", "ppo_loss"]


class Batch(NamedTuple):
    """One minibatch of mover's-frame transitions, flattened to [N]."""

    observation: jax.Array  # [N, *obs_shape]
    legal_action_mask: jax.Array  # bool [N, num_actions]
    action: jax.Array  # int32 [N]
    log_prob: jax.Array  # float32 [N]  under the policy that played
    value: jax.Array  # float32 [N]  the value estimate when played
    advantage: jax.Array  # float32 [N]
    target: jax.Array  # float32 [N]  the value target (advantage + value)


class LossTerms(NamedTuple):
    total: jax.Array  # float32 ()
    policy: jax.Array  # float32 ()  the (negated) clipped surrogate
    value: jax.Array  # float32 ()
    entropy: jax.Array  # float32 ()  mean entropy over legal actions
    approx_kl: jax.Array  # float32 ()  mean of (ratio - 1) - log ratio
    clip_fraction: jax.Array  # float32 ()  share of samples where the ratio was clipped


def clipped_surrogate(
    log_prob: jax.Array, old_log_prob: jax.Array, advantage: jax.Array, clip_epsilon: float
) -> jax.Array:
    """The PPO policy loss (to minimise): -mean(min(ratio * A, clip(ratio) * A))."""
    ratio = jnp.exp(log_prob - old_log_prob)
    clipped = jnp.clip(ratio, 1.0 - clip_epsilon, 1.0 + clip_epsilon)
    return -jnp.minimum(ratio * advantage, clipped * advantage).mean()


def value_loss(value: jax.Array, target: jax.Array) -> jax.Array:
    """Half the mean squared error of the value."""
    return 0.5 * jnp.square(value - target).mean()


def ppo_loss(
    params,
    apply_fn: Callable,
    batch: Batch,
    *,
    clip_epsilon: float,
    value_coef: float,
    entropy_coef: float,
    normalize_advantages: bool = True,
) -> tuple[jax.Array, LossTerms]:
    """The total loss and its terms for one minibatch; differentiate with `has_aux=True`."""
    logits, value = apply_fn(params, batch.observation)
    log_prob = masked_log_prob(logits, batch.legal_action_mask, batch.action)
    advantage = batch.advantage
    if normalize_advantages:
        advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)

    policy = clipped_surrogate(log_prob, batch.log_prob, advantage, clip_epsilon)
    critic = value_loss(value, batch.target)
    entropy = masked_entropy(logits, batch.legal_action_mask).mean()
    total = policy + value_coef * critic - entropy_coef * entropy

    log_ratio = log_prob - batch.log_prob
    approx_kl = (jnp.exp(log_ratio) - 1.0 - log_ratio).mean()
    clip_fraction = (jnp.abs(jnp.exp(log_ratio) - 1.0) > clip_epsilon).mean()
    return total, LossTerms(total, policy, critic, entropy, approx_kl, clip_fraction)
