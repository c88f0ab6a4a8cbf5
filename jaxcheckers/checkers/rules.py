"""Checkers rules as small pure functions over one board (vmap them for many).

The board is a flat int8 vector of the n·n squares, always in the frame of the player to move
("own" pieces positive, moving toward higher rows): see `EMPTY`, `MAN`, `KING`. The opponent's
pieces are the negatives. Turning the board over for the other player is `flip`, so the rules only
ever have to know one direction of play.

Everything here is elementwise work and static slices over (n, n) grids: no scatters, no
data-dependent shapes, no Python branching on traced values.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

EMPTY, MAN, KING = 0, 1, 2
OFF_BOARD = 3  # padding around the grid: neither empty nor an opponent, so nothing moves there

NUM_DIRECTIONS = 4
# (row, col) steps of the four diagonal directions, in the mover's frame: NW, NE, SW, SE.
DIRECTIONS = ((-1, -1), (-1, 1), (1, -1), (1, 1))
FORWARD = (False, False, True, True)  # men move toward higher rows only


def num_actions(n: int) -> int:
    return NUM_DIRECTIONS * n * n


def opening_board(n: int) -> np.ndarray:
    """The opening position in player 0's frame: men on the dark squares of rows 0..n/2−2."""
    rows, cols = np.divmod(np.arange(n * n), n)
    dark = (rows + cols) % 2 == 1
    own = dark & (rows <= n // 2 - 2)
    opponent = dark & (rows >= n // 2 + 1)
    return (own.astype(np.int8) - opponent.astype(np.int8)) * MAN


def dark_squares(n: int) -> np.ndarray:
    """Indices of the playable squares, row-major."""
    rows, cols = np.divmod(np.arange(n * n), n)
    return np.flatnonzero((rows + cols) % 2 == 1)


def flip(board: jax.Array) -> jax.Array:
    """The same position seen by the other player: rotated 180°, colours swapped."""
    return -board[::-1]


def observation(board: jax.Array, n: int) -> jax.Array:
    """bool (n, n, 4): own men, own kings, opponent men, opponent kings."""
    planes = jnp.stack([board == MAN, board == KING, board == -MAN, board == -KING], axis=-1)
    return planes.reshape(n, n, 4)


class Moves(NamedTuple):
    jumps: jax.Array  # bool (4, n·n)  [direction, square] a capture starts there
    steps: jax.Array  # bool (4, n·n)  [direction, square] a simple move starts there


def moves(board: jax.Array, n: int) -> Moves:
    """Every jump and simple move of the player to move, ignoring the compulsory-capture rule."""
    grid = board.reshape(n, n)
    padded = jnp.pad(grid, 2, constant_values=OFF_BOARD)

    def look(distance: int, dr: int, dc: int) -> jax.Array:
        top, left = 2 + distance * dr, 2 + distance * dc
        return padded[top : top + n, left : left + n]

    own, king = grid > 0, grid == KING
    jumps, steps = [], []
    for (dr, dc), forward in zip(DIRECTIONS, FORWARD):
        may_go = own if forward else king
        neighbour, beyond = look(1, dr, dc), look(2, dr, dc)
        steps.append(may_go & (neighbour == EMPTY))
        jumps.append(may_go & (neighbour < 0) & (beyond == EMPTY))
    return Moves(jnp.stack(jumps).reshape(4, n * n), jnp.stack(steps).reshape(4, n * n))


def legal_action_mask(board: jax.Array, jumper: jax.Array, n: int) -> jax.Array:
    """bool (4·n·n,): captures if any exist; only the jumper's captures mid-jump (jumper ≥ 0)."""
    jumps, steps = moves(board, n)
    mask = jnp.where(jumps.any(), jumps, steps)
    only_jumper = jumps & (jnp.arange(n * n) == jumper)
    return jnp.where(jumper >= 0, only_jumper, mask).reshape(-1)


class Hop(NamedTuple):
    board: jax.Array  # int8 (n·n,)  after the hop, still in the mover's frame
    destination: jax.Array  # int32 ()  where the piece landed
    captured: jax.Array  # bool ()  the hop jumped an opponent piece
    man_moved: jax.Array  # bool ()  the piece was a man (so the move cannot be undone)
    crowned: jax.Array  # bool ()  the man reached the far row and became a king


def _flat_deltas(n: int) -> jax.Array:
    return jnp.array([dr * n + dc for dr, dc in DIRECTIONS], dtype=jnp.int32)


def apply_hop(board: jax.Array, action: jax.Array, n: int) -> Hop:
    """Plays one legal action: a simple move, or one jump of a capture sequence."""
    square, direction = action % (n * n), action // (n * n)
    delta = _flat_deltas(n)[direction]
    neighbour = square + delta
    captured = board[neighbour] < 0
    destination = jnp.where(captured, square + 2 * delta, neighbour)

    piece = board[square]
    man_moved = piece == MAN
    crowned = man_moved & (destination // n == n - 1)
    landed = jnp.where(crowned, KING, piece).astype(board.dtype)

    index = jnp.arange(n * n)
    emptied = (index == square) | (captured & (index == neighbour))
    after = jnp.where(index == destination, landed, jnp.where(emptied, EMPTY, board))
    return Hop(after, destination, captured, man_moved, crowned)


def can_jump_from(board: jax.Array, square: jax.Array, n: int) -> jax.Array:
    """bool (): the piece on `square` has a capture (looks only at its own diagonals)."""
    width = n + 4
    padded = jnp.pad(board.reshape(n, n), 2, constant_values=OFF_BOARD).reshape(-1)
    row, col = square // n, square % n
    at = (row + 2) * width + (col + 2)
    steps = jnp.array([dr * width + dc for dr, dc in DIRECTIONS], dtype=jnp.int32)
    allowed = jnp.array(FORWARD) | (padded[at] == KING)
    neighbour, beyond = padded[at + steps], padded[at + 2 * steps]
    return (allowed & (neighbour < 0) & (beyond == EMPTY)).any()


def king_key(board: jax.Array, n: int) -> jax.Array:
    """uint32 (2·W,): own and opponent kings as bitsets over the dark squares.

    Between two irreversible moves (a capture or a man move) only kings move, so this key plus
    the side to move identifies a position exactly; the repetition rule needs nothing more.
    """
    dark = dark_squares(n)
    words = -(-len(dark) // 32)
    weights = jnp.left_shift(jnp.uint32(1), jnp.arange(32, dtype=jnp.uint32))

    def bits(on: jax.Array) -> jax.Array:
        padded = jnp.pad(on[dark].astype(jnp.uint32), (0, words * 32 - len(dark)))
        return (padded.reshape(words, 32) * weights).sum(axis=-1, dtype=jnp.uint32)

    return jnp.concatenate([bits(board == KING), bits(board == -KING)])


def key_words(n: int) -> int:
    return 2 * (-(-(n * n // 2) // 32))
