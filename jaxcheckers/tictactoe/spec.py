"""Tic-tac-toe's entry in the game registry (`jaxcheckers.games`)."""

from __future__ import annotations

import numpy as np

from jaxcheckers.games import GameAgent, GameSpec
from jaxcheckers.tictactoe import drawing
from jaxcheckers.tictactoe.env import TicTacToe, TicTacToeState, gym_board

SYMBOLS = {1: "X", -1: "O", 0: "."}  # player 0's marks, player 1's, an empty square


def text(state: TicTacToeState) -> str:
    """The board, X (player 0) and O, a row a line."""
    board = np.asarray(gym_board(state))
    return "\n".join("".join(SYMBOLS[int(v)] for v in row) for row in board)


def rgb(state: TicTacToeState) -> np.ndarray:
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
    title="TicTacToe",
    size_option="board_size",
    text=text,
    rgb=rgb,
    observation_dtype=np.int8,
    pettingzoo_name="tictactoe_v3",
    start=start,
    agents=AGENTS,
    default_seats=("human", "perfect"),
    perft_depth=9,
)
