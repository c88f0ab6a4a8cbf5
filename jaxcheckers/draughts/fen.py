"""Draughts positions as PDN FEN (`W:W31-50:B1-20`): read and write.

The first field is the side to move (W White = player 0, B Black = player 1); then one field per
colour listing its squares (FMJD numbers, 1–50 on 10×10, 1–32 on 8×8), a K before a king, ranges
`31-50` read too. A position mid-capture has no FEN (the notation knows whole moves only).
"""

from __future__ import annotations

import re

import numpy as np

from jaxcheckers.core import one_game
from jaxcheckers.draughts import rules

__all__ = ["board_to_fen", "fen_to_board", "state_to_fen", "state_from_fen", "absolute_board"]

COLOURS = ("W", "B")  # player 0 (moves first), player 1
_ITEM = re.compile(r"([Kk]?)\s*([0-9]{1,2})(?:\s*-\s*([0-9]{1,2}))?", re.ASCII)


def board_to_fen(board: np.ndarray, player: int) -> str:
    """FEN of an absolute board (int8 (S,), White's frame: +1/+2 White, −1/−2 Black)."""
    if player not in (0, 1) or isinstance(player, (bool, np.bool_)):
        raise ValueError(f"the player to move is 0 (White) or 1 (Black), got {player!r}")
    fields = [COLOURS[player]]
    for colour, sign in (("W", 1), ("B", -1)):
        items = [
            ("K" if abs(int(v)) == 2 else "") + str(s + 1)
            for s, v in enumerate(np.asarray(board))
            if np.sign(v) == sign
        ]
        fields.append(colour + ",".join(items))
    return ":".join(fields)


def fen_to_board(fen: str, squares: int = 50) -> tuple[np.ndarray, int]:
    """(absolute int8 (S,) board, player to move) of a FEN; ValueError saying what is wrong
    (a malformed FEN, a man on its own promotion row, more pieces than a side starts with)."""
    if not isinstance(fen, str):
        raise ValueError(f"a FEN is a string, got {type(fen).__name__}")
    text = fen.strip()
    if text.startswith("[") and text.endswith("]"):  # the whole tag, [FEN "..."]
        text = text[1:-1].strip()
        if text.upper().startswith("FEN"):
            text = text[3:].strip()
    text = text.strip('"').strip().rstrip(".")
    fields = [field.strip() for field in text.split(":") if field.strip()]
    if not fields or fields[0].upper() not in COLOURS:
        raise ValueError(f"a FEN starts with the side to move, W or B: {fen!r}")
    player = COLOURS.index(fields[0].upper())
    board = np.zeros(squares, np.int8)
    seen = set()
    for field in fields[1:]:
        colour = field[0].upper()
        if colour not in COLOURS or colour in seen:
            raise ValueError(f"each piece list starts with W or B, once each: {field!r}")
        seen.add(colour)
        sign = 1 if colour == "W" else -1
        for item in field[1:].split(","):
            item = item.strip()
            if not item:
                continue
            match = _ITEM.fullmatch(item)
            if not match:
                raise ValueError(f"{item!r} is not a square (1 to {squares}), a range or a king")
            first = int(match.group(2))
            last = first if match.group(3) is None else int(match.group(3))
            if not (1 <= first <= last <= squares):
                raise ValueError(f"{item!r}: squares run from 1 to {squares}, ranges upward")
            for number in range(first, last + 1):
                if board[number - 1]:
                    raise ValueError(f"square {number} is listed twice in {fen!r}")
                board[number - 1] = sign * (2 if match.group(1) else 1)
    half = int(round((2 * squares) ** 0.5)) // 2
    most = (half - 1) * half  # a side's pieces at the start; the move search holds no more
    for colour, sign in (("White", 1), ("Black", -1)):
        if (np.sign(board) == sign).sum() > most:
            raise ValueError(f"{colour} has more than {most} pieces")
    # White's men move toward the first row (squares 1 to half), Black's toward the last.
    if (board[:half] == 1).any() or (board[-half:] == -1).any():
        raise ValueError("a man stands on its own promotion row: it would be a king")
    return board, player


def absolute_board(state) -> np.ndarray:
    """int8 (S,): one state's board in White's frame (taken pieces still on it)."""
    one_game(state, "draughts")
    board = np.asarray(state.board)
    return board if int(state.current_player) == 0 else -board[::-1]


def state_to_fen(state) -> str:
    """FEN of one (unbatched) state at the start of a move."""
    board = absolute_board(state)  # ValueError unless one draughts game
    if int(state.jumper) >= 0:
        raise ValueError("a position mid-capture has no FEN; finish the move first")
    return board_to_fen(board, int(state.current_player))


def state_from_fen(env, fen: str):
    """A state of `env` from the position `fen`, validated."""
    lay: rules.Layout = env.layout
    board, player = fen_to_board(fen, lay.squares)
    relative = board if player == 0 else -board[::-1]
    return env.start_on_host(relative, player)
