"""The uniformly random legal player, and the cheap sampler under it."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxcheckers.core import AutoResetStep, step_autoreset

_BITS = 32


def random_legal_action(key: jax.Array, legal_action_mask: jax.Array) -> jax.Array:
    """int32 (): a uniformly random legal action of one game (0 if none is legal).

    One uniform draw picks a rank k among the legal actions; the k-th legal action is then found
    on the mask packed into 32-bit words: the word by population counts, the bit by halving the
    word five times. Drawing a random number per action instead (the arg-max of uniform noise)
    costs a threefry hash each: for checkers' 256 actions that is ten times a game step.
    """
    size = legal_action_mask.shape[-1]
    bits = jnp.pad(legal_action_mask, (0, -size % _BITS)).reshape(-1, _BITS).astype(jnp.uint32)
    words = (bits << jnp.arange(_BITS, dtype=jnp.uint32)).sum(axis=-1, dtype=jnp.uint32)
    counts = jax.lax.population_count(words).astype(jnp.int32)
    before = jnp.cumsum(counts) - counts  # legal actions in the words before each word
    total = counts.sum()
    rank = jnp.floor(jax.random.uniform(key) * total).astype(jnp.int32)

    index = (before + counts <= rank).sum()  # the word holding the rank-th legal action
    word = words[index]
    rank = rank - before[index]
    bit = jnp.int32(0)
    for width in (16, 8, 4, 2, 1):  # step over the low half while the rank lies beyond it
        low = jax.lax.population_count(word & jnp.uint32((1 << width) - 1)).astype(jnp.int32)
        beyond = rank >= low
        rank = jnp.where(beyond, rank - low, rank)
        word = jnp.where(beyond, word >> width, word)
        bit = jnp.where(beyond, bit + width, bit)
    return jnp.where(total > 0, index * _BITS + bit, 0).astype(jnp.int32)


def random_agent(state, key: jax.Array) -> jax.Array:
    return random_legal_action(key, state.legal_action_mask)


def random_play_step(env, state, key: jax.Array) -> AutoResetStep:
    """One step of random play over a batch of games, restarting those that end."""
    batch = state.current_player.shape[0]
    pick, fresh = jax.random.split(key)
    actions = jax.vmap(random_legal_action)(jax.random.split(pick, batch), state.legal_action_mask)
    return jax.vmap(step_autoreset, in_axes=(None, 0, 0, 0))(
        env, state, actions, jax.random.split(fresh, batch)
    )
