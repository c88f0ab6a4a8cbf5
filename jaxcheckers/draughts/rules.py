"""Draughts move generation and application, pure JAX, on one position (vmap for a batch).

A position is an int8 board (S,) over the playable squares in the mover's frame: index
s = FMJD square number − 1 as the side to move sees the board (it moves toward row 0, the way
White does in FMJD numbering); +1 own man, +2 own king, −1 opponent man, −2 opponent king, 0
empty. `taken` (bool (S,)) marks opponent pieces already captured by a move under way: they stay
on the board, block, and cannot be jumped again (the Turkish strike rule), until the move ends.

A hop is one action: `action = (direction·L + distance − 1)·S + square`, the piece on `square`
going `distance` squares (1 … L = n − 1) along `direction` (0 NW, 1 NE, 2 SW, 3 SE, rows counted
downward in the mover's frame). A capture hop passes over exactly one opponent piece.

Captures are searched breadth first, one level per piece taken: a level is a fixed number of
nodes (square of the capturing piece, its start square, whether it is a king, the pieces taken,
and a label), children are all capture hops of a node, and nodes with the same label, start,
square, kind and set of taken pieces are merged: two routes of the same move become one node.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

VARIANTS = ("international", "brazilian", "russian")
BOARD_SIZE = {"international": 10, "brazilian": 8, "russian": 8}
DIRECTIONS = ((-1, -1), (-1, 1), (1, -1), (1, 1))  # NW, NE, SW, SE as (row, col) steps
FORWARD = (0, 1)  # the directions a man moves in (toward row 0, the mover's frame)

OWN_MAN, OWN_KING, THEIR_MAN, THEIR_KING, EMPTY = 1, 2, -1, -2, 0


@dataclasses.dataclass(frozen=True, eq=False)
class Layout:
    """The tables of one variant, built with numpy once."""

    variant: str
    n: int  # board side
    squares: int  # S = n²/2 playable squares
    reach: int  # L = n − 1: the longest distance along a diagonal
    words: int  # uint32 words of a set of squares
    ray: np.ndarray  # int32 (S, 4, L): the square `distance` along a direction, S off the board
    row: np.ndarray  # int32 (S,)
    col: np.ndarray  # int32 (S,)
    cell: np.ndarray  # int32 (n·n,): the square index of each cell (row-major), S if light
    majority: bool  # the capture taking the most pieces must be played
    crown_mid_capture: bool  # a man reaching the last row mid-capture goes on as a king
    capacity: int  # nodes of one level of the env's capture search

    @property
    def num_actions(self) -> int:
        return 4 * self.reach * self.squares

    @property
    def men_per_side(self) -> int:
        return (self.n // 2 - 1) * self.n // 2


@functools.cache
def layout(variant: str) -> Layout:
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    n = BOARD_SIZE[variant]
    half = n // 2
    squares = n * half
    reach = n - 1
    row = np.arange(squares) // half
    # Row r holds squares r·n/2 … ; its first playable column is 1 on even rows, 0 on odd ones.
    col = 2 * (np.arange(squares) % half) + (row % 2 == 0)
    index = np.full((n, n), squares, np.int32)
    index[row, col] = np.arange(squares)
    ray = np.full((squares, 4, reach), squares, np.int32)
    for s in range(squares):
        for d, (dr, dc) in enumerate(DIRECTIONS):
            for k in range(reach):
                r, c = row[s] + dr * (k + 1), col[s] + dc * (k + 1)
                if not (0 <= r < n and 0 <= c < n):
                    break
                ray[s, d, k] = index[r, c]
    return Layout(
        variant=variant,
        n=n,
        squares=squares,
        reach=reach,
        words=(squares + 31) // 32,
        ray=ray,
        row=row.astype(np.int32),
        col=col.astype(np.int32),
        cell=index.reshape(-1),
        majority=variant != "russian",
        crown_mid_capture=variant == "russian",
        capacity=128 if n == 10 else 64,
    )


def opening_board(lay: Layout) -> np.ndarray:
    """int8 (S,): the start, in the first mover's frame (its men on the last rows)."""
    board = np.zeros(lay.squares, np.int8)
    board[: lay.men_per_side] = THEIR_MAN
    board[lay.squares - lay.men_per_side :] = OWN_MAN
    return board


def flip(board: jax.Array) -> jax.Array:
    """The board in the other side's frame: rotated 180° (s ↦ S − 1 − s), colours swapped."""
    return -board[..., ::-1]


def action_of(direction, distance, square, lay: Layout):
    """The action number of a hop (ints or arrays)."""
    return (direction * lay.reach + distance - 1) * lay.squares + square


def hop_of(action, lay: Layout):
    """(direction, distance, square) of an action number."""
    square = action % lay.squares
    rest = action // lay.squares
    return rest // lay.reach, rest % lay.reach + 1, square


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


def bits_of(mask: jax.Array, lay: Layout) -> jax.Array:
    """uint32 (W,): bool (S,) as a set."""
    padded = jnp.zeros(lay.words * 32, bool).at[: lay.squares].set(mask)
    weights = jnp.uint32(1) << jnp.arange(32, dtype=jnp.uint32)
    return (padded.reshape(lay.words, 32) * weights).sum(axis=-1, dtype=jnp.uint32)


def mask_of(words: jax.Array, lay: Layout) -> jax.Array:
    """bool (S,): a set as a mask."""
    return holds(jnp.broadcast_to(words, (lay.squares, lay.words)), jnp.arange(lay.squares), lay)


# -- the capture search --------------------------------------------------------------------------


class Nodes(NamedTuple):
    """One level of the capture search; every field has a leading axis of nodes (N,)."""

    valid: jax.Array  # bool
    label: jax.Array  # int32  the first hop's action (env) or 0 (whole moves)
    origin: jax.Array  # int32  the square the moving piece stands on, on the board searched
    square: jax.Array  # int32  where it is now
    king: jax.Array  # bool   it moves as a king
    taken: jax.Array  # uint32 (N, W)  the opponent pieces taken so far


def _children(nodes: Nodes, board: jax.Array, lay: Layout, label_hops) -> Nodes:
    """Every capture hop of every node, as nodes of shape (N·4·L,) (most of them invalid).

    label_hops: True labels each child with its hop's action, "group" with its parent's index
    and direction (the landings behind one piece taken), False keeps the parent's label."""
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
    if label_hops == "group":
        label = jnp.arange(shape[0])[:, None, None] * 4 + jnp.arange(4)[None, :, None]
    elif label_hops:
        direction = jnp.arange(4)[None, :, None]
        label = action_of(direction, distance + 1, nodes.origin[:, None, None], lay)
    else:
        label = nodes.label[:, None, None]
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


def _merged(nodes: Nodes, *, by_label: bool = True) -> Nodes:
    """`nodes` with each repeated node (same label, start, square, kind and taken set) kept once
    (by_label=False: whatever their labels)."""
    squares = 64  # above any board's square count
    label = nodes.label if by_label else jnp.zeros_like(nodes.label)
    key = ((label * squares + nodes.origin) * squares + nodes.square) * 2 + nodes.king
    same = nodes.valid[None, :] & (key[:, None] == key[None, :])
    same &= (nodes.taken[:, None, :] == nodes.taken[None, :, :]).all(axis=-1)
    earlier = jnp.arange(nodes.valid.shape[0])
    repeated = (same & (earlier[None, :] < earlier[:, None])).any(axis=1)
    return nodes._replace(valid=nodes.valid & ~repeated)


def _next_level(
    nodes: Nodes, board, lay: Layout, label_hops: bool, capacity: int
) -> tuple[Nodes, jax.Array, jax.Array]:
    """The next level, whether it overflowed, and which of `nodes` have no capture (bool (N,))."""
    children = _children(nodes, board, lay, label_hops)
    ends = ~children.valid.reshape(nodes.valid.shape[0], -1).any(axis=1)
    level, overflow = _compact(children, capacity)
    return _merged(level), overflow, ends


def _roots(board: jax.Array, taken: jax.Array, jumper: jax.Array, lay: Layout) -> Nodes:
    """The pieces that may capture: every own piece at the start of a move, else the jumper;
    in `lay.men_per_side` slots (a side never has more pieces, `fen` refuses such positions)."""
    square = jnp.arange(lay.squares, dtype=jnp.int32)
    valid = jnp.where(jumper < 0, board > 0, square == jumper)
    count = lay.men_per_side
    (kept,) = jnp.nonzero(valid, size=count, fill_value=0)
    kept = kept.astype(jnp.int32)
    return Nodes(
        valid=valid[kept] & (jnp.arange(count) < valid.sum()),
        label=jnp.zeros(count, jnp.int32),
        origin=kept,
        square=kept,
        king=board[kept] == OWN_KING,
        taken=jnp.broadcast_to(bits_of(taken, lay), (count, lay.words)),
    )


class Search(NamedTuple):
    first: Nodes  # the first level (labels: the hop actions where the search labels hops)
    best: Nodes  # the deepest level reached
    depth: jax.Array  # int32 (): pieces the longest capture takes (0: no capture)
    overflow: jax.Array  # bool (): a level had more nodes than `lay.capacity` (then inexact)


def search(
    board, taken, jumper, lay: Layout, *, label_hops: bool, capacity: int, deep: bool = True
) -> Search:
    """The capture search from the start of a move (jumper −1) or from a piece mid-capture,
    `capacity` nodes a level. deep=False stops after the first level (then `best` = `first`)."""
    roots = _roots(board, taken, jumper, lay)
    # First hops differ in start, direction or distance: nothing to merge yet.
    first, overflow = _compact(_children(roots, board, lay, label_hops), capacity)
    depth = first.valid.any().astype(jnp.int32)
    if not deep:
        return Search(first, first, depth, overflow)

    def more(carry):
        return carry[1].valid.any()

    def deeper(carry):
        best, level, depth, overflow = carry
        nxt, spilled, _ = _next_level(level, board, lay, False, capacity)
        return level, nxt, depth + 1, overflow | spilled

    init = (first, first, jnp.int32(0), overflow)
    best, _, depth, overflow = jax.lax.while_loop(more, deeper, init)
    return Search(first, best, depth, overflow)


# -- moves without capture -----------------------------------------------------------------------


def quiet_moves(board: jax.Array, lay: Layout) -> jax.Array:
    """bool (A,): every non-capturing hop (men one square forward, kings along free lines)."""
    ray = jnp.asarray(lay.ray)  # (S, 4, L)
    free = jnp.concatenate([board == EMPTY, jnp.zeros(1, bool)])[ray]
    clear = jnp.cumprod(free, axis=-1).astype(bool)  # every square up to this one is empty
    forward = jnp.isin(jnp.arange(4), jnp.asarray(FORWARD))[None, :, None]
    near = (jnp.arange(lay.reach) == 0)[None, None, :]
    man = (board == OWN_MAN)[:, None, None] & forward & near
    king = (board == OWN_KING)[:, None, None]
    return (clear & (man | king)).transpose(1, 2, 0).reshape(-1)


def labels_mask(nodes: Nodes, lay: Layout) -> jax.Array:
    """bool (A,): the labels of the valid nodes."""
    index = jnp.where(nodes.valid, nodes.label, lay.num_actions)
    return jnp.zeros(lay.num_actions + 1, bool).at[index].set(True)[:-1]


class Legal(NamedTuple):
    mask: jax.Array  # bool (A,)
    captures: jax.Array  # bool (): the legal hops capture
    overflow: jax.Array  # bool ()


def legal_hops(board, taken, jumper, lay: Layout) -> Legal:
    """The legal hops: the first hops of the longest captures (under the majority rule; of any
    capture in Russian), else (at the start of a move) the quiet moves."""
    if lay.majority:
        found = search(board, taken, jumper, lay, label_hops=True, capacity=lay.capacity)
        best, captures, overflow = found.best, found.depth > 0, found.overflow
    else:
        roots = _roots(board, taken, jumper, lay)
        first, overflow = _compact(_children(roots, board, lay, True), lay.capacity)
        _, ends = _expand(first, board, lay)
        # The landings behind one piece taken: those from which the capture goes on, if any.
        group = first.label // lay.squares // lay.reach  # the direction of the hop
        group = group * lay.squares + first.origin
        best = first._replace(valid=first.valid & ~_stops_early(first.valid, ends, group))
        captures = first.valid.any()
    quiet = quiet_moves(board, lay) & (jumper < 0)
    mask = jnp.where(captures, labels_mask(best, lay), quiet)
    return Legal(mask, captures, overflow)


def _expand(nodes: Nodes, board, lay: Layout) -> tuple[Nodes, jax.Array]:
    """The children of `nodes` labelled by group (uncompacted), and which nodes have none."""
    children = _children(nodes, board, lay, "group")
    return children, ~children.valid.reshape(nodes.valid.shape[0], -1).any(axis=1)


def _stops_early(valid, ends, group) -> jax.Array:
    """bool (N,): a capture that stops where one landing behind the same piece would go on
    (a king must land where it can capture again, if it can; Russian rules)."""
    goes_on = valid & ~ends
    same = group[:, None] == group[None, :]
    return valid & ends & (same & goes_on[None, :]).any(axis=1)


# -- playing a hop -------------------------------------------------------------------------------


class Hop(NamedTuple):
    board: jax.Array  # int8 (S,)  the piece moved (crowned mid-capture in Russian)
    taken: jax.Array  # bool (S,)
    square: jax.Array  # int32 ()  where the piece stands now
    captured: jax.Array  # bool ()  the hop took a piece
    man_moved: jax.Array  # bool ()


def hop(board: jax.Array, taken: jax.Array, action: jax.Array, lay: Layout) -> Hop:
    """Plays the hop `action` (assumed legal): the piece moves; a piece passed over is marked."""
    direction, distance, origin = hop_of(action, lay)
    ray = jnp.asarray(lay.ray)[origin, direction]  # (L,)
    land = ray[distance - 1]
    before = jnp.arange(lay.reach) < distance - 1
    square = jnp.arange(lay.squares)
    over = (square[:, None] == ray[None, :]) & before[None, :]
    passed = over.any(axis=1) & (board != EMPTY)  # the one opponent piece jumped, if any
    piece = board[origin]
    crown = lay.crown_mid_capture & passed.any() & (jnp.asarray(lay.row)[land] == 0)
    piece = jnp.where(crown, jnp.int8(OWN_KING), piece)
    moved = jnp.where(square == origin, jnp.int8(EMPTY), board)
    moved = jnp.where(square == land, piece, moved)
    return Hop(moved, taken | passed, land, passed.any(), board[origin] == OWN_MAN)


def finish(board: jax.Array, taken: jax.Array, square: jax.Array, lay: Layout) -> jax.Array:
    """int8 (S,): the move ended with the piece on `square`: taken pieces leave, a man on the
    last row is crowned. In the mover's frame still."""
    board = jnp.where(taken, jnp.int8(EMPTY), board)
    last_row = jnp.asarray(lay.row) == 0
    at = jnp.arange(lay.squares) == square
    return jnp.where(at & last_row & (board == OWN_MAN), jnp.int8(OWN_KING), board)


def can_capture_from(board, taken, square, lay: Layout) -> jax.Array:
    """bool (): the piece on `square` has a capture (the move must go on)."""
    roots = _roots(board, taken, square, lay)
    return _children(roots, board, lay, False).valid.any()


# -- whole moves (perft, notation, the tests) -----------------------------------------------------


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
    empty = jnp.zeros(lay.squares, bool)
    if lay.majority:
        found = search(board, empty, jnp.int32(-1), lay, label_hops=False, capacity=capacity)
        captures, overflow, first = found.best, found.overflow, found.first
    else:
        roots = _roots(board, empty, jnp.int32(-1), lay)
        first, overflow = _compact(_children(roots, board, lay, "group"), capacity)
        captures, overflow = _leaves(first, overflow, board, lay, capacity)
    plain, spilled = _plain_moves(board, lay, capacity)
    has_capture = first.valid.any()
    chosen = jax.tree.map(lambda a, b: jnp.where(has_capture, a, b), captures, plain)
    overflow = jnp.where(has_capture, overflow, spilled)
    return Moves(chosen.valid, chosen.origin, chosen.square, chosen.king, chosen.taken, overflow)


def _plain_moves(board: jax.Array, lay: Layout, capacity: int) -> tuple[Nodes, jax.Array]:
    """The moves without capture as nodes (`capacity` slots), and whether some did not fit."""
    roots = _roots(board, jnp.zeros(lay.squares, bool), jnp.int32(-1), lay)
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
        leaf = _merged(level._replace(valid=leaf), by_label=False).valid
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
