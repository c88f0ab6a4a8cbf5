"""Perft: the number of positions reachable in exactly `depth` moves, counted with the batched env.

Works for any env with the State contract. Two ways to count:

- hop level: every environment step is a ply (a multi-jump of three hops is three plies);
- move level (`move_level=True`): a turn is a ply, i.e. the steps on which the same player stays
  to move (the hops of a multi-jump) are folded into one move.

How it runs. The frontier (the positions of one ply) stays on the device, in chunks of
`chunk_size` slots: a chunk holds the states, their legal actions packed as bits (zero in an
empty slot) and the running number of each slot's first action. Child `i` of a chunk is found on
the device: its parent is the slot whose range of action numbers holds `i` (a binary search), its
action the matching set bit of that slot's bits. One jitted call plays a chunk's worth of
children (a vmapped `step`) and describes them the same way, so every call has the same shapes:
the kernels compile once, on first use, whatever the depth, and perft is also a benchmark of
`step`. The host only reads a few scalars per chunk (how many actions it holds, how many
children are mid-move), never the masks: copying the (N, num_actions) masks out and indexing
them on the host cost more than playing the moves. Each parent chunk is let go once played, so
memory peaks at about one frontier, not two.

At move level, the children on which the same player is still to move (mid-capture) are packed
from many chunks into few and played again within the ply. Leaves are counted, not played,
wherever the count is known without playing them: at the last hop-level ply always; at the last
move-level ply for states the env says cannot be mid-capture after a step (an env method
`captures_pending(state) -> bool`, optional).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from jaxcheckers.argtypes import add_fen_argument, add_game_arguments, env_and_start, positive_int
from jaxcheckers.bits import nth_set_bit, pack_mask
from jaxcheckers.core import per_rules
from jaxcheckers.games import spec
from jaxcheckers.memory import state_bytes, too_large

__all__ = ["perft", "add_arguments", "run"]

DEFAULT_CHUNK = 1 << 14


class _Actions(NamedTuple):
    """The actions still to play from each slot of a chunk, numbered in slot order."""

    bits: jax.Array  # uint32 (C, ⌈num_actions/32⌉)  action a is bit a % 32 of word a // 32
    first: jax.Array  # int32 (C,)  the number of the slot's first action
    total: jax.Array  # int32 ()  actions in the chunk


class _Chunk(NamedTuple):
    states: Any  # the env's State, leaves (C, …); a slot without actions is ignored
    actions: _Actions


class _Played(NamedTuple):
    """A chunk of children, with the actions to play from them next split by whose turn it is."""

    states: Any  # the env's State, leaves (C, …)
    turn_over: _Actions  # from children where the turn passed: the next ply's moves
    same_turn: _Actions  # from children where the mover goes on (mid-capture); empty at hop level
    moves_ended: jax.Array  # int32 ()  children that end a move (turn passed or game over)
    mid_move: jax.Array  # int32 ()  children still mid-move


class _Split(NamedTuple):
    """A chunk's actions at the last move-level ply, split by whether they surely end the turn."""

    open: _Actions  # of the states the env says may be mid-capture after a step
    open_states: jax.Array  # int32 ()  how many states those are
    closed_moves: jax.Array  # int32 ()  the actions of the other states: each a whole move


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
    kernels = _kernels(env, chunk_size, move_level)
    frontier = [kernels.root(state)]
    for ply in range(depth):
        last = ply == depth - 1
        if last and not move_level:  # every legal action is a leaf
            return int(sum(jax.device_get([chunk.actions.total for chunk in frontier])))
        frontier, count = _next_ply(kernels, frontier, keep=not last)
    return count


def _next_ply(kernels: _Kernels, frontier: list[_Chunk], keep: bool):
    """The chunks one ply on (a whole turn at move level) if `keep`, and the leaf count.

    Empties `frontier` as it goes: each parent chunk is let go once played, so that the memory
    peaks at about one frontier, not two.
    """
    counts, children = [], []
    pending = frontier
    if kernels.move_level and not keep and kernels.has_split:
        # The moves that surely end the turn are counted, not played; the states that may stay
        # mid-capture after a move are packed together before playing them.
        packer = _Packer(kernels)
        for i, chunk in enumerate(frontier):
            frontier[i] = None
            split = kernels.split_off_closed(chunk)
            counts.append(split.closed_moves)
            packer.add(_Chunk(chunk.states, split.open), split.open_states)
        pending = packer.chunks()
    while pending:
        totals = jax.device_get([chunk.actions.total for chunk in pending])
        packer = _Packer(kernels)
        for i, (chunk, total) in enumerate(zip(pending, totals, strict=True)):
            pending[i] = None
            for start in range(0, int(total), kernels.chunk_size):
                batch = kernels.play(chunk, start)
                counts.append(batch.moves_ended)
                if keep:
                    children.append(_Chunk(batch.states, batch.turn_over))
                if kernels.move_level:
                    packer.add(_Chunk(batch.states, batch.same_turn), batch.mid_move)
        pending = packer.chunks()
    return children, int(sum(jax.device_get(counts)))


class _Packer:
    """Moves the live slots (those with actions) of sparse chunks into as few chunks as hold
    them, chunk by chunk, so that each sparse chunk can be let go once added."""

    def __init__(self, kernels: _Kernels):
        self.kernels, self.out, self.dest, self.fill, self.waiting = kernels, [], None, 0, None

    def add(self, chunk: _Chunk, live: jax.Array) -> None:
        """`live`: int32 (), the chunk's live slots. Read one chunk late, so that the device
        always has the next chunk's work queued while the host waits for the count."""
        if self.waiting is not None:
            self._merge(*self.waiting)
        self.waiting = (chunk, live)

    def chunks(self) -> list[_Chunk]:
        if self.waiting is not None:
            self._merge(*self.waiting)
        if self.fill:
            self.out.append(self.dest)
        return self.out

    def _merge(self, chunk: _Chunk, live: jax.Array) -> None:
        count = int(live)
        if not count:
            return
        size = self.kernels.chunk_size
        dest = chunk if self.dest is None else self.dest  # the first: any chunk, with fill 0
        self.dest, overflow = self.kernels.merge(dest, self.fill, chunk)
        self.fill += count
        if self.fill >= size:
            self.out.append(self.dest)
            self.dest, self.fill = overflow, self.fill - size


class _Kernels(NamedTuple):
    """The jitted chunk functions of one env, chunk size and counting level (each compiles once)."""

    chunk_size: int
    move_level: bool
    has_split: bool
    root: Any  # (state) -> _Chunk: the state in slot 0, the other slots empty
    play: Any  # (_Chunk, start) -> _Played: children start … start + C − 1 of the chunk
    split_off_closed: Any  # (_Chunk) -> _Split
    merge: Any  # (dest, fill, src) -> (dest, overflow): src's live slots appended after `fill`


@per_rules(maxsize=8)
def _kernels(env, chunk_size: int, move_level: bool) -> _Kernels:
    slots = jnp.arange(chunk_size)
    captures_pending = getattr(env, "captures_pending", None)

    def described(bits: jax.Array) -> _Actions:
        per_slot = jax.lax.population_count(bits).sum(axis=-1, dtype=jnp.int32)
        ends = jnp.cumsum(per_slot, dtype=jnp.int32)
        return _Actions(bits, ends - per_slot, ends[-1])

    def keep_rows(bits: jax.Array, keep: jax.Array) -> jax.Array:
        return jnp.where(keep[:, None], bits, jnp.uint32(0))

    @jax.jit
    def root(state) -> _Chunk:
        states = jax.tree.map(lambda x: jnp.broadcast_to(x, (chunk_size, *x.shape)), state)
        bits = keep_rows(pack_mask(states.legal_action_mask), slots == 0)
        return _Chunk(states, described(bits))

    @jax.jit
    def play(chunk: _Chunk, start: jax.Array) -> _Played:
        actions = chunk.actions
        number = start + slots
        live = number < actions.total
        row = jnp.searchsorted(actions.first, number, side="right") - 1
        row = jnp.clip(row, 0, chunk_size - 1)
        action = jax.vmap(nth_set_bit)(actions.bits[row], number - actions.first[row])
        parents = jax.tree.map(lambda x: x[row], chunk.states)
        states = jax.vmap(env.step)(parents, action)
        bits = keep_rows(pack_mask(states.legal_action_mask), live)
        if move_level:  # a game that ended has no turn to go on with
            same_player = states.current_player == parents.current_player
            goes_on = live & same_player & bits.any(axis=-1)
        else:
            goes_on = jnp.zeros_like(live)
        ended = live & ~goes_on
        return _Played(
            states,
            described(keep_rows(bits, ended)),
            described(keep_rows(bits, goes_on)),
            ended.sum(dtype=jnp.int32),
            goes_on.sum(dtype=jnp.int32),
        )

    @jax.jit
    def split_off_closed(chunk: _Chunk) -> _Split:
        bits = chunk.actions.bits
        is_open = jax.vmap(captures_pending)(chunk.states) & bits.any(axis=-1)
        closed = jax.lax.population_count(keep_rows(bits, ~is_open)).sum(dtype=jnp.int32)
        return _Split(described(keep_rows(bits, is_open)), is_open.sum(dtype=jnp.int32), closed)

    @jax.jit
    def merge(dest: _Chunk, fill: jax.Array, src: _Chunk):
        live = src.actions.bits.any(axis=-1)
        target = jnp.where(live, fill + jnp.cumsum(live) - 1, 2 * chunk_size)  # else dropped

        def placed(kept, new):  # the second half's own slots are filler: they have no actions
            return jnp.concatenate([kept, kept]).at[target].set(new, mode="drop")

        states = jax.tree.map(placed, dest.states, src.states)
        kept = keep_rows(dest.actions.bits, slots < fill)
        bits = jnp.concatenate([kept, jnp.zeros_like(kept)])
        bits = bits.at[target].set(src.actions.bits, mode="drop")
        halves = [slice(None, chunk_size), slice(chunk_size, None)]
        return tuple(
            _Chunk(jax.tree.map(lambda x, h=half: x[h], states), described(bits[half]))
            for half in halves
        )

    # Each compiled here, once, on the opening: a perft that first meets a capture deep down would
    # otherwise pay for compiling `merge` there.
    chunk = root(env.reset(jax.random.PRNGKey(0)))
    jax.block_until_ready((play(chunk, 0), merge(chunk, 0, chunk)))
    if move_level and captures_pending is not None:
        jax.block_until_ready(split_off_closed(chunk))
    return _Kernels(
        chunk_size, move_level, captures_pending is not None, root, play, split_off_closed, merge
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--depth",
        type=positive_int,
        default=None,
        help="plies to count (default: the game's, 7 for checkers); stops, saying so, before a "
        "depth whose positions would not fit in the free memory",
    )
    parser.add_argument(
        "--move-level",
        action="store_true",
        help="a whole move is one ply (a capture sequence is one move; where moves can take "
        "several routes, as in draughts, each move is counted once)",
    )
    add_game_arguments(parser)
    add_fen_argument(parser)


def run(args: argparse.Namespace) -> int:
    env, state = env_and_start(args)
    game = spec(args.game)
    depth_wanted = args.depth or game.defaults.perft_depth
    whole_moves = game.notation.move_perft if args.move_level else None
    level = "whole-move" if whole_moves else "move-level" if args.move_level else "hop-level"
    print(f"{env}, {level} perft" + ("" if args.fen is None else f" from {args.fen}"))
    count = 1
    for depth in range(1, depth_wanted + 1):
        # Depth d plays every position of depth d - 1: that many states live at once, and more
        # while a chunk's children are made and packed (the leaves are counted, not kept). Three
        # times the frontier is the bound used: an estimate, on the safe side.
        positions = f"its {count:,} positions of depth {depth - 1}"
        refused = too_large(3 * count * state_bytes(env), positions)
        if refused:
            print(f"perft: stopped before depth {depth}: {refused}", file=sys.stderr)
            return 1
        start = time.perf_counter()
        if whole_moves is None:
            count = perft(env, depth, move_level=args.move_level, state=state)
        else:
            count = whole_moves(env, state, depth)
        print(f"depth {depth:>2}: {count:>12,}  ({time.perf_counter() - start:.2f} s)", flush=True)
    return 0
