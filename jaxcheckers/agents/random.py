"""The uniformly random legal player."""

from __future__ import annotations

import jax
import jax.numpy as jnp


def random_legal_action(key: jax.Array, legal_action_mask: jax.Array) -> jax.Array:
    """int32 (): a uniformly random legal action (0 if none is legal).

    The arg-max of uniform noise over the legal actions: one draw per action, no logits or
    normalisation, so sampling costs less than a step of the game.
    """
    noise = jax.random.uniform(key, legal_action_mask.shape)
    return jnp.argmax(jnp.where(legal_action_mask, noise, -1.0)).astype(jnp.int32)


def random_agent(state, key: jax.Array) -> jax.Array:
    return random_legal_action(key, state.legal_action_mask)
