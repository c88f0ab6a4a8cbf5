"""Checkers as people write it: the board in a terminal, moves typed and listed.

    parse_move(env, state, "15x22x29")      # [hop, hop]: the actions of a whole move
    legal_moves_text(env, state)            # "legal moves: 9-13, 9-14, ..."
"""

from __future__ import annotations

import re
from typing import NamedTuple

import jax.numpy as jnp
import numpy as np

from jaxcheckers import records
from jaxcheckers.checkers.frames import absolute_board
from jaxcheckers.checkers.pdn import hops_of_move
from jaxcheckers.checkers.render import continue_move, describe_action, legal_moves, square_number
from jaxcheckers.core import compiled_step

__all__ = [
    "board_lines",
    "parse_move",
    "move_name",
    "mid_move",
    "legal_moves_text",
    "MOVE_LIST_LIMIT",
    "HOP_SEARCH_LIMIT",
    "HELP",
]

HELP = "type a move like 11-15 or 15x22 (multi-jumps 15x22x29), or row,col pairs like 2,5 3,4"

PIECES_UNICODE = {1: "●", 2: "♛", -1: "○", -2: "♕"}
PIECES_ASCII = {1: "b", 2: "B", -1: "w", -2: "W"}
DARK, RESET, DIM = "\033[42m", "\033[0m", "\033[2m"
INK = {1: "\033[1;30m", -1: "\033[1;97m"}


def board_lines(state, *, unicode: bool = True, colour: bool = False) -> list[str]:
    """The board as a person sees it: black at the top, empty dark squares show their number."""
    board = absolute_board(state)
    n = board.shape[0]
    pieces = PIECES_UNICODE if unicode else PIECES_ASCII
    width = len(str(n * n // 2)) + 1
    lines = ["    " + "".join(f"{col:>{width}}" for col in range(n))]
    for row in range(n):
        cells = []
        for col in range(n):
            value = int(board[row, col])
            if (row + col) % 2 == 0:
                cell = " " * width
            elif value:
                cell = f"{pieces[value]:>{width}}"
                if colour:
                    cell = INK[int(np.sign(value))] + cell + RESET + DARK
            else:
                number = f"{square_number(row, col, n):>{width}}"
                cell = DIM + number + RESET + DARK if colour else number
            cells.append(DARK + cell + RESET if colour else cell)
        lines.append(f"{row:>3} " + "".join(cells))
    return lines


_PAIR = re.compile(r"\(?\s*(\d+)\s*,\s*(\d+)\s*\)?")


def parse_move(env, state, text: str) -> list[int]:
    """The hop actions of the move `text` (`11-15`, `15x22x29`, its ends `15x29`, one hop of a
    capture, or row,col pairs `2,5 3,4`); ValueError with a short reason."""
    command = text.strip().lower()
    notation = _pairs_to_notation(command, env.board_size) if "," in command else command
    notation = notation.replace(" ", "").replace("×", "x")
    if not re.fullmatch(r"\d+([-x]\d+)+", notation):
        raise ValueError(f"could not read {text.strip()!r}")
    try:
        return hops_of_move(env, state, notation)
    except ValueError:
        pass
    # One hop of a longer capture, typed hop by hop.
    for action, hop_text in legal_moves(state):
        if hop_text == notation:
            return [action]
    raise ValueError(f"{notation} is not legal here")


def move_name(env, state, action: int) -> str:
    """The legal hop `action` as written: `11-15`, or `15x22` for one hop of a capture;
    ValueError for an action that is not legal here."""
    if not records.is_legal(state, int(action), env.num_actions):
        raise ValueError(f"action {action} is not legal in this position")
    return describe_action(state, action)


def mid_move(state) -> bool:
    """A capture is under way: the same piece must jump again."""
    return int(state.jumper) >= 0


def _pairs_to_notation(text: str, n: int) -> str:
    pairs = _PAIR.findall(text)
    leftover = _PAIR.sub("", text).replace("-", "").replace("x", "").replace(" ", "")
    if len(pairs) < 2 or leftover:
        raise ValueError(f"could not read {text.strip()!r} as row,col pairs")
    squares = []
    for row_text, col_text in pairs:
        row, col = int(row_text), int(col_text)
        if not (0 <= row < n and 0 <= col < n) or (row + col) % 2 == 0:
            raise ValueError(f"({row},{col}) is not a dark square of the {n}x{n} board")
        squares.append((row, col))
    capture = abs(squares[1][0] - squares[0][0]) == 2
    return ("x" if capture else "-").join(str(square_number(r, c, n)) for r, c in squares)


# `?` lists whole moves up to these bounds; beyond them (many kings with branching captures on a
# big board: 37,831 whole moves on one 14×14 position) it lists the legal hops instead.
MOVE_LIST_LIMIT = 60  # whole moves listed at most
HOP_SEARCH_LIMIT = 400  # hops stepped while looking for them


class WholeMoves(NamedTuple):
    moves: list[str]  # as a person writes them, in action order
    complete: bool  # every whole move is in `moves`
    hops_stepped: int  # how many hops the search played (its cost)


def _whole_moves(
    env, state, limit: int = MOVE_LIST_LIMIT, hop_limit: int = HOP_SEARCH_LIMIT
) -> WholeMoves:
    """Legal moves as a person writes them: whole capture sequences where there are captures.

    Stops early, rather than enumerating and truncating, once it has found more than `limit`
    moves or stepped `hop_limit` hops: capture sequences can branch exponentially.
    """
    step = compiled_step(env)
    found: list[str] = []
    stepped = 0

    def extend(current, prefix) -> bool:  # False: stopped at a bound
        nonlocal stepped
        for action, text in legal_moves(current):
            written = text if prefix is None else continue_move(prefix, text)
            if "x" not in text:  # a simple move: it ends the turn, no need to play it
                found.append(written)
            else:
                if stepped >= hop_limit:
                    return False
                stepped += 1
                after = step(current, jnp.int32(action))
                if int(after.jumper) >= 0:
                    if not extend(after, written):
                        return False
                else:
                    found.append(written)
            if len(found) > limit:
                return False
        return True

    complete = extend(state, None)
    return WholeMoves(found, complete, stepped)


def legal_moves_text(env, state) -> str:
    """What `?` prints: the whole moves, or the legal hops where they are too many to list."""
    listing = _whole_moves(env, state)
    if listing.complete:
        return "legal moves: " + ", ".join(sorted(listing.moves, key=records.squares_of))
    hops = ", ".join(text for _, text in legal_moves(state))
    return (
        f"more than {len(listing.moves)} whole moves (the captures branch too much to list them);"
        f" legal hops: {hops}; play a capture one hop at a time"
    )
