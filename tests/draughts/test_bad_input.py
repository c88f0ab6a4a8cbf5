"""Careless input to draughts: refused in one line, never read as something else.

Host-side checks only (no env is compiled here).
"""

from __future__ import annotations

import pytest

from jaxcheckers.draughts.fen import fen_to_board


@pytest.mark.parametrize(
    ("fen", "squares"),
    [
        ("W:W1:B50", 50),  # a white man on 1, White's crowning row
        ("W:W31:B46", 50),  # a black man on 46, Black's
        ("B:W5:B20", 50),
        ("W:W4:B20", 32),  # 8×8: White crowns on 1–4, Black on 29–32
        ("W:W21:B30", 32),
    ],
)
def test_a_man_on_its_own_promotion_row_is_refused_by_the_fen_reader(fen, squares):
    # It was refused only by `from_fen`: the perft command read it and counted 0 moves.
    with pytest.raises(ValueError, match="promotion row"):
        fen_to_board(fen, squares)


def test_kings_on_the_promotion_rows_and_men_on_the_others_still_read():
    board, player = fen_to_board("B:WK1,46:BK50,5", 50)
    assert player == 1 and board[[0, 45, 49, 4]].tolist() == [2, 1, -2, -1]
