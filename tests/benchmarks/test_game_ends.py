"""benchmarks/game_ends.py: the material count and the replay it reads the last positions from."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import jaxcheckers
from benchmarks import game_ends, move_time
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


@pytest.mark.parametrize(
    "script, agents", [(game_ends, ["random", "random"]), (move_time, ["random"])]
)
def test_the_scripts_refuse_more_games_than_a_match_takes_in_one_line(script, agents, capsys):
    with pytest.raises(SystemExit) as stopped:
        script.main([*agents, "--games", "99999999999"])
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and "--games: must be at most 1,000,000" in err, err
