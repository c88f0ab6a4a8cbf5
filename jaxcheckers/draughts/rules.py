"""Draughts move generation and application, pure JAX, on one position (vmap for a batch).

A position is an int8 board (S,) over the playable squares in the mover's frame: index
s = FMJD square number − 1 as the side to move sees the board (it moves toward row 0, the way
White does in FMJD numbering); +1 own man, +2 own king, −1 opponent man, −2 opponent king, 0
empty. `taken` (bool (S,)) marks opponent pieces already captured by a move under way: they stay
on the board, block, and cannot be jumped again (the Turkish strike rule), until the move ends.

A hop is one action: `action = (direction·L + distance − 1)·S + square`, the piece on `square`
going `distance` squares (1 … L = n − 1) along `direction` (0 NW, 1 NE, 2 SW, 3 SE, rows counted
downward in the mover's frame). A capture hop passes over exactly one opponent piece.

The env keeps a position as five sets of squares held as bits (`Position`, `bitboard`; the
board and `taken` above are read from them) and plays a hop on them (`play_hop`). Its legal
hops (`legal_hops`, every step) work on such sets: every piece's hops at once by shifts, then,
under the majority rule, when two or more of them go on, a depth-first search of the captures
that begin with those hops (`longest_captures`), with a stack deep enough for any capture, so
nothing is ever dropped; under vmap only the positions that search run its loop (`lanes`).
Whole moves (perft, notation, the tests) are in `moves`.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxcheckers.core import computed_once, wide
from jaxcheckers.draughts import bitboard as bb
from jaxcheckers.draughts import lanes
from jaxcheckers.draughts.bitboard import OPPOSITE

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
    majority: bool  # the capture taking the most pieces must be played
    crown_mid_capture: bool  # a man reaching the last row mid-capture goes on as a king

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
        majority=variant != "russian",
        crown_mid_capture=variant == "russian",
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


# -- the env's position as sets of squares ---------------------------------------------------------

OWN_MEN, OWN_KINGS, THEIR_MEN, THEIR_KINGS, TAKEN = range(5)  # the rows of a position's words


class Position(NamedTuple):
    """A position in the mover's frame as five sets of squares (`bitboard`); the env keeps it as
    uint32 (5, 2) words, [set, (low, high) word] (`position_words`)."""

    own_men: bb.Bits
    own_kings: bb.Bits
    their_men: bb.Bits
    their_kings: bb.Bits
    taken: bb.Bits  # opponent pieces taken by the move under way (still in their sets)


def position_of(board: jax.Array, taken: jax.Array, lay: Layout) -> Position:
    """The sets of an int8 board and its taken pieces (inside a `wide` function)."""
    geo = bb.geometry(lay.n)
    masks = (board == OWN_MAN, board == OWN_KING, board == THEIR_MAN, board == THEIR_KING, taken)
    return Position(*(bb.pack(mask, geo) for mask in masks))


def _words(position: Position) -> jax.Array:
    return _halves(jnp.stack([s.x for s in position], axis=-1))


def _halves(x: jax.Array) -> jax.Array:
    """uint32 (…, 2): uint64 sets as their low and high words."""
    low = (x & bb.u64(0xFFFFFFFF)).astype(jnp.uint32)
    return jnp.stack([low, (x >> bb.u64(32)).astype(jnp.uint32)], axis=-1)


def _of_words(words: jax.Array) -> Position:
    x = words[..., 0].astype(jnp.uint64) | (words[..., 1].astype(jnp.uint64) << bb.u64(32))
    return Position(*(bb.Bits(x[..., i]) for i in range(5)))


@wide
def stretch_kings(words: jax.Array, lay: Layout) -> jax.Array:
    """uint32 (2, 2): of a position's words, the kings of the side to move turned into the other
    side's frame, then the kings of the side not to move (each set as its two words).

    In a stretch of moves without capture or man move only kings change, and the side to move
    has not moved since the ply before: its kings, turned, are the second set of that ply. So a
    position is known by the first sets of two plies in a row, and the env's repetition history
    keeps one set a ply."""
    position = _of_words(words)
    turned = _rotated(position.own_kings, bb.geometry(lay.n))
    return _halves(jnp.stack([turned.x, position.their_kings.x]))


@wide
def position_words(board: jax.Array, taken: jax.Array, lay: Layout) -> jax.Array:
    """uint32 (5, 2): the env's words of an int8 board and its taken pieces."""
    return _words(position_of(board, taken, lay))


def planes_of(words: jax.Array, lay: Layout) -> jax.Array:
    """bool (…, K, S): each of K sets of a position's words (…, K, 2) as a mask, by shifts of
    the low and the high word (32-bit arithmetic, no gather)."""
    bit = bb.geometry(lay.n).bit
    low = bit < 32
    shifts = (bit % 32).astype(np.uint32)
    planes = [
        (words[..., word, None] >> jnp.asarray(shifts[part])) & 1
        for word, part in ((0, low), (1, ~low))
        if part.any()
    ]
    return jnp.concatenate(planes, axis=-1).astype(bool)


def cells_of(words: jax.Array, lay: Layout) -> jax.Array:
    """bool (…, n, n, K): K sets of a position's words (…, K, 2) on the board's cells, light
    cells empty, the sets last: each cell shifts the word that holds its square's bit (the
    squares' bits increase cell by cell, so the low word's cells come first). No gather, no
    transpose."""
    n = lay.n
    row, col = np.divmod(np.arange(n * n), n)
    dark = (row + col) % 2 == 1
    bit = (row * (n + 1) + col) // 2
    high = np.cumsum(dark & (bit >= 32)) > 0  # from the first dark cell whose bit is high
    shifts = (bit % 32).astype(np.uint32)[:, None]
    parts = [
        (words[..., None, :, word] >> jnp.asarray(shifts[part])) & 1
        for word, part in ((0, ~high), (1, high))
        if part.any()
    ]
    cells = jnp.concatenate(parts, axis=-2).astype(bool) & dark[:, None]
    return cells.reshape(*words.shape[:-2], n, n, words.shape[-2])


def board_of(words: jax.Array, lay: Layout) -> jax.Array:
    """int8 (…, S): the board of a position's words (see the module docstring)."""
    values = np.asarray([OWN_MAN, OWN_KING, THEIR_MAN, THEIR_KING], np.int8)
    planes = planes_of(words[..., :TAKEN, :], lay)
    return (planes.astype(jnp.int8) * values[:, None]).sum(axis=-2, dtype=jnp.int8)


def piece_counts(words: jax.Array) -> jax.Array:
    """int32 (…, 4): own men, own kings, their men, their kings of a position's words."""
    counts = jax.lax.population_count(words[..., :TAKEN, :])
    return counts.astype(jnp.int32).sum(axis=-1)


class Sides(NamedTuple):
    """A position (the side to move's frame) as sets of squares (`bitboard`)."""

    kings: bb.Bits  # the mover's kings (mid-capture: the capturing piece, if a king)
    men: bb.Bits  # the mover's men (mid-capture: the capturing piece, if a man)
    occupied: bb.Bits  # every piece on the board, taken ones included
    jumpable: bb.Bits  # the opponent's pieces not yet taken


def _sides_of(position: Position, jumper: jax.Array, lay: Layout) -> Sides:
    """The sets the move generation reads; mid-capture (`jumper` ≥ 0) only the capturing piece
    moves."""
    geo = bb.geometry(lay.n)
    movers = bb.where(jumper < 0, bb.const(geo.valid), bb.single(jumper, geo))
    theirs = position.their_men | position.their_kings
    return Sides(
        kings=position.own_kings & movers,
        men=position.own_men & movers,
        occupied=position.own_men | position.own_kings | theirs,
        jumpable=theirs & ~position.taken,
    )


class HopSets(NamedTuple):
    """Per distance j and direction d, the squares a hop (d, j) starts from: sets of fields
    (L, 4), [j − 1, d]."""

    captures: bb.Bits  # hops that take a piece
    quiet: bb.Bits  # hops that take none


def _steps(lay: Layout) -> np.ndarray:
    """int (4,): the shift of one step along each direction."""
    return np.asarray(bb.geometry(lay.n).steps)


def _distances(lay: Layout) -> np.ndarray:
    """int (L, 1): the distances 1 … L, against the directions."""
    return np.arange(1, lay.reach + 1)[:, None]


RESTART_EVERY = 3  # distances; `hop_sets` (docs/performance.md has the figures)


def hop_sets(position: Sides, lay: Layout) -> HopSets:
    """Every hop of the movers, all pieces and the four directions at once: the squares j away
    that are empty, and the first piece on the way if it can be taken, are shifts of the sets.
    (Ignores the majority rule and whether the capture goes on.)"""
    geo = bb.geometry(lay.n)
    steps = _steps(lay)
    four = np.zeros(4, np.uint64)  # fields (4,): one set a direction
    empty = bb.const(geo.valid) & ~position.occupied
    land = hit = bb.const(four)
    clear = bb.const(~four)  # the squares 1 … j − 1 along each direction are empty
    both = position.kings | position.men
    forward = np.isin(np.arange(4), FORWARD)
    walkers_first = bb.where(forward, both, position.kings)
    runtime = position.occupied.x.astype(jnp.int64)  # for `computed_once`: not a constant
    captures, quiet = [], []
    for j in range(1, lay.reach + 1):
        empty_j = bb.shift_each(empty, -j * steps)
        land = (land | hit) & empty_j  # a capture can land j away
        hit = clear & bb.shift_each(position.jumpable, -j * steps)  # the first piece, j away
        clear = clear & empty_j
        if j % RESTART_EVERY == 0 and j < lay.reach:
            # XLA on the CPU computes each distance's sets in a loop of its own, which redoes
            # the distances before it: from here the next loops start from these, in memory.
            land, hit, clear = computed_once((land, hit, clear), runtime)
        captures.append(land & (both if j == 2 else position.kings))
        quiet.append(clear & (walkers_first if j == 1 else position.kings))
    return HopSets(bb.stack(captures), bb.stack(quiet))


def landings(starts: bb.Bits, lay: Layout) -> bb.Bits:
    """Per direction (fields (4,)), the squares the hops of `starts` ((L, 4)) land on."""
    return bb.or_over(bb.shift_each(starts, _distances(lay) * _steps(lay)), axis=0)


def _hops_to(starts: bb.Bits, ends: bb.Bits, lay: Layout) -> bb.Bits:
    """The hops of `starts` ((L, 4)) that land in `ends` ((4,)): a hop's landing names its start
    (the piece found beyond the piece taken, looking back)."""
    return starts & bb.shift_each(ends, -_distances(lay) * _steps(lay))


def _in_action_order(sets: bb.Bits) -> bb.Bits:
    """The sets [j − 1, d] as one set of (4·L,) fields, [d·L + j − 1]: the actions' order."""
    return bb.Bits(sets.x.T.reshape(-1))


class Legal(NamedTuple):
    bits: jax.Array  # uint32 (⌈A/32⌉,)  the legal hops as a packed mask (`bits.pack_mask`'s)
    captures: jax.Array  # bool (): the legal hops capture
    has_hop: jax.Array  # bool (): some hop is legal (read from the sets: cheaper than the words)


@wide
def legal_hops(board, taken, jumper, lay: Layout) -> Legal:
    """The legal hops: those that begin a longest capture (the majority rule) or, in Russian,
    any capture but a king's landing where it stops behind a piece it could land behind and
    go on from; with no capture, the quiet moves (at the start of a move)."""
    return _legal(position_of(board, taken, lay), jumper, lay)


def _legal(pieces: Position, jumper, lay: Layout) -> Legal:
    """`legal_hops` of a position held as sets."""
    geo = bb.geometry(lay.n)
    # Computed once (`core.computed_once`), the sets and the ends: else XLA on the CPU fuses what
    # they are made of into each of the loops that read them.
    position = computed_once(_sides_of(pieces, jumper, lay), jumper)
    sets = computed_once(hop_sets(position, lay), jumper)
    ends = landings(sets.captures, lay)
    if lay.majority:
        ends = _longest_ends(position, sets.captures, ends, lay)
    else:
        ends = _russian_ends(position, sets.captures, ends, lay)
    ends = computed_once(ends, jumper)
    captures = ends.any().any()
    quiet = _in_action_order(sets.quiet)
    quiet = bb.where(jumper < 0, quiet, bb.none_like(quiet))
    chosen = bb.where(captures, _in_action_order(_hops_to(sets.captures, ends, lay)), quiet)
    # The chosen sets with their squares made consecutive, computed once: each of the mask's
    # words reads two of them, and would otherwise make both again from the sets.
    words = bb.words_of(computed_once(bb.consecutive(chosen, geo), jumper), geo.squares)
    # Read from the sets as they are: `chosen` in action order would be made twice (here and in
    # the mask's loop), and a capture's first hops exist exactly when their landings do.
    has_hop = captures | ((jumper < 0) & sets.quiet.any().any())
    return Legal(words, captures, has_hop)


def _going_on(position: Sides, captures: bb.Bits, ends: bb.Bits, lay: Layout):
    """Per direction (fields (4,)), the landings of kings and the landings from which the
    capture goes on, for the first hops landing on `ends`.

    Whether a capture goes on from landing l (reached along d) is a test of the squares all at
    once: the piece just taken, behind l, blocks the way back, and no other line through l holds
    it or the square the piece left. In Russian a man landing on the last row goes on as a king.
    """
    geo = bb.geometry(lay.n)
    reach = _capture_reach(position.jumpable, position.occupied, geo)
    by_king, by_man = (_but_the_way_back(x) for x in reach)
    crowning = bb.const(geo.first_row if lay.crown_mid_capture else 0)
    kings = landings(captures & position.kings, lay)
    men = ends & ~kings
    return kings, (kings | (men & crowning)) & by_king | (men & ~crowning & by_man)


def _russian_ends(position: Sides, captures, ends, lay: Layout) -> bb.Bits:
    """Per direction, the landings a Russian capture may choose: a king landing behind a piece
    where it stops is dropped when another landing behind the same piece goes on."""
    kings, goes_on = _going_on(position, captures, ends, lay)
    steps = _steps(lay)
    # Spread along the line within the king's landings: the landings behind one piece.
    spread = goes_on & kings
    for _ in range(lay.reach - 2):
        spread = spread | ((bb.shift_each(spread, steps) | bb.shift_each(spread, -steps)) & kings)
    return (ends & ~kings) | (kings & ~spread) | (kings & goes_on)


def _longest_ends(position: Sides, captures, ends, lay: Layout) -> bb.Bits:
    """Per direction, the landings of the first hops of the longest captures: all of them when
    no capture goes on after its first hop, the one that goes on when only one does, else those
    the search finds among the ones that go on (the others take one piece, fewer)."""
    _, going = _going_on(position, captures, ends, lay)
    count = jax.lax.population_count(going.x).sum()
    # Only positions where two first hops or more go on search: in random play 0.4 % of them,
    # against 7.4 % where any goes on (docs/performance.md).
    searched = bb.where(count > 1, going, bb.none_like(going))
    deeper = longest_captures(position, searched, lay).firsts
    return bb.where(count > 1, deeper, bb.where(count == 1, going, ends))


class Longest(NamedTuple):
    taken: jax.Array  # int32 (): pieces the longest capture takes (0: no capture)
    firsts: bb.Bits  # fields (4,): per direction, the landings of the first hops of the longest


class Frame(NamedTuple):
    """A node of the depth-first capture search: a capture under way."""

    at: bb.Bits  # the square of the capturing piece (the root: none)
    king: jax.Array  # bool ()
    jumpable: bb.Bits  # the opponent pieces it may still take
    lands: bb.Bits  # fields (4,): per direction, the landings not searched yet
    best: jax.Array  # int32 ()  pieces the longest capture searched below takes
    direction: jax.Array  # int32 ()  of the hop that reached it

    def pack(self) -> jax.Array:
        """uint64 (7,): the frame as one vector (a stack of them is one array)."""
        flags = self.king.astype(jnp.uint64) | (self.direction.astype(jnp.uint64) << 1)
        flags = flags | (self.best.astype(jnp.uint64) << 3)
        scalars = jnp.stack([self.at.x, self.jumpable.x, flags])
        return jnp.concatenate([scalars, self.lands.x])

    @classmethod
    def unpack(cls, words: jax.Array) -> Frame:
        flags = words[2]
        return cls(
            at=bb.Bits(words[0]),
            king=(flags & 1).astype(bool),
            jumpable=bb.Bits(words[1]),
            lands=bb.Bits(words[3:7]),
            best=(flags >> 3).astype(jnp.int32),
            direction=((flags >> 1) & 3).astype(jnp.int32),
        )


UP = np.array([True, True, False, False])  # NW, NE go to lower bits


def _nearest(x: bb.Bits, up) -> bb.Bits:
    return bb.where(up, bb.highest(x), bb.lowest(x))


def _past(bit: bb.Bits, up) -> bb.Bits:
    """The squares beyond `bit` along a direction (`up`: toward lower bits)."""
    return bb.where(up, bb.below(bit), bb.above(bit))


def _before(bit: bb.Bits, up) -> bb.Bits:
    """The squares on this side of `bit` (every square when `bit` is empty)."""
    return bb.where(up, bb.above(bit), bb.below(bit))


def _captures_of(square, king, jumpable: bb.Bits, occupied: bb.Bits, geo: bb.Geometry):
    """The captures of one piece on bit `square`: per direction (fields (4,)), its landings.
    `occupied` holds every piece but the capturing one."""
    row = bb.u64(geo.ray)[square]  # (4, 2)
    ray, two = bb.Bits(row[:, 0]), bb.Bits(row[:, 1])
    first = _nearest(ray & occupied, UP)
    past = ray & _past(first, UP)
    lands = past & _before(_nearest(past & occupied, UP), UP)
    lands = lands & bb.where(king, bb.const(bb.ALL), two)  # a man lands right behind
    takes = (first & jumpable).any()
    return bb.where(takes, lands, bb.none_like(lands))


def _capture_reach(jumpable: bb.Bits, occupied: bb.Bits, geo: bb.Geometry):
    """Per direction f (fields (4,)), the squares from which a king, and a man, can take a
    piece of `jumpable` along f (every square at once; `occupied` holds every piece but the
    capturing one): the piece first on the way, with an empty square behind it."""
    steps = np.asarray(geo.steps)
    empty = bb.const(np.full(4, geo.valid, np.uint64)) & ~occupied
    target = jumpable & bb.shift_each(empty, -steps)  # a piece to take along f, from next to it
    # A king reaches it over empty squares: fill back from the targets through the empty
    # squares, 1 + 2 + 4 + 8 squares (a diagonal has at most 8 between).
    fill, through = target, empty
    for span in (1, 2, 4, 8):
        fill = fill | (through & bb.shift_each(fill, -span * steps))
        through = through & bb.shift_each(through, -span * steps)
    return bb.shift_each(fill, -steps), bb.shift_each(target, -steps)


def _but_the_way_back(reach: bb.Bits) -> bb.Bits:
    """Per direction of arrival e (fields (4,)), the squares in `reach` ((4,), per direction f)
    along some direction f but the way back (f ≠ opposite e). The way back from a landing holds
    the piece just taken, which a capture cannot pass again."""
    other = np.arange(4)[None, :] != np.asarray(OPPOSITE)[:, None]  # [e, f]
    nothing = bb.const(np.zeros((4, 4), np.uint64))
    return bb.or_over(bb.where(other, reach[None, :], nothing), axis=1)


def _continuing(king, jumpable: bb.Bits, occupied: bb.Bits, geo: bb.Geometry) -> bb.Bits:
    """Per direction of arrival e (fields (4,)), the squares from which a piece that arrived
    along e (a king if `king`) can capture again. `jumpable` may still hold the piece just
    taken: it lies on the way back."""
    as_king, as_man = _capture_reach(jumpable, occupied, geo)
    return _but_the_way_back(bb.where(king, as_king, as_man))


def _tree_where(condition, x, y):
    return jax.tree.map(lambda a, b: jnp.where(condition, a, b), x, y)


def _field(x: bb.Bits, d) -> bb.Bits:
    """Field d of a set of (4,) fields (a select, not a gather: cheaper under vmap)."""
    mine = jnp.arange(4, dtype=jnp.int32) == d
    return bb.Bits(jnp.where(mine, x.x, bb.u64(0)).sum(dtype=jnp.uint64))


def _none_each_way() -> bb.Bits:
    """An empty set of squares in each of the four directions."""
    return bb.const(np.zeros(4, np.uint64))


def longest_captures(position: Sides, ends: bb.Bits, lay: Layout) -> Longest:
    """The longest captures, depth first from the first hops landing on `ends` (fields (4,)):
    how many pieces they take and which first hops begin one.

    One frame a node on the way down (a stack), the capturing piece's square, the pieces it may
    still take and its landings from which the capture goes on, not searched yet; a node whose
    captures all stop after one more hop is counted without a frame (`_continuing` tells them
    apart for all its landings at once). Nothing is dropped: a capture takes only pieces off the
    board's edge, each once, so it takes at most (n − 2)²/2 and the stack has room for that many
    frames. The loop runs once a node with a capture of two pieces or more below it, backing up
    as it goes (under vmap, for the batch's largest tree)."""
    geo = bb.geometry(lay.n)
    frames = (lay.n - 2) ** 2 // 2
    empty4 = _none_each_way()
    root = Frame(
        at=bb.none_like(position.occupied),
        king=jnp.bool_(False),
        jumpable=position.jumpable,
        lands=ends,
        best=jnp.int32(0),
        direction=jnp.int32(0),
    )
    stack = jnp.zeros((frames, 7), jnp.uint64)

    def record(most, firsts, found, direction, at, taken):
        """A first hop (its direction and landing) beginning a capture of `taken` pieces."""
        better, same = found & (taken > most), found & (taken == most)
        mine = bb.where(jnp.arange(4, dtype=jnp.int32) == direction, at, _none_each_way())
        firsts = bb.where(better, mine, bb.where(same, firsts | mine, firsts))
        return jnp.where(better, taken, most), firsts

    def backed_up(k, top, most, firsts, stack):
        """Back up from a node whose landings are all searched."""
        done = ~top.lands.any().any() & (k > 0)
        parent = Frame.unpack(stack[jnp.maximum(k - 1, 0)])
        most, firsts = record(most, firsts, done & (k == 1), top.direction, top.at, top.best + 1)
        parent = parent._replace(best=jnp.maximum(parent.best, top.best + 1))
        return k - done, _tree_where(done, parent, top), most, firsts

    def searching(carry):
        k, top = carry[0], carry[1]
        return (k > 0) | top.lands.any().any()

    def step(position, carry, stack):
        # Its tables are made here, inside the loop's own trace: `_while_each`'s batching rule
        # traces `step` again, and a value it closed over from the caller's trace (under an
        # outer vmap or loop) would be a tracer of another trace there.
        table, field = bb.u64(geo.ray), jnp.arange(4, dtype=jnp.int32)
        up_of, opposite = jnp.asarray(UP), jnp.asarray(OPPOSITE)
        k, top, occupied, most, firsts = carry
        k, top, most, firsts = backed_up(k, top, most, firsts, stack)
        # Search the node's next landing (none once the search is over: then nothing changes).
        open_ = top.lands.any()
        go = open_.any()
        d = jax.lax.argmax(open_, 0, jnp.int32)  # int32 whether or not 64-bit types are on
        at = bb.lowest(_field(top.lands, d))
        top = top._replace(lands=bb.where(field == d, top.lands & ~at, top.lands))
        square = jnp.minimum(bb.index(at), table.shape[0] - 1)
        # The piece taken is the first behind the landing (the capturing piece flew over empty
        # squares); from the root, the capturing piece is the next, still on its square.
        at_root = k == 0
        back_d, up = opposite[d], up_of[opposite[d]]
        row = table[square, back_d]
        behind = bb.Bits(row[0]) & bb.where(at_root, position.occupied, occupied)
        victim = _nearest(behind, up)
        origin = _nearest(behind & _past(victim, up), up)
        occupied = bb.where(at_root & go, position.occupied & ~origin, occupied)
        king = jnp.where(at_root, (origin & position.kings).any(), top.king)
        jumpable = top.jumpable & ~victim
        lands = _captures_of(square, king, jumpable, occupied, geo)
        lands_on = lands & _continuing(king, jumpable, occupied, geo)
        # A hop whose captures all stop after one more hop is counted here, without a frame:
        # only hops with a capture of two more pieces or more are searched below.
        taken = jnp.where(lands.any().any(), 2, 1)
        ends = go & ~lands_on.any().any()
        most, firsts = record(most, firsts, ends & at_root, d, at, taken)
        top = top._replace(best=jnp.where(ends, jnp.maximum(top.best, taken), top.best))
        push = go & ~ends
        stack = stack.at[k].set(jnp.where(push, top.pack(), stack[k]), mode="drop")
        child = Frame(at, king, jumpable, lands_on, jnp.int32(1), d)
        k, top = k + push, _tree_where(push, child, top)
        k, top, most, firsts = backed_up(k, top, most, firsts, stack)
        return (k, top, occupied, most, firsts), stack

    carry = (jnp.int32(0), root, position.occupied, jnp.int32(0), empty4)
    _, _, _, most, firsts = lanes.while_each(searching, step, position, carry, stack)
    return Longest(most, firsts)


# -- playing a hop -------------------------------------------------------------------------------


class Hopped(NamedTuple):
    """A hop played on the env's position (`play_hop`)."""

    position: jax.Array  # uint32 (5, 2)  after the hop: in the opponent's frame once the move ends
    jumper: jax.Array  # int32 ()  the capturing piece's square while the move goes on, else −1
    legal: Legal  # the legal hops there
    captured: jax.Array  # bool ()  the hop took a piece
    man_moved: jax.Array  # bool ()
    goes_on: jax.Array  # bool ()  the capture goes on: the same side moves again


@wide
def play_hop(words: jax.Array, action: jax.Array, lay: Layout) -> Hopped:
    """Plays the hop `action` (assumed legal) on a position's words: the piece moves (crowned
    mid-capture in Russian), a piece passed over is marked taken; if the capture cannot go on
    the move ends (`finish`, then the board is turned for the opponent). Then the legal hops."""
    geo = bb.geometry(lay.n)
    position = _of_words(words)
    direction, distance, origin = hop_of(action, lay)
    land = jnp.asarray(lay.ray)[origin, direction, distance - 1]
    start, end = bb.single(origin, geo), bb.single(land, geo)
    bit, table = jnp.asarray(geo.bit), bb.u64(geo.ray)
    # The squares passed over: along the hop from its start, and back from its landing.
    back = jnp.asarray(OPPOSITE)[direction]
    between = bb.Bits(table[bit[origin], direction, 0] & table[bit[land], back, 0])
    theirs = position.their_men | position.their_kings
    passed = between & theirs  # the one piece a capture takes
    captured = passed.any()
    king = (position.own_kings & start).any()
    first_row = bb.const(geo.first_row if lay.crown_mid_capture else 0)
    crowned = king | (captured & (end & first_row).any())
    none = bb.none_like(end)
    moved = position._replace(
        own_men=(position.own_men & ~start) | bb.where(crowned, none, end),
        own_kings=(position.own_kings & ~start) | bb.where(crowned, end, none),
        taken=position.taken | passed,
    )
    occupied = (moved.own_men | moved.own_kings | theirs) & ~end
    lands = _captures_of(bit[land], crowned, theirs & ~moved.taken, occupied, geo)
    goes_on = captured & lands.any().any()
    ended = _turned(_finished(moved, end, geo), geo)
    after = jax.tree.map(lambda a, b: jnp.where(goes_on, a, b), moved, ended)
    jumper = jnp.where(goes_on, land, -1).astype(jnp.int32)
    # Computed once: else the loops that read the position (the mask's) redo the hop.
    after, jumper = computed_once((after, jumper), action)
    legal = _legal(after, jumper, lay)
    return Hopped(_words(after), jumper, legal, captured, ~king, goes_on)


def _finished(position: Position, end: bb.Bits, geo: bb.Geometry) -> Position:
    """The move ended on `end`: taken pieces leave, a man on the last row is crowned."""
    crown = position.own_men & end & bb.const(geo.first_row)
    gone = ~position.taken
    return Position(
        own_men=position.own_men & ~crown,
        own_kings=position.own_kings | crown,
        their_men=position.their_men & gone,
        their_kings=position.their_kings & gone,
        taken=bb.none_like(end),
    )


def _turned(position: Position, geo: bb.Geometry) -> Position:
    """The position in the other side's frame: rotated 180° and the sides swapped (`flip`)."""
    mine, theirs = position[:2], position[2:4]
    return Position(*(_rotated(x, geo) for x in (*theirs, *mine, position.taken)))


def _rotated(x: bb.Bits, geo: bb.Geometry) -> bb.Bits:
    """The set rotated 180°: the layout is symmetric, so bit b goes to bit top − b (`top` the
    last square's bit), a reversal of the word's bits then a shift."""
    value = x.x
    for width, pattern in (
        (1, 0x5555555555555555),
        (2, 0x3333333333333333),
        (4, 0x0F0F0F0F0F0F0F0F),
        (8, 0x00FF00FF00FF00FF),
        (16, 0x0000FFFF0000FFFF),
    ):
        mask, by = bb.u64(pattern), bb.u64(width)
        value = ((value >> by) & mask) | ((value & mask) << by)
    value = (value >> bb.u64(32)) | (value << bb.u64(32))
    return bb.Bits(value >> bb.u64(63 - int(geo.bit[-1])))
