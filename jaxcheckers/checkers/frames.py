"""The two frames a checkers board is seen in: the mover's (what the State and the agents hold:
the side to move starts at the top rows and moves down) and the absolute one a person sees
(black, player 0, at the top). Turning a board by 180° and negating it maps one to the other,
and is its own inverse."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxcheckers.checkers import rules
from jaxcheckers.core import one_game

__all__ = ["to_mover_frame", "absolute_board", "absolute_board_jax"]


def to_mover_frame(board: np.ndarray, player: int) -> np.ndarray:
    """int8 (n·n,): the absolute board as `player` sees it (rotated 180° and negated for 1)."""
    flat = np.asarray(board, dtype=np.int8).reshape(-1)
    return flat if player == 0 else -flat[::-1]


def absolute_board(state) -> np.ndarray:
    """int8 (n, n): the board of one (unbatched) CheckersState as a person sees it."""
    one_game(state, "checkers")
    board = np.asarray(state.board)
    n = int(round(len(board) ** 0.5))
    player = int(state.current_player)
    return to_mover_frame(board, player).reshape(n, n)  # the frame change is its own inverse


def absolute_board_jax(board: jax.Array, player: jax.Array) -> jax.Array:
    """int8 (n·n,): traceable `absolute_board` for one game (vmap it for many)."""
    return jnp.where(player == 0, board, rules.flip(board))
