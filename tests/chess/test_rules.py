"""Scripted positions, drawn as FEN, for each special rule and each way a game ends; the rules'
small functions on their own."""

from __future__ import annotations

import functools

import chess
import jax
import numpy as np
import pytest

from jaxcheckers.chess import action_to_uci, chess_fen, rules, state_from_fen, uci_to_action
from tests.chess import helpers as h


def play(fen: str, *moves: str):
    """The state after the UCI `moves` from `fen` (each must be legal), checked against
    python-chess's FEN on the way."""
    state = state_from_fen(fen)
    board = chess.Board(fen)
    for uci in moves:
        state = h.jitted_step()(state, uci_to_action(state, uci))
        board.push_uci(uci)
        assert chess_fen(state) == board.fen()
    return state


def legal_uci(state) -> set[str]:
    return {action_to_uci(state, a) for a in h.actions_of_bits(state.legal_action_bits)}


# -- castling ------------------------------------------------------------------------------------


def test_castling_both_sides_moves_the_rook():
    fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    assert {"e1g1", "e1c1"} <= legal_uci(state_from_fen(fen))
    assert chess_fen(play(fen, "e1g1")) == "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1"
    assert chess_fen(play(fen, "e1c1", "e8g8")) == "r4rk1/8/8/8/8/8/8/2KR3R w - - 2 2"


@pytest.mark.parametrize(
    "fen,allowed",
    [
        ("r3k2r/8/8/8/8/8/5r2/R3K2R w KQkq - 0 1", {"e1c1"}),  # through check (f1)
        ("r3k2r/8/8/8/8/8/6r1/R3K2R w KQkq - 0 1", {"e1c1"}),  # into check (g1)
        ("r3k2r/8/8/8/8/8/4r3/R3K2R w KQkq - 0 1", set()),  # out of check
        ("r3k2r/8/8/8/8/8/1r6/R3K2R w KQkq - 0 1", {"e1g1", "e1c1"}),  # b1 attacked: allowed
        ("r3k2r/8/8/8/8/8/8/RN2K1NR w KQkq - 0 1", set()),  # pieces in between
        ("r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1", {"e1c1"}),  # the right is gone
    ],
)
def test_castling_conditions(fen, allowed):
    castles = legal_uci(state_from_fen(fen)) & {"e1g1", "e1c1"}
    assert castles == allowed
    assert castles == {m.uci() for m in chess.Board(fen).legal_moves} & {"e1g1", "e1c1"}


def test_castling_rights_lost_by_king_and_rook_moves_and_captures():
    fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    assert chess_fen(play(fen, "h1h2")).split()[2] == "Qkq"
    assert chess_fen(play(fen, "e1e2")).split()[2] == "kq"
    assert chess_fen(play(fen, "a1a8")).split()[2] == "Kk"  # captures the rook on a8 too


# -- en passant and promotion --------------------------------------------------------------------


def test_en_passant_capture_removes_the_pawn():
    state = play("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6")
    assert chess_fen(state) == "4k3/8/3P4/8/8/8/8/4K3 b - - 0 1"


def test_en_passant_only_right_after_the_double_push():
    state = play("4k3/3p4/8/4P3/8/8/8/4K3 b - - 0 1", "d7d5")
    assert "e5d6" in legal_uci(state)
    state = play("4k3/3p4/8/4P3/8/8/8/4K3 b - - 0 1", "d7d5", "e1e2", "e8e7")
    assert "e5d6" not in legal_uci(state)


def test_en_passant_that_exposes_the_king_is_illegal():
    fen = "8/8/8/K2pP2r/8/8/8/4k3 w - d6 0 1"
    state = state_from_fen(fen)
    assert "e5d6" not in legal_uci(state)
    assert not bool(state.ep_legal)
    assert chess_fen(state) == chess.Board(fen).fen()  # the square is not printed


@pytest.mark.parametrize(
    "fen",
    [
        "8/8/8/K1PpP2r/8/8/8/4k3 w - d6 0 1",  # two capturers on the king's rank: both legal
        "6k1/5b2/8/3pP3/8/1K6/8/8 w - d6 0 1",  # the captured pawn's removal opens a diagonal
        "4k3/8/8/3pP3/4K3/8/8/8 w - d6 0 1",  # captures the pawn that gives check
        "4bk2/8/8/3pP3/K7/8/8/8 w - d6 0 1",  # the double push uncovered a check: not resolved
        "4k3/8/8/2PpP3/4K3/8/8/8 w - d6 0 1",  # two capturers, the victim gives check
        "7k/8/8/r2pP2K/8/8/8/8 w - d6 0 1",  # lone capturer, king to the right of the rook
        "8/8/8/8/k2Pp2R/8/8/4K3 b - d3 0 1",  # black to move: the rank pin seen from the left
    ],
)
def test_en_passant_legality_as_python_chess_decides(fen):
    state = state_from_fen(fen)
    board = chess.Board(fen)
    assert legal_uci(state) == {m.uci() for m in board.legal_moves}
    assert chess_fen(state) == board.fen()


def test_promotion_and_underpromotion():
    fen = "1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1"
    state = state_from_fen(fen)
    promotions = {u for u in legal_uci(state) if u.startswith("a7")}
    assert promotions == {"a7a8q", "a7a8r", "a7a8b", "a7a8n", "a7b8q", "a7b8r", "a7b8b", "a7b8n"}
    assert chess_fen(play(fen, "a7b8n")).split()[0] == "1N2k3/8/8/8/8/8/8/4K3"
    assert chess_fen(play(fen, "a7a8q")).split()[0] == "Qn2k3/8/8/8/8/8/8/4K3"


def test_pinned_piece_moves_only_along_the_pin():
    state = state_from_fen("4k3/4r3/8/8/8/8/4R3/4K3 w - - 0 1")
    rook_moves = {u for u in legal_uci(state) if u.startswith("e2")}
    assert rook_moves == {"e2e3", "e2e4", "e2e5", "e2e6", "e2e7"}


def test_double_check_only_king_moves():
    fen = "4k3/8/8/8/8/5n2/8/r3K2R w K - 0 1"  # knight f3 and rook a1 both give check
    state = state_from_fen(fen)
    assert bool(state.in_check)
    assert all(u.startswith("e1") for u in legal_uci(state))
    assert legal_uci(state) == {m.uci() for m in chess.Board(fen).legal_moves}


# -- how a game ends -----------------------------------------------------------------------------


def test_checkmate_rewards_the_mover():
    state = play(chess.STARTING_FEN, "f2f3", "e7e5", "g2g4", "d8h4")
    assert bool(state.terminated) and bool(state.in_check)
    assert state.rewards.tolist() == [-1.0, 1.0]
    assert not np.asarray(state.legal_action_mask).any()


def test_stalemate_is_a_draw():
    state = play("7k/5Q2/8/6K1/8/8/8/8 w - - 0 1", "g5g6")
    assert bool(state.terminated) and not bool(state.in_check)
    assert state.rewards.tolist() == [0.0, 0.0]


def test_insufficient_material_ends_the_game():
    state = play("8/8/8/4k3/8/8/3r4/4K3 w - - 0 1", "e1d2")
    assert bool(state.terminated) and state.rewards.tolist() == [0.0, 0.0]


@pytest.mark.parametrize(
    "fen,insufficient",
    [
        ("8/8/8/4k3/8/8/8/4K3 w - - 0 1", True),  # K v K
        ("8/8/8/4k3/8/8/8/4KN2 w - - 0 1", True),  # K+N v K
        ("8/8/8/4k3/8/8/8/4KB2 w - - 0 1", True),  # K+B v K
        ("8/8/8/4kb2/8/8/8/4KB2 w - - 0 1", True),  # bishops on the same colour (f5, f1)
        ("8/8/8/4k1b1/8/8/8/4KB2 w - - 0 1", False),  # bishops on different colours
        ("8/8/8/4kn2/8/8/8/4KN2 w - - 0 1", False),  # K+N v K+N: a mate exists
        ("8/8/8/4k3/8/8/8/3NKN2 w - - 0 1", False),  # two knights
        ("8/8/8/4k3/8/8/8/4KR2 w - - 0 1", False),
        ("8/8/8/4k3/8/8/4P3/4K3 w - - 0 1", False),
        ("8/8/8/4kq2/8/8/8/4KN2 w - - 0 1", False),  # the queen can still mate
    ],
)
def test_insufficient_material_as_python_chess(fen, insufficient):
    assert chess.Board(fen).is_insufficient_material() == insufficient
    position = state_from_fen(fen, insufficient_material=False).position
    assert bool(jax.jit(rules.insufficient_material)(position)) == insufficient


def test_fifty_move_rule_claimed_one_move_ahead():
    fen = "8/8/8/4k3/8/8/8/R3K3 w - - 98 60"
    state = play(fen, "a1a2")  # clock 99: black can make the fiftieth move, so may claim
    assert bool(state.terminated) and state.rewards.tolist() == [0.0, 0.0]
    board = chess.Board(fen)
    board.push_uci("a1a2")
    assert board.can_claim_fifty_moves()
    # A pawn move resets the clock.
    assert not bool(play("8/8/8/4k3/8/8/P7/4K3 w - - 98 60", "a2a3").terminated)
    assert int(play("8/8/8/4k3/8/8/P7/4K3 w - - 98 60", "a2a3").halfmove_clock) == 0


def test_threefold_repetition_claimed_one_move_ahead():
    moves = ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"]
    board = chess.Board()
    state = h.env().reset(None)
    for i, uci in enumerate(moves):
        state = h.jitted_step()(state, uci_to_action(state, uci))
        board.push_uci(uci)
        assert bool(state.terminated) == board.can_claim_threefold_repetition(), i
    assert bool(state.terminated)  # black's f6g8 would be the start position's third time
    assert state.rewards.tolist() == [0.0, 0.0]


def test_placement_hash_is_kept_up_to_date():
    state = play(
        chess.STARTING_FEN,
        "e2e4",
        "d7d5",
        "e4d5",
        "g8f6",
        "g1f3",
        "c7c6",
        "f1e2",
        "c6d5",
        "e1g1",
        "b8c6",
        "d2d4",
        "c8g4",
    )
    fresh = state_from_fen(chess_fen(state))
    assert np.array_equal(state.placement, fresh.placement)


def test_action_order_is_the_plane_major_bits_permuted():
    """`rules.action_order` moves plane-major bit `PLANE_MAJOR[a]` to bit a, for every a."""
    from jaxcheckers.chess import tables

    rng = np.random.default_rng(0)
    words = rng.integers(0, 1 << 32, (4, 146), dtype=np.uint64).astype(np.uint32)
    words[0] = 0xFFFFFFFF  # every move legal: no bit may be lost at a chunk's edge
    ordered = np.asarray(jax.jit(rules.action_order)(words))

    def unpacked(w):
        return np.unpackbits(w.astype("<u4").view(np.uint8), axis=-1, bitorder="little")

    assert (unpacked(ordered) == unpacked(words)[:, tables.PLANE_MAJOR]).all()


# -- the 64-bit bitboards ------------------------------------------------------------------------


def test_bitboards_are_64_bit_inside_wide_functions_only():
    from jaxcheckers.chess import bitboard as bb

    @bb.wide
    def flipped(words):
        return bb.flip(bb.of(words)).stack()

    words = np.array([0x000000FF, 0x12000000], np.uint32)  # rank 1 full, a bit on rank 8
    out = jax.jit(flipped)(words)
    assert out.dtype == np.uint32
    mirrored = int.from_bytes(bb.to_int(words).to_bytes(8, "little"), "big")  # ranks reversed
    assert bb.to_int(out) == mirrored
    with pytest.raises(RuntimeError, match="wide"):
        bb.of(words)  # outside a `wide` function: 64-bit types are off
    with pytest.raises(TypeError, match="64-bit"):
        bb.wide(lambda w: bb.of(w).x)(words)


def test_the_state_stays_32_bit():
    start = state_from_fen(chess.STARTING_FEN)
    state = h.jitted_step()(start, uci_to_action(start, "e2e4"))
    assert max(np.dtype(leaf.dtype).itemsize for leaf in jax.tree.leaves(state)) == 4


def test_both_fusion_barriers_return_their_values_unchanged():
    """`bb.once` is a zero-trip loop on the CPU and a division by a runtime 1 elsewhere
    (`core.divided_by_one`, run here on the CPU directly): both give back bools, int32 and
    uint64 words as they were."""
    from jaxcheckers import core
    from jaxcheckers.chess import bitboard as bb

    @bb.wide
    def through(barrier, words, flags, counts):
        one = core.unknown_one(counts[0])
        board, flags, counts = barrier((bb.of(words), flags, counts), one)
        return board.stack(), flags, counts

    words = np.array([[0xDEADBEEF, 0x80000001], [0, 0xFFFFFFFF]], np.uint32)
    flags, counts = np.array([True, False]), np.array([-7, 2**31 - 1], np.int32)
    for barrier in (bb._through_empty_loop, core.divided_by_one):
        out = jax.jit(functools.partial(through, barrier))(words, flags, counts)
        for got, want in zip(out, (words, flags, counts), strict=True):
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
