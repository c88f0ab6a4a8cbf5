"""States drawn as SVG with no dependencies: pgx's `state.to_svg()` and `state.save_svg(path)`.

A game's State class takes the two methods from `state_methods(draw)`, where `draw` turns one
unbatched state into an SVG document (each game draws its board in its own folder, from
`svg_document` and `hex_colour`). A batch of states is drawn as a grid of boards, as pgx draws one.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

import jax
import numpy as np

from jaxcheckers import rgb
from jaxcheckers.deprecation import moved_names

__all__ = ["state_methods", "grid_of", "svg_document", "hex_colour", "men_and_kings", "CELL"]

CELL = rgb.CELL
THEMES = (None, "light")  # pgx also has "dark"; only the one palette is drawn here
_SIZE = re.compile(r'<svg[^>]*?width="([\d.]+)"[^>]*?height="([\d.]+)"')


def hex_colour(colour) -> str:
    """'#rrggbb' of an (r, g, b) colour."""
    return "#" + "".join(f"{c:02x}" for c in colour)


def svg_document(width: float, height: float, body: list[str]) -> str:
    """An SVG document of `width` × `height` user units holding the elements of `body`."""
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


def men_and_kings(board: np.ndarray, *, squares, pieces, king_mark, cell: float = CELL) -> str:
    """An (n, n) board of the draughts family as SVG (as `rgb.men_and_kings`: 0 empty, ±1 a man,
    ±2 a king, positive values player 0's; `squares` (light, dark), dark where row + col is odd;
    `pieces` (player 0, player 1)). Each piece is a circle of class "man" or "king" with its
    player in `data-player`."""
    board = np.asarray(board)
    n = board.shape[0]
    body = [
        f'<rect x="{col * cell:g}" y="{row * cell:g}" width="{cell:g}" height="{cell:g}" '
        f'fill="{hex_colour(squares[(row + col) % 2])}"/>'
        for row in range(n)
        for col in range(n)
    ]
    for row, col in zip(*np.nonzero(board), strict=True):
        value = int(board[row, col])
        x, y = (col + 0.5) * cell, (row + 0.5) * cell
        player = 0 if value > 0 else 1
        piece = "king" if abs(value) == 2 else "man"
        body.append(
            f'<circle class="{piece}" data-player="{player}" cx="{x:g}" cy="{y:g}" '
            f'r="{cell * 0.38:g}" fill="{hex_colour(pieces[player])}" stroke="#404040"/>'
        )
        if piece == "king":
            body.append(
                f'<circle cx="{x:g}" cy="{y:g}" r="{cell * 0.18:g}" fill="none" '
                f'stroke="{hex_colour(king_mark)}" stroke-width="{cell / 10:g}"/>'
            )
    return svg_document(n * cell, n * cell, body)


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
    return svg_document(columns * (width + gap) - gap, rows * (height + gap) - gap, body)


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


# Each game draws itself in its own folder now (CHANGELOG).
__getattr__ = moved_names(
    __name__,
    {
        "checkers_svg": "jaxcheckers.checkers.drawing:board_svg",
        "tictactoe_svg": "jaxcheckers.tictactoe.drawing:board_svg",
    },
)
