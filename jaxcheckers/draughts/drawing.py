"""Draughts boards drawn with numpy alone: RGB frames (the adapters' `rgb_array`) and SVG
(pgx's `state.to_svg()`), from White's side as FMJD diagrams are (square 1 at the top left,
White's men moving up)."""

from __future__ import annotations

import numpy as np

from jaxcheckers import rgb, svg
from jaxcheckers.draughts.fen import absolute_board

__all__ = ["grid", "board_rgb", "board_svg", "state_rgb", "state_svg"]

LIGHT, DARK = (240, 217, 181), (181, 136, 99)  # squares
WHITE_PIECE, BLACK_PIECE, KING_MARK = (250, 250, 245), (30, 30, 30), (212, 175, 55)
STYLE = dict(squares=(LIGHT, DARK), pieces=(WHITE_PIECE, BLACK_PIECE), king_mark=KING_MARK)


def grid(squares: np.ndarray) -> np.ndarray:
    """int8 (n, n) of a board given over its S = n²/2 playable squares in FMJD order (square
    s + 1 at index s, row by row from the top; a row's first playable square is its second
    cell on even rows, its first on odd ones)."""
    squares = np.asarray(squares)
    half = int(round((squares.shape[0] / 2) ** 0.5))
    n = 2 * half
    index = np.arange(squares.shape[0])
    row = index // half
    col = 2 * (index % half) + (row % 2 == 0)
    cells = np.zeros((n, n), np.int8)
    cells[row, col] = squares
    return cells


def board_rgb(squares: np.ndarray, *, cell: int = rgb.CELL) -> np.ndarray:
    """uint8 (n·cell, n·cell, 3) of a board in White's frame (`fen.absolute_board`): +1/+2 White
    man/king, −1/−2 Black's."""
    return rgb.men_and_kings(grid(squares), cell=cell, **STYLE)


def board_svg(squares: np.ndarray, *, cell: int = rgb.CELL) -> str:
    """A board in White's frame as SVG (+1/+2 White man/king, −1/−2 Black's)."""
    return svg.men_and_kings(grid(squares), cell=cell, **STYLE)


def state_rgb(state) -> np.ndarray:
    """`board_rgb` of one unbatched DraughtsState (pieces taken by a move under way still on)."""
    return board_rgb(absolute_board(state))


def state_svg(state) -> str:
    """`board_svg` of one unbatched DraughtsState."""
    return board_svg(absolute_board(state))
