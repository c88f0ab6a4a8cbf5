"""The Gymnasium tic-tac-toe environment: tictactoe-gym's behaviour, check_env, clone, render."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from jaxcheckers.tictactoe.gym import (
    ENV_ID,
    TicTacToeGymEnv,
    TicTacToeVectorEnv,
    register,
)


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
    import jaxcheckers.tictactoe.gym as module

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
        TicTacToeGymEnv(render_mode="rgb")
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


def test_action_masks_and_rgb_frames():
    env, _ = played([4, 0], render_mode="rgb_array")
    np.testing.assert_array_equal(np.flatnonzero(env.action_masks()), env.get_actions())
    assert env.action_masks().dtype == np.bool_
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.shape == (96, 96, 3)
    env.step(8)
    changed = np.argwhere((env.render() != frame).any(-1))
    assert changed.min() >= 64  # only square 8 (bottom right) was drawn on
    assert "rgb_array" in TicTacToeGymEnv.metadata["render_modes"]


def test_gymnasium_make_reads_the_render_modes_before_building_the_env():
    register()
    frames = gymnasium.make(ENV_ID, render_mode="rgb_array_list")  # RenderCollection's
    frames.reset(seed=0)
    frames.step(4)
    shown = frames.render()
    assert len(shown) == 2 and all(f.shape == (96, 96, 3) for f in shown)
    assert (shown[0] != shown[1]).any()


def test_the_vector_env_plays_like_single_envs_and_autoresets_next_step():
    games = [[0, 3, 1, 4, 2], [4, 4], [0, 1, 2, 4, 3, 5, 7, 6, 8]]  # X wins, forfeit, draw
    envs = gymnasium.make_vec(ENV_ID, num_envs=3, vectorization_mode="vector_entry_point")
    assert isinstance(envs.unwrapped, TicTacToeVectorEnv)
    observations, infos = envs.reset(seed=0)
    np.testing.assert_array_equal(observations, np.zeros((3, 3, 3), np.int8))
    singles = [TicTacToeGymEnv() for _ in games]
    for single in singles:
        single.reset(seed=0)
    played = [0, 0, 0]  # moves of each game's current episode
    done = np.zeros(3, dtype=bool)
    restarts = 0
    for _ in range(12):  # each game is played over and over
        actions = np.array([game[played[i] % len(game)] for i, game in enumerate(games)])
        observations, rewards, terminated, truncated, infos = envs.step(actions)
        for i, single in enumerate(singles):
            if done[i]:  # NEXT_STEP: this step restarted the game and ignored the action
                np.testing.assert_array_equal(observations[i], np.zeros((3, 3), np.int8))
                assert (rewards[i], terminated[i]) == (0.0, False)
                single.reset()
                played[i] = 0
                restarts += 1
                continue
            observation, reward, ended, _, info = single.step(int(actions[i]))
            played[i] += 1
            np.testing.assert_array_equal(observations[i], observation)
            assert (rewards[i], terminated[i], truncated[i]) == (reward, ended, False)
            assert infos["player"][i] == info["player"]
            np.testing.assert_array_equal(infos["action_mask"][i], info["action_mask"])
            np.testing.assert_array_equal(envs.unwrapped.action_masks()[i], single.action_masks())
        done = terminated
    assert restarts == 7  # 4 of the forfeit game, 2 of the win, 1 of the draw


def test_the_vector_env_reset_mask_restarts_only_the_masked_games():
    envs = TicTacToeVectorEnv(2)
    envs.reset()
    before, _, _, _, _ = envs.step(np.array([4, 0]))
    mask = np.array([False, True])
    after, infos = envs.reset(options={"reset_mask": mask})
    np.testing.assert_array_equal(after[0], before[0])
    np.testing.assert_array_equal(after[1], np.zeros((3, 3), np.int8))
    np.testing.assert_array_equal(infos["_player"], mask)
    with pytest.raises(ValueError, match="reset_mask"):
        envs.reset(options={"reset_mask": np.zeros(2, dtype=bool)})
