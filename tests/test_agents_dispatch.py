"""`make_agent` builds a game-specific agent only for the games it declares, and refuses the
others in one line that names the games it plays."""

from __future__ import annotations

import pytest

import jaxcheckers
from jaxcheckers.agents import GAME_AGENTS, make_agent


@pytest.mark.parametrize(
    "spec, game, plays",
    [
        ("sarsa:weights.json", "tictactoe", "checkers"),
        ("sarsa:weights.json", "chess", "checkers"),
        ("perfect", "checkers", "tictactoe"),
        ("alphabeta:2", "tictactoe", "checkers and chess"),
    ],
)
def test_an_agent_refuses_a_game_it_does_not_play(spec, game, plays):
    name = spec.partition(":")[0]
    with pytest.raises(ValueError, match=f"^{name} plays {plays}, not {game}$"):
        make_agent(spec, jaxcheckers.make(game))


def test_every_game_an_agent_declares_is_registered():
    import importlib

    from jaxcheckers import games

    for modules in GAME_AGENTS.values():
        for module in modules:
            assert set(importlib.import_module(module).GAMES) <= set(games.names()), module
