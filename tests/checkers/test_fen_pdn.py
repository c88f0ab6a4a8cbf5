"""FEN and PDN: known strings, bad input, and round trips over whole random games."""

from __future__ import annotations

import functools

import jax
import numpy as np
import pytest

import jaxcheckers
from jaxcheckers.agents.random import random_agent
from jaxcheckers.checkers import pdn
from jaxcheckers.checkers.fen import board_to_fen, fen_to_board, state_from_fen, state_to_fen
from jaxcheckers.checkers.positions import absolute_board, from_board, to_mover_frame

ENV = jaxcheckers.make("checkers")
OPENING_FEN = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"


def test_opening_fen():
    assert state_to_fen(ENV.reset(jax.random.key(0))) == OPENING_FEN
    board, player = fen_to_board("B:B1-12:W21-32")  # ranges, colours in either order
    assert board_to_fen(board, player) == OPENING_FEN


def test_kings_and_the_tag_form():
    fen = '[FEN "W:W18,24,27,28,K10,K15:B12,16,20,K22,K25,K29."]'
    board, player = fen_to_board(fen)
    assert player == 1
    assert board[2, 3] == -2  # square 10: row 2, col 3, a white king
    assert board[2, 7] == 1  # square 12: a black man
    assert board[5, 2] == 2  # square 22: a black king
    assert board_to_fen(board, player) == "W:W18,24,27,28,K10,K15:B12,16,20,K22,K25,K29".replace(
        "W18,24,27,28,K10,K15", "WK10,K15,18,24,27,28"
    )
    state = state_from_fen(ENV, fen)
    assert int(state.current_player) == 1
    assert (absolute_board(state) == board).all()


@pytest.mark.parametrize(
    "fen", ["X:W1:B2", "B:W1,1:B5", "B:W33:B1", "B:Wx:B1", "B:Q1:B2", "", "B:W1:W2"]
)
def test_bad_fen_is_refused_with_a_reason(fen):
    with pytest.raises(ValueError):
        fen_to_board(fen)


def test_short_capture_form_finds_the_sequence():
    board = [
        "........",
        "........",
        ".b......",
        "..w.....",
        "........",
        "....w...",
        "........",
        "w.......",
    ]
    state = from_board(ENV, board, player=0)  # black on 9 can take 14 and then 23
    long = pdn.hops_of_move(ENV, state, "9x18x27")
    assert pdn.hops_of_move(ENV, state, "9x27") == long
    assert len(long) == 2
    with pytest.raises(ValueError, match="not a legal move"):
        pdn.hops_of_move(ENV, state, "9-13")  # the capture is compulsory


def test_pdn_text_with_comments_numbers_and_a_fen():
    text = """
[Event "test"]
[SetUp "1"]
[FEN "W:W30,31:B1,2"]

1... 30-26 {a comment} 2. 1-5 (2. 2-6 26-23) 26-22 1-0
"""
    (game,) = pdn.parse_pdn(text)
    assert game.moves == ["30-26", "1-5", "26-22"]
    assert game.result == "1-0"
    assert game.movers == [1, 0, 1]
    replayed = pdn.replay(ENV, game)
    assert len(replayed.actions) == 3
    assert pdn.format_game(game).splitlines()[-1].startswith("1... 30-26 2. 1-5 26-22")


# -- 100 random games: every position through FEN, every game through PDN -----------------------


@functools.lru_cache(maxsize=1)
def random_games(games: int = 100, steps: int = 400, seed: int = 0):
    """Boards, players, jumpers, actions and liveness of `games` random games (numpy)."""

    def one_step(state, key):
        action = jax.vmap(random_agent)(state, jax.random.split(key, games))
        live = ~(state.terminated | state.truncated)
        seen = (state.board, state.current_player, state.jumper, action, live)
        return jax.vmap(ENV.step)(state, action), seen

    @jax.jit
    def play(key):
        state = jax.vmap(ENV.reset)(jax.random.split(key, games))
        final, seen = jax.lax.scan(one_step, state, jax.random.split(key, steps))
        return final, seen

    final, seen = play(jax.random.key(seed))
    seen = jax.tree.map(lambda x: np.swapaxes(np.asarray(x), 0, 1), seen)  # (games, steps, ...)
    return jax.tree.map(np.asarray, final), seen


def test_fen_round_trips_every_position_of_100_random_games():
    _, (boards, players, jumpers, _, live) = random_games()
    n = ENV.board_size
    checked = 0
    for g in range(boards.shape[0]):
        for t in np.flatnonzero(live[g]):
            board = to_mover_frame(boards[g, t], int(players[g, t])).reshape(n, n)
            fen = board_to_fen(board, int(players[g, t]))
            back, player = fen_to_board(fen)
            assert player == players[g, t] and (back == board).all(), fen
            checked += 1
    assert checked > 5000


def test_pdn_round_trips_20_random_games():
    final, (_, _, _, actions, live) = random_games()
    start = ENV.reset(jax.random.key(0))
    lengths = live.sum(axis=1)
    games = [
        pdn.game_from_actions(ENV, start, actions[g, : lengths[g]].tolist(), Black="me")
        for g in range(20)
    ]
    assert games[0].tags["Black"] == "me" and "FEN" not in games[0].tags
    parsed = pdn.parse_pdn(pdn.format_games(games))
    assert len(parsed) == len(games)
    for g, (game, original) in enumerate(zip(parsed, games, strict=True)):
        assert game.moves == original.moves and game.result == original.result
        replayed = pdn.replay(ENV, game)
        assert replayed.actions == actions[g, : lengths[g]].tolist()
        last = replayed.states[-1]
        assert (np.asarray(last.board) == np.asarray(final.board[g])).all()
        assert bool(last.terminated) == bool(final.terminated[g])


@pytest.mark.parametrize("no_moves, rewards", [("lose", [-1.0, 1.0]), ("pass", [0.0, 0.0])])
def test_a_start_with_no_move_for_the_mover_carries_its_result(no_moves, rewards):
    env = jaxcheckers.make("checkers", no_moves=no_moves)
    state = state_from_fen(env, "B:W21-32")  # black to move has no piece
    assert bool(state.terminated)
    np.testing.assert_array_equal(state.rewards, rewards)
