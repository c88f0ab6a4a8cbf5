"""n×n tic-tac-toe, k marks in a row to win (`jaxcheckers.tictactoe.env`)."""

from jaxcheckers.tictactoe.env import (
    MAX_SIZE,
    MIN_SIZE,
    TicTacToe,
    TicTacToeState,
    gym_board,
    winning_lines,
)

__all__ = ["TicTacToe", "TicTacToeState", "gym_board", "winning_lines", "MIN_SIZE", "MAX_SIZE"]
