"""Positions as FEN strings and moves as UCI strings, both ways (host-side helpers).

    state = state_from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    action = uci_to_action(state, "e1g1")
    chess_fen(env.step(state, action))

FEN is validated: anything malformed or impossible (a side without exactly one king, pawns on
the first or last rank, the side not to move in check, castling rights without the king and rook
at home, an en-passant square without the pawn that just made a double push) raises ValueError.
`chess_fen` prints the en-passant square only where an en-passant capture is legal, as
python-chess's `Board.fen()` does.
"""

from __future__ import annotations

import functools
import re

import jax
import numpy as np

from jaxcheckers.chess import bitboard as bb
from jaxcheckers.chess import rules, tables
from jaxcheckers.chess.rules import Position
from jaxcheckers.core import one_game

CLOCK_DIGITS = 6  # clocks up to 999,999: far past any game, far inside an int32

__all__ = [
    "parse_fen",
    "chess_fen",
    "uci_to_action",
    "action_to_uci",
    "uci_on_board",
    "absolute_board",
    "position_board",
    "square_name",
]

FILES = "abcdefgh"
CASTLING_SQUARES = {"K": (4, 7), "Q": (4, 0), "k": (60, 63), "q": (60, 56)}  # king, rook


def square_name(square: int) -> str:
    return FILES[square % 8] + str(square // 8 + 1)


def _square_of(name: str) -> int:
    if len(name) != 2 or name[0] not in FILES or name[1] not in "12345678":
        raise ValueError(f"not a square: {name!r}")
    return (int(name[1]) - 1) * 8 + FILES.index(name[0])


def parse_fen(fen: str) -> tuple[Position, int, int, int]:
    """(position in the mover's frame (numpy), player to move, halfmove clock, fullmove number).

    Raises ValueError, with the reason in one line, for a malformed or impossible FEN.
    """
    if not isinstance(fen, str):
        raise ValueError(f"a FEN is a string, got {type(fen).__name__}")
    fields = fen.split()
    if len(fields) not in (4, 6):
        raise ValueError(
            f"a FEN has 6 fields (or 4, without the clocks), got {len(fields)}: {fen!r}"
        )
    placement, side, castling, ep = fields[:4]
    board = {}  # absolute square -> piece letter
    ranks = placement.split("/")
    if len(ranks) != 8:
        raise ValueError(f"the board has 8 ranks separated by '/', got {len(ranks)}: {placement!r}")
    for row, text in enumerate(ranks):
        rank, file = 7 - row, 0
        if re.search("[1-8]{2}", text):
            raise ValueError(f"two digits in a row in rank {rank + 1}: {text!r}")
        for char in text:
            if char in "12345678":
                file += int(char)
            elif char.lower() in tables.PIECES:
                if file < 8:
                    board[rank * 8 + file] = char
                file += 1
            else:
                raise ValueError(f"unknown piece {char!r} in rank {rank + 1}: {text!r}")
        if file != 8:
            raise ValueError(f"rank {rank + 1} has {file} squares, not 8: {text!r}")
    for colour, king in (("white", "K"), ("black", "k")):
        kings = sum(piece == king for piece in board.values())
        if kings != 1:
            raise ValueError(f"{colour} has {kings} kings; each side has exactly one")
    _check_material(board)
    for square, piece in board.items():
        if piece in "Pp" and square // 8 in (0, 7):
            raise ValueError(f"a pawn on the first or last rank ({square_name(square)})")
    if side not in ("w", "b"):
        raise ValueError(f"the side to move is 'w' or 'b', got {side!r}")
    player = 0 if side == "w" else 1

    rights = {}
    if castling != "-":
        if len(set(castling)) != len(castling) or not set(castling) <= set("KQkq"):
            raise ValueError(f"castling rights are '-' or some of 'KQkq' once each: {castling!r}")
        for right in castling:
            king_square, rook_square = CASTLING_SQUARES[right]
            king, rook = ("K", "R") if right.isupper() else ("k", "r")
            if board.get(king_square) != king or board.get(rook_square) != rook:
                raise ValueError(
                    f"castling right {right!r} needs the king on {square_name(king_square)} "
                    f"and the rook on {square_name(rook_square)}"
                )
            rights[right] = True

    ep_square = -1
    if ep != "-":
        ep_square = _square_of(ep)
        rank = 5 if player == 0 else 2
        pawn, behind = (
            (ep_square - 8, ep_square + 8) if player == 0 else (ep_square + 8, ep_square - 8)
        )
        if (
            ep_square // 8 != rank
            or board.get(pawn) != ("p" if player == 0 else "P")
            or ep_square in board
            or behind in board
        ):
            raise ValueError(
                f"en-passant square {ep!r} is not the square behind a pawn that just moved two"
            )

    halfmove, fullmove = 0, 1
    if len(fields) == 6:
        if not all(re.fullmatch(f"[0-9]{{1,{CLOCK_DIGITS}}}", clock) for clock in fields[4:]):
            raise ValueError(
                f"the clocks are whole numbers of at most {CLOCK_DIGITS} digits 0-9: "
                f"{fields[4]!r} {fields[5]!r}"
            )
        halfmove, fullmove = int(fields[4]), int(fields[5])
        if halfmove < 0 or fullmove < 1:
            raise ValueError(
                f"halfmove clock ≥ 0 and fullmove number ≥ 1, got {halfmove} {fullmove}"
            )

    position = _position(board, player, rights, ep_square)
    if _in_check(_position(board, 1 - player, rights, -1)):
        raise ValueError("the side not to move is in check")
    return position, player, halfmove, fullmove


def _check_material(board: dict) -> None:
    """ValueError for more pieces than a side can have: 16 at most, 8 pawns at most, and each
    queen, rook, bishop or knight beyond the start's a promoted pawn (python-chess's checks)."""
    for colour, pieces in (("white", "PNBRQ"), ("black", "pnbrq")):
        count = {piece: sum(p == piece for p in board.values()) for piece in pieces}
        pawn, knight, bishop, rook, queen = (count[p] for p in pieces)
        promoted = max(0, queen - 1) + max(0, rook - 2) + max(0, bishop - 2) + max(0, knight - 2)
        total = sum(count.values()) + 1  # and its king
        if total > 16 or pawn > 8 or pawn + promoted > 8:
            raise ValueError(
                f"{colour} has more pieces than a side can have ({total} pieces, {pawn} pawns, "
                f"{promoted} promoted)"
            )


def _position(board: dict, player: int, rights: dict, ep_square: int) -> Position:
    flip = 56 if player else 0
    pieces = [0] * 6
    own = 0
    for square, piece in board.items():
        s = square ^ flip
        pieces[tables.PIECES.index(piece.lower())] |= 1 << s
        if piece.isupper() == (player == 0):
            own |= 1 << s
    mine, theirs = ("K", "Q"), ("k", "q")
    if player:
        mine, theirs = theirs, mine
    castling = np.array([r in rights for r in (*mine, *theirs)], bool)
    return Position(
        pieces=np.stack([bb.from_int(b) for b in pieces]),
        own=bb.from_int(own),
        castling=castling,
        ep=np.int32(ep_square ^ flip if ep_square >= 0 else -1),
    )


def _in_check(position: Position) -> bool:
    return bool(_jitted_moves()(position).in_check)


@functools.cache
def _jitted_moves():
    return jax.jit(rules.legal_moves)


def absolute_board(state) -> dict[int, str]:
    """{absolute square: piece letter (upper case white)} of one (unbatched) state."""
    one_game(state, "chess")
    return position_board(state.position, int(state.current_player))


def position_board(position, player: int) -> dict[int, str]:
    """`absolute_board` of a state's `position` with `player` to move."""
    flip = 56 if player else 0
    own = bb.to_int(position.own)
    pieces = np.asarray(position.pieces)
    board = {}
    for kind in range(6):
        mask = bb.to_int(pieces[kind])
        letter = tables.PIECES[kind]
        while mask:  # its set squares, lowest first
            s = (mask & -mask).bit_length() - 1
            mask &= mask - 1
            white = bool(own >> s & 1) == (player == 0)
            board[s ^ flip] = letter.upper() if white else letter
    return board


def chess_fen(state) -> str:
    """The FEN of one (unbatched) state; the en-passant square only where a capture is legal."""
    board = absolute_board(state)
    rows = []
    for rank in range(7, -1, -1):
        text, gap = "", 0
        for file in range(8):
            piece = board.get(rank * 8 + file)
            if piece is None:
                gap += 1
                continue
            text += (str(gap) if gap else "") + piece
            gap = 0
        rows.append(text + (str(gap) if gap else ""))
    player = int(state.current_player)
    own_k, own_q, opp_k, opp_q = (bool(x) for x in np.asarray(state.position.castling))
    white = (own_k, own_q) if player == 0 else (opp_k, opp_q)
    black = (opp_k, opp_q) if player == 0 else (own_k, own_q)
    castling = "".join(c for c, on in zip("KQkq", (*white, *black), strict=True) if on) or "-"
    ep = int(state.position.ep)
    ep_text = square_name(ep ^ (56 if player else 0)) if ep >= 0 and bool(state.ep_legal) else "-"
    side = "wb"[player]
    return (
        f"{'/'.join(rows)} {side} {castling} {ep_text} "
        f"{int(state.halfmove_clock)} {int(state.fullmove_number)}"
    )


def _legal(state, action: int) -> bool:
    over = bool(state.terminated) or bool(state.truncated)
    index = int(action)
    words = np.asarray(state.legal_action_bits)
    return not over and bool(words[index // 32] >> (index % 32) & 1)


def uci_to_action(state, uci: str) -> int:
    """The action of UCI move `uci` (e.g. "e2e4", "e7e8q", "e1g1") in one (unbatched) state.

    Raises ValueError for a malformed or illegal move.
    """
    if not isinstance(uci, str) or len(uci) not in (4, 5):
        raise ValueError(f"a UCI move is like 'e2e4' or 'e7e8q', got {uci!r}")
    frm, to = _square_of(uci[:2]), _square_of(uci[2:4])
    promotion = uci[4:]
    if promotion and promotion not in "nbrq":
        raise ValueError(f"a promotion is one of n, b, r, q: {uci!r}")
    player = int(state.current_player)
    flip = 56 if player else 0
    frm, to = frm ^ flip, to ^ flip
    board = absolute_board(state)
    piece = board.get(frm ^ flip, "")
    promotes = piece.lower() == "p" and to // 8 == 7
    if promotes != bool(promotion):
        raise ValueError(f"illegal move {uci!r}: a promotion names its piece, no other move does")
    under = 0 if promotion in ("", "q") else tables.PIECES.index(promotion)
    action = tables.action_of(frm, to, under)
    if action < 0 or not _legal(state, action):
        raise ValueError(f"illegal move {uci!r} in {chess_fen(state)}")
    return action


def action_to_uci(state, action: int) -> str:
    """The UCI string of `action` in one (unbatched) state (legal or not, if it is on the board).

    Raises ValueError for an action outside 0–4671 or one that leaves the board.
    """
    action = int(action)
    if not 0 <= action < tables.NUM_ACTIONS or tables.TO_SQUARE[action] < 0:
        raise ValueError(f"action {action} is no move on the board")
    return uci_on_board(absolute_board(state), int(state.current_player), action)


def uci_on_board(board: dict[int, str], player: int, action: int) -> str:
    """`action_to_uci` of an action that is on the board, from the position's `absolute_board`
    and the player to move: one board serves every move of a position."""
    flip = 56 if player else 0
    frm, to = int(tables.FROM_SQUARE[action]), int(tables.TO_SQUARE[action])
    under = int(tables.UNDER[action])
    piece = board.get(frm ^ flip, "")
    promotion = ""
    if under:
        promotion = tables.PIECES[under]
    elif piece.lower() == "p" and to // 8 == 7:
        promotion = "q"
    return square_name(frm ^ flip) + square_name(to ^ flip) + promotion
