"""The perfect 3×3 tic-tac-toe player: its table against plain negamax, and its games."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxcheckers.agents import make_move_values
from jaxcheckers.agents.random import random_agent
from jaxcheckers.checkers import Checkers
from jaxcheckers.tictactoe import TicTacToe, winning_lines
from jaxcheckers.tictactoe.perfect import ILLEGAL, POWERS, action_scores, perfect_agent


def number_of(rows: list[str]) -> int:
    """The table row of a drawn board, 'M' the mover's marks, 'T' the opponent's (theirs)."""
    digits = {".": 0, "M": 1, "T": 2}
    return int(sum(POWERS[i] * digits[c] for i, c in enumerate("".join(rows))))


def test_the_empty_board_is_a_draw_whatever_the_first_move():
    np.testing.assert_array_equal(action_scores(3)[0], np.zeros(9))


def test_against_a_centre_opening_only_a_corner_holds():
    scores = action_scores(3)[number_of(["...", ".T.", "..."])]
    corners, edges = [0, 2, 6, 8], [1, 3, 5, 7]
    assert (scores[corners] == 0).all()
    assert (scores[edges] < 0).all()
    assert scores[4] == ILLEGAL


def test_against_a_corner_opening_only_the_centre_holds():
    scores = action_scores(3)[number_of(["T..", "...", "..."])]
    assert scores[4] == 0
    assert (np.delete(scores, [0, 4]) < 0).all()


def test_a_win_now_beats_a_win_later():
    # The mover wins at once at (0, 2); (2, 0) also wins but later.
    scores = action_scores(3)[number_of(["MM.", "TT.", "M.T"])]
    assert scores.argmax() == 2
    assert scores[2] == 1 + 2  # two squares still empty after the winning mark


def negamax_scores(k: int) -> dict[tuple[tuple[int, ...], int], int]:
    """The same scores by plain memoised recursion over tuples, for every board reachable from
    the empty one: {(board, square): score}, board 1 the mover's, −1 the opponent's, 0 empty."""
    lines = [tuple(line) for line in winning_lines(3, k)]
    scores: dict[tuple[tuple[int, ...], int], int] = {}
    values: dict[tuple[int, ...], int] = {}

    def value(board: tuple[int, ...]) -> int:
        if board not in values:
            values[board] = max(score(board, s) for s in range(9) if board[s] == 0)
        return values[board]

    def score(board: tuple[int, ...], square: int) -> int:
        if (board, square) not in scores:
            after = board[:square] + (1,) + board[square + 1 :]
            left = after.count(0)
            if any(all(after[i] == 1 for i in line) for line in lines):
                scores[board, square] = 1 + left
            elif left == 0:
                scores[board, square] = 0
            else:
                scores[board, square] = -value(tuple(-cell for cell in after))
        return scores[board, square]

    value((0,) * 9)
    return scores


@pytest.mark.parametrize("k", [3, 2])
def test_table_agrees_with_plain_negamax_on_every_reachable_board(k):
    expected = negamax_scores(k)
    table = action_scores(k)
    for (board, square), score in expected.items():
        digits = np.select([np.array(board) == 1, np.array(board) == -1], [1, 2], 0)
        assert table[int((POWERS * digits).sum()), square] == score, (board, square)
    assert len(expected) > (10_000 if k == 3 else 100)


# -- games ---------------------------------------------------------------------------------------


@functools.cache
def match(opponent_name: str, games: int):
    """A jitted key -> (the perfect player's final reward [games], all games over).

    The perfect player takes seat 0 in the even games and seat 1 in the odd ones.
    """
    env = TicTacToe(size=3)
    perfect = perfect_agent(env)
    opponent = {"perfect": perfect, "random": random_agent}[opponent_name]
    seat = jnp.arange(games) % 2

    @jax.jit
    def play(key):
        states = jax.vmap(env.reset)(jax.random.split(key, games))

        def turn(states, key):
            perfect_key, opponent_key = jax.random.split(key)
            ours = jax.vmap(perfect)(states, jax.random.split(perfect_key, games))
            theirs = jax.vmap(opponent)(states, jax.random.split(opponent_key, games))
            actions = jnp.where(states.current_player == seat, ours, theirs)
            states = jax.vmap(env.step)(states, actions)
            return states, jnp.take_along_axis(states.rewards, seat[:, None], axis=1)[:, 0]

        states, rewards = jax.lax.scan(turn, states, jax.random.split(key, 9))
        return rewards.sum(axis=0), states.terminated.all()

    return play


def test_perfect_against_itself_always_draws():
    rewards, all_over = match("perfect", 256)(jax.random.key(0))
    assert bool(all_over)
    np.testing.assert_array_equal(rewards, np.zeros(256))


def test_perfect_never_loses_to_random_in_either_seat_and_mostly_wins():
    rewards, all_over = match("random", 2000)(jax.random.key(1))
    rewards = np.asarray(rewards)
    assert bool(all_over)
    assert (rewards >= 0).all()
    for seat in (0, 1):
        assert (rewards[seat::2] == 1).mean() > 0.7


def test_refuses_other_boards_and_games():
    with pytest.raises(ValueError, match="3×3 board only"):
        perfect_agent(TicTacToe(size=4))
    with pytest.raises(ValueError, match="tic-tac-toe only"):
        perfect_agent(Checkers())


def test_as_a_teacher_it_scores_the_legal_moves_from_its_table_and_the_others_below_them():
    env = TicTacToe()
    values = make_move_values("perfect", env)
    state = env.step(env.reset(jax.random.key(0)), 4)  # X in the centre: O to move
    scores = np.asarray(values(state))
    np.testing.assert_array_equal(scores, action_scores(3)[number_of(["...", ".T.", "..."])])
    finished = state
    for action in (0, 1, 8, 7):  # O 0, X 1, O 8, X 7: X holds the middle column
        finished = env.step(finished, action)
    assert bool(finished.terminated)
    assert (np.asarray(values(finished)) == ILLEGAL).all()
    with pytest.raises(ValueError, match="takes no argument"):
        make_move_values("perfect:2", env)
