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
