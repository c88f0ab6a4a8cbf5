"""benchmarks/common.py's rollout: the games it plays, with the observation read or not."""

from __future__ import annotations

import jax
import numpy as np
import pytest

from benchmarks.common import initial_carry, jaxcheckers_game, make_rollout


# Draughts' rollout compiles its own step; checkers' is the fast sample.
@pytest.mark.parametrize("game", ["checkers", pytest.param("draughts", marks=pytest.mark.slow)])
def test_not_reading_the_observation_plays_the_same_games_and_sums_nothing(game):
    played = {}
    for read in (True, False):
        jax_game = jaxcheckers_game(game)
        rollout = make_rollout(jax_game, 8, 40, read_observation=read)
        played[read] = rollout(*initial_carry(jax_game, 8, seed=3))
    (read_states, _, read_tally), (states, _, tally) = played[True], played[False]
    for a, b in zip(jax.tree.leaves(read_states), jax.tree.leaves(states), strict=True):
        assert np.array_equal(np.asarray(a), np.asarray(b))
    assert int(tally.games_ended) == int(read_tally.games_ended)
    assert np.asarray(read_tally.observation_sum).sum() > 0
    assert not np.asarray(tally.observation_sum).any()
