"""Checkers rules as small pure functions over one position (vmap them for many).

A position is three sets of dark squares (see `bitboard`), always in the frame of the player to
move: `own` pieces move toward higher rows, `opponent` pieces are the other side's, `kings` marks
the crowned pieces of both. Turning the position over for the other player is `flip`, so the rules
only ever know one direction of play, and every rule is a few word operations on all pieces at
once: no gathers, no scatters, no data-dependent shapes, no Python branching on traced values.

At the bottom, the same rules over a flat int8 board (+1/+2 own man/king, −1/−2 the opponent's),
for code outside the environment that finds boards easier to handle.
"""

from __future__ import annotations

import functools
import operator
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxcheckers.bits import unpack_mask
from jaxcheckers.checkers import bitboard as bb
from jaxcheckers.checkers.bitboard import DIRECTIONS, OPPOSITE, Layout, layout

EMPTY, MAN, KING = 0, 1, 2
NUM_DIRECTIONS = 4
FORWARD = (False, False, True, True)  # men move toward higher rows only: SW and SE

__all__ = [
    "DIRECTIONS", "EMPTY", "MAN", "KING", "NUM_DIRECTIONS", "FORWARD", "Position", "Hop",
    "num_actions", "opening_board", "position_of", "board_of", "flip_position", "origins", "union",
    "legal_moves", "action_bits", "mask_of", "hop", "continues_capture", "observation",
    "square_and_direction", "CROWNING_RULES",
    "moves", "legal_action_mask", "can_jump_from", "flip", "Moves",
]  # fmt: skip


class Position(NamedTuple):
    own: jax.Array  # uint32 (W,)  the mover's pieces
    opponent: jax.Array  # uint32 (W,)  the other side's pieces
    kings: jax.Array  # uint32 (W,)  crowned pieces of either side


def num_actions(n: int) -> int:
    return NUM_DIRECTIONS * n * n


def opening_board(n: int) -> np.ndarray:
    """int8 (n·n,): the opening in player 0's frame, men on the dark squares of rows 0..n/2−2."""
    rows, cols = np.divmod(np.arange(n * n), n)
    dark = (rows + cols) % 2 == 1
    own = dark & (rows <= n // 2 - 2)
    opponent = dark & (rows >= n // 2 + 1)
    return (own.astype(np.int8) - opponent.astype(np.int8)) * MAN


def board_size(board: jax.Array) -> int:
    """n, from the static length of a flat board's last axis."""
    n = int(round(board.shape[-1] ** 0.5))
    assert n * n == board.shape[-1], board.shape
    return n


def position_of(board: jax.Array, n: int) -> Position:
    """The bitsets of an int8 (…, n·n) board."""
    dark, lay = bb.from_grid(jnp.asarray(board), n), layout(n)
    return Position(bb.pack(dark > 0, lay), bb.pack(dark < 0, lay), bb.pack(abs(dark) == KING, lay))


# The two readers below are jitted so that reading a property of one state on the host is one
# dispatch, not a dozen; inside a caller's jit they are inlined as usual.


@functools.partial(jax.jit, static_argnums=1)
def board_of(position: Position, n: int) -> jax.Array:
    """int8 (…, n·n): +1/+2 own man/king, −1/−2 the opponent's; works on batches."""
    lay = layout(n)
    own, opponent = bb.expand(position.own, lay), bb.expand(position.opponent, lay)
    value = jnp.where(bb.expand(position.kings, lay), KING, MAN).astype(jnp.int8)
    return jnp.where(own, value, jnp.where(opponent, -value, 0).astype(jnp.int8))


def flip_position(position: Position, lay: Layout) -> Position:
    """The same position seen by the other player: turned 180°, sides swapped."""
    return Position(
        bb.rotate(position.opponent, lay),
        bb.rotate(position.own, lay),
        bb.rotate(position.kings, lay),
    )


# One set of squares per direction (NW, NE, SW, SE), uint32 (W,) each.
PerDirection = tuple[jax.Array, jax.Array, jax.Array, jax.Array]


def origins(position: Position, lay: Layout) -> tuple[PerDirection, PerDirection]:
    """Per direction, the squares a jump / a simple move starts from.

    A piece may go in direction d when it is a king or d is forward; it steps when the square
    that way is empty, and jumps when that square holds an opponent with an empty one behind.
    Four sets rather than one stacked array: XLA fuses each into the loops that read it, where
    a stack is a loop over the batch of its own, written to memory.
    """
    empty = bb.layout_valid(lay) & ~(position.own | position.opponent)
    jumps, steps = [], []
    for d, forward in enumerate(FORWARD):
        back = OPPOSITE[d]
        may_go = position.own if forward else position.own & position.kings
        next_to_empty = bb.step(empty, back, lay)  # squares whose neighbour in d is empty
        steps.append(may_go & next_to_empty)
        jumps.append(may_go & bb.step(position.opponent & next_to_empty, back, lay))
    return tuple(jumps), tuple(steps)


def union(sets: PerDirection) -> jax.Array:
    """uint32 (W,): the squares in any of the sets."""
    return functools.reduce(operator.or_, sets)


def legal_moves(position: Position, jumper: jax.Array, lay: Layout) -> jax.Array:
    """uint32 (4, W): the legal actions as origin sets per direction.

    Captures if any exist (they are compulsory); mid-capture (`jumper` ≥ 0, a full-board
    square) only that piece's captures.
    """
    jumps, steps = origins(position, lay)
    captures = bb.any_bit(union(jumps))
    only_jumper = bb.single(jumper >> 1, lay)  # −1 stays negative: no square
    return jnp.stack([
        jnp.where(jumper >= 0, jump & only_jumper, jnp.where(captures, jump, step))
        for jump, step in zip(jumps, steps, strict=True)
    ])


def action_bits(moves: jax.Array, lay: Layout) -> jax.Array:
    """uint32 (…, ⌈4·n²/32⌉): (…, 4, W) origin sets as the packed action mask.

    Action a = direction·n² + square is bit a % 32 of word a // 32, as `bits.pack_mask` packs a
    mask: each direction's set is laid out on the full board (`bitboard.full_board_words`) and
    placed at bit direction·n², which on boards whose n² is not a multiple of 32 straddles words.
    """
    squares = lay.n * lay.n
    words: list[jax.Array | None] = [None] * -(-NUM_DIRECTIONS * squares // 32)

    def add(index: int, value: jax.Array) -> None:
        if index < len(words):
            words[index] = value if words[index] is None else words[index] | value

    for d in range(NUM_DIRECTIONS):
        for f, value in enumerate(bb.full_board_words(moves[..., d, :], lay)):
            index, offset = divmod(d * squares + 32 * f, 32)
            add(index, value << offset if offset else value)
            if offset:  # the word's high bits go on into the next one
                add(index + 1, value >> (32 - offset))
    zero = jnp.zeros_like(moves[..., 0, 0])
    return jnp.stack([zero if word is None else word for word in words], axis=-1)


@functools.partial(jax.jit, static_argnums=1)
def mask_of(moves: jax.Array, n: int) -> jax.Array:
    """bool (…, 4·n·n): action = direction·n² + square, from (…, 4, W) origin sets."""
    return unpack_mask(action_bits(moves, layout(n)), num_actions(n))


def square_and_direction(action: jax.Array, n: int) -> tuple[jax.Array, jax.Array]:
    """uint32 () each: the square an action starts from and its direction (0..3).

    Unsigned, as is all the index arithmetic of a hop: XLA turns signed floor division and
    remainder into a dozen operations each, unsigned ones by a power of two into a shift.
    """
    action = jnp.asarray(action).astype(jnp.uint32)
    return action % (n * n), action // (n * n)


class Hop(NamedTuple):
    position: Position  # after the hop, still in the mover's frame
    landing: jax.Array  # uint32 (W,)  the square the piece landed on, as a set
    square: jax.Array  # int32 ()  the same square, full-board index
    captured: jax.Array  # bool ()  the hop jumped an opponent piece
    man_moved: jax.Array  # bool ()  the piece was a man (so the move cannot be undone)
    crowned: jax.Array  # bool ()  the man reached the far row and became a king


def hop(position: Position, action: jax.Array, lay: Layout) -> Hop:
    """Plays one legal action: a simple move, or one jump of a capture sequence."""
    n = lay.n
    square, direction = square_and_direction(action, n)
    # One diagonal step is a constant offset on the full board: ±n (NW, NE up; SW, SE down) and
    # ±1 (NW, SW left; NE, SE right). Wrapping past 0 in unsigned arithmetic only happens for
    # illegal actions, whose result the step throws away.
    offset = jnp.where(direction < 2, -n, n) + jnp.where(direction % 2 == 0, -1, 1)
    near_square = square + offset.astype(jnp.uint32)
    far_square = near_square + offset.astype(jnp.uint32)  # only used for a capture: on the board
    source, near = bb.single(square >> 1, lay), bb.single(near_square >> 1, lay)
    far = bb.single(far_square >> 1, lay)

    captured = bb.any_bit(near & position.opponent)
    landing = jnp.where(captured, far, near)
    taken = jnp.where(captured, near, jnp.uint32(0))
    was_king = bb.any_bit(source & position.kings)
    crowned = ~was_king & bb.any_bit(landing & jnp.asarray(lay.last_row))
    king_now = jnp.where(was_king | crowned, landing, jnp.uint32(0))
    after = Position(
        own=(position.own & ~source) | landing,
        opponent=position.opponent & ~taken,
        kings=(position.kings & ~source & ~taken) | king_now,
    )
    landed_on = jnp.where(captured, far_square, near_square).astype(jnp.int32)
    return Hop(after, landing, landed_on, captured, ~was_king, crowned)


CROWNING_RULES = ("ends", "continues")


def continues_capture(step: Hop, lay: Layout, crowning: str = "ends") -> jax.Array:
    """bool (): the piece that just captured can capture again, so the turn goes on.

    crowning (static): "ends" (American rules) ends the move of a man crowned by its capture;
    "continues" (ealt/Checkers) lets the new king capture on, in all four directions.
    """
    assert crowning in CROWNING_RULES, crowning
    jumps, _ = origins(step.position, lay)
    can_capture = bb.any_bit(union(jumps) & step.landing)
    if crowning == "continues":
        return step.captured & can_capture
    return step.captured & ~step.crowned & can_capture


# The board value each observation plane shows: own men, own kings, the opponent's men, kings.
PLANE_PIECES = (MAN, KING, -MAN, -KING)


def observation(board: jax.Array) -> jax.Array:
    """bool (…, n, n, 4): own men, own kings, opponent men, opponent kings of an int8 (…, n·n)
    board (mover's frame)."""
    board = jnp.asarray(board)
    n = board_size(board)
    # One comparison broadcast over a plane axis: XLA compiles it to one elementwise loop, where
    # stacking four planes (a concatenate of bool arrays) is slower on the CPU.
    planes = board[..., None] == jnp.asarray(PLANE_PIECES, board.dtype)
    return planes.reshape(*board.shape[:-1], n, n, 4)


# -- the same rules over a flat int8 board (mover's frame), for code outside the env ---------------


class Moves(NamedTuple):
    jumps: jax.Array  # bool (4, n·n)  [direction, square] a capture starts there
    steps: jax.Array  # bool (4, n·n)  [direction, square] a simple move starts there


def flip(board: jax.Array) -> jax.Array:
    """The board seen by the other player: rotated 180°, colours swapped."""
    return -board[..., ::-1]


def moves(board: jax.Array, n: int) -> Moves:
    """Every jump and simple move of the side to move, ignoring the compulsory-capture rule."""
    jumps, steps = origins(position_of(board, n), layout(n))
    return Moves(*(mask_of(jnp.stack(sets), n).reshape(4, n * n) for sets in (jumps, steps)))


def legal_action_mask(board: jax.Array, jumper: jax.Array, n: int) -> jax.Array:
    """bool (4·n·n,): the legal actions of `board` (jumper ≥ 0: mid-capture on that square)."""
    return mask_of(legal_moves(position_of(board, n), jnp.asarray(jumper), layout(n)), n)


def can_jump_from(board: jax.Array, square: jax.Array, n: int) -> jax.Array:
    """bool (): the piece on `square` of an int8 board has a capture."""
    lay = layout(n)
    jumps, _ = origins(position_of(board, n), lay)
    return bb.any_bit(union(jumps) & bb.single(jnp.asarray(square) >> 1, lay))
