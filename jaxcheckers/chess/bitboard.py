"""64-square bitboards as uint64 words, computed in 64-bit mode inside `wide` functions only.

Square s = rank·8 + file (a1 = 0, h8 = 63, python-chess's numbering) is bit s of the word. JAX's
32-bit default is left alone for the user: the State keeps each board as two uint32 words
[lo, hi] (`of` reads them, `BB.stack` writes them), and only the functions decorated `wide`
switch 64-bit types on while they are traced, checking that no 64-bit value leaves them. A shift
by a per-direction amount is then one vector operation, where a pair of 32-bit words needs six.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxcheckers.core import divided_by_one, unknown_one, wide

__all__ = ["BB", "wide", "of", "const", "zero", "shift", "steps", "slides", "square", "lowest"]

_U32 = jnp.uint32
MASK32 = 0xFFFFFFFF
MASK64 = (1 << 64) - 1


def _u64(value) -> jax.Array:
    if not jax.config.jax_enable_x64:
        raise RuntimeError("chess bitboards are computed inside `bitboard.wide` functions only")
    return jnp.asarray(value, jnp.uint64)


class BB(NamedTuple):
    """A bitboard: uint64 `x`, of any shape."""

    x: jax.Array

    def __and__(self, other: BB) -> BB:
        return BB(self.x & other.x)

    def __or__(self, other: BB) -> BB:
        return BB(self.x | other.x)

    def __xor__(self, other: BB) -> BB:
        return BB(self.x ^ other.x)

    def __invert__(self) -> BB:
        return BB(~self.x)

    def any(self) -> jax.Array:
        """bool: some square is set."""
        return self.x != 0

    def stack(self) -> jax.Array:
        """uint32 (…, 2): [lo, hi]."""
        return jnp.stack([(self.x & _u64(MASK32)).astype(_U32), (self.x >> 32).astype(_U32)], -1)


def of(words: jax.Array) -> BB:
    """The bitboard of uint32 (…, 2) [lo, hi]."""
    words = jnp.asarray(words)
    return BB(_u64(words[..., 0]) | (_u64(words[..., 1]) << 32))


def const(mask) -> BB:
    """A constant board: an int, or an array of Python ints (one board per entry)."""
    masks = np.vectorize(lambda m: int(m) & MASK64, otypes=[np.uint64])(np.asarray(mask, object))
    return BB(_u64(masks))


def zero() -> BB:
    return const(0)


def where(condition: jax.Array, a: BB, b: BB) -> BB:
    return BB(jnp.where(condition, a.x, b.x))


def shift(a: BB, n) -> BB:
    """The board shifted left by n (right for n < 0), n an int or an int array broadcast against
    `a` (one shift per direction); bits leaving the board drop."""
    n = np.asarray(n, np.int64)
    x = a.x
    if (n > 0).any():
        x = x << _u64(np.maximum(n, 0).astype(np.uint64))
    if (n < 0).any():
        x = x >> _u64(np.maximum(-n, 0).astype(np.uint64))
    return BB(x)


FILE_A = 0x0101010101010101
RANK_1 = 0xFF


def file_mask(f: int) -> int:
    return FILE_A << f


def rank_mask(r: int) -> int:
    return RANK_1 << (8 * r)


def _keep_files(dx: int) -> int:
    """The squares from which a step of dx files stays on the board."""
    mask = MASK64
    for f in range(8):
        if not 0 <= f + dx < 8:
            mask &= ~file_mask(f)
    return mask


def keep_files(dx) -> BB:
    """The squares from which steps of dx files (an int or int array) stay on the board."""
    return const(np.vectorize(_keep_files, otypes=[object])(np.asarray(dx)))


def step(a: BB, dx, dy) -> BB:
    """Every square moved by (dx files, dy ranks), ints or int arrays broadcast against `a` (one
    direction each); squares that would leave the board drop."""
    dx, dy = np.asarray(dx), np.asarray(dy)
    if dx.any():
        a = a & keep_files(dx)
    return shift(a, 8 * dy + dx)


steps = step  # many directions at once reads better at the call sites


_ONE = []  # the runtime 1 of the function being traced (`runtime_one`)


class runtime_one:
    """Within it, `once` has a 1 that XLA cannot fold away, for its fusion boundaries."""

    def __init__(self, signed: jax.Array):
        self.one = unknown_one(signed)

    def __enter__(self):
        _ONE.append(self.one)

    def __exit__(self, *exc):
        _ONE.pop()


def once(a):
    """`a` (a pytree of integer arrays) computed once into memory: a fusion boundary, so that XLA
    does not recompute a value in every fused loop that reads it (`lax.optimization_barrier` does
    not stop that on the CPU). On the CPU the boundary is a loop that runs zero times, which XLA
    cannot know; elsewhere an integer division by a 1 (`core.divided_by_one`), which on the CPU
    would keep the loops that compute the value from being vectorised."""
    if not _ONE:
        return a
    one = _ONE[-1]
    return jax.lax.platform_dependent(a, one, cpu=_through_empty_loop, default=divided_by_one)


def _through_empty_loop(a, one):
    def body(carry):
        count, values = carry
        return count + _U32(1), jax.tree.map(lambda x: x ^ count.astype(x.dtype), values)

    zero = one - _U32(1)
    return jax.lax.while_loop(lambda carry: carry[0] < zero, body, (_U32(0), a))[1]


def slides(gen: BB, empty: BB, dx, dy) -> BB:
    """The squares sliders on `gen` attack in directions (dx, dy) (ints or int arrays broadcast
    against `gen`, |dx|, |dy| ≤ 1): along each ray up to and including the first occupied square
    (Kogge–Stone occluded fill)."""
    dx, dy = np.asarray(dx), np.asarray(dy)
    d = 8 * dy + dx
    landing = keep_files(-dx)  # squares a step of dx can land on without wrapping
    pro = empty & landing
    gen = gen | (pro & shift(gen, d))
    pro = pro & shift(pro, d)
    gen, pro = once((gen, pro))
    gen = gen | (pro & shift(gen, 2 * d))
    pro = pro & shift(pro, 2 * d)
    gen, pro = once((gen, pro))
    gen = gen | (pro & shift(gen, 4 * d))
    return shift(gen, d) & landing


def union(a: BB, axis: int = -1) -> BB:
    """The OR over `axis`."""
    # ORs of halves, not a `reduce`: XLA on the CPU recomputes the inputs of a reduce fused into
    # a consumer loop for every element of the consumer
    x = jnp.moveaxis(a.x, axis, -1)
    while x.shape[-1] > 1:
        n = x.shape[-1]
        half = n // 2
        rest = x[..., 2 * half :]
        x = x[..., :half] | x[..., half : 2 * half]
        if n % 2:
            x = jnp.concatenate([x[..., :-1], x[..., -1:] | rest], -1) if half > 1 else x | rest
    return BB(x[..., 0])


def broadcast(a: BB, shape) -> BB:
    return BB(jnp.broadcast_to(a.x, shape))


def square(s: jax.Array) -> BB:
    """The bitboard of square s (0–63); empty for s outside."""
    s = jnp.asarray(s, jnp.int32)
    inside = (s >= 0) & (s < 64)
    return BB(jnp.where(inside, _u64(1) << (s & 63).astype(jnp.uint64), _u64(0)))


def has(a: BB, s: jax.Array) -> jax.Array:
    """bool: square s (0–63) is set."""
    s = jnp.asarray(s, jnp.int32)
    return ((a.x >> (s & 63).astype(jnp.uint64)) & _u64(1)) != 0


def lowest(a: BB) -> jax.Array:
    """int32: the lowest set square (64 if none)."""
    x = a.x
    return jax.lax.population_count((x & (~x + _u64(1))) - _u64(1)).astype(jnp.int32)


def popcount(a: BB) -> jax.Array:
    return jax.lax.population_count(a.x).astype(jnp.int32)


def flip(a: BB) -> BB:
    """Mirrored top to bottom (rank r ↦ 7 − r): the other side's frame (a byte swap)."""
    x = a.x
    for width, low in ((32, 0x00000000FFFFFFFF), (16, 0x0000FFFF0000FFFF), (8, 0x00FF00FF00FF00FF)):
        x = ((x >> width) & _u64(low)) | ((x & _u64(low)) << width)
    return BB(x)


def bswap32(x: jax.Array) -> jax.Array:
    """uint32 words byte-swapped: the half of a board [lo, hi] mirrored (32-bit, no `wide`)."""
    return (x << 24) | ((x << 8) & _U32(0xFF0000)) | ((x >> 8) & _U32(0xFF00)) | (x >> 24)


def to_int(words) -> int:
    """The Python int of a host bitboard [lo, hi]."""
    words = np.asarray(words, np.uint64)
    return int(words[..., 0]) | (int(words[..., 1]) << 32)


def from_int(mask: int) -> np.ndarray:
    return np.array([mask & MASK32, mask >> 32], np.uint32)
