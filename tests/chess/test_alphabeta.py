"""Chess alpha-beta against a plain minimax over python-chess, and on scripted positions."""

from __future__ import annotations

import functools

import chess
import jax
import numpy as np
import pytest

import jaxcheckers
from jaxcheckers.agents import make_agent
from jaxcheckers.chess import action_to_uci, chess_fen, state_from_fen, uci_to_action
from jaxcheckers.chess import alphabeta as chess_alphabeta
from jaxcheckers.core import compiled_step

ENV = jaxcheckers.make("chess")
WIN = chess_alphabeta.WIN


@functools.cache
def searcher(depth: int):
    """jit (state, key) -> Choice, compiled once per depth for the whole file."""
    return jax.jit(lambda state, key: chess_alphabeta.search(ENV, state, key, depth))


def best_move(fen: str, depth: int, seed: int = 0) -> tuple[str, int]:
    state = state_from_fen(fen)
    choice = searcher(depth)(state, jax.random.key(seed))
    return action_to_uci(state, int(choice.action)), int(choice.value)


# -- the reference: plain minimax with python-chess, no pruning ----------------------------------

VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}


def reference_material(board: chess.Board) -> int:
    score = 0
    for piece in board.piece_map().values():
        value = VALUES.get(piece.piece_type, 0)
        score += value if piece.color == board.turn else -value
    return score


def reference_value(board: chess.Board, depth: int) -> int:
    """Minimax for the side to move: −(WIN + plies left) when mated, 0 for a draw, material at
    the horizon. The draws are those a few plies from a fresh FEN can reach (no repetition)."""
    if board.is_checkmate():
        return -(WIN + depth)
    if board.is_stalemate() or board.is_insufficient_material():
        return 0
    if depth == 0:
        return reference_material(board)
    best = -10 * WIN
    for move in list(board.legal_moves):
        board.push(move)
        best = max(best, -reference_value(board, depth - 1))
        board.pop()
    return best


POSITIONS = [
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",  # Kiwipete
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",  # en passant, pins
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",  # promotions both ways
    "7k/5Q2/6K1/8/8/8/8/8 w - - 0 1",  # mates and stalemates one move away
    "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
]


def minimax_cases(slow) -> list:
    """Every position at depths 1 and 2, those where `slow(fen, depth)` with the slow tests."""
    return [
        pytest.param(fen, depth, marks=pytest.mark.slow) if slow(fen, depth) else (fen, depth)
        for depth in (1, 2)
        for fen in POSITIONS
    ]


# At depth 2 Kiwipete's 48 moves, position 3's endgame and the promotions take the longest to
# search (seconds to tens of seconds here), so those three run with the slow tests.
MINIMAX_CASES = minimax_cases(lambda fen, depth: depth == 2 and fen in POSITIONS[:3])
# Every move's value at depth 2 is the slow sample (its search compiles for seconds); the chosen
# move's value keeps a depth-2 sample fast above.
MOVE_VALUE_CASES = minimax_cases(lambda fen, depth: depth == 2)


@pytest.mark.parametrize("fen, depth", MINIMAX_CASES)
def test_value_and_move_agree_with_plain_minimax(fen, depth):
    board = chess.Board(fen)
    uci, value = best_move(fen, depth, seed=depth)
    assert value == reference_value(board, depth)
    board.push_uci(uci)  # the move played is legal and reaches that value
    assert -reference_value(board, depth - 1) == value


MATES_IN_ONE = [
    ("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", "h5f7"),
    ("6k1/5ppp/8/8/8/8/r4PPP/6K1 b - - 0 1", "a2a1"),  # the back rank, black to move
]


@pytest.mark.parametrize("fen, mate", MATES_IN_ONE)
def test_mate_in_one_is_found_at_every_depth(fen, mate):
    for depth in (1, 2):
        assert best_move(fen, depth) == (mate, WIN + depth - 1)


@pytest.mark.slow  # compiles the depth-3 search (minutes on two cores)
@pytest.mark.parametrize("fen, mate", MATES_IN_ONE)
def test_mate_in_one_is_found_at_depth_three(fen, mate):
    assert best_move(fen, 3) == (mate, WIN + 3 - 1)


@pytest.mark.slow  # compiles the depth-3 search
def test_mate_in_two_is_played_out_against_every_defence():
    fen = "7k/8/8/8/8/8/R7/1R4K1 w - - 0 1"  # Rb7 then Ra8 (or Ra7 then Rb8)
    board = chess.Board(fen)
    assert not any(board.is_checkmate() for board in _after_each(board))  # not a mate in one
    uci, value = best_move(fen, 3)
    assert value == WIN + 3 - 3  # mated with no ply left to search
    board.push_uci(uci)
    for defended in _after_each(board):
        reply, _ = best_move(defended.fen(), 1)
        defended.push_uci(reply)
        assert defended.is_checkmate(), defended.fen()


def _after_each(board: chess.Board):
    for move in board.legal_moves:
        after = board.copy()
        after.push(move)
        yield after


def test_takes_a_hanging_queen_but_not_a_defended_pawn():
    hanging = "4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1"  # a rook against a queen: −4 before
    assert best_move(hanging, 1) == ("d2d5", 5)
    assert best_move(hanging, 2) == ("d2d5", 5)
    defended = "4k3/4p3/3p4/8/8/8/3R4/4K3 w - - 0 1"  # Rxd6 exd6 gives the rook for a pawn
    assert best_move(defended, 1) == ("d2d6", 4)
    uci, value = best_move(defended, 2)
    assert uci != "d2d6" and value == 3  # the rook kept: a rook against two pawns


def test_ties_are_broken_by_the_key_and_the_same_key_repeats():
    opening = chess_fen(ENV.reset(jax.random.key(0)))
    moves = {best_move(opening, 1, seed)[0] for seed in range(8)}
    assert len(moves) > 2  # 20 moves all worth 0: the key picks among them
    assert best_move(opening, 2, 5) == best_move(opening, 2, 5)


def test_never_plays_an_illegal_move_in_random_positions():
    step = compiled_step(ENV)
    rng = np.random.default_rng(1)
    state, seen = ENV.reset(jax.random.key(0)), 0
    while seen < 40:
        if bool(state.terminated | state.truncated):
            state = ENV.reset(jax.random.key(seen))
        mask = np.asarray(state.legal_action_mask)
        action = int(searcher(1)(state, jax.random.key(seen)).action)
        assert mask[action], chess_fen(state)
        legal = np.flatnonzero(mask)
        state = step(state, np.int32(rng.choice(legal)))
        seen += 1


def test_a_finished_game_gets_action_zero_and_its_result():
    before = state_from_fen("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
    mated = compiled_step(ENV)(before, np.int32(uci_to_action(before, "a1a8")))
    assert bool(mated.terminated)
    choice = searcher(1)(mated, jax.random.key(0))
    assert (int(choice.action), int(choice.value)) == (0, -(WIN + 1))


def test_make_agent_builds_it_for_chess_and_refuses_deep_searches():
    act = make_agent("alphabeta:1", ENV)
    state = state_from_fen("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1")
    assert action_to_uci(state, int(jax.jit(act)(state, jax.random.key(0)))) == "d2d5"
    with pytest.raises(ValueError, match="1 to 4 plies"):
        make_agent("alphabeta:5", ENV)
    with pytest.raises(ValueError, match="1 to 4 plies"):
        make_agent("alphabeta:0", ENV)


# -- every move's score: what the distillation trainer learns from -------------------------------


@functools.cache
def move_scorer(depth: int):
    """jit state -> int32 (4672,), compiled once per depth for the whole file."""
    return jax.jit(lambda state: chess_alphabeta.move_values(ENV, state, depth))


@pytest.mark.parametrize("fen, depth", MOVE_VALUE_CASES)
def test_every_moves_value_agrees_with_plain_minimax(fen, depth):
    board = chess.Board(fen)
    state = state_from_fen(fen)
    values = np.asarray(move_scorer(depth)(state))
    legal = np.asarray(state.legal_action_mask)
    assert (values[~legal] == -chess_alphabeta.INFINITY).all()
    for move in board.legal_moves:
        board.push(move)
        expected = -reference_value(board, depth - 1)
        board.pop()
        assert values[uci_to_action(state, move.uci())] == expected, move.uci()
    # The search's value is the best of them, and its move one of the best.
    uci, value = best_move(fen, depth, seed=3)
    assert values.max() == value == values[uci_to_action(state, uci)]


def test_move_values_of_a_finished_game_are_all_illegal_and_teachers_are_looked_up():
    before = state_from_fen("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
    mated = compiled_step(ENV)(before, np.int32(uci_to_action(before, "a1a8")))
    assert (np.asarray(move_scorer(1)(mated)) == -chess_alphabeta.INFINITY).all()
    from jaxcheckers.agents import make_move_values

    values = make_move_values("alphabeta:1", ENV)(before)
    assert int(values[uci_to_action(before, "a1a8")]) == WIN
    with pytest.raises(ValueError, match="scores no moves of chess"):
        make_move_values("random", ENV)
    with pytest.raises(ValueError, match="1 to 4 plies"):
        make_move_values("alphabeta:9", ENV)


@pytest.mark.parametrize(
    "fen, score",
    [
        ("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", 100),  # a pawn up, not yet advanced
        ("4k3/8/4P3/8/8/8/8/4K3 w - - 0 1", 120),  # ... four ranks on: 5 a rank
        ("4k3/8/4P3/8/8/8/8/4K3 b - - 0 1", -120),  # the other side's view
        ("4k3/4p3/8/8/8/8/8/4K3 w - - 0 1", -100),  # black's pawn at home: not advanced
        # A queen up: the lone king on the edge (+30), the kings 7 files apart (+0).
        ("8/8/8/8/8/8/2Q5/K6k w - - 0 1", 930),
        ("8/8/8/8/8/8/2Q5/K6k b - - 0 1", -930),
        ("8/8/8/3k4/8/8/8/K1Q5 w - - 0 1", 900 + 10 * 0 + 5 * 3),  # centred, 4 apart
    ],
)
def test_the_positional_evaluation_in_closed_form(fen, score):
    position = state_from_fen(fen).position
    assert int(jax.jit(chess_alphabeta.positional)(position)) == score
    assert int(chess_alphabeta.material(position)) * 100 == round(score, -2)


def test_a_positional_teacher_is_named_in_the_spec():
    from jaxcheckers.agents import make_move_values

    state = state_from_fen("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")
    values = np.asarray(jax.jit(make_move_values("alphabeta:1:positional", ENV))(state))
    # e4 (two ranks) beats e3 (one), which beats any king move.
    e4, e3 = (uci_to_action(state, m) for m in ("e2e4", "e2e3"))
    assert values[e4] == 110 and values[e3] == 105 and values.max() == 110
    with pytest.raises(ValueError, match="one of material, positional"):
        make_move_values("alphabeta:2:mobility", ENV)
