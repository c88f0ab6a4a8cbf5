"""Drawing boards as RGB images with numpy alone: the primitives each game's own drawing (its
`board_rgb`, the adapters' `rgb_array` frames) is made of. Frames are uint8 (n·cell, n·cell, 3),
what `gymnasium.wrappers.RecordVideo` and PettingZoo's `render_test` expect.
"""

from __future__ import annotations

import functools

import numpy as np

from jaxcheckers.deprecation import moved_names

__all__ = ["CELL", "shapes", "blank", "stamp", "men_and_kings"]

CELL = 32  # pixels per square


@functools.cache
def shapes(cell: int) -> dict[str, np.ndarray]:
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


def blank(n: int, cell: int, colour_of) -> np.ndarray:
    """uint8 (n·cell, n·cell, 3): each square (row, col) filled with `colour_of(row, col)`."""
    colours = np.array([[colour_of(row, col) for col in range(n)] for row in range(n)], np.uint8)
    return np.repeat(np.repeat(colours, cell, axis=0), cell, axis=1)


def stamp(image: np.ndarray, row: int, col: int, stencil: np.ndarray, colour) -> None:
    """Paints `colour` where the bool (cell, cell) `stencil` holds, on square (row, col)."""
    cell = stencil.shape[0]
    image[row * cell : (row + 1) * cell, col * cell : (col + 1) * cell][stencil] = colour


def men_and_kings(board: np.ndarray, *, squares, pieces, king_mark, cell: int = CELL) -> np.ndarray:
    """uint8 (n·cell, n·cell, 3) of an (n, n) board of the draughts family: 0 empty, ±1 a man,
    ±2 a king (a disc with a ring), positive values player 0's. `squares` is the (light, dark)
    colour pair, dark where row + col is odd; `pieces` the (player 0, player 1) colours."""
    board = np.asarray(board)
    stencils = shapes(cell)
    light, dark = squares
    image = blank(board.shape[0], cell, lambda r, c: dark if (r + c) % 2 else light)
    for row, col in zip(*np.nonzero(board), strict=True):
        value = int(board[row, col])
        stamp(image, row, col, stencils["disc"], pieces[0] if value > 0 else pieces[1])
        if abs(value) == 2:
            stamp(image, row, col, stencils["king"], king_mark)
    return image


# Each game draws itself in its own folder now (CHANGELOG).
__getattr__ = moved_names(
    __name__,
    {
        "checkers_rgb": "jaxcheckers.checkers.drawing:board_rgb",
        "tictactoe_rgb": "jaxcheckers.tictactoe.drawing:board_rgb",
    },
)
