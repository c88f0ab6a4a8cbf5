"""n×n tic-tac-toe, k marks in a row to win, on the State contract every jaxcheckers game keeps.

    env = jaxcheckers.make("tictactoe")                # 3×3, three in a row
    env = jaxcheckers.make("tictactoe", board_size=15, k=5)  # free-style gomoku

Rules (those of tictactoe-gym, generalised to k in a row):
- Player 0 (X) moves first, then the players alternate. An action is a square, numbered row by
  row: action = row·n + column, 0 … n²−1; only empty squares are legal.
- A mark that completes k in a row along a row, a column or either diagonal wins: +1 for the
  winner, −1 for the loser. A full board without such a line is a draw (0 for both).
- An illegal action ends the game with −1 for the mover and 0 for the other (`core.Env.step`).
- Games end by themselves within n² steps, so nothing is truncated unless `max_steps` asks.

The agent sees `observation`, bool (n, n, 2) in the mover's frame: its own marks, then the
opponent's. `gym_board(state)` gives tictactoe-gym's absolute view instead.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxcheckers import svg
from jaxcheckers.core import Env, checked_max_steps, checked_player, pgx_step_count, replace_fields
from jaxcheckers.tictactoe import drawing

__all__ = ["TicTacToe", "TicTacToeState", "gym_board", "winning_lines", "MIN_SIZE", "MAX_SIZE"]

# 19: the largest board in common use (gomoku is played on 15×15 and 19×19).
MIN_SIZE, MAX_SIZE = 3, 19
FIRST_MARK, SECOND_MARK, EMPTY = 1, -1, 0  # board values: player 0's and player 1's marks
LINE_STEPS = ((0, 1), (1, 0), (1, 1), (1, -1))  # (drow, dcol): row, column, diagonal, anti-diagonal


class TicTacToeState(NamedTuple):
    current_player: jax.Array  # int32 ()  0 (X, moves first) or 1 (O)
    observation: jax.Array  # bool (n, n, 2)  the mover's marks, the opponent's marks
    legal_action_mask: jax.Array  # bool (n·n,)  the empty squares; all False once the game is over
    rewards: jax.Array  # float32 (2,)  of the last step, indexed by player
    terminated: jax.Array  # bool ()
    truncated: jax.Array  # bool ()  always False: games end by themselves
    step_count: jax.Array  # int32 ()  steps of this game (marks placed since `start`)
    board: jax.Array  # int8 (n·n,)  absolute: +1 player 0's mark, −1 player 1's, 0 empty

    env_id = "tictactoe"  # pgx's State.env_id: the name `jaxcheckers.make` takes
    replace = replace_fields  # pgx's name for `_replace`
    _step_count = pgx_step_count
    to_svg, save_svg = svg.state_methods(lambda state: _svg(state))


# -- tables, built once with numpy ---------------------------------------------------------------


def winning_lines(size: int, k: int) -> np.ndarray:
    """int32 (num_lines, k): the squares of every run of k cells along a row, column or diagonal.

    Each line's squares are in increasing order; a line found along two directions (k = 1) is
    kept once.
    """
    lines = set()
    for d_row, d_col in LINE_STEPS:
        for row in range(size):
            for col in range(size):
                last_row, last_col = row + (k - 1) * d_row, col + (k - 1) * d_col
                if 0 <= last_row < size and 0 <= last_col < size:
                    cells = ((row + i * d_row) * size + col + i * d_col for i in range(k))
                    lines.add(tuple(sorted(cells)))
    return np.array(sorted(lines), dtype=np.int32).reshape(-1, k)


def lines_through_squares(lines: np.ndarray, num_squares: int) -> np.ndarray:
    """int32 (num_squares, width, k): for each square, the winning lines that contain it.

    Squares on fewer than `width` lines are padded with lines made of the sentinel square
    `num_squares`, which is never marked (see `completes_line`).
    """
    contains = (lines[None, :, :] == np.arange(num_squares)[:, None, None]).any(axis=-1)
    width = int(contains.sum(axis=1).max())
    table = np.full((num_squares, width, lines.shape[1]), num_squares, dtype=np.int32)
    for square in range(num_squares):
        through = lines[contains[square]]
        table[square, : len(through)] = through
    return table


# Boards of up to 31 squares fit in the non-negative bits of an int32: there the win check is a
# handful of integer operations on one packed word (as fast as it gets on a CPU); larger boards
# look only at the lines through the last mark, gathered from a table.
MAX_PACKED_SQUARES = 31


def line_bit_masks(lines: np.ndarray) -> np.ndarray:
    """int32 (num_lines,): each line as a bit mask (bit s set for square s); needs ≤ 31 squares."""
    return (np.int64(1) << lines.astype(np.int64)).sum(axis=1).astype(np.int32)


# -- pure rules on one board (vmap them) -------------------------------------------------------


def completes_line(marked: jax.Array, lines_through_square: jax.Array) -> jax.Array:
    """bool (): whether any of the lines (int32 (width, k)) is wholly `marked` (bool (n·n,)).

    Only a line through the last mark can be new, so the caller passes that square's lines.
    """
    with_sentinel = jnp.concatenate([marked, jnp.zeros(1, jnp.bool_)])
    return with_sentinel[lines_through_square].all(axis=-1).any()


def packed(marked: jax.Array) -> jax.Array:
    """int32 (): bool (s,) with s ≤ 31 as one word, bit i for square i."""
    square_bits = np.int32(1) << np.arange(marked.shape[-1], dtype=np.int32)
    return jnp.sum(jnp.where(marked, square_bits, 0), dtype=jnp.int32)


def covers_a_line(marked_bits: jax.Array, line_masks: jax.Array) -> jax.Array:
    """bool (): whether the packed marks hold every square of one of the lines' masks."""
    return ((marked_bits & line_masks) == line_masks).any()


def has_line(marked: jax.Array, lines: jax.Array) -> jax.Array:
    """bool (): whether `marked` (bool (n·n,)) covers any whole line of `lines` (int32 (L, k))."""
    return marked[lines].all(axis=-1).any()


def mark_of(player: jax.Array) -> jax.Array:
    """int8 (): the board value of `player`'s marks (+1 for player 0, −1 for player 1)."""
    return (1 - 2 * player).astype(jnp.int8)


def observation(board: jax.Array, player: jax.Array, size: int) -> jax.Array:
    """bool (n, n, 2): `player`'s marks, then the opponent's."""
    mine = mark_of(player)
    planes = jnp.stack([board == mine, board == -mine], axis=-1)
    return planes.reshape(size, size, 2)


def _svg(state: TicTacToeState) -> str:
    return drawing.board_svg(np.asarray(gym_board(state)))


def gym_board(state: TicTacToeState) -> jax.Array:
    """int8 (..., n, n): tictactoe-gym's view, 1 for player 0's marks, −1 for player 1's, 0 empty.

    Absolute, not in the mover's frame; works on a single state or a batch.
    """
    board = state.board
    size = int(round(board.shape[-1] ** 0.5))
    return board.reshape(*board.shape[:-1], size, size)


# -- the environment -----------------------------------------------------------------------------


class TicTacToe(Env):
    """n×n tic-tac-toe, k marks in a row to win (see the module docstring for the rules).

    Options (keyword-only):
        board_size: the board's side n, 3 to 19 (default 3); `size` is the same option under
            tictactoe-gym's name.
        k: marks in a row that win, 1 to n (default: n, as in tictactoe-gym).
        max_steps: steps after which a game is cut (`truncated`); None (the default) never cuts,
            as a game ends by itself within n² steps.
    """

    def __init__(
        self,
        *,
        board_size: int | None = None,
        k: int | None = None,
        max_steps: int | None = None,
        size: int | None = None,
    ):
        if board_size is not None and size is not None:
            raise ValueError("give board_size or size (the same option), not both")
        size = board_size if board_size is not None else 3 if size is None else size
        if not _is_int(size) or not MIN_SIZE <= size <= MAX_SIZE:
            raise ValueError(
                f"board_size must be an int from {MIN_SIZE} to {MAX_SIZE}, got {size!r}"
            )
        if k is None:
            k = size
        if not _is_int(k) or not 1 <= k <= size:
            raise ValueError(f"k must be an int from 1 to board_size ({size}), got {k!r}")
        self.size = self.board_size = n = int(size)
        self.k = int(k)
        self.max_steps = checked_max_steps(max_steps)
        self.num_actions = n * n
        self.observation_shape = (n, n, 2)
        self.lines = winning_lines(n, self.k)
        self._line_masks = line_bit_masks(self.lines) if n * n <= MAX_PACKED_SQUARES else None
        self._lines_through = lines_through_squares(self.lines, n * n)

    def __repr__(self) -> str:
        cut = "" if self.max_steps is None else f", max_steps={self.max_steps}"
        return f"TicTacToe(board_size={self.size}, k={self.k}{cut})"

    state_type = TicTacToeState

    def check_state(self, state) -> None:
        """ValueError unless `state` is a game (or a batch) of this board size."""
        super().check_state(state)
        if jnp.shape(state.board)[-1:] != (self.size**2,):
            raise ValueError(
                f"{self!r} cannot step a {jnp.shape(state.board)[-1]}-square board: it plays "
                f"{self.size}×{self.size}"
            )

    def observe(self, state: TicTacToeState, player: jax.Array) -> jax.Array:
        """bool (n, n, 2): `player`'s marks, then the opponent's (tictactoe_v3's planes)."""
        return observation(state.board, checked_player(player), self.size)

    def _init(self, key: jax.Array) -> TicTacToeState:
        del key  # every game starts on the empty board
        return self.start(jnp.zeros(self.num_actions, jnp.int8), jnp.int32(0))

    def start(self, board: jax.Array, player: jax.Array) -> TicTacToeState:
        """A game from `board` (int8 (n·n,), absolute values), `player` to move. Traceable.

        The game is over at once when the board is full or holds a winning line already (with
        zero rewards: nobody won by a move of this game). Whether the position could arise in
        play (mark counts, two winners) is not checked.
        """
        board = jnp.asarray(board, jnp.int8)
        player = jnp.asarray(player, jnp.int32)
        lines = jnp.asarray(self.lines)
        decided = has_line(board == FIRST_MARK, lines) | has_line(board == SECOND_MARK, lines)
        empty = board == EMPTY
        terminated = decided | ~empty.any()
        return TicTacToeState(
            current_player=player,
            observation=observation(board, player, self.size),
            legal_action_mask=empty & ~terminated,
            rewards=jnp.zeros(2, jnp.float32),
            terminated=terminated,
            truncated=jnp.bool_(False),
            step_count=jnp.int32(0),
            board=board,
        )

    def _step(self, state: TicTacToeState, action: jax.Array) -> TicTacToeState:
        player = state.current_player
        mark = mark_of(player)
        # A select rather than a scatter: cheaper under vmap.
        board = jnp.where(jnp.arange(self.num_actions) == action, mark, state.board)
        won = self._completes_line(board == mark, action)
        empty = board == EMPTY
        terminated = won | ~empty.any()
        winner_first = jnp.where(jnp.arange(2) == player, 1.0, -1.0)
        next_player = 1 - player
        return state._replace(
            current_player=next_player,
            observation=observation(board, next_player, self.size),
            legal_action_mask=empty & ~terminated,
            rewards=jnp.where(won, winner_first, 0.0).astype(jnp.float32),
            terminated=terminated,
            board=board,
        )

    def _completes_line(self, marked: jax.Array, square: jax.Array) -> jax.Array:
        """bool (): whether the mover, who has just marked `square`, has k in a row.

        Every line is checked on small boards (a line completed earlier would have ended the
        game, so any complete line is new); on larger ones only the lines through `square`.
        """
        if self._line_masks is not None:  # fixed by the board size, not a traced value
            return covers_a_line(packed(marked), jnp.asarray(self._line_masks))
        return completes_line(marked, jnp.asarray(self._lines_through)[square])


def _is_int(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)
