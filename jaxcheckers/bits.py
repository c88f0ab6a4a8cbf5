"""Boolean masks packed into 32-bit words, and the n-th set bit of such a packing.

The random player draws a rank among the legal actions and perft numbers the children of a
state: both need "the n-th legal action", found here with population counts instead of a scan
over every action.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

BITS = 32  # mask entries per word

__all__ = ["BITS", "pack_mask", "unpack_mask", "bit_at", "nth_set_bit"]


def pack_mask(mask: jax.Array) -> jax.Array:
    """uint32 (…, ⌈A/32⌉) from bool (…, A): entry a is bit a % 32 of word a // 32."""
    size = mask.shape[-1]
    whole = size - size % BITS
    words = []
    if whole:
        bits = mask[..., :whole].reshape(*mask.shape[:-1], -1, BITS)
        words.append(_pack_last_axis(bits))
    if size % BITS:
        # The last, partial word on its own: padding the mask to whole words made XLA on the CPU
        # index every entry with a division, several times the cost (docs/performance.md).
        words.append(_pack_last_axis(mask[..., whole:])[..., None])
    return words[0] if len(words) == 1 else jnp.concatenate(words, axis=-1)


def _pack_last_axis(bits: jax.Array) -> jax.Array:
    """uint32 (…): the (at most 32) entries of the last axis as the low bits of a word."""
    shifts = jnp.arange(bits.shape[-1], dtype=jnp.uint32)
    return (bits.astype(jnp.uint32) << shifts).sum(axis=-1, dtype=jnp.uint32)


def unpack_mask(words: jax.Array, size: int) -> jax.Array:
    """bool (…, size) from uint32 (…, ⌈size/32⌉): the inverse of `pack_mask`.

    Entry a tests bit a % 32 of word a // 32 with a shift by a % 32: the same few operations for
    every entry, which XLA vectorises. The whole words and a partial last one are unpacked
    apart, as `pack_mask` packs them, so that a reader who packs the mask again (the random
    player) takes each part straight from its words, where slicing one unpacked array made XLA
    index every entry through the slice (docs/performance.md has the figures).
    """
    whole = size // BITS
    parts = []
    if whole:
        parts.append(_low_bits(words[..., :whole], BITS).reshape(*words.shape[:-1], whole * BITS))
    if size % BITS:
        parts.append(_low_bits(words[..., whole], size % BITS))
    return parts[0] if len(parts) == 1 else jnp.concatenate(parts, axis=-1)


def _low_bits(words: jax.Array, width: int) -> jax.Array:
    """bool (…, width): bits 0 … width − 1 of each word."""
    shifts = jnp.arange(width, dtype=jnp.uint32)
    return ((words[..., None] >> shifts) & 1).astype(bool)


def bit_at(words: jax.Array, index: jax.Array) -> jax.Array:
    """bool (): entry `index` (0 ≤ index < 32·W) of uint32 (W,) `words`, as `pack_mask` packs it.

    The word is picked with a select per word rather than a gather: under vmap a gather is a
    loop of scalar loads, the selects are W vector operations.
    """
    index = jnp.asarray(index).astype(jnp.uint32)  # unsigned: dividing by 32 is a shift
    chosen = jnp.arange(words.shape[-1], dtype=jnp.uint32) == index >> 5
    word = jnp.where(chosen, words, jnp.uint32(0)).sum(dtype=jnp.uint32)
    return ((word >> (index & 31)) & 1).astype(bool)


def nth_set_bit(words: jax.Array, n: jax.Array) -> jax.Array:
    """int32 (): the index of the n-th (from 0) set bit of uint32 (W,) `words`.

    The word by population counts, then the bit by halving the word five times. Undefined when
    fewer than n + 1 bits are set. Many words (chess: 146) are searched in two levels, groups of
    about √W words and then the words of one group: the prefix sums cost O(W) instead of O(W²).
    """
    size = words.shape[0]
    if size <= GROUPED_ABOVE:
        return _nth_set_bit_in(words, n)
    per_group = math.isqrt(size - 1) + 1
    groups = -(-size // per_group)
    # Zeros appended by a concatenation, which XLA fuses into the loops that read it (a `pad`
    # is materialised on its own).
    padding = jnp.zeros(groups * per_group - size, words.dtype)
    grouped = jnp.concatenate([words, padding]).reshape(groups, per_group)
    counts = jax.lax.population_count(grouped).astype(jnp.int32).sum(axis=1)
    group, before = _nth_word(counts, n)
    # The group's words by a select per group, not a gather (a loop of scalar loads under vmap).
    chosen = jnp.arange(groups) == group
    words = jnp.where(chosen[:, None], grouped, jnp.uint32(0)).sum(axis=0, dtype=jnp.uint32)
    return (group * per_group * BITS + _nth_set_bit_in(words, n - before)).astype(jnp.int32)


GROUPED_ABOVE = 16  # words; up to this many, one level (W² prefix pairs) costs less


def _nth_word(counts: jax.Array, n: jax.Array) -> tuple[jax.Array, jax.Array]:
    """The entry of int32 (W,) `counts` that holds the n-th item, and the items before it."""
    # A masked sum over the (W, W) pairs rather than `cumsum`, which XLA on the CPU turns into a
    # reduce-window that costs more than the rest.
    index = jnp.arange(counts.shape[0])
    before = jnp.where(index[:, None] < index, counts[:, None], 0).sum(axis=0)
    found = jnp.minimum((before + counts <= n).sum(), counts.shape[0] - 1)
    return found, before[found]


def _nth_set_bit_in(words: jax.Array, n: jax.Array) -> jax.Array:
    counts = jax.lax.population_count(words).astype(jnp.int32)
    word_index, before = _nth_word(counts, n)
    word = words[word_index]
    n = n - before
    bit = jnp.int32(0)
    for width in (16, 8, 4, 2, 1):  # step over the low half while n lies beyond it
        low = jax.lax.population_count(word & jnp.uint32((1 << width) - 1)).astype(jnp.int32)
        beyond = n >= low
        n = jnp.where(beyond, n - low, n)
        word = jnp.where(beyond, word >> width, word)
        bit = jnp.where(beyond, bit + width, bit)
    return (word_index * BITS + bit).astype(jnp.int32)
