"""States drawn as SVG with no dependencies: pgx's `state.to_svg()` and `state.save_svg(path)`.

A game's State class takes the two methods from `state_methods(draw)`, where `draw` turns one
unbatched state into an SVG document. A batch of states is drawn as a grid of boards, as pgx
draws one. Boards are drawn as the `rgb` module draws them (same colours), as vectors.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

import jax
import numpy as np

from jaxcheckers import rgb

__all__ = ["state_methods", "checkers_svg", "tictactoe_svg", "grid_of"]

CELL = rgb.CELL
THEMES = (None, "light")  # pgx also has "dark"; only the one palette is drawn here
_SIZE = re.compile(r'<svg[^>]*?width="([\d.]+)"[^>]*?height="([\d.]+)"')


def _hex(colour) -> str:
    return "#" + "".join(f"{c:02x}" for c in colour)


def _document(width: float, height: float, body: list[str]) -> str:
    return (
        "\n".join(
            [
                f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}" height="{height:g}" '
                f'viewBox="0 0 {width:g} {height:g}">',
                *body,
                "</svg>",
            ]
        )
        + "\n"
    )


def checkers_svg(board: np.ndarray, *, cell: int = CELL) -> str:
    """An (n, n) checkers board in the absolute frame (+1/+2 black man/king, −1/−2 white)."""
    board = np.asarray(board)
    n = board.shape[0]
    body = []
    for row in range(n):
        for col in range(n):
            fill = _hex(rgb.DARK if (row + col) % 2 else rgb.LIGHT)
            body.append(
                f'<rect x="{col * cell}" y="{row * cell}" width="{cell}" height="{cell}" '
                f'fill="{fill}"/>'
            )
    for row, col in zip(*np.nonzero(board), strict=True):
        value = int(board[row, col])
        x, y = (col + 0.5) * cell, (row + 0.5) * cell
        colour = _hex(rgb.BLACK_PIECE if value > 0 else rgb.WHITE_PIECE)
        piece = "king" if abs(value) == 2 else "man"
        body.append(
            f'<circle class="{piece}" data-player="{0 if value > 0 else 1}" cx="{x:g}" '
            f'cy="{y:g}" r="{cell * 0.38:g}" fill="{colour}" stroke="#404040"/>'
        )
        if piece == "king":
            body.append(
                f'<circle cx="{x:g}" cy="{y:g}" r="{cell * 0.18:g}" fill="none" '
                f'stroke="{_hex(rgb.KING_MARK)}" stroke-width="{cell / 10:g}"/>'
            )
    return _document(n * cell, n * cell, body)


def tictactoe_svg(board: np.ndarray, *, cell: int = CELL) -> str:
    """An (n, n) tic-tac-toe board: +1 X (moves first), −1 O."""
    board = np.asarray(board)
    n = board.shape[0]
    ink = _hex(rgb.INK)
    body = [f'<rect width="{n * cell}" height="{n * cell}" fill="{_hex(rgb.PAPER)}"/>']
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
            colour = _hex(rgb.X_INK)
            body.append(
                f'<path class="x" d="M{x - arm:g},{y - arm:g}L{x + arm:g},{y + arm:g}'
                f'M{x - arm:g},{y + arm:g}L{x + arm:g},{y - arm:g}" stroke="{colour}" '
                f'stroke-width="{width:g}"/>'
            )
        else:
            body.append(
                f'<circle class="o" cx="{x:g}" cy="{y:g}" r="{arm:g}" fill="none" '
                f'stroke="{_hex(rgb.O_INK)}" stroke-width="{width:g}"/>'
            )
    return _document(n * cell, n * cell, body)


def _size(document: str) -> tuple[float, float]:
    width, height = _SIZE.search(document).groups()
    return float(width), float(height)


def grid_of(documents: list[str], *, gap: float = 8.0) -> str:
    """SVG documents side by side, in rows of ⌈√count⌉ (all as large as the first)."""
    width, height = _size(documents[0])
    columns = math.ceil(math.sqrt(len(documents)))
    rows = math.ceil(len(documents) / columns)
    body = []
    for i, document in enumerate(documents):
        x, y = (i % columns) * (width + gap), (i // columns) * (height + gap)
        body.append(document.replace("<svg ", f'<svg x="{x:g}" y="{y:g}" ', 1).strip())
    return _document(columns * (width + gap) - gap, rows * (height + gap) - gap, body)


def _scaled(document: str, scale: float) -> str:
    width, height = _size(document)
    return document.replace(
        f'width="{width:g}" height="{height:g}"',
        f'width="{width * scale:g}" height="{height * scale:g}"',
        1,
    )


def _row(batch, i: int):
    return jax.tree.map(lambda x: x[i], batch)


def state_methods(draw: Callable[[object], str]):
    """(to_svg, save_svg) for a State class whose one-game picture is `draw(state)`."""

    def to_svg(self, *, color_theme: str | None = None, scale: float | None = None) -> str:
        """This state (or a batch of them, as a grid) as an SVG document (pgx's signature)."""
        if color_theme not in THEMES:
            raise ValueError(f"color_theme must be one of {THEMES}, not {color_theme!r}")
        if scale is not None and not (isinstance(scale, (int, float)) and scale > 0):
            raise ValueError(f"scale must be a positive number, not {scale!r}")
        batch = np.shape(self.current_player)
        if batch:
            flat = jax.tree.map(
                lambda x: np.asarray(x).reshape(-1, *np.shape(x)[len(batch) :]), self
            )
            count = int(np.prod(batch))
            if count == 0:
                raise ValueError("an empty batch of states has no picture")
            document = grid_of([draw(_row(flat, i)) for i in range(count)])
        else:
            document = draw(self)
        return document if scale is None else _scaled(document, float(scale))

    def save_svg(self, filename, *, color_theme: str | None = None, scale: float | None = None):
        """Write `to_svg()` to `filename`."""
        document = to_svg(self, color_theme=color_theme, scale=scale)
        with open(filename, "w", encoding="utf-8") as file:
            file.write(document)

    return to_svg, save_svg
