"""Draughts through the PettingZoo and Gymnasium adapters, which read it from the registry."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
gymnasium = pytest.importorskip("gymnasium")

from jaxcheckers.adapters import pettingzoo  # noqa: E402
from jaxcheckers.testing import check_game  # noqa: E402


def test_the_gymnasium_env_plays_and_draws_draughts():
    env = gymnasium.make(
        "jaxcheckers.adapters.registration:jaxcheckers/Draughts-v0",
        opponent="random",
        render_mode="rgb_array",
    )
    observation, info = env.reset(seed=0)
    assert observation.shape == (10, 10, 5) and info["action_mask"].shape == (1800,)
    assert info["action_mask"].sum() == 9  # the nine opening moves
    action = int(np.flatnonzero(info["action_mask"])[0])
    observation, reward, terminated, truncated, info = env.step(action)
    assert reward == 0 and not (terminated or truncated)
    assert env.render().shape == (320, 320, 3)


def test_the_pettingzoo_env_offers_the_movers_hops():
    env = pettingzoo.env(game="draughts")
    env.reset(seed=0)
    observation, reward, terminated, truncated, info = env.last()
    assert observation["observation"].shape == (10, 10, 5)
    assert observation["action_mask"].sum() == 9 and env.agent_selection == env.agents[0]
    env.step(int(np.flatnonzero(observation["action_mask"])[0]))
    assert env.agent_selection == env.agents[1]


@pytest.mark.slow
def test_draughts_passes_the_adapters_api_checks():
    check_game("draughts", adapters=True)  # PettingZoo's api_test, Gymnasium's check_env


def test_both_adapters_start_from_fen_text_and_refuse_a_bad_one_in_one_line():
    # Random178, a published perft position, Black to move.
    fen = "B:BK17,K24:W6,9,10,11,20,21,22,23,30,K31,33,37,41,42,43,44,46"
    aec = pettingzoo.env(game="draughts")
    aec.reset(options={"start": fen})
    assert aec.agent_selection == aec.agents[1]  # Black to move
    assert aec.observe(aec.agents[1])["action_mask"].any()
    single = gymnasium.make(
        "jaxcheckers.adapters.registration:jaxcheckers/Draughts-v0", learner_seat=1
    )
    _, info = single.reset(seed=0, options={"start": fen})
    np.testing.assert_array_equal(info["action_mask"], aec.observe(aec.agents[1])["action_mask"])
    for env in (aec, single):
        with pytest.raises(ValueError) as error:
            env.reset(options={"start": "W:W51:B1"})
        assert "squares run from 1 to 50" in str(error.value) and "\n" not in str(error.value)


def test_both_adapters_refuse_a_start_state_of_other_draw_rules_at_reset():
    """It was taken, and the first step failed deep in the step."""
    from jaxcheckers import make

    other_rules = make("draughts", king_moves_draw=False).reset(None)
    single = gymnasium.make("jaxcheckers.adapters.registration:jaxcheckers/Draughts-v0")
    for env in (pettingzoo.env(game="draughts"), single):
        with pytest.raises(ValueError, match="made under other draw rules"):
            env.reset(options={"start": other_rules})


def test_a_decided_start_is_refused_by_gymnasium_and_scored_by_pettingzoo():
    decided = "W:W:BK1"  # White, to move, has no piece: it has lost
    single = gymnasium.make("jaxcheckers.adapters.registration:jaxcheckers/Draughts-v0")
    with pytest.raises(ValueError, match="finished game"):
        single.reset(options={"start": decided})
    aec = pettingzoo.env(game="draughts")
    aec.reset(options={"start": decided})
    assert all(aec.terminations.values())
    assert aec.rewards == {aec.agents[0]: -1.0, aec.agents[1]: 1.0}
    assert aec.last()[1] == -1.0  # White, to move, sees its loss


def test_the_adapters_say_reset_first_before_the_first_reset():
    # PettingZoo's order-enforcing wrapper guards observe and render; the raw env and the
    # State raised AttributeError on None.
    aec = pettingzoo.raw_env(game="draughts", render_mode="ansi")

    def state():
        return pettingzoo.env(game="draughts").unwrapped.jax_state

    for call in (lambda: aec.observe("player_0"), aec.render, lambda: aec.step(0), state):
        with pytest.raises(RuntimeError, match="call reset"):
            call()
    single = gymnasium.make("jaxcheckers.adapters.registration:jaxcheckers/Draughts-v0")
    with pytest.raises(RuntimeError, match="call reset"):
        assert single.unwrapped.jax_state is None  # never reached: it raises
