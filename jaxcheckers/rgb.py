"""Boards drawn as RGB images with numpy alone: the `rgb_array` render mode of the adapters.

Each function takes one board as a person sees it and returns uint8 (n·cell, n·cell, 3), the
frame `gymnasium.wrappers.RecordVideo` and PettingZoo's `render_test` expect.
"""

from __future__ import annotations

import functools

import numpy as np

__all__ = ["checkers_rgb", "tictactoe_rgb", "CELL"]

CELL = 32  # pixels per square
LIGHT, DARK = (238, 221, 187), (119, 149, 86)  # squares
BLACK_PIECE, WHITE_PIECE, KING_MARK = (25, 25, 25), (245, 245, 245), (212, 175, 55)
PAPER, INK, X_INK, O_INK = (250, 250, 250), (60, 60, 60), (200, 40, 40), (40, 80, 200)


@functools.cache
def _shapes(cell: int) -> dict[str, np.ndarray]:
    """bool (cell, cell) stencils: a disc, a ring, a small disc, a cross, a round O."""
    centre = (cell - 1) / 2
    y, x = np.mgrid[0:cell, 0:cell] - centre
    radius = np.hypot(x, y)
    width = max(cell / 10, 1.5)
    margin = cell * 0.22
    inside = (np.abs(x) <= centre - margin) & (np.abs(y) <= centre - margin)
    return {
        "disc": radius <= cell * 0.38,
        "king": (radius <= cell * 0.2) & (radius >= cell * 0.2 - width),
        "x": inside & ((np.abs(x - y) <= width / 2 * 1.5) | (np.abs(x + y) <= width / 2 * 1.5)),
        "o": (radius <= centre - margin) & (radius >= centre - margin - width),
    }


def _blank(n: int, cell: int, colour_of) -> np.ndarray:
    colours = np.array([[colour_of(row, col) for col in range(n)] for row in range(n)], np.uint8)
    return np.repeat(np.repeat(colours, cell, axis=0), cell, axis=1)


def _stamp(image: np.ndarray, row: int, col: int, stencil: np.ndarray, colour) -> None:
    cell = stencil.shape[0]
    image[row * cell : (row + 1) * cell, col * cell : (col + 1) * cell][stencil] = colour


def checkers_rgb(board: np.ndarray, *, cell: int = CELL) -> np.ndarray:
    """uint8 (n·cell, n·cell, 3) of an (n, n) checkers board in the absolute frame
    (`positions.absolute_board`): +1/+2 black man/king (player 0, at the top), −1/−2 white."""
    board = np.asarray(board)
    n = board.shape[0]
    shapes = _shapes(cell)
    image = _blank(n, cell, lambda r, c: DARK if (r + c) % 2 else LIGHT)
    for row, col in zip(*np.nonzero(board), strict=True):
        value = int(board[row, col])
        _stamp(image, row, col, shapes["disc"], BLACK_PIECE if value > 0 else WHITE_PIECE)
        if abs(value) == 2:
            _stamp(image, row, col, shapes["king"], KING_MARK)
    return image


def tictactoe_rgb(board: np.ndarray, *, cell: int = CELL) -> np.ndarray:
    """uint8 (n·cell, n·cell, 3) of an (n, n) tic-tac-toe board: +1 X (moves first), −1 O."""
    board = np.asarray(board)
    n = board.shape[0]
    shapes = _shapes(cell)
    image = _blank(n, cell, lambda r, c: PAPER)
    image[::cell, :] = INK  # grid lines on each cell's top and left edges, and the far edges
    image[:, ::cell] = INK
    image[-1, :] = INK
    image[:, -1] = INK
    for row, col in zip(*np.nonzero(board), strict=True):
        mark = int(board[row, col]) > 0
        _stamp(image, row, col, shapes["x" if mark else "o"], X_INK if mark else O_INK)
    return image
