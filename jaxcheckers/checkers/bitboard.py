"""Sets of dark squares as bits: the representation the checkers rules compute with.

The n²/2 dark squares are numbered row by row (index i = row·n/2 + col//2, so the full-board
square s has dark index s // 2) and a set of them is a uint32 vector of W = ⌈n²/64⌉ words, bit i
of the set being bit i % 32 of word i // 32. One diagonal step is then a shift of the whole set
by a constant that depends only on the row's parity, so a rule applied to every piece at once is a
handful of word operations (8×8: one word, 32 squares).

`Layout(n)` holds the constant masks and shifts for a board size, built once with numpy.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

# (row, col) steps of the four diagonal directions, in the mover's frame: NW, NE, SW, SE.
DIRECTIONS = ((-1, -1), (-1, 1), (1, -1), (1, 1))
OPPOSITE = (3, 2, 1, 0)  # NW↔SE, NE↔SW


class Layout:
    """Constants for n×n boards: word count, shifts and the masks that keep steps on the board."""

    def __init__(self, n: int):
        self.n = n
        self.squares = n * n // 2
        self.words = -(-self.squares // 32)
        index = np.arange(self.squares)
        rows, cols = index // (n // 2), 2 * (index % (n // 2)) + 1 - (index // (n // 2)) % 2
        self.rows, self.cols = rows, cols
        self.valid = self.pack_np(np.ones(self.squares, bool))
        self.last_row = self.pack_np(rows == n - 1)
        self.even_rows = self.pack_np(rows % 2 == 0)
        # For each direction and row parity: which squares have an on-board neighbour that way,
        # and the (constant) index shift that reaches it.
        self.sources, self.shifts = [], []
        for dr, dc in DIRECTIONS:
            per_parity = []
            for parity in (0, 1):
                on = (rows % 2 == parity) & (0 <= rows + dr) & (rows + dr < n)
                on &= (0 <= cols + dc) & (cols + dc < n)
                target = (rows + dr) * (n // 2) + (cols + dc) // 2
                shifts = set((target - index)[on].tolist())
                assert len(shifts) <= 1, "a step is one shift per row parity"
                per_parity.append((self.pack_np(on), shifts.pop() if shifts else 0))
            self.sources.append(tuple(mask for mask, _ in per_parity))
            self.shifts.append(tuple(shift for _, shift in per_parity))

    def pack_np(self, bits: np.ndarray) -> np.ndarray:
        padded = np.zeros(self.words * 32, bool)
        padded[: self.squares] = bits
        weights = (1 << np.arange(32, dtype=np.uint64)).astype(np.uint64)
        return (padded.reshape(self.words, 32) * weights).sum(-1).astype(np.uint32)


@functools.cache
def layout(n: int) -> Layout:
    return Layout(n)


def shift(x: jax.Array, by: int) -> jax.Array:
    """The set moved from index i to i + `by` (|by| < 32); bits pushed past either end drop."""
    if by == 0:
        return x
    if x.shape[-1] == 1:  # one word: nothing crosses a word boundary
        return x << by if by > 0 else x >> -by
    zero = jnp.zeros_like(x[..., :1])
    if by > 0:
        return (x << by) | (jnp.concatenate([zero, x[..., :-1]], -1) >> (32 - by))
    by = -by
    return (x >> by) | (jnp.concatenate([x[..., 1:], zero], -1) << (32 - by))


def step(x: jax.Array, direction: int, lay: Layout) -> jax.Array:
    """The squares one diagonal step from the squares of `x` in `direction`, on the board."""
    moved = [
        shift(x & jnp.asarray(source), by)
        for source, by in zip(lay.sources[direction], lay.shifts[direction], strict=True)
    ]
    return (moved[0] | moved[1]) & jnp.asarray(lay.valid)


def layout_valid(lay: Layout) -> jax.Array:
    """The set of every dark square."""
    return jnp.asarray(lay.valid)


def any_bit(x: jax.Array) -> jax.Array:
    return (x != 0).any(axis=-1)


def single(index: jax.Array, lay: Layout) -> jax.Array:
    """uint32 (W,): the set holding only dark square `index` (empty when index < 0).

    In unsigned arithmetic, where dividing by 32 is a shift (signed floor division is a dozen
    operations), and a negative index wraps to a word far past the last.
    """
    index = jnp.asarray(index).astype(jnp.uint32)
    word = jnp.arange(lay.words, dtype=jnp.uint32)
    return jnp.where(word == index >> 5, jnp.uint32(1) << (index & 31), jnp.uint32(0))


def _reverse32(x: jax.Array) -> jax.Array:
    for width, mask in ((1, 0x55555555), (2, 0x33333333), (4, 0x0F0F0F0F), (8, 0x00FF00FF)):
        mask = jnp.uint32(mask)
        x = ((x >> width) & mask) | ((x & mask) << width)
    return (x >> 16) | (x << 16)


def rotate(x: jax.Array, lay: Layout) -> jax.Array:
    """The set turned 180° (dark index i ↦ n²/2 − 1 − i)."""
    reversed_words = _reverse32(x[..., ::-1])
    spare = lay.words * 32 - lay.squares  # the reversed set starts this many bits too high
    out = reversed_words
    while spare:
        by = min(spare, 31)
        out = shift(out, -by)
        spare -= by
    return out


def pack(bits: jax.Array, lay: Layout) -> jax.Array:
    """uint32 (..., W) from bool (..., n²/2)."""
    padding = [(0, 0)] * (bits.ndim - 1) + [(0, lay.words * 32 - lay.squares)]
    grouped = jnp.pad(bits, padding).reshape(*bits.shape[:-1], lay.words, 32).astype(jnp.uint32)
    return (grouped << jnp.arange(32, dtype=jnp.uint32)).sum(axis=-1, dtype=jnp.uint32)


def expand(x: jax.Array, lay: Layout) -> jax.Array:
    """bool (..., n·n): the set on the full board, square by square (False on light squares).

    Each square tests its own bit with a constant shift: elementwise work that vectorises, where
    unpacking then interleaving light squares would shuffle data around.
    """
    return select_bits(x, *square_bits(lay))


def full_board_words(x: jax.Array, lay: Layout) -> list[jax.Array]:
    """The set on the full board, as bits: uint32 (...,) words 0..⌈n²/32⌉ − 1, where bit s % 32
    of word s // 32 is square s (0 on light squares).

    Dark index i is square 2i + 1 on even rows and 2i on odd ones, so the set's even-row and
    odd-row squares are each spread to every other bit (16 bits to 32 in four shift-and-mask
    steps) and the even rows moved up by one. A list of words, not an array: callers place them.
    """
    words = []
    for w in range(lay.words):
        even, odd = lay.even_rows[w], lay.valid[w] & ~lay.even_rows[w]  # bits past the board: off
        on_even, on_odd = x[..., w] & jnp.uint32(even), x[..., w] & jnp.uint32(odd)
        for half in (0, 16):
            words.append(_spread16(on_odd >> half) | (_spread16(on_even >> half) << 1))
    return words[: -(-lay.n * lay.n // 32)]  # the last spread half may lie past the board


def _spread16(x: jax.Array) -> jax.Array:
    """Bits 0..15 of x moved to bits 0, 2, ..., 30."""
    x = x & jnp.uint32(0xFFFF)
    for by, mask in ((8, 0x00FF00FF), (4, 0x0F0F0F0F), (2, 0x33333333), (1, 0x55555555)):
        x = (x | x << by) & jnp.uint32(mask)
    return x


def square_bits(lay: Layout) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each square of the full n×n board: its word, its bit in that word, and whether it is
    dark (light squares have no bit; their word and bit are those of the dark square before)."""
    n = lay.n
    square = np.arange(n * n)
    index = square // 2
    return index // 32, index % 32, (square // n + square % n) % 2 == 1


def select_bits(
    words: jax.Array, word_of: np.ndarray, bit_of: np.ndarray, keep: np.ndarray
) -> jax.Array:
    """bool (..., E): entry e is bit `bit_of[e]` of `words[..., word_of[e]]`, False unless keep[e].

    words: uint32 (..., K); the three tables are constants of length E. Each entry picks its
    word with a select per word (K ≤ 16): no gather.
    """
    if words.shape[-1] == 1:
        picked = words[..., :1]
    else:
        picked = sum(
            jnp.where(jnp.asarray(word_of == k), words[..., k : k + 1], jnp.uint32(0))
            for k in range(words.shape[-1])
        )
    shifts = jnp.asarray(bit_of.astype(np.uint32))
    return ((picked >> shifts) & 1).astype(bool) & jnp.asarray(keep)


def from_grid(board: jax.Array, n: int) -> jax.Array:
    """(..., n²/2): the dark-square values of (..., n·n) full-board vectors."""
    grid = board.reshape(*board.shape[:-1], n, n)
    rows = jnp.stack([grid[..., 0::2, 1::2], grid[..., 1::2, 0::2]], axis=-2)
    return rows.reshape(*board.shape[:-1], n * n // 2)
