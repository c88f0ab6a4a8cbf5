"""Game records of every game with a dialect: what an agent's forfeit leaves in them."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

import jaxcheckers
from jaxcheckers import match, records
from jaxcheckers.agents import make_agent


def _forfeits(state, key):
    del state, key
    return jnp.int32(0)  # illegal at the start of each game below (and in the reply to any move)


@pytest.mark.parametrize("game", ["checkers", "chess", "draughts"])
def test_a_forfeit_is_recorded_as_a_rules_infraction_not_as_a_move(game):
    """Game 0: the forfeiting agent moves first and forfeits at once; game 1: it replies to the
    random agent's first move with its forfeit. Neither illegal action is written as a move."""
    env = jaxcheckers.make(game)
    random = make_agent("random", env)
    played = match.play_match(env, _forfeits, random, 2, jax.random.key(0), record=True)
    assert played.length.tolist() == [1, 2] and played.a_score.tolist() == [0.0, 0.0]
    first, second = match.match_games(played, "forfeits", "random", env)
    assert first.moves == [] and len(second.moves) == 1
    assert first.result != second.result  # a loss of the first mover, then of the second
    for record in (first, second):
        assert record.tags["Termination"] == "rules infraction"
        assert record.result not in ("*", "1/2-1/2", "1-1")
        assert 'Termination "rules infraction"' in records.format_game(record)


@pytest.mark.parametrize("game", ["checkers", "chess", "draughts"])
def test_a_move_name_is_refused_for_an_illegal_action(game):
    """The spec's `move_name` names legal actions only (it named squares that do not exist)."""
    env = jaxcheckers.make(game)
    state = env.init(jax.random.key(0))
    name = jaxcheckers.games.spec(game).notation.move_name
    legal = [int(a) for a in jnp.flatnonzero(state.legal_action_mask)]
    assert name(env, state, legal[0])  # a legal one is named
    for action in (0, env.num_actions, -1):
        assert action not in legal
        with pytest.raises(ValueError, match="not legal in this position"):
            name(env, state, action)
