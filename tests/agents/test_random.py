"""The random agent: only legal actions, and each legal action about equally often."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxcheckers.agents import random as random_module
from jaxcheckers.agents.random import legal_action_at, random_legal_action, random_legal_actions
from jaxcheckers.bits import (
    bit_at,
    count_set,
    nth_set_bit,
    nth_set_bit_in_few_operations,
    pack_mask,
    unpack_mask,
)

LEGAL = [0, 5, 31, 32, 63, 100, 200, 255]


def one_key_per_game(mask, draws):
    keys = jax.random.split(jax.random.PRNGKey(0), draws)
    return jax.jit(jax.vmap(random_legal_action, in_axes=(0, None)))(keys, mask)


def one_draw_for_the_batch(mask, draws):
    return jax.jit(random_legal_actions)(jax.random.PRNGKey(0), jnp.tile(mask, (draws, 1)))


@pytest.mark.parametrize("sample", [one_key_per_game, one_draw_for_the_batch])
def test_uniform_over_legal_actions_only(sample):
    mask = np.zeros(256, bool)
    mask[LEGAL] = True
    draws = 40_000
    picks = np.asarray(sample(mask, draws))
    assert set(picks.tolist()) == set(LEGAL)
    counts = np.bincount(picks, minlength=256)[LEGAL]
    expected = draws / len(LEGAL)
    # chi-square with 7 degrees of freedom: 24.3 is its 0.999 quantile
    assert ((counts - expected) ** 2 / expected).sum() < 24.3


def test_no_legal_action_gives_zero_and_odd_sizes_work():
    assert int(random_legal_action(jax.random.PRNGKey(0), jnp.zeros(9, bool))) == 0
    mask = jnp.zeros(9, bool).at[8].set(True)
    assert int(random_legal_action(jax.random.PRNGKey(1), mask)) == 8


def test_the_rank_follows_the_fraction():
    mask = np.zeros(256, bool)
    mask[LEGAL] = True
    for rank, action in enumerate(LEGAL):
        fraction = (rank + 0.5) / len(LEGAL)
        assert int(legal_action_at(jnp.asarray(mask), jnp.float32(fraction))) == action


@pytest.mark.parametrize("find", [nth_set_bit, nth_set_bit_in_few_operations])
def test_nth_set_bit_matches_numpy(find):
    rng = np.random.default_rng(0)
    for words in (1, 3, 8, 17, 57, 146):
        bits = rng.random(32 * words) < 0.3
        packed = (bits.reshape(words, 32) * (1 << np.arange(32, dtype=np.uint64))).sum(1)
        packed = jnp.asarray(packed.astype(np.uint32))
        ranks = jnp.arange(bits.sum(), dtype=jnp.int32)
        found = jax.jit(jax.vmap(find, in_axes=(None, 0)))(packed, ranks)
        assert np.asarray(found).tolist() == np.flatnonzero(bits).tolist()
        assert int(jax.jit(count_set)(packed)) == bits.sum()


@pytest.mark.parametrize("size", [1, 9, 31, 32, 33, 65, 144, 256, 400])
def test_pack_mask_matches_numpy(size):
    """Entry a is bit a % 32 of word a // 32, whole words and a partial last one alike."""
    mask = np.random.default_rng(size).random((3, 2, size)) < 0.4
    padded = np.zeros((3, 2, -(-size // 32) * 32), bool)
    padded[..., :size] = mask
    expected = (padded.reshape(3, 2, -1, 32) * (1 << np.arange(32, dtype=np.uint64))).sum(-1)
    packed = jax.jit(pack_mask)(jnp.asarray(mask))
    assert packed.dtype == jnp.uint32
    np.testing.assert_array_equal(np.asarray(packed), expected.astype(np.uint32))


@pytest.mark.parametrize("size", [1, 9, 32, 65, 256, 400])
def test_unpack_mask_inverts_pack_mask(size):
    mask = np.random.default_rng(size).random((3, size)) < 0.4
    packed = jax.jit(pack_mask)(jnp.asarray(mask))
    unpacked = unpack_mask(packed, size)
    assert unpacked.dtype == jnp.bool_
    np.testing.assert_array_equal(np.asarray(unpacked), mask)


def test_bit_at_reads_each_packed_entry():
    mask = np.random.default_rng(1).random(100) < 0.5
    packed = pack_mask(jnp.asarray(mask))
    found = jax.jit(jax.vmap(bit_at, in_axes=(None, 0)))(packed, jnp.arange(100))
    np.testing.assert_array_equal(np.asarray(found), mask)


def test_the_pass_over_the_words_is_traced_once_per_mask_shape(monkeypatch):
    """Every program that plays a random move (a match, a rollout) reuses one trace of the
    word-by-word pass rather than writing it out again (chess: 146 words)."""
    traced = []
    counted = lambda *args: traced.append(1) or nth_set_bit(*args)  # noqa: E731
    monkeypatch.setattr(random_module, "nth_set_bit", counted)
    words, key = jnp.zeros((4, 146), jnp.uint32), jax.random.PRNGKey(0)
    for i in range(3):  # three programs, as three matches build them
        jax.jit(lambda w, k, i=i: random_legal_actions(k, w) + i).lower(words, key)
    assert len(traced) <= 1  # none if an earlier test traced this shape


def test_the_random_agent_plays_the_move_the_sampler_draws_with_its_key():
    """Found in few operations, the agent's move is `random_legal_action`'s, bit for bit."""
    import jaxcheckers
    from jaxcheckers.agents.random import random_agent
    from jaxcheckers.core import packed_legal_actions

    env = jaxcheckers.make("draughts")  # 57 words a mask
    keys = jax.random.split(jax.random.PRNGKey(3), 64)
    states = jax.vmap(env.reset)(keys)
    for _ in range(20):  # positions with many moves and few
        actions = jax.vmap(random_legal_action)(keys, packed_legal_actions(states))
        assert np.array_equal(jax.vmap(random_agent)(states, keys), actions)
        states = jax.vmap(env.step)(states, actions)
        keys = jax.vmap(lambda k: jax.random.split(k)[0])(keys)


def test_the_batch_sampler_refuses_one_game_s_mask_and_names_the_one_game_sampler():
    mask = jnp.zeros(256, bool).at[jnp.array(LEGAL)].set(True)
    with pytest.raises(ValueError, match=r"batch of masks \(B, A\), got shape \(256,\)"):
        random_legal_actions(jax.random.PRNGKey(0), mask)
    assert int(random_legal_action(jax.random.PRNGKey(0), mask)) in LEGAL
