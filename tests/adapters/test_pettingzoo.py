"""The PettingZoo AEC adapter: PettingZoo's own tests, agreement with the JAX core, bad input."""

from __future__ import annotations

import functools
import warnings

import jax
import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, render_test, seed_test  # noqa: E402
from pettingzoo.test.state_test import test_state as pettingzoo_state_test  # noqa: E402
from pettingzoo.test.state_test import test_state_space as pettingzoo_state_space_test  # noqa: E402

import jaxcheckers  # noqa: E402
from jaxcheckers.adapters import pettingzoo as checkers_aec  # noqa: E402
from jaxcheckers.checkers.game import Game  # noqa: E402
from jaxcheckers.core import compiled_step  # noqa: E402
from jaxcheckers.games import opening  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # api_test's advice on dict spaces

DOUBLE_JUMP = [  # black (player_0) to move: 14x23, then 23x30 by the same agent
    ". . . . . . . .",
    ". . . . . . . .",
    ". . . . . . . .",
    ". . b . . . . .",
    ". . . w . . . .",
    ". . . . . . . .",
    ". . . w . . . .",
    ". . . . . . w .",
]


def test_pettingzoo_api_test():
    api_test(checkers_aec.env(), num_cycles=1000)


def test_pettingzoo_api_test_on_a_6x6_board():
    api_test(checkers_aec.env(board_size=6, render_mode="ansi"), num_cycles=300)


def test_pettingzoo_seed_test():
    seed_test(checkers_aec.env, num_cycles=500)


def _random_aec_game(env, rng: np.random.Generator) -> list[tuple]:
    """Plays one game with random legal actions; returns (agent, action, observation, rewards)."""
    env.reset(seed=0)
    record = []
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        env.step(action)
        record.append((agent, action, observation["observation"], dict(env.rewards)))
    return record


def test_random_games_agree_step_for_step_with_the_jax_core():
    aec = checkers_aec.env(board_size=6)
    core = jaxcheckers.make("checkers", board_size=6)
    step = compiled_step(core)
    rng = np.random.default_rng(0)
    for _ in range(3):
        state = opening(core)
        record = _random_aec_game(aec, rng)
        for agent, action, observation, rewards in record:
            assert agent == f"player_{int(state.current_player)}"
            np.testing.assert_array_equal(observation, np.asarray(state.observation, np.int8))
            state = jax.device_get(step(state, action))
            for player in (0, 1):
                assert rewards.get(f"player_{player}", 0.0) == float(state.rewards[player])
        assert bool(state.terminated | state.truncated)
        assert aec.agents == []


def test_the_same_agent_moves_again_in_the_middle_of_a_capture():
    env = checkers_aec.env()
    env.reset(options={"start": Game.from_board(DOUBLE_JUMP, player=0)})
    assert env.agent_selection == "player_0"
    first = int(np.flatnonzero(env.observe("player_0")["action_mask"])[0])
    env.step(first)
    assert env.agent_selection == "player_0"
    assert not env.observe("player_1")["action_mask"].any()
    second = int(np.flatnonzero(env.observe("player_0")["action_mask"])[0])
    env.step(second)
    assert env.agent_selection == "player_1"
    assert [move.notation for move in env.unwrapped.game.moves] == []  # a Game of the position
    assert env.unwrapped.game.board[7, 2] == 2  # the black man crowned on square 30


def test_each_agent_sees_the_board_from_its_own_side():
    env = checkers_aec.env()
    env.reset()
    black = env.observe("player_0")["observation"]
    white = env.observe("player_1")["observation"]
    np.testing.assert_array_equal(white, black)  # the opening is symmetric
    assert black[:3, :, 0].sum() == 12 and black[5:, :, 2].sum() == 12


def test_an_illegal_action_ends_the_game_with_minus_one_for_its_agent():
    env = checkers_aec.env()
    env.reset()
    env.step(0)  # in range, but no piece can move from square 0 to the north-west
    assert env.terminations == {"player_0": True, "player_1": True}
    assert env.rewards == {"player_0": -1.0, "player_1": 0.0}


@pytest.mark.parametrize("action", [256, -1, 3.0, "11-15", True])
def test_an_action_out_of_range_raises(action):
    env = checkers_aec.env()
    env.reset()
    with pytest.raises(ValueError, match="an action is an int"):
        env.step(action)


def test_a_start_from_fen_text_is_the_position_it_writes():
    env = checkers_aec.env()
    env.reset(options={"start": "W:W18:B14"})  # a white man on 18 takes the black man on 14
    assert env.agent_selection == "player_1"
    mask = env.observe("player_1")["action_mask"]
    assert mask.sum() == 1
    assert [move.notation for move in env.unwrapped.game.legal_moves()] == ["18x9"]
    with pytest.raises(ValueError, match="square"):
        env.reset(options={"start": "W:W33:B14"})


def test_a_start_from_other_rules_is_refused():
    env = checkers_aec.env()
    with pytest.raises(ValueError, match="start"):
        env.reset(options={"start": Game.new(board_size=6)})


def test_ansi_render_draws_the_board():
    env = checkers_aec.env(render_mode="ansi")
    env.reset()
    text = env.render()
    assert text.splitlines()[-1] == "black (player 0) to move"
    board_rows = text.splitlines()[1:-1]
    assert sum(row.count("b") for row in board_rows) == 12


def test_pettingzoo_render_test_with_rgb_frames_that_follow_the_game(capsys):
    render_test(functools.partial(checkers_aec.env, board_size=6))
    assert "to move" in capsys.readouterr().out  # the human mode printed boards
    env = checkers_aec.env(board_size=6, render_mode="rgb_array")
    env.reset()
    first = env.render()
    assert first.dtype == np.uint8 and first.shape == (6 * 32, 6 * 32, 3)
    env.step(int(np.flatnonzero(env.observe("player_0")["action_mask"])[0]))
    assert (env.render() != first).any()


def test_pettingzoo_state_tests_and_the_global_state():
    env = checkers_aec.env(board_size=6)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pettingzoo_state_space_test(env)
        pettingzoo_state_test(env, num_cycles=200)
    complaints = [str(w.message) for w in caught if "tate" in str(w.message)]
    assert complaints == []
    env.reset()
    state = env.state()
    assert env.state_space.contains(state) and state.shape == (6, 6, 5)
    assert state[:2, :, 0].sum() == 6 and state[4:, :, 2].sum() == 6 and not state[..., 4].any()
    env.step(int(np.flatnonzero(env.observe("player_0")["action_mask"])[0]))
    after = env.state()
    assert after[..., 4].all()  # white to move; the state is the same whoever reads it
    assert after[..., 0].sum() == 6 and (after[..., 0] != state[..., 0]).sum() == 2
