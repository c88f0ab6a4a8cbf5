"""Sets of draughts squares as 64 bits in two uint32 words, laid out so that every diagonal step
is one constant shift: what the env's move generation computes with.

Cell (row, col) of the n×n board (dark when row + col is odd) is bit (row·(n+1) + col) // 2: the
rows are laid out n + 1 cells wide, the extra cell a "ghost" that is no square. A step NW, NE,
SW, SE is then a shift by −(n+2)/2, −n/2, +n/2, +(n+2)/2 from every square, and the first step
off the board lands on a ghost or past either end of the squares, never on a square (10×10:
bits 0–53 with ghosts 10, 21, 32, 43; 8×8: bits 0–34 with ghosts 8, 17, 26). So a rule applied
to all pieces at once is a few word operations, with no gather.
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
ALL = 0xFFFFFFFF


class Bits(NamedTuple):
    """A set of squares: bit i is bit i % 32 of word i // 32 (see the module docstring)."""

    lo: jax.Array  # uint32 (…)
    hi: jax.Array  # uint32 (…)

    def __and__(self, other: Bits) -> Bits:  # type: ignore[override]
        return Bits(self.lo & other.lo, self.hi & other.hi)

    def __or__(self, other: Bits) -> Bits:  # type: ignore[override]
        return Bits(self.lo | other.lo, self.hi | other.hi)

    def __invert__(self) -> Bits:
        return Bits(~self.lo, ~self.hi)

    def any(self) -> jax.Array:
        """bool (…): the set is not empty."""
        return (self.lo | self.hi) != 0


def const(value: int) -> Bits:
    """The set of the bits of a Python int (below 2⁶⁴)."""
    return Bits(jnp.uint32(value & ALL), jnp.uint32(value >> 32))


def none_like(x: Bits) -> Bits:
    return Bits(jnp.zeros_like(x.lo), jnp.zeros_like(x.hi))


def where(condition: jax.Array, x: Bits, y: Bits) -> Bits:
    return Bits(jnp.where(condition, x.lo, y.lo), jnp.where(condition, x.hi, y.hi))


def shift(x: Bits, by: int) -> Bits:
    """The set moved from bit i to bit i + `by` (|by| < 64, static); bits pushed out drop."""
    if by == 0:
        return x
    if by >= 32:
        return Bits(jnp.zeros_like(x.lo), x.lo << (by - 32))
    if by <= -32:
        return Bits(x.hi >> (-by - 32), jnp.zeros_like(x.hi))
    if by > 0:
        return Bits(x.lo << by, (x.hi << by) | (x.lo >> (32 - by)))
    by = -by
    return Bits((x.lo >> by) | (x.hi << (32 - by)), x.hi >> by)


def shift_each(x: Bits, by) -> Bits:
    """Each field of `x` moved by its own amount (`shift` moves them all by one): `by` is numpy
    ints (|by| < 64, static), broadcast against the fields. Amounts of both signs put every
    field through a left and a right shift, one of them by 0; a word shifted by 32 or more is 0
    in XLA, which the carries rely on."""
    by = np.asarray(by)
    left, right = np.maximum(by, 0), np.maximum(-by, 0)
    if left.any():
        own, carry, far = _amounts(left)
        x = Bits(x.lo << own, (x.hi << own) | (x.lo >> carry) | (x.lo << far))
    if right.any():
        own, carry, far = _amounts(right)
        x = Bits((x.lo >> own) | (x.hi << carry) | (x.hi >> far), x.hi >> own)
    return x


def _amounts(by: np.ndarray) -> tuple[jax.Array, jax.Array, jax.Array]:
    """uint32 amounts of a shift by `by` (0 … 63) of two words: the words' own shift, the bits
    carried into the other word below 32, and those carried 32 or more (32: none)."""
    own = np.minimum(by, 32)
    carry = np.where((by > 0) & (by < 32), 32 - by, 32)
    far = np.where(by >= 32, by - 32, 32)
    return tuple(jnp.asarray(a.astype(np.uint32)) for a in (own, carry, far))


def or_over(x: Bits, axis: int) -> Bits:
    """The union of the sets along `axis` of the fields."""
    union = functools.partial(
        jax.lax.reduce, init_values=np.uint32(0), computation=jax.lax.bitwise_or, dimensions=(axis,)
    )
    return Bits(union(x.lo), union(x.hi))


def lowest(x: Bits) -> Bits:
    """The lowest bit of `x` alone (empty when `x` is)."""
    lo = x.lo & (~x.lo + 1)
    return Bits(lo, jnp.where(x.lo == 0, x.hi & (~x.hi + 1), jnp.uint32(0)))


def _top_bit(word: jax.Array) -> jax.Array:
    top = (31 - jax.lax.clz(word)).astype(jnp.uint32)
    return jnp.where(word != 0, jnp.uint32(1) << top, jnp.uint32(0))


def highest(x: Bits) -> Bits:
    """The highest bit of `x` alone (empty when `x` is)."""
    return Bits(jnp.where(x.hi == 0, _top_bit(x.lo), jnp.uint32(0)), _top_bit(x.hi))


def below(bit: Bits) -> Bits:
    """Every bit under the single bit `bit`; every bit at all when `bit` is empty."""
    lo = jnp.where(bit.lo != 0, bit.lo - 1, jnp.uint32(ALL))
    hi = jnp.where(bit.hi != 0, bit.hi - 1, jnp.where(bit.lo != 0, jnp.uint32(0), jnp.uint32(ALL)))
    return Bits(lo, hi)


def above(bit: Bits) -> Bits:
    """Every bit over the single bit `bit`; every bit at all when `bit` is empty."""
    over = ~(below(bit) | bit)
    return where(bit.any(), over, const(2**64 - 1))


def index(bit: Bits) -> jax.Array:
    """int32 (): the position of the single bit `bit` (meaningless when it is empty)."""
    lo = jax.lax.population_count(bit.lo - 1)
    hi = jax.lax.population_count(bit.hi - 1) + 32
    return jnp.where(bit.lo != 0, lo, hi).astype(jnp.int32)


@dataclasses.dataclass(frozen=True, eq=False)
class Geometry:
    """The bit layout of n×n draughts, built with numpy once."""

    n: int
    squares: int  # S
    reach: int  # L = n − 1
    steps: tuple[int, int, int, int]  # the shift of one step NW, NE, SW, SE
    bit: np.ndarray  # int32 (S,): the bit of each square (increasing with the square)
    split: int  # the squares below it have their bit in the low word
    valid: int  # the set of all squares, as a Python int
    first_row: int  # the squares of row 0 (where the side to move crowns)
    runs: tuple[tuple[int, int, int], ...]  # (first, end, shift): squares first … end − 1 sit
    #   `shift` bits above their number (the ghosts before them)
    ray: np.ndarray  # uint32 (64, 4, 2, 2): per bit and direction, [the squares along it (the
    #   bit's own excluded), the square two steps along it] as (lo, hi)

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
    at = {(int(r), int(c)): int(b) for r, c, b in zip(row, col, bit, strict=True)}
    ray = np.zeros((64, 4, 2, 2), np.uint32)
    for r, c, b in zip(row, col, bit, strict=True):
        for d, (dr, dc) in enumerate(DIRECTIONS):
            line = []
            k = 1
            while (int(r) + k * dr, int(c) + k * dc) in at:
                line.append(at[(int(r) + k * dr, int(c) + k * dc)])
                k += 1
            for kind, members in enumerate((line, line[1:2])):
                value = sum(1 << m for m in members)
                ray[b, d, kind] = (value & ALL, value >> 32)
    geo = Geometry(
        n=n,
        squares=squares,
        reach=n - 1,
        steps=(-(n + 2) // 2, -n // 2, n // 2, (n + 2) // 2),
        bit=bit.astype(np.int32),
        split=int((bit < 32).sum()),
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
    shifts = jnp.asarray(geo.bit.astype(np.uint32) % 32)
    words = mask.astype(jnp.uint32) << shifts
    lo = words[..., : geo.split].sum(axis=-1, dtype=jnp.uint32)
    hi = words[..., geo.split :].sum(axis=-1, dtype=jnp.uint32)
    return Bits(lo, hi)


def unpack(x: Bits, geo: Geometry) -> jax.Array:
    """bool (…, S): the mask of a set (x's fields of any shape (…))."""
    shifts = geo.bit.astype(np.uint32) % 32
    lo = (x.lo[..., None] >> jnp.asarray(shifts[: geo.split])) & 1
    hi = (x.hi[..., None] >> jnp.asarray(shifts[geo.split :])) & 1
    return jnp.concatenate([lo, hi], axis=-1).astype(bool)


def mask_words(x: Bits, geo: Geometry) -> jax.Array:
    """uint32 (⌈K·S/32⌉,): sets of K (…) fields (K,) as one mask packed into words: entry
    k·S + s (square s of set k) is bit e % 32 of word e // 32, as `jaxcheckers.bits.pack_mask`
    packs a mask. The squares are first moved to consecutive bits (a few shifts: the ghosts
    split them into runs), then each set is placed at bit k·S; `bits.unpack_mask` is the mask.
    """
    packed = None
    for first, end, offset in geo.runs:
        run = shift(x, -offset) & const(sum(1 << s for s in range(first, end)))
        packed = run if packed is None else packed | run
    count = x.lo.shape[-1]
    size = -(-count * geo.squares // 32)
    words: list[jax.Array | None] = [None] * size

    def add(i: int, value: jax.Array) -> None:
        if i < size:
            words[i] = value if words[i] is None else words[i] | value

    high_bits = geo.squares - 32  # the squares of a set in its high word
    for k in range(count):
        lo, hi = packed.lo[..., k], packed.hi[..., k]
        word, offset = divmod(k * geo.squares, 32)
        if offset == 0:
            add(word, lo)
            add(word + 1, hi)
            continue
        add(word, lo << offset)
        add(word + 1, (lo >> (32 - offset)) | (hi << offset))
        if high_bits + offset > 32:
            add(word + 2, hi >> (32 - offset))
    zero = jnp.zeros_like(x.lo[..., 0])
    return jnp.stack([zero if w is None else w for w in words], axis=-1)


def single(square: jax.Array, geo: Geometry) -> Bits:
    """The set of one square (empty for a square outside 0 … S − 1)."""
    square = jnp.asarray(square)
    inside = (square >= 0) & (square < geo.squares)
    bit = jnp.asarray(geo.bit)[jnp.clip(square, 0, geo.squares - 1)].astype(jnp.uint32)
    low = inside & (bit < 32)
    lo = jnp.where(low, jnp.uint32(1) << (bit & 31), jnp.uint32(0))
    hi = jnp.where(inside & ~low, jnp.uint32(1) << (bit & 31), jnp.uint32(0))
    return Bits(lo, hi)
