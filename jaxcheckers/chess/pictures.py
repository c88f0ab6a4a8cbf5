"""Pictures of chess positions: SVG written by hand (no dependencies) and PNG with matplotlib.

White at the bottom, files a–h along the bottom edge and ranks 1–8 up the left, as on a printed
diagram. Pieces are the Unicode chess glyphs, the solid ones for both sides, filled white or
black with an outline, so both colours read the same on any background. Each piece is one SVG
`<text>` element that names its square and piece (`data-square`, `data-piece`), so a picture
can be checked against its FEN.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from jaxcheckers.chess.fen import absolute_board, square_name
from jaxcheckers.extras import pyplot

__all__ = ["board_of", "position_svg", "save_svg", "save_png", "position_rgb", "GLYPHS"]

LIGHT, DARK, HIGHLIGHT = "#f0d9b5", "#b58863", "#e8c547"
GLYPHS = dict(zip("kqrbnp", "♚♛♜♝♞♟", strict=True))  # the solid glyphs, for both colours
INK = {True: ("#ffffff", "#202020"), False: ("#202020", "#202020")}  # white?: (fill, outline)
FONTS = "DejaVu Sans, Segoe UI Symbol, Noto Sans Symbols2, sans-serif"


def board_of(position) -> dict[int, str]:
    """{square (a1 = 0, h8 = 63): piece letter, upper case white} of a state or such a dict."""
    if hasattr(position, "position") and hasattr(position, "current_player"):
        return absolute_board(position)
    if isinstance(position, dict):
        return dict(position)
    raise ValueError(f"expected a chess state or a {{square: piece}} dict, got {position!r:.60}")


def _cell(square: int) -> tuple[int, int]:
    """(column, row) of a square in the picture: a1 at the bottom left."""
    return square % 8, 7 - square // 8


def _contrast(col: int, row: int) -> str:
    """The colour of the other kind of square: ink that shows on this one."""
    return DARK if (col + row) % 2 == 0 else LIGHT


def position_svg(
    position,
    *,
    size: int = 400,
    coordinates: bool = True,
    highlight: Sequence[str] = (),
    title: str | None = None,
) -> str:
    """An SVG drawing of a position; `highlight` marks squares by name (a move: "e2", "e4")."""
    board = board_of(position)
    cell = size / 8
    marked = set(highlight)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" '
        f'viewBox="0 0 {size} {size}">'
    ]
    if title:
        parts.append(f"<title>{_escape(title)}</title>")
    for square in range(64):
        col, row = _cell(square)
        x, y = col * cell, row * cell
        light = (col + row) % 2 == 0  # h1 (bottom right) is a light square
        fill = HIGHLIGHT if square_name(square) in marked else (LIGHT if light else DARK)
        parts.append(
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{cell:.1f}" height="{cell:.1f}" fill="{fill}"/>'
        )
    if coordinates:  # in the corner of the edge squares, in the other square colour
        font = f'font-size="{cell * 0.18:.1f}" font-family="sans-serif"'
        for i in range(8):
            parts.append(
                f'<text class="coordinate" x="{(i + 1) * cell - 2:.1f}" y="{size - 3:.1f}" {font} '
                f'text-anchor="end" fill="{_contrast(i, 7)}">{"abcdefgh"[i]}</text>'
            )
            parts.append(
                f'<text class="coordinate" x="2" y="{(7 - i + 0.2) * cell:.1f}" {font} '
                f'fill="{_contrast(0, 7 - i)}">{i + 1}</text>'
            )
    for square, piece in sorted(board.items()):
        col, row = _cell(square)
        fill, outline = INK[piece.isupper()]
        parts.append(
            f'<text class="piece" data-square="{square_name(square)}" data-piece="{piece}" '
            f'x="{(col + 0.5) * cell:.1f}" y="{(row + 0.5) * cell:.1f}" '
            f'font-size="{cell * 0.8:.1f}" font-family="{FONTS}" text-anchor="middle" '
            f'dominant-baseline="central" fill="{fill}" stroke="{outline}" '
            f'stroke-width="{cell * 0.02:.1f}">{GLYPHS[piece.lower()]}</text>'
        )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def save_svg(position, path, **options) -> None:
    with open(path, "w", encoding="utf-8") as file:
        file.write(position_svg(position, **options))


def save_png(
    position,
    path,
    *,
    size_inches: float = 4.0,
    dpi: int = 100,
    highlight: Sequence[str] = (),
    title: str | None = None,
) -> None:
    """A PNG picture of a position (matplotlib; its DejaVu Sans font has the chess glyphs)."""
    figure = _figure(position, size_inches, highlight, title)
    figure.savefig(path, dpi=dpi, bbox_inches="tight")
    _pyplot().close(figure)


def position_rgb(position, *, size_inches: float = 4.0, dpi: int = 100) -> np.ndarray:
    """uint8 (H, W, 3): the PNG's picture as an array (Gymnasium's and PettingZoo's rgb_array)."""
    figure = _figure(position, size_inches, (), None)
    figure.subplots_adjust(0, 0, 1, 1)
    figure.set_dpi(dpi)
    figure.canvas.draw()
    image = np.asarray(figure.canvas.buffer_rgba())[..., :3].copy()
    _pyplot().close(figure)
    return image


def _pyplot():
    """matplotlib.pyplot, or MissingExtra naming the extra (`extras.pyplot`)."""
    return pyplot("drawing chess pictures")


def _figure(position, size_inches: float, highlight: Sequence[str], title: str | None):
    board = board_of(position)  # a bad position is refused before matplotlib is needed
    plt = _pyplot()
    import matplotlib.patheffects as effects
    from matplotlib.patches import Rectangle

    marked = set(highlight)
    figure, ax = plt.subplots(figsize=(size_inches, size_inches))
    ax.set_xlim(0, 8)
    ax.set_ylim(8, 0)
    ax.set_aspect("equal")
    ax.axis("off")
    for square in range(64):
        col, row = _cell(square)
        light = (col + row) % 2 == 0
        colour = HIGHLIGHT if square_name(square) in marked else (LIGHT if light else DARK)
        ax.add_patch(Rectangle((col, row), 1, 1, color=colour))
        piece = board.get(square)
        if piece:
            fill, outline = INK[piece.isupper()]
            glyph = ax.text(col + 0.5, row + 0.55, GLYPHS[piece.lower()], fontsize=size_inches * 6,
                            ha="center", va="center", color=fill, family="DejaVu Sans")  # fmt: skip
            glyph.set_path_effects([effects.withStroke(linewidth=1.5, foreground=outline)])
    if title:
        ax.set_title(title, fontsize=8)
    return figure
