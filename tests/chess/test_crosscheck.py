"""Random games played batched in JAX, replayed move by move in python-chess (and PettingZoo's own
chess_utils): the legal moves, the FEN, check and the game's end must agree at every ply."""

from __future__ import annotations

import collections

import chess
import jax
import numpy as np
import pytest

from jaxcheckers.chess.fen import chess_fen
from tests.chess import helpers as h

GAMES = 20  # all four endings below come up at seed 1 (stalemate once, the rarest); 1000: slow
CHUNK = 100  # plies per jitted call
MAX_PLIES = 300


def play_and_compare(games: int, max_plies: int, seed: int) -> collections.Counter:
    states = h.start_batch(games)
    key = jax.random.key(seed)
    boards = [chess.Board() for _ in range(games)]
    fens = [board.fen() for board in boards]
    # Each game's positions (the FEN without its clocks) so far: none seen twice, no threefold.
    seen = [collections.Counter([position_of(fen)]) for fen in fens]
    live = np.ones(games, bool)
    endings = collections.Counter()
    play = h.batched_play(CHUNK)
    for chunk_start in range(0, max_plies, CHUNK):
        (states, key), record = play(states, key)
        record = h.device_get(record)
        for g in range(games):
            board = boards[g]
            for t in range(CHUNK):
                if not live[g]:
                    break
                ply = chunk_start + t
                ours = h.record_state(record, t, g)
                where = f"game {g} ply {ply} {fens[g]}"
                assert not record["terminated"][t, g], where
                assert chess_fen(ours) == fens[g], where
                assert bool(record["in_check"][t, g]) == board.is_check(), where
                legal = {h.encode(m, board.turn): m for m in board.legal_moves}
                assert h.actions_of_bits(record["bits"][t, g]) == set(legal), where
                move = legal[int(record["action"][t, g])]
                board.push(move)
                fens[g] = board.fen()
                seen[g][position_of(fens[g])] += 1
                may_repeat = max(seen[g].values()) >= 2
                over, why = h.pettingzoo_game_over(board, may_repeat)
                ended = (
                    bool(record["terminated"][t + 1, g])
                    if t + 1 < CHUNK
                    else bool(np.asarray(states.terminated)[g])
                )
                assert ended == over, f"{where} after {move.uci()}: ours {ended}, theirs {why}"
                if over:
                    live[g] = False
                    endings[why] += 1
                    rewards = (
                        record["rewards"][t + 1, g]
                        if t + 1 < CHUNK
                        else np.asarray(states.rewards)[g]
                    )
                    winner = {"1-0": [1, -1], "0-1": [-1, 1]}.get(
                        board.result(claim_draw=True), [0, 0]
                    )
                    assert list(rewards) == winner, where
        if not live.any():
            break
    endings["cut"] = int(live.sum())
    return endings


def position_of(fen: str) -> str:
    """The FEN less its two clocks: equal whenever python-chess's repetition keys are equal."""
    return fen.rsplit(" ", 2)[0]


ENDINGS = ("checkmate", "stalemate", "insufficient_material", "threefold_repetition")


def assert_every_ending_came_up(endings: collections.Counter, kinds=ENDINGS) -> None:
    print(dict(endings))
    for kind in kinds:
        assert endings[kind] > 0, (kind, dict(endings))


def test_random_games_agree_with_python_chess():
    assert_every_ending_came_up(play_and_compare(GAMES, MAX_PLIES, seed=1))


@pytest.mark.slow
def test_a_thousand_random_games_agree_with_python_chess():
    assert_every_ending_came_up(play_and_compare(1000, MAX_PLIES, seed=1))


@pytest.mark.slow
def test_long_random_games_reach_the_fifty_move_rule():
    endings = play_and_compare(400, 1000, seed=2)
    assert_every_ending_came_up(endings, (*ENDINGS, "fifty_moves"))
