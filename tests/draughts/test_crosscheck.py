"""Draughts' whole moves against outside implementations, over random-game positions: dame-rs
(Rust, MIT; international rules) and py-draughts (the 8×8 variants). Both are test-only
dependencies (the `dev` extra)."""

from __future__ import annotations

import jax
import numpy as np
import pytest

from jaxcheckers.draughts import fen, rules
from tests.draughts import helpers


def _their_moves(variant: str, text: str) -> set[tuple]:
    if variant == "international":
        dame = pytest.importorskip("dame")
        board = dame.Board(text)
        return {(m.from_square, m.to_square, frozenset(m.captured)) for m in board.legal_moves}
    draughts = pytest.importorskip("draughts")
    board_type = draughts.RussianBoard if variant == "russian" else draughts.BrazilianBoard
    board = board_type.from_fen(text)
    return {
        (m.square_list[0] + 1, m.square_list[-1] + 1, frozenset(c + 1 for c in m.captured_list))
        for m in board.legal_moves
    }


def _compare(variant: str, games: int, steps: int, seed: int) -> tuple[int, int]:
    """(positions compared, those with a capture); asserts the move sets are equal."""
    lay = rules.layout(variant)
    states = helpers.random_states(variant, games, steps, seed)
    states = jax.tree.map(lambda x: x[states.jumper < 0], states)
    boards, takens = np.asarray(states.board), np.asarray(states.taken)  # computed once, not a row
    moves = helpers.whole_moves(variant, boards)
    with_capture = 0
    for i in range(len(boards)):
        player = int(states.current_player[i])
        absolute, _, _ = helpers.white_frame(boards[i], takens[i], -1, player)
        text = fen.board_to_fen(absolute, player)
        theirs = _their_moves(variant, text)
        assert not moves.overflow[i], text
        assert helpers.whole_moves_of(moves, i, player, lay) == theirs, text
        with_capture += any(taken for _, _, taken in theirs)
    return len(boards), with_capture


@pytest.mark.parametrize(
    "variant",  # Brazilian differs from international only in the board: its sample is slow
    ["international", "russian", pytest.param("brazilian", marks=pytest.mark.slow)],
)
def test_random_positions_match_an_outside_library(variant):
    compared, with_capture = _compare(variant, *helpers.FAST_SAMPLE)
    assert compared > 300 and with_capture > 30


@pytest.mark.parametrize(
    "variant",
    ["international", *(pytest.param(v, marks=pytest.mark.slow) for v in ("russian", "brazilian"))],
)
def test_crowded_boards_match_an_outside_library(variant):
    """Long captures with a choice of routes, which random play seldom reaches."""
    lay = rules.layout(variant)
    boards = helpers.crowded_boards(variant, 256, seed=1)
    moves = helpers.whole_moves(variant, boards)
    long_ = 0
    for i, board in enumerate(boards):
        text = fen.board_to_fen(board, 0)
        theirs = _their_moves(variant, text)
        assert not moves.overflow[i], text
        assert helpers.whole_moves_of(moves, i, 0, lay) == theirs, text
        long_ += any(len(taken) >= 3 for *_, taken in theirs)
    assert long_ > 20


@pytest.mark.slow
def test_ten_thousand_random_positions_match_dame():
    compared, with_capture = _compare("international", games=64, steps=200, seed=3)
    assert compared >= 10_000 and with_capture > 1_000


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["russian", "brazilian"])
def test_thousands_of_8x8_positions_match_py_draughts(variant):
    compared, with_capture = _compare(variant, games=32, steps=150, seed=4)
    assert compared >= 3_000 and with_capture > 300
