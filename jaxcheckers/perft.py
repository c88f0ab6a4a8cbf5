"""Perft: the number of positions reachable in exactly `depth` moves, counted with the batched env.

Works for any env with the State contract. Each level's legal (state, action) pairs are played
with one jitted, vmapped `step` over fixed-size chunks (one compile), so perft is also a benchmark
of `step`. Two ways to count:

- hop level: every environment step is a ply (a multi-jump of three hops is three plies);
- move level (`move_level=True`): a turn is a ply, i.e. the steps on which the same player stays
  to move (the hops of a multi-jump) are folded into one move.

At the last hop-level ply the leaves are not played, only counted from the legal-action masks.
"""

from __future__ import annotations

import argparse
import functools
import time

import jax
import numpy as np

__all__ = ["perft", "add_arguments", "run"]

DEFAULT_CHUNK = 1 << 12


def perft(env, depth: int, *, move_level: bool = False, state=None, chunk_size: int = DEFAULT_CHUNK) -> int:
    """Leaf count after `depth` plies from `state` (default: the opening of `env`)."""
    if depth < 0:
        raise ValueError(f"depth must be at least 0, got {depth}")
    if state is None:
        state = env.reset(jax.random.PRNGKey(0))
    if depth == 0:
        return 1
    frontier = jax.tree.map(lambda x: np.asarray(x)[None], state)
    step = _chunked_step(env, chunk_size)
    for ply in range(depth):
        last = ply == depth - 1
        if last and not move_level:
            return int(frontier.legal_action_mask.sum())
        frontier, count = _next_ply(step, frontier, move_level, keep=not last)
        if last:
            return count
    raise AssertionError("unreachable")


def _next_ply(step, frontier, move_level: bool, keep: bool):
    """Children one ply on (a whole turn at move level); their number too."""
    finished, count = [], 0
    pending = frontier
    while len(pending.current_player):
        children = step(pending)
        if not move_level:
            return children.state, len(children.current_player)
        over = children.terminated | children.truncated
        same_turn = ~over & (children.current_player == children.parent_player)
        count += int((~same_turn).sum())
        if keep:
            finished.append(_take(children.state, ~same_turn))
        pending = _take(children.state, same_turn)
    if not keep:
        return None, count
    return jax.tree.map(lambda *xs: np.concatenate(xs), *finished), count


class _Children:
    """The children of a batch of states, with the player who moved into each."""

    def __init__(self, state, parent_player):
        self.state = state
        self.parent_player = parent_player

    def __getattr__(self, name):
        return getattr(self.state, name)


def _chunked_step(env, chunk_size: int):
    batched_step = _jitted_step(env)

    def step(states):
        parents, actions = np.nonzero(states.legal_action_mask)
        total = len(parents)
        children = None  # allocated once the first chunk shows the leaves' shapes
        for start in range(0, total, chunk_size):
            rows = parents[start : start + chunk_size]
            acts = actions[start : start + chunk_size]
            real = len(rows)
            rows = np.pad(rows, (0, chunk_size - real), mode="edge")
            acts = np.pad(acts, (0, chunk_size - real), mode="edge")
            chunk = batched_step(jax.tree.map(lambda x, r=rows: x[r], states), acts)
            if children is None:
                children = jax.tree.map(lambda x: np.empty((total, *x.shape[1:]), x.dtype), chunk)
            for out, piece in zip(jax.tree.leaves(children), jax.tree.leaves(chunk)):
                out[start : start + real] = np.asarray(piece)[:real]
        if children is None:
            children = jax.tree.map(lambda x: x[:0], states)
        return _Children(children, states.current_player[parents])

    return step


@functools.lru_cache(maxsize=8)
def _jitted_step(env):
    return jax.jit(jax.vmap(env.step))


def _take(tree, keep: np.ndarray):
    return jax.tree.map(lambda x: x[keep], tree)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--depth", type=int, default=7, help="plies to count (default 7)")
    parser.add_argument("--move-level", action="store_true", help="a whole capture sequence is one ply")
    parser.add_argument("--board-size", type=int, default=8)
    parser.add_argument("--game", default="checkers")


def run(args: argparse.Namespace) -> int:
    import jaxcheckers

    options = {"board_size": args.board_size} if args.game == "checkers" else {}
    env = jaxcheckers.make(args.game, **options)
    level = "move" if args.move_level else "hop"
    print(f"{args.game} {options}, {level}-level perft")
    for depth in range(1, args.depth + 1):
        start = time.perf_counter()
        count = perft(env, depth, move_level=args.move_level)
        print(f"depth {depth:>2}: {count:>12,}  ({time.perf_counter() - start:.2f} s)")
    return 0
