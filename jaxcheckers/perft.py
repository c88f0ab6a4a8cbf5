"""Perft: the number of positions reachable in exactly `depth` moves, counted with the batched env.

Works for any env with the State contract. Each ply's legal (state, action) pairs are played with
one jitted, vmapped `step` over fixed-size chunks (one compile), so perft is also a benchmark of
`step`. Two ways to count:

- hop level: every environment step is a ply (a multi-jump of three hops is three plies);
- move level (`move_level=True`): a turn is a ply, i.e. the steps on which the same player stays
  to move (the hops of a multi-jump) are folded into one move.

Leaves are counted, not played, wherever the count is known without playing them: at the last
hop-level ply always; at the last move-level ply for states the env says cannot be mid-capture
after a step (an env method `captures_pending(state) -> bool`, optional).
"""

from __future__ import annotations

import argparse
import functools
import time
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["perft", "add_arguments", "run"]

DEFAULT_CHUNK = 1 << 13


class _Frontier(NamedTuple):
    """States on the host, with what perft needs to know of each, computed on the device."""

    states: object  # the env's State, numpy leaves with a leading axis (N, …)
    masks: np.ndarray  # bool (N, num_actions)
    players: np.ndarray  # int (N,)  the player to move
    open_ended: np.ndarray  # bool (N,)  a legal action may leave the same player to move


def perft(
    env, depth: int, *, move_level: bool = False, state=None, chunk_size: int = DEFAULT_CHUNK
) -> int:
    """Leaf count after `depth` plies from `state` (default: the opening of `env`)."""
    if depth < 0:
        raise ValueError(f"depth must be at least 0, got {depth}")
    if state is None:
        state = env.reset(jax.random.PRNGKey(0))
    if depth == 0:
        return 1
    expand = _expander(env, chunk_size)
    root = jax.tree.map(lambda x: np.asarray(x)[None], state)
    frontier = expand(root, np.zeros(1, np.int64), np.zeros(1, np.int32), play=False)
    for ply in range(depth):
        last = ply == depth - 1
        if last and not move_level:
            return int(frontier.masks.sum())
        frontier, count = _next_ply(expand, frontier, move_level, keep=not last)
        if last:
            return count
    raise AssertionError("unreachable")


def _next_ply(expand, frontier: _Frontier, move_level: bool, keep: bool):
    """Children one ply on (a whole turn at move level), and their number."""
    finished, count = [], 0
    pending = frontier
    if move_level and not keep:  # count the moves that surely end the turn without playing them
        closed = ~frontier.open_ended
        count += int(frontier.masks[closed].sum())
        pending = _take(frontier, ~closed)
    while len(pending.players):
        rows, actions = np.nonzero(pending.masks)
        children = expand(pending.states, rows, actions)
        if not move_level:
            return children, len(rows)
        same_turn = children.players == pending.players[rows]
        same_turn &= children.masks.any(axis=-1)  # a game that ended has no turn to go on with
        count += int((~same_turn).sum())
        if keep:
            finished.append(_take(children, ~same_turn))
        pending = _take(children, same_turn)
    if not keep:
        return None, count
    return jax.tree.map(lambda *xs: np.concatenate(xs), *finished), count


def _take(frontier: _Frontier, keep: np.ndarray) -> _Frontier:
    return jax.tree.map(lambda x: x[keep], frontier)


@functools.lru_cache(maxsize=8)
def _expander(env, chunk_size: int):
    """expand(states, rows, actions): the children of states[rows] by `actions`, as a Frontier.

    With play=False, the states themselves (rows index them, actions are ignored).
    """
    pending_of = getattr(env, "captures_pending", None)

    def describe(states):
        masks = states.legal_action_mask
        if pending_of is None:
            open_ended = masks.any(axis=-1)  # unknown: play everything
        else:
            open_ended = jax.vmap(pending_of)(states)
        return states, masks, states.current_player, open_ended

    @functools.partial(jax.jit, static_argnums=2)
    def chunk(states, actions, play: bool):
        if play:
            states = jax.vmap(env.step)(states, actions)
        return describe(states)

    def expand(states, rows, actions, play: bool = True) -> _Frontier:
        total = len(rows)
        out = None
        for start in range(0, total, chunk_size):
            part = slice(start, start + chunk_size)
            real = len(rows[part])
            pick = np.pad(rows[part], (0, chunk_size - real), mode="edge")
            acts = np.pad(actions[part], (0, chunk_size - real), mode="edge")
            result = chunk(jax.tree.map(lambda x, p=pick: x[p], states), jnp.asarray(acts), play)
            if out is None:  # allocated once the first chunk shows the shapes
                out = jax.tree.map(lambda x: np.empty((total, *x.shape[1:]), x.dtype), result)
            for target, piece in zip(jax.tree.leaves(out), jax.tree.leaves(result), strict=True):
                target[start : start + real] = np.asarray(piece)[:real]
        if out is None:
            return _Frontier(*jax.tree.map(lambda x: x[:0], describe_empty(states)))
        return _Frontier(*out)

    def describe_empty(states):
        return chunk(jax.tree.map(lambda x: np.repeat(x[:1], chunk_size, 0), states), None, False)

    return expand


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--depth", type=int, default=7, help="plies to count (default 7)")
    parser.add_argument(
        "--move-level", action="store_true", help="a whole capture sequence is one ply"
    )
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
