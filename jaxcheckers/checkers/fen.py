"""Positions as checkers FEN strings (the FEN tag of PDN): read and write.

    B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12

The first field is the side to move (B black = player 0, who moves first; W white = player 1);
then one field per colour listing its squares, a K before a king. Squares are numbered 1 to n²/2 as
on a printed board (`render.square_number`); ranges such as `B1-12` are read too. FEN does not say
the board size: pass `n` (default 8). A position in the middle of a capture sequence has no FEN of
its own (the notation only knows whole moves): `to_fen` writes its board and side to move.
"""

from __future__ import annotations

import re

import numpy as np

from jaxcheckers.checkers.frames import absolute_board
from jaxcheckers.checkers.positions import from_board
from jaxcheckers.checkers.render import square_number, square_position

COLOURS = ("B", "W")  # player 0, player 1

__all__ = ["board_to_fen", "fen_to_board", "state_to_fen", "state_from_fen"]


def board_to_fen(board: np.ndarray, player: int) -> str:
    """FEN of an absolute (n, n) board (values ±1 men, ±2 kings) with `player` to move."""
    board = np.asarray(board)
    n = board.shape[0]
    fields = [COLOURS[player]]
    for colour, sign in (("W", -1), ("B", 1)):
        squares = []
        for row, col in np.argwhere(np.sign(board) == sign):
            number = square_number(int(row), int(col), n)
            king = abs(int(board[row, col])) == 2
            squares.append((number, f"K{number}" if king else str(number)))
        fields.append(colour + ",".join(text for _, text in sorted(squares)))
    return ":".join(fields)


def fen_to_board(fen: str, n: int = 8) -> tuple[np.ndarray, int]:
    """(absolute int8 (n, n) board, player to move) from a FEN string.

    Accepts the bare string, or the whole tag `[FEN "..."]`; spaces around the separators and a
    final '.' are ignored. Square numbers are ASCII digits; a range `a-b` needs a ≤ b. Raises
    ValueError with the reason for anything it cannot read (other types included).
    """
    if not isinstance(fen, str):
        raise ValueError(f"a FEN is a string, got {type(fen).__name__}")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n % 2 or not 4 <= n <= 16:
        raise ValueError(f"the board size must be an even int from 4 to 16, got {n!r}")
    n = int(n)
    fields = [field.strip() for field in _strip_tag(fen).split(":")]
    fields = [field for field in fields if field]
    if not fields or fields[0].upper() not in COLOURS:
        raise ValueError(f"a FEN starts with the side to move, B or W: {fen!r}")
    player = COLOURS.index(fields[0].upper())
    board = np.zeros((n, n), np.int8)
    seen_colours = set()
    for field in fields[1:]:
        colour = field[0].upper()
        if colour not in COLOURS or colour in seen_colours:
            raise ValueError(f"each piece list starts with B or W, once each: {field!r}")
        seen_colours.add(colour)
        sign = 1 if colour == "B" else -1
        for item in field[1:].split(","):
            item = item.strip()
            if not item:
                continue
            match = _ITEM.fullmatch(item)
            if not match:
                raise ValueError(
                    f"{item!r} is not a square (1 to {n * n // 2}), a range a-b or a king K5"
                )
            king = bool(match.group(1))
            for number in _square_numbers(match.group(2), match.group(3), n):
                row, col = square_position(number, n)
                if board[row, col]:
                    raise ValueError(f"square {number} is listed twice in {fen!r}")
                board[row, col] = sign * (2 if king else 1)
    return board, player


# A king mark, a square number, and the last square of a range: ASCII digits only, no spaces or
# underscores inside (which int() would read: "1_2" as 12, "١" as 1).
_ITEM = re.compile(r"([Kk]?)([0-9]{1,3})(?:\s*-\s*([0-9]{1,3}))?", re.ASCII)


def _strip_tag(fen: str) -> str:
    text = fen.strip()
    if text.startswith("["):
        text = text.strip("[]").strip()
        if text.upper().startswith("FEN"):
            text = text[3:].strip()
    return text.strip('"').strip().rstrip(".")


def _square_numbers(first: str, last: str | None, n: int) -> range:
    start = int(first)
    stop = start if last is None else int(last)
    for number in (start, stop):
        square_position(number, n)  # raises for numbers off the board
    if stop < start:
        raise ValueError(f"the range {first}-{last} runs backwards; write {last}-{first}")
    return range(start, stop + 1)


def state_to_fen(state) -> str:
    """FEN of one (unbatched) game state."""
    return board_to_fen(absolute_board(state), int(state.current_player))


def state_from_fen(env, fen: str):
    """A validated game state of `env` starting from the position written in `fen`."""
    board, player = fen_to_board(fen, env.board_size)
    return from_board(env, board, player=player)
