"""Checkers' whole moves against an outside library on crowded random boards: py-draughts'
AmericanBoard (a test-only dependency, the `dev` extra), where random games seldom go (kings
of both sides, multi-jumps that branch).

py-draughts 1.10 lists a position's plain moves beside its captures (it leaves the compulsory
capture to its caller: `W:W18,30:B14` gives 18-15, 30-26, 30-25 and 18x9), so where it lists a
capture only its captures are compared."""

from __future__ import annotations

import numpy as np
import pytest

import jaxcheckers
from jaxcheckers import games
from jaxcheckers.checkers.notation import _whole_moves

SQUARES, MEN_PER_SIDE = 32, 12


def crowded_fens(count: int, seed: int) -> list[str]:
    """PDN FENs of random 8×8 boards, three squares in five taken by men and kings of both
    sides (at most 12 a side, no man on the row it would be crowned on), either side to move."""
    rng = np.random.default_rng(seed)
    fens = []
    for _ in range(count):
        taken = rng.random(SQUARES) < 0.6
        kinds = rng.choice(["w", "W", "b", "B"], size=SQUARES, p=[0.35, 0.15, 0.35, 0.15])
        pieces = {s + 1: k for s in np.flatnonzero(taken) for k in [kinds[s]]}
        pieces = {
            s: k for s, k in pieces.items() if not (k == "w" and s <= 4 or k == "b" and s > 28)
        }
        for side in "wb":
            mine = [s for s, k in pieces.items() if k.lower() == side]
            for s in rng.permutation(mine)[MEN_PER_SIDE:]:
                del pieces[int(s)]

        def listed(side: str, pieces=pieces) -> str:
            return ",".join(
                ("K" if k.isupper() else "") + str(s)
                for s, k in sorted(pieces.items())
                if k.lower() == side
            )

        fens.append(f"{rng.choice(['W', 'B'])}:W{listed('w')}:B{listed('b')}")
    return fens


def their_moves(fen: str) -> set[str]:
    draughts = pytest.importorskip("draughts")
    board = draughts.AmericanBoard.from_fen(fen)
    moves = {
        ("x" if move.captured_list else "-").join(str(s + 1) for s in move.square_list)
        for move in board.legal_moves
    }
    captures = {move for move in moves if "x" in move}
    return captures or moves


def test_crowded_boards_match_py_draughts_american_board():
    env, notation = jaxcheckers.make("checkers"), games.spec("checkers").notation
    captures = long_ = 0
    for fen in crowded_fens(100, seed=0):
        theirs = their_moves(fen)
        listing = _whole_moves(env, notation.from_fen(fen), limit=10_000, hop_limit=100_000)
        assert listing.complete and set(listing.moves) == theirs, fen
        captures += any("x" in move for move in theirs)
        long_ += any(move.count("x") >= 2 for move in theirs)
    assert captures > 70 and long_ > 10  # the boards reach captures, and multi-jumps
