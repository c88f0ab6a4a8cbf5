"""`make_agent` resolves a name among the shared agents, then among the agents the env's game
brings (`GameSpec.agents`); a name only other games have is refused in one line naming them."""

from __future__ import annotations

import pytest

import jaxcheckers
from jaxcheckers import games
from jaxcheckers.agents import AGENT_SPECS, SHARED_AGENTS, agent_specs, make_agent, make_move_values


@pytest.mark.parametrize(
    "spec, game, plays",
    [
        ("sarsa:weights.json", "tictactoe", "checkers"),
        ("sarsa:weights.json", "chess", "checkers"),
        ("perfect", "checkers", "tictactoe"),
        ("alphabeta:2", "tictactoe", "checkers, chess and draughts"),
        ("perfect", "draughts", "tictactoe"),
    ],
)
def test_an_agent_refuses_a_game_it_does_not_play(spec, game, plays):
    name = spec.partition(":")[0]
    with pytest.raises(ValueError, match=f"^{name} plays {plays}, not {game}$"):
        make_agent(spec, jaxcheckers.make(game))


def test_an_unknown_agent_names_the_shared_agents_and_the_games_own():
    with pytest.raises(ValueError, match="^unknown agent 'bogus:1'; known: (.*)$") as error:
        make_agent("bogus:1", jaxcheckers.make("checkers"))
    known = str(error.value).partition("known: ")[2].split(", ")
    assert known == [*SHARED_AGENTS, "alphabeta", "sarsa"]
    with pytest.raises(ValueError, match="known: random, ppo, ppo-sample, mcts, perfect$"):
        make_agent("bogus", jaxcheckers.make("tictactoe"))


def test_the_same_name_builds_each_games_own_agent():
    from jaxcheckers.checkers import alphabeta as checkers_alphabeta
    from jaxcheckers.chess import alphabeta as chess_alphabeta

    checkers_agent = make_agent("alphabeta:2", jaxcheckers.make("checkers"))
    chess_agent = make_agent("alphabeta:2", jaxcheckers.make("chess"))
    assert checkers_agent.__qualname__.startswith(checkers_alphabeta.make_alphabeta_agent.__name__)
    assert chess_agent.__qualname__.startswith(chess_alphabeta.make_chess_alphabeta_agent.__name__)


def test_only_an_agent_that_scores_moves_gives_move_values():
    assert callable(make_move_values("alphabeta:1", jaxcheckers.make("chess")))
    assert callable(make_move_values("perfect", jaxcheckers.make("tictactoe")))
    for spec, game in [("alphabeta:1", "checkers"), ("random", "chess"), ("random", "tictactoe")]:
        with pytest.raises(ValueError, match=f"scores no moves of {game}"):
            make_move_values(spec, jaxcheckers.make(game))


def test_the_agent_listing_is_the_shared_agents_then_every_games_own():
    listed = agent_specs()
    assert list(listed)[: len(AGENT_SPECS)] == list(AGENT_SPECS) == ["random", "ppo", "mcts"]
    own = {name for game in games.BUILTIN for name in games.spec(game).agents}
    assert set(listed) == set(AGENT_SPECS) | own == {*AGENT_SPECS, "alphabeta", "sarsa", "perfect"}
    assert listed["alphabeta"].startswith("checkers: alphabeta[:DEPTH]")
    assert "; chess: alphabeta[:DEPTH]" in listed["alphabeta"]
    assert all("\n" not in text for text in listed.values())
