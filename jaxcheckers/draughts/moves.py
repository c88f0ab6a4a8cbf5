"""Whole moves of a draughts position, for perft, notation and the tests (the env plays hops:
`rules`).

A position here is an int8 board (S,) in the mover's frame (`rules`' docstring), and `taken`
(bool (S,)) the opponent pieces a move under way has captured. The whole moves are searched
breadth first, one level per piece taken: a level is a fixed number of nodes (square of the
capturing piece, its start square, whether it is a king, the pieces taken, and a label),
children are all capture hops of a node, and nodes with the same label, start, square, kind and
set of taken pieces are merged: two routes of the same move become one node; a search that needs
more nodes than its capacity says so (`Moves.overflow`).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxcheckers.draughts.rules import (
    EMPTY,
    FORWARD,
    OWN_KING,
    OWN_MAN,
    Layout,
    flip,
)

# -- sets of squares as uint32 words -------------------------------------------------------------


def square_bits(square: jax.Array, lay: Layout) -> jax.Array:
    """uint32 (…, W): the set holding `square` (nothing for square S, off the board)."""
    word = jnp.arange(lay.words)
    on = (square[..., None] // 32 == word) & (square[..., None] < lay.squares)
    return jnp.where(on, jnp.uint32(1) << (square[..., None] % 32).astype(jnp.uint32), 0).astype(
        jnp.uint32
    )


def holds(words: jax.Array, square: jax.Array, lay: Layout) -> jax.Array:
    """bool (…): `square` is in the set `words` (uint32 (…, W)); False for S."""
    safe = jnp.minimum(square, lay.squares - 1)
    word = jnp.take_along_axis(words, (safe // 32)[..., None], axis=-1)[..., 0]
    return ((word >> (safe % 32).astype(jnp.uint32)) & 1).astype(bool) & (square < lay.squares)


def mask_of(words: jax.Array, lay: Layout) -> jax.Array:
    """bool (S,): a set as a mask."""
    return holds(jnp.broadcast_to(words, (lay.squares, lay.words)), jnp.arange(lay.squares), lay)


# -- the capture search --------------------------------------------------------------------------


class Nodes(NamedTuple):
    """One level of the capture search; every field has a leading axis of nodes (N,)."""

    valid: jax.Array  # bool
    label: jax.Array  # int32  its group: the landings behind one piece taken share one
    origin: jax.Array  # int32  the square the moving piece stands on, on the board searched
    square: jax.Array  # int32  where it is now
    king: jax.Array  # bool   it moves as a king
    taken: jax.Array  # uint32 (N, W)  the opponent pieces taken so far


def _children(nodes: Nodes, board: jax.Array, lay: Layout) -> Nodes:
    """Every capture hop of every node, as nodes of shape (N·4·L,) (most of them invalid),
    each labelled with its parent's index and direction: its group."""
    ray = jnp.asarray(lay.ray)[jnp.minimum(nodes.square, lay.squares - 1)]  # (N, 4, L)
    occupied = jnp.concatenate([board != EMPTY, jnp.ones(1, bool)])[ray]
    occupied &= ray != nodes.origin[:, None, None]  # the moving piece has left its square
    theirs = jnp.concatenate([board < 0, jnp.zeros(1, bool)])
    first = jnp.argmax(occupied, axis=-1)  # (N, 4): the nearest piece (or the edge) along each
    target = jnp.take_along_axis(ray, first[..., None], axis=-1)[..., 0]
    jumpable = theirs[target] & ~holds(nodes.taken[:, None, :], target, lay)
    jumpable &= nodes.king[:, None] | (first == 0)  # a man jumps an adjacent piece only
    seen = jnp.cumsum(occupied, axis=-1)
    seen_at_target = jnp.take_along_axis(seen, first[..., None], axis=-1)
    distance = jnp.arange(lay.reach)
    # Landing squares: beyond the target, no piece between it and them (nor on them).
    lands = (distance > first[..., None]) & (seen == seen_at_target)
    lands &= nodes.king[:, None, None] | (distance == 1)  # a man lands right behind
    valid = nodes.valid[:, None, None] & jumpable[..., None] & lands
    crowned = nodes.king[:, None, None] | (
        lay.crown_mid_capture & (jnp.asarray(lay.row)[jnp.minimum(ray, lay.squares - 1)] == 0)
    )
    shape = valid.shape
    label = jnp.arange(shape[0])[:, None, None] * 4 + jnp.arange(4)[None, :, None]
    taken = nodes.taken[:, None, :] | square_bits(target, lay)  # (N, 4, W)
    return Nodes(
        valid=valid.reshape(-1),
        label=jnp.broadcast_to(label, shape).reshape(-1).astype(jnp.int32),
        origin=jnp.broadcast_to(nodes.origin[:, None, None], shape).reshape(-1),
        square=ray.reshape(-1),
        king=jnp.broadcast_to(crowned, shape).reshape(-1),
        taken=jnp.broadcast_to(taken[:, :, None, :], (*shape, lay.words)).reshape(-1, lay.words),
    )


def _compact(nodes: Nodes, capacity: int) -> tuple[Nodes, jax.Array]:
    """The valid nodes moved to the front of `capacity` slots, and whether some did not fit."""
    (index,) = jnp.nonzero(nodes.valid, size=capacity, fill_value=nodes.valid.shape[0] - 1)
    kept = jax.tree.map(lambda x: x[index], nodes)
    count = nodes.valid.sum()
    kept = kept._replace(valid=kept.valid & (jnp.arange(capacity) < count))
    return kept, count > capacity


def _merged(nodes: Nodes) -> Nodes:
    """`nodes` with each repeated node (same start, square, kind and taken set: the same move
    so far, by another route) kept once."""
    squares = 64  # above any board's square count
    key = (nodes.origin * squares + nodes.square) * 2 + nodes.king
    same = nodes.valid[None, :] & (key[:, None] == key[None, :])
    same &= (nodes.taken[:, None, :] == nodes.taken[None, :, :]).all(axis=-1)
    earlier = jnp.arange(nodes.valid.shape[0])
    repeated = (same & (earlier[None, :] < earlier[:, None])).any(axis=1)
    return nodes._replace(valid=nodes.valid & ~repeated)


def _roots(board: jax.Array, lay: Layout) -> Nodes:
    """The side to move's pieces, in `lay.men_per_side` slots (a side never has more pieces,
    `fen` refuses such positions)."""
    valid = board > 0
    count = lay.men_per_side
    (kept,) = jnp.nonzero(valid, size=count, fill_value=0)
    kept = kept.astype(jnp.int32)
    return Nodes(
        valid=valid[kept] & (jnp.arange(count) < valid.sum()),
        label=jnp.zeros(count, jnp.int32),
        origin=kept,
        square=kept,
        king=board[kept] == OWN_KING,
        taken=jnp.zeros((count, lay.words), jnp.uint32),
    )


def _first_hops(board: jax.Array, lay: Layout, capacity: int) -> tuple[Nodes, jax.Array]:
    """The captures' first hops in `capacity` slots, and whether some did not fit. They differ
    in start, direction or distance: nothing to merge yet."""
    return _compact(_children(_roots(board, lay), board, lay), capacity)


def _longest(first: Nodes, overflow, board, lay: Layout, capacity: int) -> tuple[Nodes, jax.Array]:
    """The deepest level of the captures that begin with `first` (the longest captures, each
    once), level by level in `capacity` nodes, and whether a level did not fit."""

    def more(carry):
        return carry[1].valid.any()

    def deeper(carry):
        _, level, overflow = carry
        children, spilled = _compact(_children(level, board, lay), capacity)
        return level, _merged(children), overflow | spilled

    best, _, overflow = jax.lax.while_loop(more, deeper, (first, first, overflow))
    return best, overflow


def _expand(nodes: Nodes, board, lay: Layout) -> tuple[Nodes, jax.Array]:
    """The children of `nodes` (uncompacted), and which nodes have none."""
    children = _children(nodes, board, lay)
    return children, ~children.valid.reshape(nodes.valid.shape[0], -1).any(axis=1)


def _stops_early(valid, ends, group) -> jax.Array:
    """bool (N,): a capture that stops where one landing behind the same piece would go on
    (a king must land where it can capture again, if it can; Russian rules)."""
    goes_on = valid & ~ends
    same = group[:, None] == group[None, :]
    return valid & ends & (same & goes_on[None, :]).any(axis=1)


def finish(board: jax.Array, taken: jax.Array, square: jax.Array, lay: Layout) -> jax.Array:
    """int8 (S,): the move ended with the piece on `square`: taken pieces leave, a man on the
    last row is crowned. In the mover's frame still."""
    board = jnp.where(taken, jnp.int8(EMPTY), board)
    last_row = jnp.asarray(lay.row) == 0
    at = jnp.arange(lay.squares) == square
    return jnp.where(at & last_row & (board == OWN_MAN), jnp.int8(OWN_KING), board)


# -- whole moves ---------------------------------------------------------------------------------


class Moves(NamedTuple):
    """The whole moves of a position, each once however many routes it has; fields (K,)."""

    valid: jax.Array  # bool
    origin: jax.Array  # int32  the square the piece leaves
    square: jax.Array  # int32  where it ends
    king: jax.Array  # bool  it is a king at the end (before the last-row crowning)
    taken: jax.Array  # uint32 (K, W)  the pieces it takes
    overflow: jax.Array  # bool ()  more moves or search nodes than fit: the list is incomplete


def whole_moves(board: jax.Array, lay: Layout, capacity: int) -> Moves:
    """The legal whole moves of `board` (start of a move), at most `capacity` of them; the
    search keeps `capacity` nodes a level too."""
    first, overflow = _first_hops(board, lay, capacity)
    # The majority rule keeps the longest captures; Russian rules, any that cannot go on.
    kept = _longest if lay.majority else _leaves
    captures, overflow = kept(first, overflow, board, lay, capacity)
    plain, spilled = _plain_moves(board, lay, capacity)
    has_capture = first.valid.any()
    chosen = jax.tree.map(lambda a, b: jnp.where(has_capture, a, b), captures, plain)
    overflow = jnp.where(has_capture, overflow, spilled)
    return Moves(chosen.valid, chosen.origin, chosen.square, chosen.king, chosen.taken, overflow)


def _plain_moves(board: jax.Array, lay: Layout, capacity: int) -> tuple[Nodes, jax.Array]:
    """The moves without capture as nodes (`capacity` slots), and whether some did not fit."""
    roots = _roots(board, lay)
    ray = jnp.asarray(lay.ray)[roots.origin]  # (R, 4, L)
    free = jnp.concatenate([board == EMPTY, jnp.zeros(1, bool)])[ray]
    clear = jnp.cumprod(free, axis=-1).astype(bool)
    forward = jnp.isin(jnp.arange(4), jnp.asarray(FORWARD))[None, :, None]
    near = (jnp.arange(lay.reach) == 0)[None, None, :]
    moves = clear & roots.valid[:, None, None] & (roots.king[:, None, None] | (forward & near))
    shape = moves.shape
    nodes = Nodes(
        valid=moves.reshape(-1),
        label=jnp.zeros(moves.size, jnp.int32),
        origin=jnp.broadcast_to(roots.origin[:, None, None], shape).reshape(-1),
        square=ray.reshape(-1),
        king=jnp.broadcast_to(roots.king[:, None, None], shape).reshape(-1),
        taken=jnp.zeros((moves.size, lay.words), jnp.uint32),
    )
    return _compact(nodes, capacity)


def _leaves(first: Nodes, overflow, board, lay: Layout, capacity: int) -> tuple[Nodes, jax.Array]:
    """Every capture that cannot go on (Russian: any of them may be played), collected level by
    level into `capacity` slots. A king landing where it stops, behind a piece from which another
    landing goes on, is no such capture. Nodes are merged only as moves, at the end: a merged
    node would lose the landings beside it."""
    out = jax.tree.map(lambda x: jnp.zeros((capacity, *x.shape[1:]), x.dtype), first)

    def more(carry):
        return carry[0].valid.any()

    def deeper(carry):
        level, out, count, overflow = carry
        children, ends = _expand(level, board, lay)
        nxt, spilled = _compact(children, capacity)
        leaf = level.valid & ends & ~_stops_early(level.valid, ends, level.label)
        leaf = _merged(level._replace(valid=leaf)).valid
        slot = jnp.where(leaf, count + jnp.cumsum(leaf) - 1, capacity)
        out = jax.tree.map(lambda o, x: o.at[slot].set(x, mode="drop"), out, level)
        total = count + leaf.sum()
        return nxt, out, total, overflow | spilled | (total > capacity)

    _, out, count, overflow = jax.lax.while_loop(more, deeper, (first, out, jnp.int32(0), overflow))
    return out._replace(valid=jnp.arange(capacity) < count), overflow


def play_move(board: jax.Array, move: Moves, lay: Layout) -> jax.Array:
    """int8 (S,): the board after the whole move (fields of one move), in the opponent's frame."""
    square = jnp.arange(lay.squares)
    piece = jnp.where(move.king, jnp.int8(OWN_KING), board[move.origin])
    moved = jnp.where(square == move.origin, jnp.int8(EMPTY), board)
    moved = jnp.where(square == move.square, piece, moved)
    taken = mask_of(move.taken, lay)
    return flip(finish(moved, taken, move.square, lay))
