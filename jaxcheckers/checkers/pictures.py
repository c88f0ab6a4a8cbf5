"""Pictures of positions and games: SVG (no dependencies), PNG, and animated GIF or frame strips.

SVG is written by hand, so a position can be drawn with numpy alone. PNG, GIF and strips use
matplotlib (and pillow for GIF, which matplotlib brings along); they are imported only when used.
The view is absolute, as in `render`: black (player 0) at the top, square numbers 1..n²/2 in the
corner of the dark squares, kings with a ring.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from jaxcheckers.checkers.frames import absolute_board
from jaxcheckers.checkers.render import continue_move, describe_action, square_number
from jaxcheckers.core import compiled_step
from jaxcheckers.extras import pyplot

LIGHT, DARK = "#f0d9b5", "#946f51"
PIECE_FILL = {1: "#202020", -1: "#f4f4f4"}
PIECE_EDGE = {1: "#000000", -1: "#606060"}
HIGHLIGHT = "#e8c547"

__all__ = ["board_of", "position_svg", "save_svg", "save_png", "save_game_gif", "save_game_strip"]


def board_of(position) -> np.ndarray:
    """int (n, n) absolute board from an unbatched state or an absolute board array."""
    if hasattr(position, "board") and hasattr(position, "current_player"):
        return absolute_board(position)
    board = np.asarray(position)
    if board.ndim != 2 or board.shape[0] != board.shape[1]:
        raise ValueError(f"expected a state or an (n, n) board, got shape {board.shape}")
    return board


def position_svg(
    position,
    *,
    size: int = 400,
    numbers: bool = True,
    highlight: Sequence[tuple[int, int]] = (),
    title: str | None = None,
) -> str:
    """An SVG drawing of a position; `highlight` marks squares (row, col), e.g. the last move."""
    board = board_of(position)
    n = board.shape[0]
    cell = size / n
    marked = {tuple(square) for square in highlight}
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" '
        f'viewBox="0 0 {size} {size}">'
    ]
    if title:
        parts.append(f"<title>{_escape(title)}</title>")
    for row in range(n):
        for col in range(n):
            x, y = col * cell, row * cell
            dark = (row + col) % 2 == 1
            fill = HIGHLIGHT if (row, col) in marked else (DARK if dark else LIGHT)
            parts.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{cell:.1f}" height="{cell:.1f}" '
                f'fill="{fill}"/>'
            )
            if dark and numbers:
                parts.append(
                    f'<text x="{x + 2:.1f}" y="{y + cell * 0.22:.1f}" font-size="{cell * 0.2:.1f}" '
                    f'font-family="sans-serif" fill="#e8e0d0">{square_number(row, col, n)}</text>'
                )
            value = int(board[row, col])
            if value:
                parts.append(_piece_svg(x + cell / 2, y + cell / 2, cell, value))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _piece_svg(cx: float, cy: float, cell: float, value: int) -> str:
    side = int(np.sign(value))
    radius = cell * 0.38
    shapes = [
        f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{radius:.1f}" fill="{PIECE_FILL[side]}" '
        f'stroke="{PIECE_EDGE[side]}" stroke-width="{cell * 0.04:.1f}"/>'
    ]
    if abs(value) == 2:  # a king: a gold ring inside
        shapes.append(
            f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{radius * 0.55:.1f}" fill="none" '
            f'stroke="#d4a017" stroke-width="{cell * 0.07:.1f}"/>'
        )
    return "".join(shapes)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def save_svg(position, path, **options) -> None:
    with open(path, "w", encoding="utf-8") as file:
        file.write(position_svg(position, **options))


# -- matplotlib pictures ---------------------------------------------------------------------


def _draw(ax, board: np.ndarray, *, numbers: bool = True, title: str | None = None, marked=()):
    from matplotlib.patches import Circle, Rectangle

    n = board.shape[0]
    ax.clear()
    ax.set_xlim(0, n)
    ax.set_ylim(n, 0)
    ax.set_aspect("equal")
    ax.axis("off")
    marked = {tuple(square) for square in marked}
    for row in range(n):
        for col in range(n):
            dark = (row + col) % 2 == 1
            colour = HIGHLIGHT if (row, col) in marked else (DARK if dark else LIGHT)
            ax.add_patch(Rectangle((col, row), 1, 1, color=colour))
            if dark and numbers:
                ax.text(col + 0.05, row + 0.22, str(square_number(row, col, n)),
                        fontsize=5, color="#e8e0d0")
            value = int(board[row, col])
            if value:
                side = int(np.sign(value))
                ax.add_patch(Circle((col + 0.5, row + 0.5), 0.38, facecolor=PIECE_FILL[side],
                                    edgecolor=PIECE_EDGE[side], linewidth=1))
                if abs(value) == 2:
                    ax.add_patch(Circle((col + 0.5, row + 0.5), 0.2, fill=False,
                                        edgecolor="#d4a017", linewidth=2))
    if title:
        ax.set_title(title, fontsize=8)


def save_png(position, path, *, size_inches: float = 4.0, dpi: int = 100, **options) -> None:
    """A PNG picture of a position (matplotlib)."""
    plt = pyplot("drawing checkers pictures")

    figure, ax = plt.subplots(figsize=(size_inches, size_inches))
    _draw(ax, board_of(position), **options)
    figure.savefig(path, dpi=dpi, bbox_inches="tight")
    plt.close(figure)


def game_frames(env, start_state, actions) -> list[tuple[np.ndarray, str]]:
    """(absolute board, caption) after every whole move of a game, starting with its start."""
    step = compiled_step(env)
    state = start_state
    frames = [(absolute_board(state), "start")]
    move = ""
    for action in actions:
        text = describe_action(state, int(action))
        move = continue_move(move, text) if int(state.jumper) >= 0 else text
        state = step(state, np.int32(action))
        if int(state.jumper) < 0:
            frames.append((absolute_board(state), f"{len(frames)}. {move}"))
    return frames


def save_game_gif(env, start_state, actions, path, *, fps: float = 2.0, dpi: int = 80) -> int:
    """An animated GIF of a game, one frame per whole move. Returns the number of frames."""
    plt = pyplot("drawing checkers pictures")
    from matplotlib.animation import FuncAnimation, PillowWriter

    frames = game_frames(env, start_state, actions)
    figure, ax = plt.subplots(figsize=(4, 4.3))

    def show(index):
        board, caption = frames[index]
        _draw(ax, board, title=caption)
        return []

    animation = FuncAnimation(figure, show, frames=len(frames), blit=False)
    animation.save(path, writer=PillowWriter(fps=fps), dpi=dpi)
    plt.close(figure)
    return len(frames)


def save_game_strip(env, start_state, actions, path, *, columns: int = 8, every: int = 1) -> int:
    """A PNG grid of the positions after every `every`-th whole move. Returns frames drawn."""
    plt = pyplot("drawing checkers pictures")

    frames = game_frames(env, start_state, actions)
    frames = frames[::every] + ([] if (len(frames) - 1) % every == 0 else frames[-1:])
    rows = -(-len(frames) // columns)
    figure, axes = plt.subplots(rows, columns, figsize=(columns * 1.6, rows * 1.7), squeeze=False)
    for ax in axes.reshape(-1):
        ax.axis("off")
    for ax, (board, caption) in zip(axes.reshape(-1), frames, strict=False):
        _draw(ax, board, numbers=False, title=caption)
    figure.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(figure)
    return len(frames)
