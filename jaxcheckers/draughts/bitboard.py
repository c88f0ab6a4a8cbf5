"""Sets of draughts squares as uint64 words, laid out so that every diagonal step is one constant
shift: what the env's move generation computes with.

Cell (row, col) of the n×n board (dark when row + col is odd) is bit (row·(n+1) + col) // 2: the
rows are laid out n + 1 cells wide, the extra cell a "ghost" that is no square. A step NW, NE,
SW, SE is then a shift by −(n+2)/2, −n/2, +n/2, +(n+2)/2 from every square, and the first step
off the board lands on a ghost or past either end of the squares, never on a square (10×10:
bits 0–53 with ghosts 10, 21, 32, 43; 8×8: bits 0–34 with ghosts 8, 17, 26). So a rule applied
to all pieces at once is a few word operations, with no gather.

JAX's 32-bit default is left alone for the user: the sets are computed only inside functions
decorated `core.wide` (64-bit types on while they are traced, as chess's bitboards), and what leaves
them is 32-bit (`words_of`, `unpack`, counts).
"""

from __future__ import annotations

import dataclasses
import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

DIRECTIONS = ((-1, -1), (-1, 1), (1, -1), (1, 1))  # NW, NE, SW, SE as (row, col) steps
OPPOSITE = (3, 2, 1, 0)
ALL = 2**64 - 1


def u64(value) -> jax.Array:
    """`value` as uint64 (inside a `wide` function only: else JAX would make it 32-bit)."""
    if not jax.config.jax_enable_x64:
        raise RuntimeError("draughts bitboards are computed inside `core.wide` functions only")
    return jnp.asarray(value, jnp.uint64)


class Bits(NamedTuple):
    """A set of squares: bit i of `x` (see the module docstring)."""

    x: jax.Array  # uint64 (…)

    def __and__(self, other: Bits) -> Bits:  # type: ignore[override]
        return Bits(self.x & other.x)

    def __or__(self, other: Bits) -> Bits:  # type: ignore[override]
        return Bits(self.x | other.x)

    def __invert__(self) -> Bits:
        return Bits(~self.x)

    def __getitem__(self, index) -> Bits:  # type: ignore[override]
        return Bits(self.x[index])

    def any(self) -> jax.Array:
        """bool (…): the set is not empty."""
        return self.x != 0


def const(value) -> Bits:
    """The set of the bits of a Python int (below 2⁶⁴), or of numpy ints (one set each)."""
    return Bits(u64(np.asarray(value, np.uint64)))


def none_like(x: Bits) -> Bits:
    return Bits(jnp.zeros_like(x.x))


def where(condition: jax.Array, x: Bits, y: Bits) -> Bits:
    return Bits(jnp.where(condition, x.x, y.x))


def stack(sets: list[Bits], axis: int = 0) -> Bits:
    return Bits(jnp.stack([s.x for s in sets], axis=axis))


def shift_each(x: Bits, by) -> Bits:
    """Each field of `x` moved from bit i to bit i + its amount (|by| < 64, numpy ints, static,
    broadcast against the fields); bits pushed out drop."""
    by = np.asarray(by)
    value = x.x
    if (by > 0).any():
        value = value << u64(np.maximum(by, 0).astype(np.uint64))
    if (by < 0).any():
        value = value >> u64(np.maximum(-by, 0).astype(np.uint64))
    return Bits(value)


def shift(x: Bits, by: int) -> Bits:
    """The set moved from bit i to bit i + `by` (|by| < 64, static); bits pushed out drop."""
    return shift_each(x, by)


def or_over(x: Bits, axis: int) -> Bits:
    """The union of the sets along `axis` of the fields."""
    return Bits(
        jax.lax.reduce(x.x, np.uint64(0), jax.lax.bitwise_or, dimensions=(axis % x.x.ndim,))
    )


def lowest(x: Bits) -> Bits:
    """The lowest bit of `x` alone (empty when `x` is)."""
    return Bits(x.x & (~x.x + u64(1)))


def highest(x: Bits) -> Bits:
    """The highest bit of `x` alone (empty when `x` is)."""
    top = (u64(63) - jax.lax.clz(x.x)) & u64(63)
    return Bits(jnp.where(x.x != 0, u64(1) << top, u64(0)))


def below(bit: Bits) -> Bits:
    """Every bit under the single bit `bit`; every bit at all when `bit` is empty."""
    return Bits(bit.x - u64(1))  # 0 − 1 wraps to every bit


def above(bit: Bits) -> Bits:
    """Every bit over the single bit `bit`; every bit at all when `bit` is empty."""
    return Bits(jnp.where(bit.x != 0, ~(bit.x | (bit.x - u64(1))), u64(ALL)))


def index(bit: Bits) -> jax.Array:
    """int32 (): the position of the single bit `bit` (64 when it is empty)."""
    return jax.lax.population_count(bit.x - u64(1)).astype(jnp.int32)


@dataclasses.dataclass(frozen=True, eq=False)
class Geometry:
    """The bit layout of n×n draughts, built with numpy once."""

    n: int
    squares: int  # S
    reach: int  # L = n − 1
    steps: tuple[int, int, int, int]  # the shift of one step NW, NE, SW, SE
    bit: np.ndarray  # int32 (S,): the bit of each square (increasing with the square)
    valid: int  # the set of all squares, as a Python int
    first_row: int  # the squares of row 0 (where the side to move crowns)
    runs: tuple[tuple[int, int, int], ...]  # (first, end, shift): squares first … end − 1 sit
    #   `shift` bits above their number (the ghosts before them)
    ray: np.ndarray  # uint64 (64, 4, 2): per bit and direction, [the squares along it (the
    #   bit's own excluded), the square two steps along it]

    def bits(self, squares) -> int:
        """The Python int of a set of squares."""
        return sum(1 << int(self.bit[s]) for s in squares)


@functools.cache
def geometry(n: int) -> Geometry:
    half = n // 2
    squares = n * half
    row = np.arange(squares) // half
    col = 2 * (np.arange(squares) % half) + (row % 2 == 0)
    bit = (row * (n + 1) + col) // 2
    assert bit.max() < 64 and (np.diff(bit) > 0).all()
    assert (bit[::-1] == bit[-1] - bit).all()  # rotating the board 180° reverses the bits
    at = {(int(r), int(c)): int(b) for r, c, b in zip(row, col, bit, strict=True)}
    ray = np.zeros((64, 4, 2), np.uint64)
    for r, c, b in zip(row, col, bit, strict=True):
        for d, (dr, dc) in enumerate(DIRECTIONS):
            line = []
            k = 1
            while (int(r) + k * dr, int(c) + k * dc) in at:
                line.append(at[(int(r) + k * dr, int(c) + k * dc)])
                k += 1
            for kind, members in enumerate((line, line[1:2])):
                ray[b, d, kind] = sum(1 << m for m in members)
    geo = Geometry(
        n=n,
        squares=squares,
        reach=n - 1,
        steps=(-(n + 2) // 2, -n // 2, n // 2, (n + 2) // 2),
        bit=bit.astype(np.int32),
        runs=_runs(bit - np.arange(squares)),
        valid=0,
        first_row=0,
        ray=ray,
    )
    return dataclasses.replace(geo, valid=geo.bits(range(squares)), first_row=geo.bits(range(half)))


def _runs(offsets: np.ndarray) -> tuple[tuple[int, int, int], ...]:
    runs: list[list[int]] = []
    for s, offset in enumerate(offsets.tolist()):
        if runs and runs[-1][2] == offset:
            runs[-1][1] = s + 1
        else:
            runs.append([s, s + 1, offset])
    return tuple(tuple(run) for run in runs)


def pack(mask: jax.Array, geo: Geometry) -> Bits:
    """The set of a bool (…, S) mask."""
    words = mask.astype(jnp.uint64) << u64(geo.bit.astype(np.uint64))
    return Bits(words.sum(axis=-1, dtype=jnp.uint64))


def consecutive(x: Bits, geo: Geometry) -> jax.Array:
    """uint64 (…): each set with its squares moved to consecutive bits, square s at bit s (a few
    shifts: the ghosts split the squares into runs)."""
    packed = None
    for first, end, offset in geo.runs:
        run = shift(x, -offset) & const(sum(1 << s for s in range(first, end)))
        packed = run if packed is None else packed | run
    return packed.x


def words_of(packed: jax.Array, squares: int) -> jax.Array:
    """uint32 (⌈K·S/32⌉,): K `consecutive` sets (uint64 (K,)) as one mask packed into words:
    entry k·S + s (square s of set k) is bit e % 32 of word e // 32, as
    `jaxcheckers.bits.pack_mask` packs a mask; `bits.unpack_mask` is the mask. Every word takes
    the sets that overlap it, shifted into place, all words at once (one loop on the CPU, not one
    a word)."""
    sets, up, down, inside = _word_parts(packed.shape[-1], squares)
    words = None
    for part in range(sets.shape[0]):  # the sets overlapping a word: at most ⌈32/S⌉ + 1
        bits = jnp.take(packed, jnp.asarray(sets[part]), axis=-1)
        bits = (bits >> u64(down[part])) << u64(up[part])
        bits = jnp.where(inside[part], bits, u64(0))
        words = bits if words is None else words | bits
    return (words & u64(0xFFFFFFFF)).astype(jnp.uint32)


@functools.cache
def _word_parts(count: int, squares: int):
    """For `words_of` of `count` sets of `squares` bits, per overlap p and word w: the set
    (int32 (P, W)), how far to shift it up and down (uint64), and whether it overlaps at all."""
    size = -(-count * squares // 32)
    overlaps = [
        [k for k in range(count) if k * squares < 32 * (w + 1) and (k + 1) * squares > 32 * w]
        for w in range(size)
    ]
    parts = max(len(sets) for sets in overlaps)
    sets = np.zeros((parts, size), np.int32)
    start = np.zeros((parts, size), np.int64)
    inside = np.zeros((parts, size), bool)
    for w, found in enumerate(overlaps):
        for p, k in enumerate(found):
            sets[p, w], start[p, w], inside[p, w] = k, k * squares - 32 * w, True
    up = np.maximum(start, 0).astype(np.uint64)
    down = np.maximum(-start, 0).astype(np.uint64)
    return sets, up, down, inside


def single(square: jax.Array, geo: Geometry) -> Bits:
    """The set of one square (empty for a square outside 0 … S − 1)."""
    square = jnp.asarray(square)
    inside = (square >= 0) & (square < geo.squares)
    bit = u64(geo.bit.astype(np.uint64))[jnp.clip(square, 0, geo.squares - 1)]
    return Bits(jnp.where(inside, u64(1) << bit, u64(0)))
