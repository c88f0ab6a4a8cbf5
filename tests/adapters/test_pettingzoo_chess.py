"""The PettingZoo AEC adapter playing chess: PettingZoo's own tests, and random games played side
by side with PettingZoo's chess_v6, every observation, mask, reward and flag compared."""

from __future__ import annotations

import collections
import functools

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("chess")
pytest.importorskip("pygame")  # chess_v6 imports it

from pettingzoo.classic import chess_v6  # noqa: E402
from pettingzoo.test import api_test, render_test, seed_test  # noqa: E402

from jaxcheckers.adapters import pettingzoo as aec  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # api_test's advice, illegal moves

chess_env = functools.partial(aec.env, game="chess")
AGENTS = ("player_0", "player_1")


def test_the_interface_is_chess_v6s():
    ours, theirs = chess_env(), chess_v6.env()
    ours.reset()
    theirs.reset()
    for key in ("name", "is_parallelizable", "render_fps"):
        assert ours.metadata[key] == theirs.metadata[key]
    assert ours.possible_agents == theirs.possible_agents == list(AGENTS)
    for agent in AGENTS:
        assert ours.observation_space(agent) == theirs.observation_space(agent)
        assert ours.action_space(agent) == theirs.action_space(agent)
    with pytest.raises(NotImplementedError):
        ours.state()  # chess_v6 has no global state either


def test_pettingzoo_api_test():
    api_test(chess_env(render_mode="ansi"), num_cycles=300)


def test_pettingzoo_seed_test():
    seed_test(chess_env, num_cycles=100)


def _same_view(ours, theirs) -> None:
    """Everything an agent can read off the two envs is equal, for both agents."""
    assert ours.agent_selection == theirs.agent_selection
    assert ours.agents == theirs.agents
    for name in ("rewards", "terminations", "truncations", "_cumulative_rewards"):
        assert getattr(ours, name) == getattr(theirs, name), name
    for agent in ours.agents:
        mine, reference = ours.observe(agent), theirs.observe(agent)
        assert mine["observation"].dtype == reference["observation"].dtype
        np.testing.assert_array_equal(mine["observation"], reference["observation"], agent)
        np.testing.assert_array_equal(mine["action_mask"], reference["action_mask"], agent)


def _play_side_by_side(ours, theirs, rng: np.random.Generator, illegal_at: int | None = None):
    """One random game (the same legal actions in both envs), compared before every step; the
    `illegal_at`-th action, if given, is a masked-out one. Returns chess_v6's final rewards."""
    ours.reset()
    theirs.reset()
    final = {}
    for ply, agent in enumerate(theirs.agent_iter()):
        _same_view(ours, theirs)
        observation, reward, terminated, truncated, _ = theirs.last()
        assert ours.last()[1:4] == (reward, terminated, truncated)
        if terminated or truncated:
            final[agent] = reward
            action = None
        else:
            legal = np.flatnonzero(observation["action_mask"])
            illegal = np.flatnonzero(observation["action_mask"] == 0)
            action = int(rng.choice(illegal if ply == illegal_at else legal))
        ours.step(action)
        theirs.step(action)
    assert ours.agents == theirs.agents == []
    return final


def _ending(final: dict) -> str:
    return "draw" if final["player_0"] == final["player_1"] else "win"


def test_random_games_agree_with_chess_v6_step_for_step():
    ours, theirs = chess_env(), chess_v6.env()
    rng = np.random.default_rng(2)  # a win and a draw in two games
    endings = collections.Counter(_ending(_play_side_by_side(ours, theirs, rng)) for _ in range(2))
    assert endings["win"] > 0 and endings["draw"] > 0, endings


@pytest.mark.slow
def test_many_random_games_agree_with_chess_v6_step_for_step():
    ours, theirs = chess_env(), chess_v6.env()
    rng = np.random.default_rng(1)
    endings = collections.Counter(_ending(_play_side_by_side(ours, theirs, rng)) for _ in range(40))
    assert endings["win"] > 0 and endings["draw"] > 0, endings


@pytest.mark.parametrize("illegal_at", [0, 7])
def test_an_illegal_action_ends_the_game_as_in_chess_v6(illegal_at):
    ours, theirs = chess_env(), chess_v6.env()
    final = _play_side_by_side(ours, theirs, np.random.default_rng(2), illegal_at=illegal_at)
    loser = AGENTS[illegal_at % 2]
    assert final == {loser: -1.0, AGENTS[1 - illegal_at % 2]: 0.0}


@pytest.mark.parametrize("action", [4672, -1, 3.0, "e2e4", True])
def test_an_action_out_of_range_raises(action):
    env = chess_env()
    env.reset()
    with pytest.raises(ValueError, match="an action is an int"):
        env.step(action)


def test_a_game_starts_from_a_fen():
    env = chess_env(render_mode="ansi")
    env.reset(options={"start": "4k3/8/8/8/8/8/8/4K2R b K - 0 1"})
    assert env.agent_selection == "player_1"
    assert env.render().splitlines()[-1] == "4k3/8/8/8/8/8/8/4K2R b K - 0 1"
    assert env.observe("player_1")["action_mask"].sum() == 5  # the black king's five squares
    assert not env.observe("player_0")["action_mask"].any()
    with pytest.raises(ValueError, match="FEN|king"):
        env.reset(options={"start": "8/8/8/8/8/8/8/8 w - - 0 1"})


def test_pettingzoo_render_test_with_the_text_modes(capsys):
    render_test(chess_env)
    assert "KQkq" in capsys.readouterr().out  # the human mode printed boards with their FEN


def test_rgb_array_draws_the_position():
    env = chess_env(render_mode="rgb_array")
    env.reset(seed=0)
    image = env.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert len(np.unique(image.reshape(-1, 3), axis=0)) > 4  # two square colours and pieces
