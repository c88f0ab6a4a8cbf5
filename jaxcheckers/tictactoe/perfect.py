"""A perfect 3×3 tic-tac-toe player: the whole game tree solved once, then a table lookup.

Every 3×3 board is numbered in base 3 from the mover's point of view (digit i: 0 empty, 1 the
mover's mark, 2 the opponent's). At construction a retrograde pass over all 3⁹ numbers, fewest
empty squares first, scores every action of every board with numpy; `act` then reads the row of
the current board and picks uniformly among the best legal actions.

Scores, for the mover: a win is 1 + the squares still empty after the winning mark (so a quicker
win scores higher), a loss the negative of the opponent's, a draw 0. The best action therefore
wins if it can, as soon as it can, and otherwise delays a loss as long as possible.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from jaxcheckers.agents import no_argument
from jaxcheckers.agents.random import random_legal_action
from jaxcheckers.tictactoe import TicTacToe, winning_lines

__all__ = ["perfect_agent", "perfect_values", "action_scores", "board_number"]

SIZE = 3
NUM_SQUARES = SIZE * SIZE
NUM_BOARDS = 3**NUM_SQUARES
ILLEGAL = np.iinfo(np.int8).min  # the score of an occupied square
EMPTY_DIGIT, OWN_DIGIT, OPPONENT_DIGIT = 0, 1, 2
POWERS = 3 ** np.arange(NUM_SQUARES)


@functools.cache
def action_scores(k: int) -> np.ndarray:
    """int8 (3⁹, 9): the score of each action for the mover on each board, k in a row to win.

    Boards with a line already on them are scored as if the game went on; play never reaches
    them, since the game stops at the first line.
    """
    lines = winning_lines(SIZE, k)
    digits = (np.arange(NUM_BOARDS)[:, None] // POWERS) % 3  # (boards, squares)
    empties = (digits == EMPTY_DIGIT).sum(axis=1)
    value = np.zeros(NUM_BOARDS, np.int64)  # best score of each board, for its mover
    scores = np.full((NUM_BOARDS, NUM_SQUARES), ILLEGAL, np.int64)

    # A board's children have one empty square fewer: solve the fuller boards first.
    for empty_count in range(1, NUM_SQUARES + 1):
        boards = np.flatnonzero(empties == empty_count)
        own = digits[boards] == OWN_DIGIT
        opponent = digits[boards] == OPPONENT_DIGIT
        for square in range(NUM_SQUARES):
            legal = ~own[:, square] & ~opponent[:, square]
            after = own.copy()
            after[:, square] = True
            wins = after[:, lines].all(axis=-1).any(axis=-1)
            # The child, seen from the opponent, who moves next: the two marks swap digits.
            child = (POWERS * (OWN_DIGIT * opponent + OPPONENT_DIGIT * after)).sum(axis=1)
            child = np.where(legal, child, 0)  # an occupied square has no child
            left = empty_count - 1
            score = np.where(wins, 1 + left, np.where(left == 0, 0, -value[child]))
            scores[boards, square] = np.where(legal, score, ILLEGAL)
        value[boards] = scores[boards].max(axis=1)
    return scores.astype(np.int8)


def board_number(observation: jax.Array) -> jax.Array:
    """int32 (): the base-3 number of a board given as bool (3, 3, 2) planes (own, opponent)."""
    planes = observation.reshape(NUM_SQUARES, 2).astype(jnp.int32)
    digits = OWN_DIGIT * planes[:, 0] + OPPONENT_DIGIT * planes[:, 1]
    return (jnp.asarray(POWERS, jnp.int32) * digits).sum()


def from_spec(argument: str, env):
    """`perfect` for a 3×3 tic-tac-toe env."""
    no_argument("perfect", argument)
    return perfect_agent(env)


def perfect_agent(env: TicTacToe):
    """An agent `act(state, key) -> action` that plays 3×3 tic-tac-toe perfectly.

    Works for any k on the 3×3 board; raises ValueError for any other game or board size.
    Ties between equally good actions are broken uniformly at random with `key`.
    """
    values = perfect_values(env)

    def act(state, key: jax.Array) -> jax.Array:
        scores = values(state)
        best = state.legal_action_mask & (scores == scores.max())
        return random_legal_action(key, best)

    return act


def perfect_values(env: TicTacToe):
    """`values(state) -> int32 (9,)`: every action's exact score for the mover (see the module),
    ILLEGAL (below every legal score) for an occupied square or once the game is over. The
    teacher of `train --algo distill --game tictactoe --teacher perfect`."""
    if not isinstance(env, TicTacToe):
        raise ValueError(f"the perfect player plays tic-tac-toe only, not {env!r}")
    if env.size != SIZE:
        raise ValueError(
            f"the perfect player solves the 3×3 board only (size=3), got size={env.size}"
        )
    table = jnp.asarray(action_scores(env.k))

    def values(state) -> jax.Array:
        scores = table[board_number(state.observation)].astype(jnp.int32)
        return jnp.where(state.legal_action_mask, scores, ILLEGAL)

    return values


def values_from_spec(argument: str, env):
    """`perfect` as a teacher (`agents.make_move_values`)."""
    no_argument("perfect", argument)
    return perfect_values(env)
