"""A text board of one chess state: rank 8 at the top, white in upper case, as python-chess
prints a board, with the side to move below."""

from __future__ import annotations

from jaxcheckers.chess.fen import absolute_board, chess_fen

__all__ = ["render"]


def render(state) -> str:
    """The board of one (unbatched) state as text, and its FEN."""
    board = absolute_board(state)
    rows = []
    for rank in range(7, -1, -1):
        cells = " ".join(board.get(rank * 8 + file, ".") for file in range(8))
        rows.append(f"{rank + 1} {cells}")
    rows.append("  a b c d e f g h")
    rows.append(chess_fen(state))
    return "\n".join(rows)
