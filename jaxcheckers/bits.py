"""Boolean masks packed into 32-bit words, and the n-th set bit of such a packing.

The random player draws a rank among the legal actions and perft numbers the children of a
state: both need "the n-th legal action", found here with population counts instead of a scan
over every action.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

BITS = 32  # mask entries per word

__all__ = ["BITS", "pack_mask", "unpack_mask", "bit_at", "count_set", "nth_set_bit"]


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


def count_set(words: jax.Array) -> jax.Array:
    """int32 (): the set bits of uint32 (W,) `words`.

    A sum written out word by word rather than a reduction: under vmap XLA on the CPU keeps it in
    the loop over the batch with `nth_set_bit`'s pass (which shares its population counts),
    where a reduction over each game's words is a loop of its own that vectorises poorly.
    """
    counts = _counts(words)
    return functools.reduce(jnp.add, counts[1:], counts[0])


def nth_set_bit(words: jax.Array, n: jax.Array) -> jax.Array:
    """int32 (): the index of the n-th (from 0) set bit of uint32 (W,) `words`.

    One pass over the words, as a loop in C would take it: each word's population count tells
    whether the n-th bit is in it, else n steps past it. The pass is written out word by word,
    a few scalar operations each, which under vmap are vector operations over the batch in one
    loop (XLA on the CPU); then the bit within the word by halving it five times. Undefined when
    fewer than n + 1 bits are set.
    """
    n = jnp.asarray(n, jnp.int32)
    word, first, rank = words[0], jnp.int32(0), n
    for index, count in enumerate(_counts(words)):
        # n − (bits before this word): here when 0 ≤ it < count, one unsigned comparison.
        here = n.astype(jnp.uint32) < count.astype(jnp.uint32)
        word = jnp.where(here, words[index], word)
        first = jnp.where(here, index * BITS, first)
        rank = jnp.where(here, n, rank)
        n = n - count
    return (first + _nth_set_bit_of_word(word, rank)).astype(jnp.int32)


def nth_set_bit_in_few_operations(words: jax.Array, n: jax.Array) -> jax.Array:
    """`nth_set_bit` as a few operations over all the words at once (their counts' running sum
    finds the word): the same index, for programs whose compile time matters more than their
    speed. XLA compiles it far quicker than the pass written out word by word, and runs it
    slower on a CPU (docs/experiments.md, session 40). Undefined when fewer than n + 1 bits are
    set."""
    n = jnp.asarray(n, jnp.int32)
    counts = jax.lax.population_count(words).astype(jnp.int32)
    before = jnp.cumsum(counts) - counts  # bits in the words before each word
    here = (before <= n) & (n < before + counts)  # the word holding the n-th bit (or none)
    word = jnp.where(here, words, jnp.uint32(0)).sum(dtype=jnp.uint32)
    first = jnp.where(here, jnp.arange(words.shape[-1], dtype=jnp.int32) * BITS, 0).sum()
    rank = n - jnp.where(here, before, 0).sum()
    return (first + _nth_set_bit_of_word(word, rank)).astype(jnp.int32)


def _counts(words: jax.Array) -> list[jax.Array]:
    """int32 () each: the population count of each word of uint32 (W,) `words`."""
    return [jax.lax.population_count(words[i]).astype(jnp.int32) for i in range(words.shape[0])]


def _nth_set_bit_of_word(word: jax.Array, n: jax.Array) -> jax.Array:
    """int32 (): the index of the n-th set bit of one uint32 word (0 ≤ n < its bits)."""
    bit = jnp.int32(0)
    for width in (16, 8, 4, 2, 1):  # step over the low half while n lies beyond it
        low = jax.lax.population_count(word & jnp.uint32((1 << width) - 1)).astype(jnp.int32)
        beyond = n >= low
        n = jnp.where(beyond, n - low, n)
        word = jnp.where(beyond, word >> width, word)
        bit = jnp.where(beyond, bit + width, bit)
    return bit
