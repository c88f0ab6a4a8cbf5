"""The three-move ballots: the American Checker Federation's 156-opening deck for 8×8 checkers.

    deck(env)          # OpeningDeck: 156 names, and each ballot's hop actions [156, K]
    BALLOTS[119]       # Ballot(number=120, moves="11-15 22-18 15x22")

In tournament checkers the first three moves (black, white, black) are drawn from a deck and each
opening is played twice, the players swapping colours. The ACF numbers 174 three-move openings
(1 to 174 below, in its order); 18 of them are barred as losing, and the other 156 make the deck.
It was 144 openings until the ACF added 12 ballots long played by mail (marked 2003 below) at the
2003 U.S. Nationals; see usacheckers.com/156openingdeck.php and
usacheckers.com/computingopeningrankings.php. The list and its barred entries were checked
against two engines' copies, which agree move for move: CheckerBoard's `three_move_table`
(Fierz and Gilbert, utility.c: OP_CROSSBOARD and OP_MAILPLAY entries) and Milhouse's
`acf-openings.c` (VandeWettering: DECK_NORMAL and DECK_NEW).

Squares are the standard PDN numbers, which the env's notation uses too: black (player 0) moves
first, from squares 1-12. Every ballot is legal from the start (tests/checkers/test_ballots.py
plays them).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from jaxcheckers.checkers.pdn import hops_of_move
from jaxcheckers.core import compiled_step
from jaxcheckers.games import OpeningDeck, opening, shared_env

__all__ = ["Ballot", "ACF_OPENINGS", "BALLOTS", "BARRED", "deck", "DECK_GAMES"]


class Ballot(NamedTuple):
    number: int  # the ACF's number, 1 to 174
    moves: str  # black, white, black, in PDN: "11-15 22-18 15x22"

    @property
    def name(self) -> str:
        return f"ACF {self.number}: {self.moves}"


# number, moves; "barred": left out of the deck as losing; "2003": added to the deck in 2003.
_TABLE = """
  1  9-13 21-17 5-9
  2  9-13 21-17 6-9
  3  9-13 21-17 10-14 barred
  4  9-13 22-17 13x22
  5  9-13 22-18 6-9
  6  9-13 22-18 10-14 2003
  7  9-13 22-18 10-15
  8  9-13 22-18 11-15
  9  9-13 22-18 11-16 2003
 10  9-13 22-18 12-16
 11  9-13 23-18 5-9
 12  9-13 23-18 6-9
 13  9-13 23-18 10-14 barred
 14  9-13 23-18 10-15
 15  9-13 23-18 11-15
 16  9-13 23-18 11-16 2003
 17  9-13 23-18 12-16
 18  9-13 23-19 5-9
 19  9-13 23-19 6-9
 20  9-13 23-19 10-14
 21  9-13 23-19 10-15 2003
 22  9-13 23-19 11-16
 23  9-13 24-19 5-9
 24  9-13 24-19 6-9
 25  9-13 24-19 10-14
 26  9-13 24-19 10-15 barred
 27  9-13 24-19 11-15
 28  9-13 24-19 11-16
 29  9-13 24-20 5-9
 30  9-13 24-20 6-9
 31  9-13 24-20 10-14
 32  9-13 24-20 10-15
 33  9-13 24-20 11-15
 34  9-13 24-20 11-16 2003
 35  9-13 24-20 12-16 barred
 36  9-14 22-17 5-9
 37  9-14 22-17 6-9
 38  9-14 22-17 11-15
 39  9-14 22-17 11-16
 40  9-14 22-18 5-9
 41  9-14 22-18 10-15
 42  9-14 22-18 11-15
 43  9-14 22-18 11-16
 44  9-14 22-18 12-16 barred
 45  9-14 22-18 14-17 barred
 46  9-14 23-18 14x23
 47  9-14 23-19 5-9
 48  9-14 23-19 10-15 barred
 49  9-14 23-19 11-16
 50  9-14 23-19 14-18
 51  9-14 24-19 5-9
 52  9-14 24-19 10-15 barred
 53  9-14 24-19 11-15
 54  9-14 24-19 11-16
 55  9-14 24-20 5-9
 56  9-14 24-20 10-15
 57  9-14 24-20 11-15
 58  9-14 24-20 11-16
 59  10-14 22-17 7-10
 60  10-14 22-17 9-13 2003
 61  10-14 22-17 11-15 2003
 62  10-14 22-17 11-16 2003
 63  10-14 22-17 14-18
 64  10-14 22-18 6-10
 65  10-14 22-18 7-10
 66  10-14 22-18 11-15
 67  10-14 22-18 11-16
 68  10-14 22-18 12-16
 69  10-14 23-18 14x23
 70  10-14 23-19 6-10
 71  10-14 23-19 7-10
 72  10-14 23-19 11-15
 73  10-14 23-19 11-16
 74  10-14 23-19 14-18
 75  10-14 24-19 6-10
 76  10-14 24-19 7-10
 77  10-14 24-19 11-15 barred
 78  10-14 24-19 11-16
 79  10-14 24-19 14-18
 80  10-14 24-20 6-10
 81  10-14 24-20 7-10
 82  10-14 24-20 11-15
 83  10-14 24-20 11-16
 84  10-14 24-20 14-18
 85  10-15 21-17 6-10
 86  10-15 21-17 7-10
 87  10-15 21-17 9-13
 88  10-15 21-17 9-14 barred
 89  10-15 21-17 11-16
 90  10-15 21-17 15-18
 91  10-15 22-17 6-10
 92  10-15 22-17 7-10
 93  10-15 22-17 9-13
 94  10-15 22-17 9-14 barred
 95  10-15 22-17 11-16
 96  10-15 22-17 15-19
 97  10-15 22-18 15x22
 98  10-15 23-18 6-10
 99  10-15 23-18 7-10
100  10-15 23-18 9-14
101  10-15 23-18 11-16
102  10-15 23-18 12-16
103  10-15 23-19 6-10
104  10-15 23-19 7-10
105  10-15 23-19 11-16 2003
106  10-15 24-19 15x24
107  10-15 24-20 6-10
108  10-15 24-20 7-10
109  10-15 24-20 11-16 barred
110  10-15 24-20 15-19
111  11-15 21-17 8-11
112  11-15 21-17 9-13
113  11-15 21-17 9-14
114  11-15 21-17 10-14 barred
115  11-15 21-17 15-19
116  11-15 22-17 8-11
117  11-15 22-17 9-13
118  11-15 22-17 15-18
119  11-15 22-17 15-19
120  11-15 22-18 15x22
121  11-15 23-18 8-11
122  11-15 23-18 9-14
123  11-15 23-18 10-14
124  11-15 23-18 12-16
125  11-15 23-18 15-19
126  11-15 23-19 8-11
127  11-15 23-19 9-13
128  11-15 23-19 9-14
129  11-15 24-19 15x24
130  11-15 24-20 8-11
131  11-15 24-20 12-16
132  11-15 24-20 15-18
133  11-16 21-17 7-11
134  11-16 21-17 8-11
135  11-16 21-17 9-13
136  11-16 21-17 9-14
137  11-16 21-17 10-14 barred
138  11-16 21-17 16-20
139  11-16 22-17 7-11
140  11-16 22-17 8-11
141  11-16 22-17 9-13 2003
142  11-16 22-17 16-20
143  11-16 22-18 7-11
144  11-16 22-18 8-11
145  11-16 22-18 10-15 barred
146  11-16 22-18 16-19
147  11-16 22-18 16-20
148  11-16 23-18 7-11
149  11-16 23-18 8-11
150  11-16 23-18 9-14
151  11-16 23-18 10-14
152  11-16 23-18 16-20
153  11-16 23-19 16x23 2003
154  11-16 24-19 7-11
155  11-16 24-19 8-11
156  11-16 24-19 10-15 barred
157  11-16 24-19 16-20
158  11-16 24-20 7-11
159  11-16 24-20 16-19
160  12-16 21-17 9-13
161  12-16 21-17 9-14
162  12-16 21-17 16-19
163  12-16 21-17 16-20
164  12-16 22-17 16-19
165  12-16 22-17 16-20
166  12-16 22-18 16-19
167  12-16 22-18 16-20
168  12-16 23-18 9-14 barred
169  12-16 23-18 16-19
170  12-16 23-18 16-20
171  12-16 23-19 16x23 barred
172  12-16 24-19 16-20
173  12-16 24-20 8-12
174  12-16 24-20 10-15 2003
"""


def _read(table: str) -> tuple[tuple[Ballot, ...], frozenset[int]]:
    openings, barred = [], set()
    for line in table.strip().splitlines():
        number, *words = line.split()
        mark = words.pop() if words[-1] in ("barred", "2003") else ""
        openings.append(Ballot(int(number), " ".join(words)))
        if mark == "barred":
            barred.add(int(number))
    return tuple(openings), frozenset(barred)


ACF_OPENINGS, BARRED = _read(_TABLE)  # all 174; the numbers of the 18 barred ones
BALLOTS = tuple(b for b in ACF_OPENINGS if b.number not in BARRED)  # the deck: 156
DECK_GAMES = 2 * len(BALLOTS)  # every ballot with both colours: 312 games


def deck(env) -> OpeningDeck:
    """The 156 ballots as hop actions of `env` (8×8 checkers); ValueError for another board."""
    if env.board_size != 8:
        size = env.board_size
        raise ValueError(f"the three-move ballots are openings of 8×8 checkers, not {size}×{size}")
    return _deck()


@functools.cache
def _deck() -> OpeningDeck:
    """Played once a process: the actions of the first turns depend on the board size only."""
    env = shared_env("checkers")
    step = compiled_step(env)
    played = []
    for ballot in BALLOTS:
        state, actions = opening(env), []
        for move in ballot.moves.split():
            for action in hops_of_move(env, state, move):
                state = step(state, np.int32(action))
                actions.append(action)
        played.append(actions)
    width = max(len(actions) for actions in played)
    table = np.full((len(played), width), -1, np.int32)
    for row, actions in zip(table, played, strict=True):
        row[: len(actions)] = actions
    return OpeningDeck(names=tuple(b.name for b in BALLOTS), actions=table)
