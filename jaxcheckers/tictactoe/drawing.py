"""Tic-tac-toe boards drawn with numpy alone: RGB frames (the adapters' `rgb_array`) and SVG
(pgx's `state.to_svg()`). A board is (n, n): +1 X (player 0, moves first), −1 O, 0 empty."""

from __future__ import annotations

import numpy as np

from jaxcheckers import rgb, svg

__all__ = ["board_rgb", "board_svg"]

PAPER, INK, X_INK, O_INK = (250, 250, 250), (60, 60, 60), (200, 40, 40), (40, 80, 200)


def board_rgb(board: np.ndarray, *, cell: int = rgb.CELL) -> np.ndarray:
    """uint8 (n·cell, n·cell, 3) of an (n, n) tic-tac-toe board: +1 X (moves first), −1 O."""
    board = np.asarray(board)
    n = board.shape[0]
    stencils = rgb.shapes(cell)
    image = rgb.blank(n, cell, lambda r, c: PAPER)
    image[::cell, :] = INK  # grid lines on each cell's top and left edges, and the far edges
    image[:, ::cell] = INK
    image[-1, :] = INK
    image[:, -1] = INK
    for row, col in zip(*np.nonzero(board), strict=True):
        mark = int(board[row, col]) > 0
        rgb.stamp(image, row, col, stencils["x" if mark else "o"], X_INK if mark else O_INK)
    return image


def board_svg(board: np.ndarray, *, cell: int = rgb.CELL) -> str:
    """An (n, n) tic-tac-toe board: +1 X (moves first), −1 O."""
    board = np.asarray(board)
    n = board.shape[0]
    ink = svg.hex_colour(INK)
    body = [f'<rect width="{n * cell}" height="{n * cell}" fill="{svg.hex_colour(PAPER)}"/>']
    for i in range(n + 1):
        body.append(
            f'<line x1="{i * cell}" y1="0" x2="{i * cell}" y2="{n * cell}" stroke="{ink}"/>'
        )
        body.append(
            f'<line x1="0" y1="{i * cell}" x2="{n * cell}" y2="{i * cell}" stroke="{ink}"/>'
        )
    arm, width = cell * 0.28, cell / 10
    for row, col in zip(*np.nonzero(board), strict=True):
        x, y = (col + 0.5) * cell, (row + 0.5) * cell
        if board[row, col] > 0:
            colour = svg.hex_colour(X_INK)
            body.append(
                f'<path class="x" d="M{x - arm:g},{y - arm:g}L{x + arm:g},{y + arm:g}'
                f'M{x - arm:g},{y + arm:g}L{x + arm:g},{y - arm:g}" stroke="{colour}" '
                f'stroke-width="{width:g}"/>'
            )
        else:
            body.append(
                f'<circle class="o" cx="{x:g}" cy="{y:g}" r="{arm:g}" fill="none" '
                f'stroke="{svg.hex_colour(O_INK)}" stroke-width="{width:g}"/>'
            )
    return svg.svg_document(n * cell, n * cell, body)
