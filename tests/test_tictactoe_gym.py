"""The Gymnasium tic-tac-toe environment: tictactoe-gym's behaviour, check_env, clone, render."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from jaxcheckers.adapters.tictactoe_gym import ENV_ID, TicTacToeGymEnv, register


def played(squares: list[int], **options) -> tuple[TicTacToeGymEnv, tuple]:
    """A fresh env after `squares` were played in turn; the last step's return."""
    env = TicTacToeGymEnv(**options)
    env.reset(seed=0)
    result = None
    for square in squares:
        result = env.step(square)
    return env, result


def test_passes_check_env_through_gymnasium_make():
    register()  # idempotent
    env = gymnasium.make(ENV_ID, render_mode="ansi", size=4, k=3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert not [w for w in caught if "gymnasium" in str(w.filename)], [
        str(w.message) for w in caught
    ]
    assert env.observation_space == gymnasium.spaces.Box(-1, 1, (4, 4), np.int8)
    assert env.action_space == gymnasium.spaces.Discrete(16)


def test_reset_gives_the_empty_board_with_player_1_to_move():
    env = TicTacToeGymEnv()
    observation, info = env.reset(seed=3)
    np.testing.assert_array_equal(observation, np.zeros((3, 3), np.int8))
    assert observation.dtype == np.int8
    assert info["player"] == 1 and info["winner"] == 0 and info["history"] == []
    assert env.get_actions() == list(range(9))


def test_players_alternate_in_one_env_and_the_board_is_absolute():
    env, (observation, reward, terminated, truncated, info) = played([4, 0])
    np.testing.assert_array_equal(observation, [[-1, 0, 0], [0, 1, 0], [0, 0, 0]])
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert info["player"] == 1 and info["history"] == [4, 0]
    assert env.get_actions() == [1, 2, 3, 5, 6, 7, 8]
    np.testing.assert_array_equal(env.get_observation(-1), -observation)


def test_player_1_win_rewards_plus_one():
    env, (_, reward, terminated, _, info) = played([0, 3, 1, 4, 2])  # X takes the top row
    assert (reward, terminated, info["winner"]) == (1.0, True, 1)
    assert env.get_result(1) == 1 and env.get_result(-1) == -1
    np.testing.assert_array_equal(info["rewards"], [1.0, -1.0])
    assert env.get_actions() == []


def test_player_2_win_rewards_minus_one_on_a_bigger_board():
    # 4×4, three in a row: O completes the anti-diagonal 2, 5, 8.
    _, (_, reward, terminated, _, info) = played([0, 2, 1, 5, 12, 8], size=4, k=3)
    assert (reward, terminated, info["winner"]) == (-1.0, True, -1)


def test_draw_rewards_zero():
    env, (_, reward, terminated, _, info) = played([0, 1, 2, 4, 3, 5, 7, 6, 8])
    assert (reward, terminated, info["winner"]) == (0.0, True, 0)
    assert env.get_result(1) == 0


def test_an_occupied_square_loses_for_the_player_who_chose_it():
    _, (_, reward, terminated, _, info) = played([4, 4])  # O plays on X's mark
    assert (reward, terminated, info["winner"]) == (1.0, True, 1)
    np.testing.assert_array_equal(info["rewards"], [0.0, -1.0])


def test_no_negative_zero_rewards_reach_info():
    """A forfeit's rewards are a negated one-hot: its 0 must not come out as −0.0."""
    for squares in ([4, 4], [0, 3, 1, 4, 2], [0, 1, 2, 4, 3, 5, 7, 6, 8], [4]):
        _, (_, reward, _, _, info) = played(squares)
        zeros = info["rewards"][info["rewards"] == 0]
        assert not np.signbit(zeros).any(), (squares, info["rewards"])
        assert not (reward == 0 and np.signbit(reward)), squares


def test_the_docstring_names_the_error_a_step_after_the_end_raises():
    import jaxcheckers.adapters.tictactoe_gym as module

    env, _ = played([0, 3, 1, 4, 2])
    with pytest.raises(RuntimeError):
        env.step(5)
    assert "game is over raises RuntimeError" in " ".join(module.__doc__.split())


def test_bad_calls_raise():
    env, _ = played([0, 3, 1, 4, 2])
    with pytest.raises(RuntimeError, match="reset"):
        env.step(5)
    with pytest.raises(ValueError, match="action"):
        TicTacToeGymEnv().step(9)
    with pytest.raises(ValueError, match="render_mode"):
        TicTacToeGymEnv(render_mode="rgb_array")
    with pytest.raises(ValueError, match="size"):
        TicTacToeGymEnv(size=2)


def test_clone_is_independent_and_continues_the_same_game():
    env, _ = played([4, 0])
    twin = env.clone()
    twin.step(8)
    assert env.get_actions() == [1, 2, 3, 5, 6, 7, 8]
    assert twin.get_actions() == [1, 2, 3, 5, 6, 7]
    _, _, _, _, info = env.step(8)
    assert info["history"] == [4, 0, 8]
    np.testing.assert_array_equal(env.state.board, twin.state.board)


def test_render_draws_the_board(capsys):
    env, _ = played([4, 0], render_mode="ansi")
    assert env.render() == "O..\n.X.\n...\n"
    human, _ = played([4], render_mode="human")
    assert "...\n.X.\n...\n" in capsys.readouterr().out
    assert human.render() is None
