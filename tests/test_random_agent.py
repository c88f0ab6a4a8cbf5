"""The random agent: only legal actions, and each legal action about equally often."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxcheckers.agents.random import random_legal_action


def test_uniform_over_legal_actions_only():
    mask = np.zeros(256, bool)
    legal = [0, 5, 31, 32, 63, 100, 200, 255]
    mask[legal] = True
    draws = 40_000
    keys = jax.random.split(jax.random.PRNGKey(0), draws)
    picks = np.asarray(jax.jit(jax.vmap(random_legal_action, in_axes=(0, None)))(keys, mask))
    assert set(picks.tolist()) == set(legal)
    counts = np.bincount(picks, minlength=256)[legal]
    expected = draws / len(legal)
    # chi-square with 7 degrees of freedom: 24.3 is its 0.999 quantile
    assert ((counts - expected) ** 2 / expected).sum() < 24.3


def test_no_legal_action_gives_zero_and_odd_sizes_work():
    assert int(random_legal_action(jax.random.PRNGKey(0), jnp.zeros(9, bool))) == 0
    mask = jnp.zeros(9, bool).at[8].set(True)
    assert int(random_legal_action(jax.random.PRNGKey(1), mask)) == 8
