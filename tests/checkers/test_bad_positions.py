"""Careless input to FEN and to custom positions: always one ValueError with a reason.

Issue 19, item 9: these were silently accepted (a reversed range emptied white) or raised
TypeError/IndexError.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jaxcheckers
from jaxcheckers.checkers.fen import fen_to_board
from jaxcheckers.checkers.game import Game
from jaxcheckers.checkers.positions import from_board

ENV = jaxcheckers.make("checkers")

# Black to move, a black man on 14 (row 3, col 2) that can jump the white man on 18.
JUMP = [
    ". . . . . . . .",
    ". . . . . . . .",
    ". . . . . . . .",
    ". . b . . . . .",
    ". . . w . . . .",
    ". . . . . . . .",
    ". . . . . . . .",
    ". . . . . . . .",
]


@pytest.mark.parametrize(
    "fen",
    [
        "B:W12-1:B1",  # a range written backwards
        "B:W1_2:B5",  # int() reads 1_2 as 12
        "B:W 2 1:B5",  # a space inside a number
        "B:W١٢:B5",  # Arabic-Indic digits, which int() reads
        "B:W１:B5",  # a full-width digit
        "B:W21-:B1",
        "B:WK:B1",
        "B:W1-2-3:B5",
    ],
)
def test_fen_that_was_misread_is_refused(fen):
    with pytest.raises(ValueError):
        fen_to_board(fen)


@pytest.mark.parametrize("fen", [None, 12, b"B:W1:B5", ["B:W1:B5"]])
def test_fen_that_is_not_text_is_refused(fen):
    with pytest.raises(ValueError, match="string"):
        fen_to_board(fen)
    with pytest.raises(ValueError, match="string"):
        Game.from_fen(fen)


def test_fen_spaces_around_separators_still_read():
    board, player = fen_to_board(' [FEN "W : W 21 , K22 , 23-24 : B 1-2 ."] ')
    assert player == 1
    assert (board < 0).sum() == 4 and (board == -2).sum() == 1 and (board > 0).sum() == 2


@pytest.mark.parametrize(
    "options",
    [
        {"jumper": 5},
        {"jumper": (2.0, 1.0)},
        {"jumper": (3.0, 2.0)},
        {"jumper": (True, 2)},
        {"jumper": (3, 2, 1)},
        {"jumper": "3,2"},
        {"player": True},
        {"player": 1.0},
        {"player": 0.0},
        {"player": "0"},
        {"player": None},
    ],
)
def test_from_board_refuses_odd_player_and_jumper_types(options):
    with pytest.raises(ValueError):
        from_board(ENV, JUMP, **options)


def test_from_board_still_takes_numpy_ints():
    state = from_board(ENV, JUMP, player=np.int64(0), jumper=(np.int32(3), np.int64(2)))
    assert int(state.jumper) == 3 * 8 + 2
    state = from_board(ENV, JUMP, player=0, jumper=np.array([3, 2]))
    assert int(state.jumper) == 3 * 8 + 2


@pytest.mark.parametrize(
    "options", [{"jumper": 5}, {"jumper": 99}, {"jumper": (2.0, 1.0)}, {"player": True}]
)
def test_game_from_board_refuses_odd_player_and_jumper(options):
    with pytest.raises(ValueError):
        Game.from_board(JUMP, **options)


def test_game_from_board_takes_a_printed_square_as_the_jumper():
    assert Game.from_board(JUMP, player=0, jumper=14).jumper == 14


FEN_ALPHABET = st.sampled_from(list('BWKbwk0123456789-,:."[] _x١１\t\n') + ["FEN", "12", "32"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(
        st.text(max_size=40),
        st.lists(FEN_ALPHABET, max_size=30).map("".join),
    ),
    st.sampled_from([4, 6, 8, 10, 16]),
)
def test_fen_parsing_raises_only_value_error(text, n):
    try:
        board, player = fen_to_board(text, n)
    except ValueError as error:
        assert str(error) and "\n" not in str(error).strip()
        return
    assert board.shape == (n, n) and player in (0, 1)
    assert set(np.unique(board)) <= {-2, -1, 0, 1, 2}
