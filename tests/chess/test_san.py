"""SAN written from the env's legal moves, against python-chess's `Board.san` over random games."""

from __future__ import annotations

import collections

import chess
import numpy as np
import pytest

import jaxcheckers
from jaxcheckers.chess import san, state_from_fen
from jaxcheckers.core import compiled_step

ENV = jaxcheckers.make("chess")


# Random games from the opening rarely castle queen side; from Kiwipete both sides can at once.
STARTS = (
    chess.STARTING_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
)


def check_random_games(games: int, seed: int) -> collections.Counter:
    """Every legal move of every position of `games` random games (from the opening and from
    Kiwipete in turn): the same moves as python-chess and the same SAN. Returns how often each
    kind of SAN was met."""
    step = compiled_step(ENV)
    rng = np.random.default_rng(seed)
    kinds = collections.Counter()
    for game in range(games):
        fen = STARTS[game % len(STARTS)]
        state, board = state_from_fen(fen), chess.Board(fen)
        while not bool(state.terminated | state.truncated):
            moves = san.legal_moves(ENV, state)
            expected = {move.uci(): board.san(move) for move in board.legal_moves}
            assert {m.uci: m.san for m in moves} == expected, board.fen()
            for m in moves:
                kinds.update(_kinds(m.san, board, chess.Move.from_uci(m.uci)))
            move = moves[rng.integers(len(moves))]
            # One move's name, its mark from stepping it alone, as the whole list names it.
            assert san.move_name(ENV, state, move.action) == move.san, board.fen()
            board.push_uci(move.uci)
            state = step(state, np.int32(move.action))
    return kinds


def _kinds(text: str, board: chess.Board, move: chess.Move) -> list[str]:
    found = [mark for mark in ("=", "+", "#") if mark in text]
    found += [text.rstrip("+#")] if text.startswith("O-O") else []
    found += ["en passant"] if board.is_en_passant(move) else []
    piece_move = text[0] in "NBRQ"
    found += ["disambiguated"] if piece_move and len(text.rstrip("+#").replace("x", "")) > 3 else []
    return found


KINDS = ("O-O", "O-O-O", "=", "+", "#", "en passant", "disambiguated")


def test_san_of_every_legal_move_in_random_games():
    kinds = check_random_games(games=3, seed=1)  # en passant comes up once, in the third game
    # Each rule of the notation was exercised, not only plain moves.
    assert all(kinds[k] > 0 for k in KINDS), kinds


@pytest.mark.slow
def test_san_of_every_legal_move_in_fifty_random_games():
    kinds = check_random_games(games=50, seed=1)
    assert all(kinds[k] > 0 for k in KINDS), kinds


KNIGHTS = "4k3/8/8/8/8/2N3N1/8/R3K2R w KQ - 0 1"  # knights c3 and g3 both reach e2 and e4


@pytest.mark.parametrize(
    "typed, uci",
    [
        ("e1g1", "e1g1"),
        ("O-O", "e1g1"),
        ("0-0-0", "e1c1"),
        ("Nce4", "c3e4"),
        ("Nge2+", "g3e2"),  # a check mark where there is no check is forgiven
        ("Rd1", "a1d1"),
        ("Kf1", "e1f1"),
        ("kf1", "e1f1"),  # a lower-case piece letter is forgiven (not b: a pawn's file)
        ("nce4", "c3e4"),
    ],
)
def test_read_move_takes_uci_and_san(typed, uci):
    state = state_from_fen(KNIGHTS)
    action = san.read_move(ENV, state, typed)
    assert next(m.uci for m in san.legal_moves(ENV, state) if m.action == action) == uci


@pytest.mark.parametrize(
    "typed, message",
    [
        ("Ne4", "Ne4 is ambiguous: Nce4 or Nge4"),
        ("Nf6", "Nf6 is not legal here"),
        ("e2e5", "illegal move 'e2e5'"),
        ("hello", "could not read 'hello'"),
        ("Zz9", "could not read 'Zz9'"),
    ],
)
def test_read_move_refuses_in_one_line(typed, message):
    with pytest.raises(ValueError, match=message) as error:
        san.read_move(ENV, state_from_fen(KNIGHTS), typed)
    assert "\n" not in str(error.value)


def test_promotions_and_mate_marks():
    state = state_from_fen("8/1P4k1/8/8/8/8/7K/R7 w - - 0 1")
    texts = {m.uci: m.san for m in san.legal_moves(ENV, state)}
    assert texts["b7b8q"] == "b8=Q" and texts["b7b8n"] == "b8=N"
    assert texts["a1g1"] == "Rg1+"
    assert san.read_move(ENV, state, "b8=N") == san.read_move(ENV, state, "b7b8n")
    assert san.read_move(ENV, state, "b8Q") == san.read_move(ENV, state, "b7b8q")
    mate = state_from_fen("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
    assert {m.san for m in san.legal_moves(ENV, mate)} >= {"Ra8#", "Kf1"}
    for position in (state, mate):  # each move named alone as in the list: "=", "+", "#"
        for move in san.legal_moves(ENV, position):
            assert san.move_name(ENV, position, move.action) == move.san
