"""64-square bitboards as pairs of uint32 words, so that JAX's 32-bit default stays as it is.

Square s = rank·8 + file (a1 = 0, h8 = 63, python-chess's numbering); bit s of the 64-bit board is
bit s % 32 of `lo` (s < 32) or `hi`. Every shift amount is a Python int, so each operation is a
handful of word operations that XLA vectorises over a batch.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["BB", "const", "zero", "shift", "step", "slide", "square", "lowest", "popcount"]

_U32 = jnp.uint32
MASK32 = 0xFFFFFFFF


class BB(NamedTuple):
    """A bitboard: uint32 `lo` (squares 0–31) and `hi` (32–63), of any matching shape."""

    lo: jax.Array
    hi: jax.Array

    def __and__(self, other: BB) -> BB:
        return BB(self.lo & other.lo, self.hi & other.hi)

    def __or__(self, other: BB) -> BB:
        return BB(self.lo | other.lo, self.hi | other.hi)

    def __xor__(self, other: BB) -> BB:
        return BB(self.lo ^ other.lo, self.hi ^ other.hi)

    def __invert__(self) -> BB:
        return BB(~self.lo, ~self.hi)

    def any(self) -> jax.Array:
        """bool: some square is set."""
        return (self.lo | self.hi) != 0

    def stack(self) -> jax.Array:
        """uint32 (…, 2): [lo, hi]."""
        return jnp.stack([self.lo, self.hi], axis=-1)


def of(words: jax.Array) -> BB:
    """The bitboard of uint32 (…, 2) [lo, hi]."""
    return BB(words[..., 0], words[..., 1])


def const(mask: int) -> BB:
    return BB(_U32(mask & MASK32), _U32(mask >> 32))


def zero() -> BB:
    return const(0)


def where(condition: jax.Array, a: BB, b: BB) -> BB:
    return BB(jnp.where(condition, a.lo, b.lo), jnp.where(condition, a.hi, b.hi))


def shift(a: BB, n: int) -> BB:
    """The 64-bit value shifted left by n (right for n < 0); bits leaving the board drop."""
    if n == 0:
        return a
    if n >= 32:
        return BB(jnp.zeros_like(a.lo), a.lo << (n - 32))
    if n <= -32:
        return BB(a.hi >> (-n - 32), jnp.zeros_like(a.hi))
    if n > 0:
        return BB(a.lo << n, (a.hi << n) | (a.lo >> (32 - n)))
    n = -n
    return BB((a.lo >> n) | (a.hi << (32 - n)), a.hi >> n)


FILE_A = 0x0101010101010101
RANK_1 = 0xFF


def file_mask(f: int) -> int:
    return FILE_A << f


def rank_mask(r: int) -> int:
    return RANK_1 << (8 * r)


def _keep_files(dx: int) -> int:
    """The squares from which a step of dx files stays on the board."""
    mask = (1 << 64) - 1
    for f in range(8):
        if not 0 <= f + dx < 8:
            mask &= ~file_mask(f)
    return mask


def shift_by(a: BB, n) -> BB:
    """`shift` by an int array `n` (|n| < 64) broadcast against `a`: one shift per direction."""
    n = np.asarray(n, np.int64)
    left = jnp.asarray(np.maximum(n, 0).astype(np.uint32))
    right = jnp.asarray(np.maximum(-n, 0).astype(np.uint32))
    thirty_two = _U32(32)
    lo, hi = a.lo, a.hi
    if (n > 0).any():
        lo, hi = (
            lo << left,
            (hi << left) | (lo >> (thirty_two - left)) | (lo << (left - thirty_two)),
        )
    if (n < 0).any():
        lo, hi = (
            (lo >> right) | (hi << (thirty_two - right)) | (hi >> (right - thirty_two)),
            hi >> right,
        )
    return BB(lo, hi)


def keep_files(dx) -> BB:
    """The squares from which steps of dx files (an int array) stay on the board."""
    masks = np.array([_keep_files(int(d)) for d in np.ravel(dx)], dtype=object).reshape(
        np.shape(dx)
    )
    lo = np.vectorize(lambda m: m & MASK32, otypes=[np.uint32])(masks)
    hi = np.vectorize(lambda m: m >> 32, otypes=[np.uint32])(masks)
    return BB(jnp.asarray(lo), jnp.asarray(hi))


def steps(a: BB, dx, dy) -> BB:
    """`step` in many directions at once: dx, dy int arrays broadcast against `a`."""
    dx, dy = np.asarray(dx), np.asarray(dy)
    return shift_by(a & keep_files(dx), 8 * dy + dx)


_ONE = []  # the runtime 1 of the function being traced (`runtime_one`)


class runtime_one:
    """Within it, `once` has a 1 that XLA cannot fold away, for its fusion boundaries."""

    def __init__(self, signed: jax.Array):
        self.one = _U32(1) | (signed < -(1 << 20)).astype(_U32)

    def __enter__(self):
        _ONE.append(self.one)

    def __exit__(self, *exc):
        _ONE.pop()


def once(a):
    """`a` (a pytree of integer arrays) computed once into memory: a fusion boundary, so that XLA
    does not recompute a value in every fused loop that reads it (`lax.optimization_barrier` does
    not stop that on the CPU). On the CPU the boundary is a loop that runs zero times, which XLA
    cannot know; elsewhere an integer division by a 1 (`jaxcheckers.core.computed_once`), which
    on the CPU would keep the loops that compute the value from being vectorised."""
    if not _ONE:
        return a
    one = _ONE[-1]
    return jax.lax.platform_dependent(a, one, cpu=_through_empty_loop, default=_divided_by)


def _through_empty_loop(a, one):
    def body(carry):
        count, values = carry
        return count + _U32(1), jax.tree.map(lambda x: x ^ count.astype(x.dtype), values)

    zero = one - _U32(1)
    return jax.lax.while_loop(lambda carry: carry[0] < zero, body, (_U32(0), a))[1]


def _divided_by(a, one):
    return jax.tree.map(lambda x: jax.lax.div(x, jnp.broadcast_to(one.astype(x.dtype), x.shape)), a)


def slides(gen: BB, empty: BB, dx, dy) -> BB:
    """`slide` in many directions at once (int arrays dx, dy broadcast against `gen`)."""
    dx, dy = np.asarray(dx), np.asarray(dy)
    d = 8 * dy + dx
    landing = keep_files(-dx)
    pro = empty & landing
    gen = gen | (pro & shift_by(gen, d))
    pro = pro & shift_by(pro, d)
    gen, pro = once((gen, pro))
    gen = gen | (pro & shift_by(gen, 2 * d))
    pro = pro & shift_by(pro, 2 * d)
    gen, pro = once((gen, pro))
    gen = gen | (pro & shift_by(gen, 4 * d))
    return shift_by(gen, d) & landing


def union(a: BB, axis: int = -1) -> BB:
    """The OR over `axis`."""

    def reduce(x):  # ORs of halves, not a `reduce`: XLA on the CPU recomputes the inputs of a
        # reduce fused into a consumer loop for every element of the consumer
        x = jnp.moveaxis(x, axis, -1)
        while x.shape[-1] > 1:
            n = x.shape[-1]
            half = n // 2
            rest = x[..., 2 * half :]
            x = x[..., :half] | x[..., half : 2 * half]
            if n % 2:
                x = jnp.concatenate([x[..., :-1], x[..., -1:] | rest], -1) if half > 1 else x | rest
        return x[..., 0]

    return BB(reduce(a.lo), reduce(a.hi))


def broadcast(a: BB, shape) -> BB:
    return BB(jnp.broadcast_to(a.lo, shape), jnp.broadcast_to(a.hi, shape))


def step(a: BB, dx: int, dy: int) -> BB:
    """Every square moved by (dx files, dy ranks); squares that would leave the board drop."""
    if dx:
        a = a & const(_keep_files(dx))
    return shift(a, 8 * dy + dx)


def slide(gen: BB, empty: BB, dx: int, dy: int) -> BB:
    """The squares a slider on `gen` attacks in direction (dx, dy), |dx|, |dy| ≤ 1: along the ray
    up to and including the first occupied square (Kogge–Stone occluded fill)."""
    d = 8 * dy + dx
    landing = const(_keep_files(-dx))  # squares a step of dx can land on without wrapping
    pro = empty & landing
    gen = gen | (pro & shift(gen, d))
    pro = pro & shift(pro, d)
    gen = gen | (pro & shift(gen, 2 * d))
    pro = pro & shift(pro, 2 * d)
    gen = gen | (pro & shift(gen, 4 * d))
    return shift(gen, d) & landing


def square(s: jax.Array) -> BB:
    """The bitboard of square s (0–63); empty for s outside."""
    s = jnp.asarray(s, jnp.int32)
    bit = _U32(1) << (s & 31).astype(_U32)
    inside = (s >= 0) & (s < 64)
    return BB(
        jnp.where(inside & (s < 32), bit, _U32(0)), jnp.where(inside & (s >= 32), bit, _U32(0))
    )


def has(a: BB, s: jax.Array) -> jax.Array:
    """bool: square s (0–63) is set."""
    s = jnp.asarray(s, jnp.int32)
    word = jnp.where(s < 32, a.lo, a.hi)
    return ((word >> (s & 31).astype(_U32)) & 1) != 0


def _ctz(x: jax.Array) -> jax.Array:
    """Trailing zeros of uint32 x (32 for 0)."""
    return jax.lax.population_count((x & (~x + _U32(1))) - _U32(1)).astype(jnp.int32)


def lowest(a: BB) -> jax.Array:
    """int32: the lowest set square (64 if none)."""
    return jnp.where(a.lo != 0, _ctz(a.lo), 32 + _ctz(a.hi))


def popcount(a: BB) -> jax.Array:
    return (jax.lax.population_count(a.lo) + jax.lax.population_count(a.hi)).astype(jnp.int32)


def _bswap(x: jax.Array) -> jax.Array:
    return (x << 24) | ((x << 8) & _U32(0xFF0000)) | ((x >> 8) & _U32(0xFF00)) | (x >> 24)


def flip(a: BB) -> BB:
    """Mirrored top to bottom (rank r ↦ 7 − r): the other side's frame."""
    return BB(_bswap(a.hi), _bswap(a.lo))


def to_int(words) -> int:
    """The Python int of a host bitboard [lo, hi]."""
    words = np.asarray(words, np.uint64)
    return int(words[..., 0]) | (int(words[..., 1]) << 32)


def from_int(mask: int) -> np.ndarray:
    return np.array([mask & MASK32, mask >> 32], np.uint32)
