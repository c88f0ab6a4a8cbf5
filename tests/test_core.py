"""The step plumbing every game shares (`jaxcheckers.core`)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxcheckers.core import computed_once

EXTREMES = {
    "bool": [False, True],
    "int8": [-128, -1, 0, 1, 127],
    "int32": [-(2**31), -7, -1, 0, 1, 255, 2**31 - 1],
    "uint32": [0, 1, 2**31, 2**32 - 1],
    "float32": [-np.inf, -2.5, -0.0, 0.0, 1e-30, 3.25, np.inf],
}


@pytest.mark.parametrize("dtype", sorted(EXTREMES))
def test_computed_once_returns_its_values_unchanged(dtype):
    values = np.array(EXTREMES[dtype], dtype=dtype)
    step_counts = jnp.arange(len(values), dtype=jnp.int32) - 2  # traced; negative ones too
    kept = jax.jit(jax.vmap(computed_once))(jnp.asarray(values), step_counts)
    assert kept.dtype == values.dtype
    np.testing.assert_array_equal(np.asarray(kept), values)


def test_computed_once_may_build_its_one_from_the_value_itself():
    board = np.array([[-128, -2, -1, 0, 1, 2, 127]], dtype=np.int8)  # as the observation pins it
    kept = jax.jit(lambda x: computed_once(x, x))(jnp.asarray(board))
    assert kept.dtype == board.dtype
    np.testing.assert_array_equal(np.asarray(kept), board)


def test_computed_once_keeps_a_pytree_and_its_shapes():
    tree = {"a": jnp.arange(6, dtype=jnp.uint32).reshape(2, 3), "b": (jnp.bool_(True),)}
    kept = jax.jit(computed_once)(tree, jnp.int32(3))
    assert jax.tree.structure(kept) == jax.tree.structure(tree)
    np.testing.assert_array_equal(kept["a"], tree["a"])
    assert bool(kept["b"][0])
