"""Checkers boards drawn with numpy alone: RGB frames (the adapters' `rgb_array`) and SVG
(pgx's `state.to_svg()`), in the absolute frame a person sees (black, player 0, at the top).
`pictures` draws the annotated figures (square numbers, moves) with matplotlib."""

from __future__ import annotations

import numpy as np

from jaxcheckers import rgb, svg
from jaxcheckers.checkers.frames import absolute_board

__all__ = ["board_rgb", "board_svg", "state_rgb", "state_svg"]

LIGHT, DARK = (238, 221, 187), (119, 149, 86)  # squares
BLACK_PIECE, WHITE_PIECE, KING_MARK = (25, 25, 25), (245, 245, 245), (212, 175, 55)
STYLE = dict(squares=(LIGHT, DARK), pieces=(BLACK_PIECE, WHITE_PIECE), king_mark=KING_MARK)


def board_rgb(board: np.ndarray, *, cell: int = rgb.CELL) -> np.ndarray:
    """uint8 (n·cell, n·cell, 3) of an (n, n) checkers board in the absolute frame
    (`frames.absolute_board`): +1/+2 black man/king (player 0, at the top), −1/−2 white."""
    return rgb.men_and_kings(board, cell=cell, **STYLE)


def board_svg(board: np.ndarray, *, cell: int = rgb.CELL) -> str:
    """An (n, n) checkers board in the absolute frame (+1/+2 black man/king, −1/−2 white)."""
    return svg.men_and_kings(board, cell=cell, **STYLE)


def state_rgb(state) -> np.ndarray:
    """`board_rgb` of one unbatched CheckersState."""
    return board_rgb(absolute_board(state))


def state_svg(state) -> str:
    """`board_svg` of one unbatched CheckersState."""
    return board_svg(absolute_board(state))
