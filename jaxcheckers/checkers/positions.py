"""Positions a person can write down: boards drawn as text, validated, turned into States.

Boards here are in ABSOLUTE coordinates, as a person sees them: an (n, n) int array with row 0 at
the top, player 0 (black) starting on the top rows and moving down. Values: 0 empty, +1/+2 a
man/king of player 0, −1/−2 a man/king of player 1. Drawn as text: '.' empty, 'b'/'B' a black
man/king (player 0), 'w'/'W' a white man/king (player 1); spaces are ignored.
"""

from __future__ import annotations

from collections.abc import Sequence

import jax.numpy as jnp
import numpy as np

from jaxcheckers.checkers import rules
from jaxcheckers.checkers.env import Checkers, CheckersState
from jaxcheckers.checkers.frames import (  # noqa: F401 - absolute_board* also importable from here
    absolute_board,
    absolute_board_jax,
    to_mover_frame,
)
from jaxcheckers.core import compiled_method

PIECE_CHARS = {".": 0, "b": 1, "B": 2, "w": -1, "W": -2}
CHAR_OF_PIECE = {value: char for char, value in PIECE_CHARS.items()}


def parse_board(drawing: str | Sequence[str]) -> np.ndarray:
    """int8 (n, n) from a drawing: one string per row (or one string with a row per line)."""
    rows = drawing.strip().splitlines() if isinstance(drawing, str) else list(drawing)
    rows = [row.replace(" ", "") for row in rows]
    rows = [row for row in rows if row]
    n = len(rows)
    for i, row in enumerate(rows):
        if len(row) != n:
            raise ValueError(f"row {i} has {len(row)} squares; a board of {n} rows needs {n}")
        bad = set(row) - set(PIECE_CHARS)
        if bad:
            raise ValueError(f"row {i} has {sorted(bad)}; use one of {''.join(PIECE_CHARS)}")
    return np.array([[PIECE_CHARS[c] for c in row] for row in rows], dtype=np.int8).reshape(n, n)


def draw_board(board: np.ndarray) -> list[str]:
    """The inverse of `parse_board`: one string per row."""
    return ["".join(CHAR_OF_PIECE[int(v)] for v in row) for row in np.asarray(board)]


def validate(board: np.ndarray, player: int = 0, jumper: tuple[int, int] | None = None) -> None:
    """Raises ValueError, saying what is wrong, for a position that cannot occur in a game."""
    board = np.asarray(board)
    if board.ndim != 2 or board.shape[0] != board.shape[1]:
        raise ValueError(f"the board must be a square (n, n) array, got shape {board.shape}")
    n = board.shape[0]
    if n % 2 or not 4 <= n <= 16:
        raise ValueError(f"board size must be even and between 4 and 16, got {n}")
    if not np.isin(board, list(CHAR_OF_PIECE)).all():
        raise ValueError("board values must be 0 (empty), ±1 (man) or ±2 (king)")
    rows, cols = np.indices((n, n))
    light = (rows + cols) % 2 == 0
    if (board[light] != 0).any():
        r, c = np.argwhere(light & (board != 0))[0]
        raise ValueError(
            f"a piece stands on the light square ({r}, {c}); only (row + col) odd is used"
        )
    if (board[n - 1] == 1).any() or (board[0] == -1).any():
        raise ValueError("a man stands on the row where it would have been crowned")
    most = (n // 2 - 1) * (n // 2)
    for side, sign in (("player 0", 1), ("player 1", -1)):
        count = int((np.sign(board) == sign).sum())
        if count > most:
            raise ValueError(f"{side} has {count} pieces; at most {most} start on a {n}×{n} board")
    if not _is_int(player) or player not in (0, 1):
        raise ValueError(f"player must be 0 or 1 (an int), got {player!r}")
    if isinstance(jumper, np.ndarray):
        jumper = tuple(jumper.tolist()) if jumper.ndim == 1 else jumper
    if jumper is not None:
        if not (
            isinstance(jumper, (tuple, list)) and len(jumper) == 2 and all(map(_is_int, jumper))
        ):
            raise ValueError(f"jumper must be a (row, col) pair of ints or None, got {jumper!r}")
        r, c = (int(x) for x in jumper)
        if not (0 <= r < n and 0 <= c < n) or np.sign(board[r, c]) != (1 if player == 0 else -1):
            raise ValueError(f"jumper {jumper} is not a piece of player {player}")
        frame = to_mover_frame(board, player)
        square = _mover_square(r * n + c, player, n)
        if not bool(rules.can_jump_from(jnp.asarray(frame), square, n)):
            raise ValueError(f"the piece at {jumper} has no capture, so it cannot be mid-jump")


def _is_int(value) -> bool:
    """An int or numpy integer; not a bool (True is 1 to Python, never a square or a player)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _mover_square(square: int, player: int, n: int) -> int:
    return square if player == 0 else n * n - 1 - square


def from_board(
    env: Checkers,
    board: np.ndarray | str | Sequence[str],
    *,
    player: int = 0,
    jumper: tuple[int, int] | None = None,
) -> CheckersState:
    """A validated game starting from an absolute `board` (array or drawing), `player` to move.

    `jumper` is the (row, col) of a piece in the middle of a multi-jump: only its captures are
    legal. A position where the side to move has no move starts terminated, its rewards the
    result (−1 for the side to move, +1 for the other; zero under `no_moves="pass"`).
    """
    if not isinstance(board, np.ndarray):
        board = (
            parse_board(board)
            if isinstance(board, str) or _is_drawing(board)
            else np.asarray(board)
        )
    validate(board, player, jumper)
    n = board.shape[0]
    if n != env.board_size:
        raise ValueError(f"a {n}×{n} board does not fit this env's board_size={env.board_size}")
    player = int(player)
    square = -1 if jumper is None else _mover_square(int(jumper[0]) * n + int(jumper[1]), player, n)
    return compiled_method(env, "start")(
        to_mover_frame(board, player), np.int32(player), np.int32(square)
    )


def _is_drawing(board) -> bool:
    return isinstance(board, (list, tuple)) and all(isinstance(row, str) for row in board)
