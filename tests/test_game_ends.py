"""benchmarks/game_ends.py: the material count and the replay it reads the last positions from."""

from __future__ import annotations

import jax
import numpy as np

import jaxcheckers
from benchmarks.game_ends import final_states, material_lead_of_a
from jaxcheckers.agents import make_agent
from jaxcheckers.checkers.fen import state_from_fen
from jaxcheckers.match import play_match

ENV = jaxcheckers.make("checkers")


def test_the_lead_is_counted_for_a_whichever_side_is_to_move():
    # White (player 1): a man and a king, 3; black (player 0): one man, 1.
    for fen in ("W:W21,K22:B5", "B:W21,K22:B5"):
        state = state_from_fen(ENV, fen)
        states = jax.tree.map(lambda x: x[None].repeat(2, axis=0), state)
        a_plays_first = np.array([True, False])  # A is black, then white
        assert material_lead_of_a(states, a_plays_first).tolist() == [-2, 2]


def test_the_replay_ends_where_the_match_ended():
    agent = make_agent("random", ENV)
    match = play_match(ENV, agent, agent, 6, jax.random.key(0), opening_plies=1, record=True)
    states = final_states(ENV, match)
    finished = ~match.truncated
    assert finished.any()
    assert np.asarray(states.terminated)[finished].all()
    assert np.array_equal(np.asarray(states.rewards)[finished], match.rewards[finished])
    assert np.array_equal(np.asarray(states.step_count), match.length)
