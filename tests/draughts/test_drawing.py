"""Draughts drawn: the FMJD square numbers on the grid, RGB frames and SVG of states."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import jaxcheckers
from jaxcheckers import games
from jaxcheckers.draughts import drawing
from jaxcheckers.draughts.fen import absolute_board

ENV = jaxcheckers.make("draughts")


@pytest.mark.parametrize(
    "square, row, col",
    [(1, 0, 1), (5, 0, 9), (6, 1, 0), (10, 1, 8), (28, 5, 4), (46, 9, 0), (50, 9, 8)],
)
def test_each_fmjd_square_lands_on_its_dark_cell(square, row, col):
    squares = np.zeros(50, np.int8)
    squares[square - 1] = 1
    cells = drawing.grid(squares)
    assert cells.shape == (10, 10) and cells[row, col] == 1 and cells.sum() == 1
    assert (row + col) % 2 == 1  # FMJD plays on the dark squares, the lower left one dark


def test_the_eight_by_eight_variants_use_the_same_numbering():
    squares = np.arange(1, 33, dtype=np.int8)
    cells = drawing.grid(squares)
    assert cells.shape == (8, 8)
    assert cells[0, 1] == 1 and cells[1, 0] == 5 and cells[7, 6] == 32


def test_frames_show_every_piece_in_its_colour_and_kings_marked():
    state = games.spec("draughts").notation.from_fen("W:WK46,47:B1,K5")
    image = drawing.state_rgb(state)
    cell = image.shape[0] // 10
    assert image.shape == (320, 320, 3) and image.dtype == np.uint8

    def centre(row, col):
        return tuple(image[row * cell + cell // 2, col * cell + cell // 2])

    def ring(row, col):  # on the king's ring, inside the disc
        return tuple(image[row * cell + cell // 2, col * cell + cell // 2 + int(cell * 0.18)])

    assert centre(9, 0) == drawing.WHITE_PIECE and ring(9, 0) == drawing.KING_MARK  # 46
    assert centre(9, 2) == drawing.WHITE_PIECE and ring(9, 2) == drawing.WHITE_PIECE  # 47
    assert centre(0, 1) == drawing.BLACK_PIECE and ring(0, 1) == drawing.BLACK_PIECE  # 1
    assert ring(0, 9) == drawing.KING_MARK  # 5
    assert centre(5, 4) == drawing.DARK and centre(0, 0) == drawing.LIGHT


def test_the_frame_is_from_whites_side_whoever_is_to_move():
    white = games.spec("draughts").notation.from_fen("W:W46:B5")
    black = games.spec("draughts").notation.from_fen("B:W46:B5")
    assert np.array_equal(absolute_board(white), absolute_board(black))
    assert np.array_equal(drawing.state_rgb(white), drawing.state_rgb(black))


def test_svg_of_the_start_has_twenty_men_a_side_and_a_batch_draws_a_grid():
    state = ENV.init(jax.random.key(0))
    document = state.to_svg()
    assert document.count('class="man" data-player="0"') == 20
    assert document.count('class="man" data-player="1"') == 20
    assert 'class="king"' not in document
    batch = jax.vmap(ENV.init)(jax.random.split(jax.random.key(0), 3))
    assert batch.to_svg().count("<svg") == 4  # the grid and its three boards


def test_the_spec_offers_rgb_frames_to_the_adapters():
    spec = games.spec("draughts")
    assert "rgb_array" in spec.render_modes
    assert spec.drawing.rgb(ENV.init(jax.random.key(0))).shape == (320, 320, 3)
