"""Tic-tac-toe's entry in the game registry (`jaxcheckers.games`)."""

from __future__ import annotations

import numpy as np

from jaxcheckers.core import one_game
from jaxcheckers.games import Adapters, Defaults, Drawing, GameAgent, GameSpec, GymnasiumEnv
from jaxcheckers.tictactoe import drawing
from jaxcheckers.tictactoe.env import TicTacToe, TicTacToeState, gym_board

SYMBOLS = {1: "X", -1: "O", 0: "."}  # player 0's marks, player 1's, an empty square


def text(state: TicTacToeState) -> str:
    """The board, X (player 0) and O, a row a line."""
    one_game(state, "tictactoe")
    board = np.asarray(gym_board(state))
    return "\n".join("".join(SYMBOLS[int(v)] for v in row) for row in board)


def rgb(state: TicTacToeState) -> np.ndarray:
    one_game(state, "tictactoe")
    return drawing.board_rgb(np.asarray(gym_board(state)))


def start(start, env: TicTacToe) -> TicTacToeState:
    """An unbatched TicTacToeState of this env."""
    if not isinstance(start, TicTacToeState) or np.shape(start.board) != (env.size**2,):
        raise ValueError("options['start'] must be an unbatched TicTacToeState of this env")
    return start


def perfect(argument: str, env: TicTacToe):
    """The perfect player, its module (which solves the game once) imported when asked for."""
    from jaxcheckers.tictactoe import perfect

    return perfect.from_spec(argument, env)


def perfect_values(argument: str, env: TicTacToe):
    from jaxcheckers.tictactoe import perfect

    return perfect.values_from_spec(argument, env)


# tictactoe-gym's interface (both players in one env, the absolute board): an id of its own.
GYM_ID = "jaxcheckers/TicTacToeGym-v0"
GYM_METADATA = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 1}


def gym_env(**kwargs):
    """`gymnasium.make(GYM_ID)`'s env; the module (and Gymnasium) imported only when built."""
    from jaxcheckers.tictactoe.gym import TicTacToeGymEnv

    return TicTacToeGymEnv(**kwargs)


def gym_vector_env(**kwargs):
    """`gymnasium.make_vec(GYM_ID, num_envs, vectorization_mode="vector_entry_point")`'s env."""
    from jaxcheckers.tictactoe.gym import TicTacToeVectorEnv

    return TicTacToeVectorEnv(**kwargs)


AGENTS = {
    "perfect": GameAgent(
        perfect,
        "perfect 3×3 tic-tac-toe (solved game tree, random among the best moves)",
        move_values=perfect_values,
    ),
}


SPEC = GameSpec(
    name="tictactoe",
    make=TicTacToe,
    players=("X", "O"),
    size_option="board_size",
    drawing=Drawing(
        text=text,
        rgb=rgb,
    ),
    adapters=Adapters(
        title="TicTacToe",
        observation_dtype=np.int8,
        pettingzoo_name="tictactoe_v3",
        start=start,
        gymnasium_envs={GYM_ID: GymnasiumEnv(gym_env, gym_vector_env, GYM_METADATA)},
    ),
    agents=AGENTS,
    defaults=Defaults(
        seats=("human", "perfect"),
        perft_depth=9,
        scored_against=("random", "perfect"),
    ),
)
