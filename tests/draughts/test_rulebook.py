"""The positions of the international rules' own articles, with the moves the rules allow in each.

The positions and their legal moves are those of the FFJD's French tutorial of the FMJD rules and
the FID's Italian translation of the official rules, as rhalbersma/dctl's rule-book tests collect
them (test/src/actions/rulebook/international.cpp), each with its article. A move is compared as
(start, end, capture or not): that is how the rule book writes them.
"""

from __future__ import annotations

import pytest

import jaxcheckers
from jaxcheckers import games
from jaxcheckers.draughts.notation import routes

ENV = jaxcheckers.make("draughts")

RULEBOOK = [
    # (the rules' article, FEN, the legal moves)
    ("3.4 a man moves forward (White)", "W:W28", "28-22 28-23"),
    ("3.4 a man moves forward (Black)", "B:B13", "13-18 13-19"),
    (
        "3.9 a king flies",
        "W:WK28",
        "28-22 28-17 28-11 28-6 28-23 28-19 28-14 28-10 28-5 "
        "28-32 28-37 28-41 28-46 28-33 28-39 28-44 28-50",
    ),
    ("3.9 a king flies from the corner", "B:BK1", "1-6 1-7 1-12 1-18 1-23 1-29 1-34 1-40 1-45"),
    (
        "3.9 a king flies (Italian text)",
        "W:WK23",
        "23-18 23-12 23-7 23-1 23-19 23-14 23-10 23-5 23-28 23-32 23-37 23-41 23-46 "
        "23-29 23-34 23-40 23-45",
    ),
    ("4.2 a man captures", "W:W28,32:B23", "28x19"),
    ("4.2 a man captures forward and backward", "W:W35:B30,K40", "35x24 35x44"),
    (
        "4.3 a king captures from afar, landing anywhere behind",
        "W:WK46:B23",
        "46x19 46x14 46x10 46x5",
    ),
    ("4.3 a king captures from afar (Italian text)", "W:WK41:B23", "41x19 41x14 41x10 41x5"),
    ("4.5 a man captures on", "W:W15:B8,19,20", "15x2"),
    ("4.5 a man captures on (Italian text)", "W:W47:B13,14,22,24,31,34,K41,44", "47x49"),
    ("4.6 a king captures on", "W:WK47:B9,12,33", "47x17 47x21 47x26"),
    ("4.6 a king captures on (Italian text)", "W:WK1:B7,9,17,19,20,30,31,33,43,44", "1x15"),
    ("4.8 several captures", "W:WK41,49:B9,10,12,19,38", "41x43"),
    ("4.8 pieces leave the board when the capture ends", "B:W27,28,38,39,42:BK25", "25x33"),
    ("4.13 the capture taking the most pieces", "W:W48:B24,K31,34,K42,43", "48x19"),
    ("4.13 the most pieces (Italian text)", "W:WK48:B7,8,31,34,K42,44", "48x50"),
    ("4.14 kings count as one piece", "W:W26:B12,K21,31,32", "26x8 26x28"),
    ("4.15 a man passing the last row mid-capture stays a man", "W:W15:B9,10", "15x13"),
]


def moves_of(fen: str) -> set[tuple[int, int, bool]]:
    """(start, end, captures) of each legal move of the position `fen`."""
    state = games.spec("draughts").notation.from_fen(fen)
    return {(route.path[0], route.path[-1], bool(route.taken)) for route in routes(ENV, state)}


def written(moves: str) -> set[tuple[int, int, bool]]:
    out = set()
    for move in moves.split():
        separator = "x" if "x" in move else "-"
        start, end = move.split(separator)
        out.add((int(start), int(end), separator == "x"))
    return out


@pytest.mark.parametrize("article, fen, legal", RULEBOOK, ids=[row[0] for row in RULEBOOK])
def test_the_rule_books_positions_have_its_moves(article, fen, legal):
    assert moves_of(fen) == written(legal), article


def test_a_man_that_passes_the_last_row_mid_capture_ends_as_a_man():  # Art. 4.15
    state = games.spec("draughts").notation.from_fen("W:W15:B9,10")
    (route,) = routes(ENV, state)
    for action in route.actions:
        state = ENV.step(state, action)
    assert route.path == [15, 4, 13] and route.taken == {9, 10}
    assert games.spec("draughts").notation.to_fen(state) == "B:W13:B"  # a man on 13, not K13
