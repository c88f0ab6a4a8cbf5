"""Text for people: a board they can read, and legal moves in standard checkers notation.

Squares are numbered as on a printed board: the dark squares row by row from the top, starting at
1 (8×8: black's men start on 1–12, white's on 21–32). A simple move is written `11-15`, one hop of a
capture `15x22`.
"""

from __future__ import annotations

import numpy as np

from jaxcheckers.checkers import rules
from jaxcheckers.checkers.frames import absolute_board
from jaxcheckers.checkers.positions import CHAR_OF_PIECE

PLAYER_NAMES = ("black", "white")
UNICODE_PIECES = {0: "·", 1: "⛂", 2: "⛃", -1: "⛀", -2: "⛁"}


def square_number(row: int, col: int, n: int) -> int:
    """The printed number (1-based) of the dark square (row, col)."""
    return row * (n // 2) + col // 2 + 1


def square_position(number: int, n: int) -> tuple[int, int]:
    """(row, col) of printed square `number`; the inverse of `square_number`."""
    if not 1 <= number <= n * n // 2:
        raise ValueError(f"square numbers run from 1 to {n * n // 2}, got {number}")
    row, offset = divmod(number - 1, n // 2)
    return row, 2 * offset + (1 - row % 2)


def action_squares(state, action: int) -> tuple[tuple[int, int], tuple[int, int], bool]:
    """Absolute (from, to) squares of `action` in `state`, and whether it is a capture."""
    n = state.board_size
    board = np.asarray(state.board)
    square, direction = divmod(int(action), n * n)[::-1]
    row, col = divmod(square, n)
    dr, dc = rules.DIRECTIONS[direction]
    near = (row + dr) * n + (col + dc)
    capture = 0 <= row + dr < n and 0 <= col + dc < n and board[near] < 0
    distance = 2 if capture else 1
    to = (row + distance * dr, col + distance * dc)
    if int(state.current_player) == 1:  # the mover's frame is the board turned around
        row, col, to = n - 1 - row, n - 1 - col, (n - 1 - to[0], n - 1 - to[1])
    return (row, col), to, bool(capture)


def describe_action(state, action: int) -> str:
    """`11-15` or `15x22` for one legal action of `state`."""
    n = state.board_size
    start, end, capture = action_squares(state, action)
    sep = "x" if capture else "-"
    return f"{square_number(*start, n)}{sep}{square_number(*end, n)}"


def continue_move(move: str, hop: str) -> str:
    """A capture in progress written on by one more hop: "15x22" and "22x29" make "15x22x29"."""
    return f"{move}x{hop.split('x')[1]}"


def write_hop(moves: list[str], movers: list[int], state, action: int) -> None:
    """Writes the hop `action` of `state` down as a person does: a new whole move, or the next
    square of the capture already under way (`moves`, `movers` are extended in place)."""
    text = describe_action(state, action)
    if int(state.jumper) >= 0 and moves:
        moves[-1] = continue_move(moves[-1], text)
    else:
        moves.append(text)
        movers.append(int(state.current_player))


def legal_moves(state) -> list[tuple[int, str]]:
    """(action, notation) of every legal action of an unbatched state, in action order."""
    actions = np.flatnonzero(np.asarray(state.legal_action_mask))
    return [(int(a), describe_action(state, a)) for a in actions]


def status_line(state) -> str:
    player = int(state.current_player)
    if bool(state.truncated):
        return "game cut at the step limit"
    if bool(state.terminated):
        # The result is read from the rewards of the step that ended the game.
        rewards = np.asarray(state.rewards)
        if rewards[0] == rewards[1]:
            return "game over: draw"
        winner = int(np.argmax(rewards))
        return f"game over: {PLAYER_NAMES[winner]} (player {winner}) wins"
    text = f"{PLAYER_NAMES[player]} (player {player}) to move"
    if int(state.jumper) >= 0:
        n = int(round(len(state.board) ** 0.5))
        square = int(state.jumper) if player == 0 else n * n - 1 - int(state.jumper)
        text += f", continuing the capture with the piece on {square_number(*divmod(square, n), n)}"
    return text


def render_text(state, *, unicode: bool = False) -> str:
    """The board of one state (absolute view, black at the top) with a status line."""
    board = absolute_board(state)
    n = board.shape[0]
    pieces = UNICODE_PIECES if unicode else CHAR_OF_PIECE
    header = "   " + " ".join(f"{c}" for c in "abcdefghijklmnop"[:n])
    lines = [header]
    for row in range(n):
        cells = []
        for col in range(n):
            value = int(board[row, col])
            dark = (row + col) % 2 == 1
            cells.append(pieces[value] if dark else " ")
        lines.append(f"{row:>2} " + " ".join(cells))
    lines.append(status_line(state))
    return "\n".join(lines)
