"""Draughts' sets of squares as words: what leaves them is the project's packed mask."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxcheckers import bits
from jaxcheckers.core import enable_x64, wide
from jaxcheckers.draughts import bitboard as bb


@pytest.mark.parametrize(("n", "count"), [(10, 36), (8, 28), (10, 3), (8, 1)])
def test_the_words_of_consecutive_sets_are_the_mask_pack_mask_packs(n, count):
    geo = bb.geometry(n)
    rng = np.random.default_rng(n * 100 + count)
    members = rng.random((count, geo.squares)) < 0.5  # [set, square]
    members[0] = True  # a full set: every square's bit, the runs' edges included
    words = (members.astype(np.uint64) << geo.bit.astype(np.uint64)).sum(axis=1, dtype=np.uint64)
    # The ghost bits between the rows are no squares: whatever they hold must not leak in.
    ghosts = np.uint64((2**64 - 1) ^ geo.valid)
    words = words | (ghosts * rng.integers(0, 2, count).astype(np.uint64))

    @jax.jit
    @wide
    def packed(words):
        return bb.words_of(bb.consecutive(bb.Bits(words), geo), geo.squares)

    with enable_x64():  # the words in: uint64
        found = packed(jnp.asarray(words, jnp.uint64))
    expected = bits.pack_mask(jnp.asarray(members.reshape(-1)))
    assert found.dtype == jnp.uint32
    np.testing.assert_array_equal(np.asarray(found), np.asarray(expected))
