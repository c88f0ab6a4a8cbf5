"""FEN and UCI, both ways, and the clear errors for bad input."""

from __future__ import annotations

import chess
import jax.numpy as jnp
import numpy as np
import pytest

from jaxcheckers.chess import action_to_uci, chess_fen, state_from_fen, uci_to_action
from tests.chess import helpers as h

ROUND_TRIP = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",  # a legal en passant
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 b - - 7 40",
    "r3k3/8/8/8/8/8/8/4K2R b Kq - 0 1",
]


@pytest.mark.parametrize("fen", ROUND_TRIP)
def test_round_trip(fen):
    assert chess_fen(state_from_fen(fen)) == fen


def test_en_passant_square_printed_only_when_a_capture_is_legal():
    state = h.jitted_step()(h.env().reset(None), uci_to_action(h.env().reset(None), "e2e4"))
    board = chess.Board()
    board.push_uci("e2e4")
    assert (
        chess_fen(state)
        == board.fen()
        == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    )
    # A FEN may name the square anyway; the observation still shows the pawn that moved two.
    state = state_from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1")
    assert int(state.position.ep) >= 0 and not bool(state.ep_legal)


@pytest.mark.parametrize(
    "fen,message",
    [
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq", "6 fields"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", "8 ranks"),
        ("rnbqkbnr/pppppppp/45/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "two digits in a row"),
        ("rnbqkbnr/ppppxppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "unknown piece"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "side to move"),
        ("4k3/8/8/8/8/8/8/K3K3 w - - 0 1", "white has 2 kings"),
        ("8/8/8/8/8/8/8/4K3 w - - 0 1", "black has 0 kings"),
        ("4k3/8/8/8/8/8/8/P3K3 w - - 0 1", "first or last rank"),
        ("p3k3/8/8/8/8/8/8/4K3 w - - 0 1", "first or last rank"),
        ("3k4/8/8/8/8/8/8/3R1K2 b - - 0 1".replace(" b ", " w "), "not to move is in check"),
        ("4k3/8/8/8/8/8/8/4K3 w K - 0 1", "castling right 'K'"),
        ("4k3/8/8/8/8/8/8/4K3 w KK - 0 1", "castling rights"),
        ("4k3/8/8/8/8/8/8/4K3 w - e6 0 1", "en-passant"),
        ("4k3/8/8/8/4P3/8/8/4K3 w - e3 0 1", "en-passant"),
        ("4k3/8/8/8/8/8/8/4K3 w - - x 1", "whole numbers"),
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 0", "fullmove"),
        ("4k3/8/8/8/8/8/8/44K w - - 0 1", "two digits in a row"),
        ("4k3/8/8/8/8/8/8/4K3 w - - ０ 1", "whole numbers"),  # a full-width digit
        ("4k3/8/8/8/8/8/8/4K3 w - - +0 1", "whole numbers"),
        ("4k3/8/8/8/8/8/8/4K3 w - - 0_0 1", "whole numbers"),
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 99999999999", "whole numbers"),
        ("4k3/8/8/8/8/QQQ5/PPPPPPP1/4K3 w - - 0 1", "more pieces than a side can have"),
    ],
)
def test_bad_fen_is_a_value_error(fen, message):
    with pytest.raises(ValueError, match=message):
        state_from_fen(fen)


def test_uci_both_ways_matches_python_chess():
    fen = ROUND_TRIP[1]
    state = state_from_fen(fen)
    board = chess.Board(fen)
    ours = {action_to_uci(state, a) for a in h.actions_of_bits(state.legal_action_bits)}
    assert ours == {m.uci() for m in board.legal_moves}
    for move in board.legal_moves:
        action = uci_to_action(state, move.uci())
        assert action == h.encode(move, board.turn)
        assert action_to_uci(state, action) == move.uci()


def test_promotions_in_uci():
    state = state_from_fen("8/P7/8/8/8/8/8/k1K5 w - - 0 1")
    moves = {u: uci_to_action(state, u) for u in ("a7a8q", "a7a8r", "a7a8b", "a7a8n")}
    assert len(set(moves.values())) == 4
    assert moves["a7a8q"] == 0 * 73 * 8 + 6 * 73 + 4  # the queen plane "north, one square"
    with pytest.raises(ValueError, match="promotion"):
        uci_to_action(state, "a7a8")


@pytest.mark.parametrize("uci", ["e2", "e2e4x", "z2e4", "e2e9", 42, "e2e4qq"])
def test_malformed_uci_is_a_value_error(uci):
    with pytest.raises(ValueError):
        uci_to_action(h.env().reset(None), uci)


@pytest.mark.parametrize("uci", ["e2e5", "e1e2", "g1g3", "a2b3"])
def test_illegal_uci_is_a_value_error(uci):
    with pytest.raises(ValueError, match="illegal"):
        uci_to_action(h.env().reset(None), uci)


def test_action_to_uci_rejects_actions_off_the_board():
    state = h.env().reset(None)
    with pytest.raises(ValueError):
        action_to_uci(state, 4672)
    with pytest.raises(ValueError):
        action_to_uci(state, 0)  # a1, one square south-west: off the board


def test_black_moves_are_mirrored():
    state = state_from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
    action = uci_to_action(state, "e7e5")
    # Mirrored, e7 is e2: file 4, rank 1; two squares north is plane 12.
    assert action == (4 * 8 + 1) * 73 + 12
    assert action_to_uci(state, action) == "e7e5"
    assert bool(np.asarray(state.legal_action_mask)[action])
    assert jnp.asarray(state.current_player) == 1


def test_render_draws_the_board_as_python_chess():
    fen = ROUND_TRIP[1]
    text = h.env().render(state_from_fen(fen))
    rows = [line[2:] for line in text.splitlines()[:8]]
    assert rows == str(chess.Board(fen)).splitlines()
    assert text.splitlines()[-1] == fen


@pytest.mark.parametrize(
    "fen, rewards",
    [
        ("7k/5KQ1/8/8/8/8/8/8 b - - 0 1", [1.0, -1.0]),  # black to move, mated
        ("6rk/5Npp/8/8/8/8/8/6K1 b - - 0 1", [1.0, -1.0]),  # smothered: black mated
        ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", [0.0, 0.0]),  # stalemate: a draw
    ],
)
def test_a_start_already_decided_carries_its_result(fen, rewards):
    state = state_from_fen(fen)
    assert bool(state.terminated)
    np.testing.assert_array_equal(state.rewards, rewards)


def test_too_many_pawns_is_refused_as_python_chess_refuses_it():
    fen = "4k3/8/PPPPPPPP/PPPPPPPP/8/8/8/4K3 w - - 0 1"
    with pytest.raises(ValueError, match="more pieces than a side can have"):
        state_from_fen(fen)
    assert not chess.Board(fen).is_valid()

