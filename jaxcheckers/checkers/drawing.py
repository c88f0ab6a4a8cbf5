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


def board_rgb(board: np.ndarray, *, cell: int = rgb.CELL) -> np.ndarray:
    """uint8 (n·cell, n·cell, 3) of an (n, n) checkers board in the absolute frame
    (`frames.absolute_board`): +1/+2 black man/king (player 0, at the top), −1/−2 white."""
    board = np.asarray(board)
    n = board.shape[0]
    stencils = rgb.shapes(cell)
    image = rgb.blank(n, cell, lambda r, c: DARK if (r + c) % 2 else LIGHT)
    for row, col in zip(*np.nonzero(board), strict=True):
        value = int(board[row, col])
        rgb.stamp(image, row, col, stencils["disc"], BLACK_PIECE if value > 0 else WHITE_PIECE)
        if abs(value) == 2:
            rgb.stamp(image, row, col, stencils["king"], KING_MARK)
    return image


def board_svg(board: np.ndarray, *, cell: int = rgb.CELL) -> str:
    """An (n, n) checkers board in the absolute frame (+1/+2 black man/king, −1/−2 white)."""
    board = np.asarray(board)
    n = board.shape[0]
    body = []
    for row in range(n):
        for col in range(n):
            fill = svg.hex_colour(DARK if (row + col) % 2 else LIGHT)
            body.append(
                f'<rect x="{col * cell}" y="{row * cell}" width="{cell}" height="{cell}" '
                f'fill="{fill}"/>'
            )
    for row, col in zip(*np.nonzero(board), strict=True):
        value = int(board[row, col])
        x, y = (col + 0.5) * cell, (row + 0.5) * cell
        colour = svg.hex_colour(BLACK_PIECE if value > 0 else WHITE_PIECE)
        piece = "king" if abs(value) == 2 else "man"
        body.append(
            f'<circle class="{piece}" data-player="{0 if value > 0 else 1}" cx="{x:g}" '
            f'cy="{y:g}" r="{cell * 0.38:g}" fill="{colour}" stroke="#404040"/>'
        )
        if piece == "king":
            body.append(
                f'<circle cx="{x:g}" cy="{y:g}" r="{cell * 0.18:g}" fill="none" '
                f'stroke="{svg.hex_colour(KING_MARK)}" stroke-width="{cell / 10:g}"/>'
            )
    return svg.svg_document(n * cell, n * cell, body)


def state_rgb(state) -> np.ndarray:
    """`board_rgb` of one unbatched CheckersState."""
    return board_rgb(absolute_board(state))


def state_svg(state) -> str:
    """`board_svg` of one unbatched CheckersState."""
    return board_svg(absolute_board(state))
