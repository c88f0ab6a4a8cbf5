"""Chess attack maps (`chess.features`) against python-chess, on random and scripted positions."""

from __future__ import annotations

import random

import chess
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxcheckers
from jaxcheckers.agents.networks import make_network, network_for
from jaxcheckers.chess import state_from_fen
from jaxcheckers.chess.features import NUM_FEATURE_PLANES, attack_maps, tactical_inputs

MAPS = jax.jit(attack_maps)
PIECES = (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING)
VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}


def random_boards(count: int, seed: int) -> list[chess.Board]:
    """Positions after 0..80 random plies (games that ended are skipped), en passant included."""
    rng = random.Random(seed)
    boards = []
    while len(boards) < count:
        board = chess.Board()
        for _ in range(rng.randint(0, 80)):
            if board.is_game_over():
                break
            board.push(rng.choice(list(board.legal_moves)))
        if not board.is_game_over():
            boards.append(board)
    return boards


def square(board: chess.Board, row: int, column: int) -> int:
    """The python-chess square of (row, column) of the mover's frame (row 0: the mover's 8th
    rank, black's board mirrored)."""
    return chess.square(column, 7 - row if board.turn == chess.WHITE else row)


def maps_of(boards: list[chess.Board]) -> np.ndarray:
    observations = np.stack([np.asarray(state_from_fen(b.fen()).observation) for b in boards])
    return np.asarray(MAPS(observations))


def attacked_by(board: chess.Board, side: bool, piece: int, target: int) -> bool:
    return any(board.piece_type_at(a) == piece for a in board.attackers(side, target))


def test_attack_maps_agree_with_python_chess_on_random_positions():
    boards = random_boards(24, seed=0)
    maps = maps_of(boards)
    assert maps.shape == (24, 8, 8, NUM_FEATURE_PLANES) and maps.dtype == np.float32
    for board, got in zip(boards, maps, strict=True):
        mover, other = board.turn, not board.turn
        their_king = board.king(other)
        without_king = board.copy()
        without_king.remove_piece_at(their_king)
        for row in range(8):
            for column in range(8):
                s = square(board, row, column)
                here = got[row, column]
                for k, piece in enumerate(PIECES):  # 0–5 the mover's, 6–11 the opponent's
                    assert here[k] == attacked_by(board, mover, piece, s), (board.fen(), s, k)
                    assert here[6 + k] == attacked_by(board, other, piece, s), (board.fen(), s)
                kinds = [attacked_by(board, mover, p, s) for p in PIECES]
                assert here[12] == sum(kinds) / 4
                # 22: the opponent king's flight squares; 19: knight checks
                flight = (
                    chess.square_distance(s, their_king) == 1
                    and board.color_at(s) != other
                    and not without_king.is_attacked_by(mover, s)
                )
                assert here[22] == flight, (board.fen(), s)
                knight_check = bool(chess.BB_KNIGHT_ATTACKS[their_king] & chess.BB_SQUARES[s])
                assert here[19] == knight_check
    assert maps.reshape(-1, NUM_FEATURE_PLANES).any(axis=0)[[0, 1, 2, 3, 4, 5, 19, 22]].all()


def test_pieces_en_prise_and_their_values():
    # White to move: the black queen on d5 hangs to the rook; the rook on d2 is attacked by the
    # queen and undefended, so it hangs too (with the king on e1 defending it, it does not).
    assert not maps_of([chess.Board("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1")])[0][..., 14].any()
    board = chess.Board("4k3/8/8/3q4/8/8/3R4/7K w - - 0 1")
    got = maps_of([board])[0]
    d5, d2 = (3, 3), (6, 3)  # white's frame: row 0 is the 8th rank
    assert np.argwhere(got[..., 15]).tolist() == [list(d5)]  # the opponent's piece en prise
    assert np.argwhere(got[..., 14]).tolist() == [list(d2)]  # the mover's
    assert got[d5][17] == pytest.approx(9 / 9) and got[d2][16] == pytest.approx(5 / 9)
    # The colours swapped and the board mirrored, black to move: the mover's frame is the same.
    np.testing.assert_array_equal(got, maps_of([board.mirror()])[0])


def test_a_defended_piece_attacked_by_a_cheaper_one_is_en_prise():
    # The black knight on c6 is defended by the pawn b7 but attacked by the pawn d5.
    board = chess.Board("4k3/1p6/2n5/3P4/8/8/8/4K3 w - - 0 1")
    got = maps_of([board])[0]
    assert got[2, 2, 15] == 1 and got[2, 2, 17] == pytest.approx(3 / 9)
    # With the pawn b7 gone the knight hangs all the same; defended by a knight instead of
    # attacked by a pawn it would not.
    assert maps_of([chess.Board("4k3/8/2n5/3P4/8/8/8/4K3 w - - 0 1")])[0][2, 2, 15] == 1
    quiet = maps_of([chess.Board("4k3/8/2n5/8/3n4/8/3R4/4K3 w - - 0 1")])[0]
    assert quiet[..., 15].sum() == 0  # d4 attacked by the rook, defended by the knight on c6


def test_tactical_inputs_and_the_chess_network_from_the_registry():
    boards = random_boards(4, seed=1)
    observations = jnp.stack([state_from_fen(b.fen()).observation for b in boards])
    inputs = np.asarray(tactical_inputs(observations))
    assert inputs.shape == (4, 64 * (20 + NUM_FEATURE_PLANES))
    env = jaxcheckers.make("chess")
    model = make_network(
        env.num_actions,
        env.observation_shape,
        network="mlp-tactical",
        game="chess",
        hidden_sizes=(16,),
    )
    params = model.init(jax.random.key(0), observations)
    assert params["params"]["Dense_0"]["kernel"].shape == (64 * 44, 16)
    logits, value = model.apply(params, observations)
    assert logits.shape == (4, 4672) and value.shape == (4,)
    settings = {"game": "chess", "network": "mlp-tactical", "hidden_sizes": [16]}
    _, shapes = network_for(settings)
    assert shapes["params"]["Dense_0"]["kernel"].shape == (64 * 44, 16)
    with pytest.raises(ValueError, match="no inputs for tictactoe"):
        make_network(9, (3, 3, 2), network="mlp-tactical", game="tictactoe")
