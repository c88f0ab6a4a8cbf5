"""The uniformly random legal player, and the cheap sampler under it."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from jaxcheckers.bits import count_set, nth_set_bit, nth_set_bit_in_few_operations, pack_mask
from jaxcheckers.core import AutoResetStep, computed_once, packed_legal_actions, step_autoreset


def random_legal_action(key: jax.Array, legal: jax.Array) -> jax.Array:
    """int32 (): a uniformly random legal action of one game (0 if none is legal).

    legal: the game's bool (A,) mask, or the mask packed (uint32 (⌈A/32⌉,), `bits.pack_mask`,
    as `core.packed_legal_actions` reads it from a State).

    One uniform draw picks a rank among the legal actions (`legal_action_at`). Drawing a random
    number per action instead (the arg-max of uniform noise) costs a threefry hash each: for
    checkers' 256 actions, many times a game step (docs/performance.md).
    """
    return legal_action_at(legal, jax.random.uniform(key))


@functools.partial(jax.jit, inline=True, static_argnames="few_operations")
def legal_action_at(
    legal: jax.Array, fraction: jax.Array, few_operations: bool = False
) -> jax.Array:
    """int32 (): the legal action of rank ⌊fraction · number legal⌋ (0 if none is legal).

    With `fraction` uniform in [0, 1), a uniformly random legal action. The rank is found on the
    mask packed into 32-bit words (`jaxcheckers.bits`), one pass over the mask. Taking the
    fraction as an argument lets a batch draw all its numbers in one call to the generator.
    `legal`: a bool mask, or the mask already packed (uint32 words).

    Jitted, not for speed (a program that calls it inlines it) but so that its trace, which
    writes the pass out word by word, is made once per mask shape, not in every program that
    plays a random move (chess's 146 words: a second of tracing each time). `few_operations`:
    the same action found by `bits.nth_set_bit_in_few_operations`, quicker to compile, slower
    to run (the random agent's choice).
    """
    words = legal if legal.dtype == jnp.uint32 else pack_mask(legal)
    if few_operations:
        total = jax.lax.population_count(words).astype(jnp.int32).sum()
        find = nth_set_bit_in_few_operations
    else:
        total, find = count_set(words), nth_set_bit
    rank = jnp.floor(fraction * total).astype(jnp.int32)
    action = jnp.where(total > 0, find(words, rank), 0).astype(jnp.int32)
    # Computed once: the pass over the words is one loop of cheap operations, which XLA on the
    # CPU would otherwise repeat inside each loop of the step that reads the action.
    return computed_once(action, total)


def random_legal_actions(key: jax.Array, legal: jax.Array) -> jax.Array:
    """int32 (B,): a uniformly random legal action of each game of a batch (B, A) of masks (or
    of the masks packed, (B, ⌈A/32⌉) uint32).

    One draw of B uniform numbers: one pass of the generator over the batch, where
    `vmap(random_legal_action)` splits a key per game and then draws from each.
    """
    if legal.ndim != 2:
        raise ValueError(
            f"random_legal_actions takes a batch of masks (B, A), got shape {legal.shape}; for "
            "one game use random_legal_action"
        )
    fractions = jax.random.uniform(key, legal.shape[:1])
    return jax.vmap(legal_action_at)(legal, fractions)


def random_agent(state, key: jax.Array) -> jax.Array:
    """The random player of matches and of the trainers' opponents: `random_legal_action`'s
    move, found in few operations (every match program holds it, for its random opening plies,
    and compiles it; beside the other agents its speed matters little)."""
    fraction = jax.random.uniform(key)
    return legal_action_at(packed_legal_actions(state), fraction, few_operations=True)


def random_play_step(env, state, key: jax.Array) -> AutoResetStep:
    """One step of random play over a batch of games, restarting those that end."""
    batch = state.current_player.shape[0]
    pick, fresh = jax.random.split(key)
    actions = random_legal_actions(pick, packed_legal_actions(state))
    return jax.vmap(step_autoreset, in_axes=(None, 0, 0, 0))(
        env, state, actions, jax.random.split(fresh, batch)
    )
