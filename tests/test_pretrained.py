"""The networks that ship with the package: they load with flax alone and play well above random;
`mcts:pretrained` searches with the AlphaZero one."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import jaxcheckers
from jaxcheckers.agents import make_agent, pretrained
from jaxcheckers.arena import play_match, summarize

ENV = jaxcheckers.make("checkers")


# The most a shipped network's parameters may weigh: chess's policy head alone has 4,672 outputs.
MAX_BYTES = {"checkers": 4 * 2**20, "chess": 20 * 2**20}


def test_the_shipped_files_are_small_and_name_their_game_and_trainer():
    trainers = {}
    for name in pretrained.NAMES:
        for game in pretrained.games(name):
            stem = pretrained.stem(name, game)
            assert (pretrained.DIRECTORY / f"{stem}.msgpack").stat().st_size < MAX_BYTES[game]
            _, _, settings = pretrained.load(name, game=game)
            assert settings["game"] == game
            trainers[name, game] = settings.get("algo", "ppo")
    assert trainers == {
        (pretrained.NAME, "checkers"): "ppo",
        (pretrained.SEARCH_NAME, "checkers"): "alphazero",
        (pretrained.NAME, "chess"): "distill",
    }
    assert pretrained.load()[2]["game"] == "checkers"  # a name alone: the checkers network


def test_ppo_pretrained_beats_random():
    agent = make_agent("ppo:pretrained", ENV)
    match = play_match(
        ENV, agent, make_agent("random", ENV), 40, jax.random.key(7), opening_plies=2
    )
    summary = summarize(match.a_score)
    assert summary.score > 0.8, summary


def test_mcts_pretrained_searches_with_the_shipped_alphazero_network():
    state = ENV.reset(jax.random.key(0))
    keys = jax.random.split(jax.random.key(1), 8)
    chosen = {}
    for source in (pretrained.NAME, pretrained.SEARCH_NAME):
        agent = jax.jit(jax.vmap(make_agent(f"mcts:{source}:4", ENV), in_axes=(None, 0)))
        chosen[source] = np.asarray(agent(state, keys))
    assert np.asarray(state.legal_action_mask)[chosen[pretrained.NAME]].all()
    assert np.array_equal(chosen[pretrained.NAME], chosen[pretrained.SEARCH_NAME])


def test_a_game_without_a_shipped_network_is_told_which_games_have_one():
    tictactoe = jaxcheckers.make("tictactoe")
    with pytest.raises(ValueError, match="no pretrained network ships for tictactoe") as error:
        make_agent("ppo:pretrained", tictactoe)
    assert "checkers, chess" in str(error.value)
    with pytest.raises(ValueError, match="no pretrained-alphazero network ships for chess"):
        make_agent("mcts:pretrained", jaxcheckers.make("chess"))


def test_the_chess_network_plays_from_the_command_line(tmp_path, monkeypatch):
    """`jaxcheckers play --game chess --white ppo:pretrained` picks the chess network and plays
    it in the terminal: it takes a hanging queen (and plays on to the end against random)."""
    import io

    from jaxcheckers.cli import main

    pgn = tmp_path / "game.pgn"
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    argv = ["play", "--game", "chess", "--white", "ppo:pretrained", "--black", "random"]
    argv += ["--fen", "4k3/8/8/3q4/8/8/3R4/7K w - - 0 1", "--pgn", str(pgn)]
    assert main(argv) == 0
    record = pgn.read_text()
    assert '[White "ppo:pretrained"]' in record and "1. Rxd5 " in record
