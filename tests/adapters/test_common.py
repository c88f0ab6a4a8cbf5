"""What both adapters do alike: `reset` refuses a seed the CLI refuses and an option it does not
know, Gymnasium starts from a position as PettingZoo does, a game without text renders as
"ansi" all the same, and every env pickles with its game in progress. Tic-tac-toe, the game
that compiles fastest."""

from __future__ import annotations

import ast
import dataclasses
import pickle

import jax
import numpy as np
import pytest

import jaxcheckers
from jaxcheckers import games

pettingzoo = pytest.importorskip("jaxcheckers.adapters.pettingzoo")
gym_adapter = pytest.importorskip("jaxcheckers.adapters.gymnasium")
gymnasium = pytest.importorskip("gymnasium")

GAME = "tictactoe"


def _pettingzoo():
    return pettingzoo.env(game=GAME, render_mode="ansi")


def _single():
    return gym_adapter.LearnerEnv(game=GAME, render_mode="ansi")


def _vector():
    return gym_adapter.LearnerVectorEnv(3, game=GAME)


def _tictactoe_gym():
    from jaxcheckers.tictactoe import gym as tictactoe_gym

    return tictactoe_gym.TicTacToeGymEnv()


def _tictactoe_gym_vector():
    from jaxcheckers.tictactoe import gym as tictactoe_gym

    return tictactoe_gym.TicTacToeVectorEnv(3)


ENVS = {
    "pettingzoo": _pettingzoo,
    "gymnasium": _single,
    "gymnasium vector": _vector,
    "tictactoe-gym": _tictactoe_gym,
    "tictactoe-gym vector": _tictactoe_gym_vector,
}


@pytest.mark.parametrize("make", ENVS.values(), ids=ENVS.keys())
@pytest.mark.parametrize("seed", [2**32, -1, 1.0, True])
def test_reset_refuses_a_seed_the_cli_refuses(make, seed):
    env = make()
    with pytest.raises(ValueError, match=r"seed must be None or an int in \[0, 4294967295\]"):
        env.reset(seed=seed)


def test_the_largest_seed_is_taken_and_a_list_is_checked_seed_by_seed():
    _single().reset(seed=2**32 - 1)
    with pytest.raises(ValueError, match="seed must be"):
        _vector().reset(seed=[0, 1, 2**32])


@pytest.mark.parametrize("make", ENVS.values(), ids=ENVS.keys())
def test_reset_refuses_options_that_are_not_a_dict_in_one_line(make):
    with pytest.raises(ValueError) as error:
        make().reset(options=[1, 2])
    assert "options must be a dict" in str(error.value) and "\n" not in str(error.value)


# PettingZoo's api_test passes a key of its own and expects it taken: its envs ignore them.
GYMNASIUM_ENVS = {name: make for name, make in ENVS.items() if name != "pettingzoo"}


@pytest.mark.parametrize("make", GYMNASIUM_ENVS.values(), ids=GYMNASIUM_ENVS.keys())
def test_gymnasium_reset_refuses_an_unknown_option_in_one_line(make):
    with pytest.raises(ValueError) as error:
        make().reset(options={"strat": None})
    assert "unknown reset option(s) 'strat'" in str(error.value)
    assert "\n" not in str(error.value)


def _after(*actions: int):
    """A host State of tic-tac-toe after `actions` from the opening."""
    env = jaxcheckers.make(GAME)
    state = env.reset(jax.random.key(0))
    for action in actions:
        state = env.step(state, action)
    return jax.device_get(state)


def test_gymnasium_starts_from_a_position_as_pettingzoo_does():
    start = _after(4)  # X in the centre, O to move
    env = _single()
    env.reset(seed=0, options={"start": start, "learner_seat": 1})  # O: the learner moves
    np.testing.assert_array_equal(env.jax_state.board, start.board)
    _, info = env.reset(seed=0, options={"start": start, "learner_seat": 0})
    board = env.jax_state.board  # O (the opponent) moved first, and it is X's turn again
    assert board[4] == 1 and (board == -1).sum() == 1 and (board == 1).sum() == 1
    assert int(env.jax_state.current_player) == 0 == info["learner_seat"]
    with pytest.raises(ValueError, match="TicTacToeState"):
        env.reset(options={"start": "X........"})


def test_pettingzoo_ansi_of_a_game_without_text_shows_its_observation():
    plain = dataclasses.replace(
        games.spec(GAME), name="tictactoe_plain", drawing=games.Drawing(), adapters=games.Adapters()
    )
    jaxcheckers.register(plain)
    try:
        env = pettingzoo.raw_env(render_mode="ansi", game="tictactoe_plain")
        env.reset()
        env.step(4)
        planes = np.array(ast.literal_eval(env.render()))
    finally:
        games._REGISTERED.pop("tictactoe_plain", None)
    assert planes.shape == (3, 3, 2)  # O to move: X's mark is the opponent's plane
    assert planes[1, 1, 1] == 1 and planes.sum() == 1


def test_every_game_s_env_pickles():
    for name in games.BUILTIN:
        env = jaxcheckers.make(name)
        assert repr(pickle.loads(pickle.dumps(env))) == repr(env)


def test_a_pettingzoo_env_pickles_with_its_game_in_progress():
    env = _pettingzoo()
    env.reset(seed=1)
    env.step(4)
    copy = pickle.loads(pickle.dumps(env))
    assert copy.render() == env.render()
    for each in (env, copy):
        each.step(0)
    assert copy.render() == env.render() and copy.agent_selection == env.agent_selection
    assert "O" in copy.render()


def test_gymnasium_envs_pickle_with_their_games_in_progress():
    env = gymnasium.make(games.spec(GAME).gymnasium_id, render_mode="ansi")
    env.reset(seed=3)
    copy = pickle.loads(pickle.dumps(env))
    action = int(np.flatnonzero(env.unwrapped.action_masks())[0])
    stepped = [each.step(action) for each in (env, copy)]
    np.testing.assert_array_equal(stepped[0][0], stepped[1][0])
    assert stepped[0][1:4] == stepped[1][1:4]
    assert copy.render() == env.render() and "X" in copy.render()

    vector = _vector()
    vector.reset(seed=0)
    copy = pickle.loads(pickle.dumps(vector))
    actions = np.argmax(vector.action_masks(), axis=1)
    np.testing.assert_array_equal(copy.step(actions)[0], vector.step(actions)[0])
    np.testing.assert_array_equal(copy.action_masks(), vector.action_masks())


def test_a_pickled_checkers_state_of_any_size_loads_in_a_fresh_process():
    """The n×n State classes are made on first use: a fresh process has made none."""
    import subprocess
    import sys

    from jaxcheckers.checkers.env import state_type

    cls = state_type(6)
    data = pickle.dumps(cls(*range(len(cls._fields))))
    code = (
        "import pickle, sys; s = pickle.loads(sys.stdin.buffer.read()); "
        "print(type(s).__name__, s.board_size, s.step_count)"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], input=data, capture_output=True, check=False
    )
    assert loaded.stdout.decode().split() == ["CheckersState6", "6", "4"], loaded.stderr.decode()
