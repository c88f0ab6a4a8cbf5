"""Minimax with alpha-beta pruning, in JAX: fixed shapes, jit-compiled, vmapped over games.

Depth counts TURNS: a whole capture sequence is one ply, as in the original agent. The search
therefore works on complete moves, built by `complete_turns` from the rules' own functions: every
legal first hop, then, while any sequence can go on capturing, every legal next hop of it.

Evaluation, from the side to move: −`WIN` (−500) when it has no move (it has lost), otherwise
1·own men + 2·own kings − 1·opponent men − 2·opponent kings. Negamax over that antisymmetric score
is minimax with the score taken from the searching side.

What the search leaves out, on purpose: the draw rules (threefold repetition and the 40-move rule)
and the step limit are not looked at inside the tree; a side without a move always loses (the
tournament rule, also where the env plays the "pass" variant).

The agent returns one hop. In the middle of a capture sequence it is asked again and searches
again from there; the rest of the sequence is the rest of the same ply, so the search sees the
same leaves and the sequence it chose is still among the best.

The tree is searched over the env's bitset positions (`rules.Position`, three uint32 words on
8×8), so a node costs a few dozen word operations: move generation, hops and the evaluation
(population counts) never build a board.

Fixed shapes: a node has at most `capacity` complete moves (default n²/2: 32 on 8×8, more than
real games reach); more are cut off, which `Turns.overflow` reports. Pruning is real work saved,
not a masked no-op: each level is a `lax.while_loop` over the children, best-looking first, that
stops at a cut-off (under `vmap` a batch loops as long as its longest member).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxcheckers.checkers import bitboard as bb
from jaxcheckers.checkers import rules
from jaxcheckers.checkers.bitboard import Layout, layout
from jaxcheckers.checkers.env import Checkers
from jaxcheckers.checkers.rules import Position

WIN = 500  # the score of a won position; a lost one is −WIN
INFINITY = 1_000_000  # beyond any score: the open ends of the search window
DEFAULT_DEPTH = 3

__all__ = [
    "WIN",
    "DEFAULT_DEPTH",
    "Turns",
    "Children",
    "complete_turns",
    "complete_moves",
    "evaluate",
    "material",
    "root_values",
    "search_value",
    "choose",
    "make_alphabeta_agent",
    "default_capacity",
]


def default_capacity(n: int) -> int:
    """Complete moves kept per node: n²/2 (32 on 8×8; real positions stay far below)."""
    return n * n // 2


class Turns(NamedTuple):
    positions: Position  # each uint32 (C, W): after each complete move, in the NEXT mover's frame
    first_actions: jax.Array  # int32 (C,)  the first hop of each complete move
    valid: jax.Array  # bool (C,)  the slot holds a move; valid slots come first
    overflow: jax.Array  # bool ()  there were more than C moves and some were dropped


class _Sequences(NamedTuple):
    """Capture sequences being completed, one per slot, in the mover's frame."""

    positions: Position  # each (C, W)
    squares: jax.Array  # int32 (C,)  where the moving piece stands now (full-board square)
    first_actions: jax.Array  # int32 (C,)
    valid: jax.Array  # bool (C,)
    going: jax.Array  # bool (C,)  the sequence must capture again
    overflow: jax.Array  # bool ()


def _keep_first(valid: jax.Array, capacity: int) -> tuple[jax.Array, jax.Array]:
    """The first `capacity` valid entries, in their order: (indices, present), int32/bool (C,).

    The (c+1)-th valid entry sits where the running count first exceeds c, i.e. after every
    entry whose running count is at most c: counting compares vectorises, where a sort does not.
    Slots past the last valid entry are not `present` (their index is clamped, any entry).
    """
    running = jnp.cumsum(valid, dtype=jnp.int32)
    slots = jnp.arange(capacity, dtype=jnp.int32)
    index = (running[None, :] <= slots[:, None]).sum(axis=1, dtype=jnp.int32)
    return jnp.minimum(index, valid.shape[0] - 1), slots < running[-1]


def _take(tree, index: jax.Array):
    return jax.tree.map(lambda x: x[index], tree)


def _dark_actions(lay: Layout) -> np.ndarray:
    """int32 (4·n²/2,): the action of each (direction, dark square) pair, direction-major."""
    n = lay.n
    squares = lay.rows * n + lay.cols
    return (np.arange(rules.NUM_DIRECTIONS)[:, None] * n * n + squares[None, :]).reshape(-1)


def _bits(sets: jax.Array, lay: Layout) -> jax.Array:
    """bool (…, n²/2): the squares of (…, W) sets, in dark-square order."""
    index = np.arange(lay.squares)
    words = sets[..., index // 32]
    return ((words >> jnp.asarray(index % 32, jnp.uint32)) & 1).astype(bool)


def _hop_all(position: Position, actions: jax.Array, lay: Layout) -> rules.Hop:
    return jax.vmap(rules.hop, in_axes=(None, 0, None))(position, actions, lay)


def complete_turns(position: Position, jumper: jax.Array, lay: Layout, capacity: int) -> Turns:
    """Every complete move (a simple move or a whole capture sequence) of the side to move.

    `jumper` ≥ 0 is a piece in the middle of a capture (a full-board square), whose sequence is
    then completed. Built from `rules.legal_moves` and `rules.hop`: exactly the env's moves.
    """
    legal = _bits(rules.legal_moves(position, jumper, lay), lay).reshape(-1)  # (4·n²/2,)
    keep, valid = _keep_first(legal, capacity)
    actions = jnp.asarray(_dark_actions(lay))[keep]
    hops = _hop_all(position, actions, lay)
    going = valid & jax.vmap(rules.continues_capture, in_axes=(0, None))(hops, lay)
    start = _Sequences(
        positions=hops.position,
        squares=hops.square,
        first_actions=actions,
        valid=valid,
        going=going,
        overflow=legal.sum() > capacity,
    )
    # Each round captures a piece, so the loop ends after at most (opponent pieces) rounds.
    done = jax.lax.while_loop(lambda s: s.going.any(), lambda s: _next_hops(s, lay), start)
    return Turns(
        positions=jax.vmap(rules.flip_position, in_axes=(0, None))(done.positions, lay),
        first_actions=done.first_actions,
        valid=done.valid,
        overflow=done.overflow,
    )


def _next_hops(sequences: _Sequences, lay: Layout) -> _Sequences:
    """One more hop for every unfinished sequence (up to 4 ways each); finished ones stay."""
    capacity = sequences.valid.shape[0]
    n = lay.n
    directions = jnp.arange(rules.NUM_DIRECTIONS, dtype=jnp.int32)
    actions = directions[None, :] * (n * n) + sequences.squares[:, None]  # (C, 4)
    # Mid-capture, the legal moves are the jumps of the piece on `squares`, per direction.
    legal = jax.vmap(rules.legal_moves, in_axes=(0, 0, None))(
        sequences.positions, sequences.squares, lay
    )
    hops = jax.vmap(_hop_all, in_axes=(0, 0, None))(sequences.positions, actions, lay)
    going = sequences.going[:, None]  # (C, 1)
    stays = sequences.valid & ~sequences.going  # a finished sequence keeps direction slot 0
    valid = jnp.where(going, bb.any_bit(legal), (directions == 0)[None, :] & stays[:, None])

    def flat_choice(hopped, kept):  # (C, 4, …) and (C, …) -> (4C, …)
        where = going.reshape(going.shape + (1,) * (kept.ndim - 1))
        chosen = jnp.where(where, hopped, kept[:, None])
        return chosen.reshape((capacity * 4,) + chosen.shape[2:])

    flat_hops = jax.tree.map(lambda x: x.reshape((capacity * 4,) + x.shape[2:]), hops)
    again = jax.vmap(rules.continues_capture, in_axes=(0, None))(flat_hops, lay)
    still_going = (going & valid).reshape(-1) & again
    keep, present = _keep_first(valid.reshape(-1), capacity)
    first = jnp.repeat(sequences.first_actions, rules.NUM_DIRECTIONS)
    return _Sequences(
        positions=_take(jax.tree.map(flat_choice, hops.position, sequences.positions), keep),
        squares=flat_choice(hops.square, sequences.squares)[keep],
        first_actions=first[keep],
        valid=present,
        going=still_going[keep] & present,
        overflow=sequences.overflow | (valid.sum() > capacity),
    )


def _count(bits: jax.Array) -> jax.Array:
    return jax.lax.population_count(bits).astype(jnp.int32).sum()


def material(position: Position) -> jax.Array:
    """int32 (): own men + 2·own kings − opponent men − 2·opponent kings."""
    own = _count(position.own) + _count(position.own & position.kings)
    opponent = _count(position.opponent) + _count(position.opponent & position.kings)
    return own - opponent


def evaluate(position: Position, lay: Layout) -> jax.Array:
    """int32 (): the score for the side to move; −WIN when it has no move."""
    jumps, steps = rules.origins(position, lay)
    has_move = bb.any_bit(rules.union(jumps) | rules.union(steps))
    return jnp.where(has_move, material(position), -WIN).astype(jnp.int32)


def _child_scores(children: Turns, lay: Layout) -> jax.Array:
    """int32 (C,): each child's static score for the side that moved into it."""
    return -jax.vmap(evaluate, in_axes=(0, None))(children.positions, lay)


def _stable_order(keys: jax.Array) -> jax.Array:
    """int32 (C,): `jnp.argsort(keys, stable=True)` by counting (C² compares, no sort loop)."""
    index = jnp.arange(keys.shape[0])
    before = (keys[None, :] < keys[:, None]) | (
        (keys[None, :] == keys[:, None]) & (index[None, :] < index[:, None])
    )
    rank = before.sum(axis=1)  # where each entry goes
    return (rank[None, :] == index[:, None]).astype(jnp.int32) @ index.astype(jnp.int32)


def _best_first(children: Turns, lay: Layout) -> Turns:
    """The children sorted by their static score, best for the mover first (better pruning)."""
    order = _stable_order(jnp.where(children.valid, -_child_scores(children, lay), INFINITY))
    return children._replace(
        positions=_take(children.positions, order),
        first_actions=children.first_actions[order],
        valid=children.valid[order],
    )


NO_JUMPER = np.int32(-1)  # not mid-capture


def _negamax(position, jumper, depth: int, alpha, beta, lay: Layout, capacity: int) -> jax.Array:
    """int32 (): the depth-`depth` minimax score for the side to move (fail-soft alpha-beta).

    Exact when it lies strictly inside (alpha, beta); otherwise a bound on the same side.
    """
    children = complete_turns(position, jumper, lay, capacity)
    if depth == 1:
        best = jnp.where(children.valid, _child_scores(children, lay), -INFINITY).max()
        return jnp.where(children.valid.any(), best, -WIN).astype(jnp.int32)

    children = _best_first(children, lay)
    count = children.valid.sum()

    def keep_going(carry):
        i, best, alpha = carry
        return (i < count) & (alpha < beta)

    def search_child(carry):
        i, best, alpha = carry
        child = _take(children.positions, i)
        score = -_negamax(child, NO_JUMPER, depth - 1, -beta, -alpha, lay, capacity)
        return i + 1, jnp.maximum(best, score), jnp.maximum(alpha, score)

    start = (jnp.int32(0), jnp.int32(-INFINITY), jnp.asarray(alpha, jnp.int32))
    _, best, _ = jax.lax.while_loop(keep_going, search_child, start)
    return jnp.where(count > 0, best, -WIN).astype(jnp.int32)


class RootValues(NamedTuple):
    values: jax.Array  # int32 (C,)  exact where ≥ the best value; below it only an upper bound
    first_actions: jax.Array  # int32 (C,)
    valid: jax.Array  # bool (C,)
    overflow: jax.Array  # bool ()


def root_values(position: Position, jumper, *, depth: int, n: int, capacity: int) -> RootValues:
    """The score of every complete move of the side to move, searched to `depth` turns.

    Every move whose value ties the best is searched with an open window, so all best moves are
    known exactly (for the random tie-break); worse moves only need to be shown worse.
    """
    if depth < 1:
        raise ValueError(f"the search depth must be at least 1, got {depth}")
    lay = layout(n)
    children = complete_turns(position, jnp.asarray(jumper, jnp.int32), lay, capacity)
    if depth == 1:
        values = _child_scores(children, lay)
        return RootValues(values, children.first_actions, children.valid, children.overflow)

    children = _best_first(children, lay)
    count = children.valid.sum()

    def search_child(carry):
        i, values, best = carry
        # Root window (best − 1, ∞): a move at least as good as the best so far comes out exact.
        child = _take(children.positions, i)
        score = -_negamax(child, NO_JUMPER, depth - 1, -INFINITY, -(best - 1), lay, capacity)
        return i + 1, values.at[i].set(score), jnp.maximum(best, score)

    values = jnp.full(capacity, -INFINITY, jnp.int32)
    _, values, _ = jax.lax.while_loop(
        lambda carry: carry[0] < count, search_child, (jnp.int32(0), values, jnp.int32(-INFINITY))
    )
    return RootValues(values, children.first_actions, children.valid, children.overflow)


def search_value(position: Position, jumper, *, depth: int, n: int, capacity: int) -> jax.Array:
    """int32 (): the minimax score of the position for the side to move (−WIN with no move)."""
    root = root_values(position, jumper, depth=depth, n=n, capacity=capacity)
    best = jnp.where(root.valid, root.values, -INFINITY).max()
    return jnp.where(root.valid.any(), best, -WIN)


def choose(root: RootValues, key: jax.Array) -> jax.Array:
    """int32 (): the first hop of a best move, uniformly at random among the tied best."""
    best = jnp.where(root.valid, root.values, -INFINITY).max()
    tied = root.valid & (root.values == best)
    noise = jax.random.uniform(key, tied.shape)
    pick = jnp.argmax(jnp.where(tied, noise, -1.0))
    return jnp.where(root.valid.any(), root.first_actions[pick], 0).astype(jnp.int32)


def make_alphabeta_agent(env, depth: int = DEFAULT_DEPTH, capacity: int | None = None):
    """act(state, key) -> int32 action: a best first hop at `depth` turns, ties broken by `key`."""
    if not isinstance(depth, int) or depth < 1:
        raise ValueError(f"the alpha-beta depth must be a positive int, got {depth!r}")
    if not isinstance(env, Checkers):
        raise ValueError(f"alpha-beta searches checkers positions; {env} is not checkers")
    n = env.board_size
    capacity = default_capacity(n) if capacity is None else int(capacity)

    def act(state, key: jax.Array) -> jax.Array:
        root = root_values(state.position, state.jumper, depth=depth, n=n, capacity=capacity)
        return choose(root, key)

    return act


# -- for agents that score complete moves on boards (SARSA) --------------------------------------


class Children(NamedTuple):
    boards: jax.Array  # int8 (C, n·n)  after each complete move, in the NEXT mover's frame
    first_actions: jax.Array  # int32 (C,)
    valid: jax.Array  # bool (C,)
    overflow: jax.Array  # bool ()


def complete_moves(board: jax.Array, jumper: jax.Array, n: int, capacity: int) -> Children:
    """`complete_turns` on an int8 board (mover's frame), with the results as boards."""
    turns = complete_turns(rules.position_of(board, n), jnp.asarray(jumper), layout(n), capacity)
    return Children(
        rules.board_of(turns.positions, n), turns.first_actions, turns.valid, turns.overflow
    )
