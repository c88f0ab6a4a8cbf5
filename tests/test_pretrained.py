"""The networks that ship with the package: they load with jax alone (no flax) and play well
above random; `mcts:pretrained` searches with the AlphaZero one."""

from __future__ import annotations

import jax
import numpy as np

import jaxcheckers
from jaxcheckers.agents import make_agent, pretrained
from jaxcheckers.arena import play_match, summarize

ENV = jaxcheckers.make("checkers")


def test_the_shipped_files_are_small_and_name_their_game_and_trainer():
    trainers = {}
    for name, stem in pretrained.NAMES.items():
        assert (pretrained.DIRECTORY / f"{stem}.msgpack").stat().st_size < 4 * 2**20
        _, _, settings = pretrained.load(name)
        assert settings["game"] == "checkers"
        trainers[name] = settings.get("algo", "ppo")
    assert trainers == {pretrained.NAME: "ppo", pretrained.SEARCH_NAME: "alphazero"}


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


def test_the_shipped_policy_refuses_another_game():
    tictactoe = jaxcheckers.make("tictactoe")
    try:
        make_agent("ppo:pretrained", tictactoe)
    except ValueError as error:
        assert "trained on" in str(error)
    else:
        raise AssertionError("a checkers policy was accepted for tic-tac-toe")
