"""The Gymnasium chess env (one learner against an opponent): check_env through the registry, and
random episodes whose observations, masks, rewards and endings are checked against python-chess
and PettingZoo's `chess_utils`, position by position."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")
chess = pytest.importorskip("chess")
pytest.importorskip("pygame")  # PettingZoo's chess package imports it

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.classic.chess import chess_utils  # noqa: E402

import jaxcheckers  # noqa: E402
from jaxcheckers.adapters.gymnasium import (  # noqa: E402
    CHESS_ID,
    ChessEnv,
    LearnerEnv,
    LearnerVectorEnv,
)
from jaxcheckers.chess import chess_fen  # noqa: E402

REGISTERED = "jaxcheckers.adapters.registration:" + CHESS_ID
_OBSERVE = jax.jit(jaxcheckers.make("chess").observe)


def test_check_env_through_the_registry():
    env = gymnasium.make(REGISTERED, render_mode="ansi")
    assert isinstance(env.unwrapped, LearnerEnv) and env.unwrapped.adapter.name == "chess"
    check_env(env.unwrapped)
    assert env.observation_space.shape == (8, 8, 20) and env.action_space.n == 4672
    env.reset(seed=0)
    assert env.render().splitlines()[-1] == chess_fen(env.unwrapped.jax_state)


class Replay:
    """The learner's episode replayed on a python-chess board with its whole move stack: the
    learner's actions decoded with `chess_utils.action_to_move`, the opponent's move found as
    the legal move that leads to the env's position. What the env shows is then checked against
    PettingZoo's `chess_utils` and python-chess's own game end (chess_v6's rule)."""

    def __init__(self, state_of: Callable[[], Any], seat: int):
        self.state_of, self.seat = state_of, seat  # state_of: the env's JAX state now
        self.board = chess.Board()
        self._catch_up()

    def _catch_up(self) -> None:
        """Plays the opponent's move, if it made one, to reach the env's position."""
        target = chess_fen(self.state_of())
        if self.board.fen() != target:
            (move,) = [m for m in self.board.legal_moves if self._after(m) == target]
            self.board.push(move)

    def _after(self, move: chess.Move) -> str:
        self.board.push(move)
        fen = self.board.fen()
        self.board.pop()
        return fen

    def play(self, action: int) -> None:
        # chess_utils fills its action table only as legal_moves meets each move: without this
        # call the first action of a process is a KeyError (the test passed only after others).
        chess_utils.legal_moves(self.board)
        self.board.push(chess_utils.action_to_move(self.board, action, self.seat))
        self._catch_up()

    def over(self) -> bool:
        board = self.board
        return (
            not any(board.legal_moves)
            or board.is_insufficient_material()
            or (board.can_claim_draw())
        )

    def check(self, observation, reward, terminated, truncated, info) -> None:
        state, board = self.state_of(), self.board
        assert info["learner_seat"] == self.seat
        np.testing.assert_array_equal(observation, chess_utils.get_observation(board, self.seat))
        # The opponent's view of the same state, as the adapters compute any agent's view.
        opponent = 1 - self.seat
        np.testing.assert_array_equal(
            _OBSERVE(state, np.int32(opponent)), chess_utils.get_observation(board, opponent)
        )
        assert terminated == self.over() and truncated == bool(state.truncated)
        mask = np.zeros(4672, dtype=np.int8)
        if not (terminated or truncated):
            assert board.turn == (self.seat == 0)  # the opponent has moved: the learner's turn
            mask[chess_utils.legal_moves(board)] = 1
        np.testing.assert_array_equal(info["action_mask"], mask)
        if terminated:  # python-chess's result, white's point of view, as chess_v6 reads it
            white = chess_utils.result_to_int(board.result(claim_draw=True))
            assert reward == (white if self.seat == 0 else -white)
        else:
            assert reward == 0.0


def test_random_episodes_agree_with_python_chess():
    env = ChessEnv(learner_seat="random")
    rng = np.random.default_rng(0)
    seats, endings = set(), set()
    for seed in range(4):
        observation, info = env.reset(seed=seed)
        replay = Replay(lambda: env.jax_state, info["learner_seat"])
        replay.check(observation, 0.0, False, False, info)
        seats.add(replay.seat)
        terminated = truncated = False
        while not (terminated or truncated):
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            observation, reward, terminated, truncated, info = env.step(action)
            replay.play(action)
            replay.check(observation, reward, terminated, truncated, info)
            np.testing.assert_array_equal(env.action_masks(), info["action_mask"].astype(bool))
        endings.add(reward)
    assert seats == {0, 1}
    assert endings & {-1.0, 1.0} and 0.0 in endings, endings


def test_an_illegal_action_loses():
    env = ChessEnv(learner_seat=0)
    _, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert (reward, terminated) == (-1.0, True) and not info["action_mask"].any()


E2E4 = 2421  # PettingZoo's id of e2e4 for white: (4·8 + 1)·73 + plane 12 (two squares north)


def test_rgb_array_draws_the_position():
    env = ChessEnv(render_mode="rgb_array", learner_seat=0)
    env.reset(seed=0)
    before = env.render()
    assert before.dtype == np.uint8 and before.ndim == 3 and before.shape[2] == 3
    env.step(E2E4)
    after = env.render()
    assert after.shape == before.shape and (after != before).any()


@pytest.mark.slow  # compiles the batched chess step (a minute or more)
def test_the_vector_env_agrees_with_python_chess():
    envs = gymnasium.make_vec(CHESS_ID, num_envs=2, vectorization_mode="vector_entry_point")
    assert isinstance(envs.unwrapped, LearnerVectorEnv) and envs.unwrapped.adapter.name == "chess"
    observations, infos = envs.reset(seed=[3, 4])
    assert observations.shape == (2, 8, 8, 20) and infos["action_mask"].shape == (2, 4672)
    replays = [Replay(functools.partial(_row, envs, i), infos["learner_seat"][i]) for i in (0, 1)]
    rng = np.random.default_rng(0)
    for _ in range(40):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in infos["action_mask"]])
        observations, rewards, terminations, truncations, infos = envs.step(actions)
        assert not (terminations | truncations).any()  # 40 random moves a side end no game here
        for i, replay in enumerate(replays):
            replay.play(int(actions[i]))
            answer = observations[i], rewards[i], terminations[i], truncations[i]
            replay.check(*answer, {key: value[i] for key, value in infos.items()})


def _row(envs, i: int):
    return jax.tree.map(lambda x: x[i], jax.device_get(envs.unwrapped.jax_state))
