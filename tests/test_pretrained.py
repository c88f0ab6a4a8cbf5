"""The policy that ships with the package: it loads with flax alone and plays well above random."""

from __future__ import annotations

import jax
import numpy as np

import jaxcheckers
from jaxcheckers.agents import make_agent, pretrained
from jaxcheckers.arena import play_match, summarize

ENV = jaxcheckers.make("checkers")


def test_the_shipped_files_are_small_and_name_their_game():
    params = pretrained.DIRECTORY / pretrained.PARAMS_FILE
    assert params.stat().st_size < 4 * 2**20
    _, _, settings = pretrained.load()
    assert settings["game"] == "checkers"


def test_ppo_pretrained_beats_random():
    agent = make_agent("ppo:pretrained", ENV)
    match = play_match(
        ENV, agent, make_agent("random", ENV), 40, jax.random.key(7), opening_plies=2
    )
    summary = summarize(match.a_score)
    assert summary.score > 0.8, summary


def test_mcts_pretrained_searches_with_the_shipped_network():
    agent = jax.jit(make_agent("mcts:pretrained:4", ENV))
    state = ENV.reset(jax.random.key(0))
    action = int(agent(state, jax.random.key(1)))
    assert np.asarray(state.legal_action_mask)[action]


def test_the_shipped_policy_refuses_another_game():
    tictactoe = jaxcheckers.make("tictactoe")
    try:
        make_agent("ppo:pretrained", tictactoe)
    except ValueError as error:
        assert "trained on" in str(error)
    else:
        raise AssertionError("a checkers policy was accepted for tic-tac-toe")
