"""Perft of draughts: positions reachable in `depth` whole moves, each move counted once whatever
its routes (same start, end and pieces taken), as published counts count them.

The frontier is a batch of boards kept on the host between plies; each chunk of it is expanded on
the device (`moves.whole_moves` vmapped) and the children brought back, so memory grows with the
frontier: depth 8 from the international start keeps about a million boards (50 bytes each).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from jaxcheckers.draughts import moves, rules

__all__ = ["perft", "perft_boards", "perft_counts"]

CHUNKS = (128, 1024)  # positions a kernel call plays: the small one for small frontiers
CAPACITY = 32  # whole moves (and search nodes a level) a position is first tried with
LARGE = (64, 256)  # the chunk and capacity the positions that overflow that are redone with


@functools.cache
def _kernels(variant: str, chunk: int, capacity: int):
    lay = rules.layout(variant)
    moves_of = jax.vmap(lambda board: moves.whole_moves(board, lay, capacity))

    def live_moves(boards, live):
        """The moves of the live boards, which of them count, and which boards overflowed."""
        found = moves_of(boards)
        overflow = found.overflow & live
        return found, found.valid & (live & ~overflow)[:, None], overflow

    @jax.jit
    def count(boards, live):
        _, valid, overflow = live_moves(boards, live)
        return valid.sum(dtype=jnp.int32), overflow

    @jax.jit
    def expand(boards, live):
        found, valid, overflow = live_moves(boards, live)
        parent = jnp.repeat(jnp.arange(chunk), capacity)
        found = found._replace(overflow=jnp.zeros((chunk, capacity), bool))
        flat = jax.tree.map(lambda x: x.reshape(chunk * capacity, *x.shape[2:]), found)
        children = jax.vmap(lambda b, m: moves.play_move(b, m, lay))(boards[parent], flat)
        return children, valid.reshape(-1), overflow

    return count, expand


def _ply(frontier: np.ndarray, variant: str, last: bool, chunk: int, capacity: int):
    """(leaf count, children, the boards that overflowed) of one ply over `frontier`."""
    count, expand = _kernels(variant, chunk, capacity)
    total, children, hard = 0, [], []
    for start in range(0, len(frontier), chunk):
        part = frontier[start : start + chunk]
        live = np.arange(chunk) < len(part)
        padded = np.zeros((chunk, part.shape[1]), np.int8)
        padded[: len(part)] = part
        if last:
            leaves, overflow = count(padded, live)
            total += int(leaves)
        else:
            boards_out, valid, overflow = expand(padded, live)
            children.append(np.asarray(boards_out)[np.asarray(valid)])
        hard.append(part[np.asarray(overflow)[: len(part)]])
    return total, children, np.concatenate(hard)


def perft_counts(boards: np.ndarray, depth: int, variant: str = "international") -> list[int]:
    """The leaf counts after 1 … `depth` whole moves from `boards` (int8 (N, S), mover's frame,
    each at the start of a move), summed over them: one pass, each ply's count read from it."""
    frontier = np.asarray(boards, np.int8).reshape(-1, rules.layout(variant).squares)
    counts = []
    for ply in range(depth):
        last = ply == depth - 1
        chunk = CHUNKS[0] if len(frontier) <= CHUNKS[0] else CHUNKS[1]
        total, children, hard = _ply(frontier, variant, last, chunk, CAPACITY)
        if len(hard):
            more, more_children, harder = _ply(hard, variant, last, *LARGE)
            if len(harder):
                raise RuntimeError("a position has more moves than the perft can hold")
            total += more
            children += more_children
        if last:
            return [*counts, total]
        frontier = np.concatenate(children)
        counts.append(len(frontier))
    return counts


def perft_boards(boards: np.ndarray, depth: int, variant: str = "international") -> int:
    """Leaf count after `depth` whole moves from each of `boards`, summed."""
    if depth == 0:
        return len(np.asarray(boards).reshape(-1, rules.layout(variant).squares))
    return perft_counts(boards, depth, variant)[-1]


def perft(depth: int, variant: str = "international", board: np.ndarray | None = None) -> int:
    """Leaf count after `depth` whole moves from `board` (default: the start of `variant`)."""
    lay = rules.layout(variant)
    start = rules.opening_board(lay) if board is None else board
    return perft_boards(np.asarray(start)[None], depth, variant)
