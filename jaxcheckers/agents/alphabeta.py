"""Minimax with alpha-beta pruning, in JAX: fixed shapes, jit-compiled, vmapped over games.

Depth counts TURNS: a whole capture sequence is one ply, as in the original agent. The search
therefore works on complete moves, built by `complete_moves` from the rules' own hop functions:
every legal first hop, then, while any sequence can go on capturing, every legal next hop of it.

Evaluation, from the side to move: −`WIN` (−500) when it has no move (it has lost), otherwise
1·own men + 2·own kings − 1·opponent men − 2·opponent kings. Negamax over that antisymmetric score
is minimax with the score taken from the searching side.

What the search leaves out, on purpose: the draw rules (threefold repetition and the 40-move rule)
and the step limit are not looked at inside the tree; a side without a move always loses (the
tournament rule, also where the env plays the "pass" variant).

The agent returns one hop. In the middle of a capture sequence it is asked again and searches
again from there; the rest of the sequence is the rest of the same ply, so the search sees the
same leaves and the sequence it chose is still among the best.

Fixed shapes: a node has at most `capacity` complete moves (default n²/2: 32 on 8×8, more than
real games reach); more are cut off, which `Children.overflow` reports. Pruning is real work
saved, not a masked no-op: each level is a `lax.while_loop` over the children, best-looking first,
that stops at a cut-off (under `vmap` a batch loops as long as its longest member).
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxcheckers.checkers import rules

WIN = 500  # the score of a won position; a lost one is −WIN
INFINITY = 1_000_000  # beyond any score: the open ends of the search window
DEFAULT_DEPTH = 3

__all__ = [
    "WIN",
    "Children",
    "complete_moves",
    "evaluate",
    "material",
    "root_values",
    "search_value",
    "make_alphabeta_agent",
    "default_capacity",
]


def default_capacity(n: int) -> int:
    """Complete moves kept per node: n²/2 (32 on 8×8; real positions stay far below)."""
    return n * n // 2


class Children(NamedTuple):
    boards: jax.Array  # int8 (C, n·n)  after each complete move, in the NEXT mover's frame
    first_actions: jax.Array  # int32 (C,)  the first hop of each complete move
    valid: jax.Array  # bool (C,)  the slot holds a move; valid slots come first
    overflow: jax.Array  # bool ()  there were more than C moves and some were dropped


class _Partial(NamedTuple):
    boards: jax.Array  # int8 (C, n·n)  mover's frame
    squares: jax.Array  # int32 (C,)  where the moving piece stands now
    first_actions: jax.Array  # int32 (C,)
    valid: jax.Array  # bool (C,)
    going: jax.Array  # bool (C,)  the sequence must capture again
    overflow: jax.Array  # bool ()


def _keep_first(valid: jax.Array, capacity: int) -> jax.Array:
    """int32 (capacity,): indices of the valid entries first, in their order, then the others."""
    return jnp.argsort(~valid, stable=True)[:capacity].astype(jnp.int32)


def complete_moves(board: jax.Array, jumper: jax.Array, n: int, capacity: int) -> Children:
    """Every complete move (a simple move or a whole capture sequence) of the side to move.

    `board` is in the mover's frame; `jumper` ≥ 0 is a piece in the middle of a capture, whose
    sequence is then completed. Uses `rules.apply_hop` and `rules.legal_action_mask`, so the
    moves are exactly the environment's.
    """
    mask = rules.legal_action_mask(board, jumper, n)
    actions = _keep_first(mask, capacity)
    valid = mask[actions]
    hops = jax.vmap(rules.apply_hop, in_axes=(None, 0, None))(board, actions, n)
    going = valid & _must_go_on(hops, n)
    start = _Partial(
        boards=hops.board,
        squares=hops.destination.astype(jnp.int32),
        first_actions=actions,
        valid=valid,
        going=going,
        overflow=mask.sum() > capacity,
    )
    # Each round captures a piece, so the loop ends after at most (opponent pieces) rounds.
    done = jax.lax.while_loop(lambda p: p.going.any(), partial(_next_hops, n=n), start)
    return Children(
        boards=jax.vmap(rules.flip)(done.boards),
        first_actions=done.first_actions,
        valid=done.valid,
        overflow=done.overflow,
    )


def _must_go_on(hops: rules.Hop, n: int) -> jax.Array:
    can_jump = jax.vmap(rules.can_jump_from, in_axes=(0, 0, None))(hops.board, hops.destination, n)
    return hops.captured & ~hops.crowned & can_jump


def _next_hops(partial_moves: _Partial, n: int) -> _Partial:
    """One more hop for every unfinished sequence (up to 4 ways each); finished ones stay."""
    capacity = partial_moves.valid.shape[0]
    directions = jnp.arange(rules.NUM_DIRECTIONS, dtype=jnp.int32)
    actions = directions[None, :] * (n * n) + partial_moves.squares[:, None]  # (C, 4)
    jumps = jax.vmap(lambda b: rules.moves(b, n).jumps)(partial_moves.boards)  # (C, 4, n·n)
    can_jump = jnp.take_along_axis(jumps, partial_moves.squares[:, None, None], axis=2)[..., 0]

    def hop_all(board, row):
        return jax.vmap(rules.apply_hop, in_axes=(None, 0, None))(board, row, n)

    hops = jax.vmap(hop_all)(partial_moves.boards, actions)  # each field (C, 4, ...)
    going = partial_moves.going[:, None]
    stays = partial_moves.valid & ~partial_moves.going
    valid = jnp.where(going, can_jump, (directions == 0)[None, :] & stays[:, None])
    boards = jnp.where(going[..., None], hops.board, partial_moves.boards[:, None, :])
    squares = jnp.where(going, hops.destination, partial_moves.squares[:, None])
    flat_hops = jax.tree.map(lambda x: x.reshape((capacity * 4,) + x.shape[2:]), hops)
    still_going = (going & valid).reshape(-1) & _must_go_on(flat_hops, n)

    valid = valid.reshape(-1)
    keep = _keep_first(valid, capacity)
    first = jnp.broadcast_to(partial_moves.first_actions[:, None], (capacity, 4)).reshape(-1)
    return _Partial(
        boards=boards.reshape(capacity * 4, -1)[keep],
        squares=squares.reshape(-1)[keep].astype(jnp.int32),
        first_actions=first[keep],
        valid=valid[keep],
        going=still_going[keep],
        overflow=partial_moves.overflow | (valid.sum() > capacity),
    )


def material(board: jax.Array) -> jax.Array:
    """int32 (): own men + 2·own kings − opponent men − 2·opponent kings (mover's frame)."""
    return board.astype(jnp.int32).sum()  # pieces are ±1 (men) and ±2 (kings)


def evaluate(board: jax.Array, n: int) -> jax.Array:
    """int32 (): the score for the side to move; −WIN when it has no move."""
    moves = rules.moves(board, n)
    has_move = (moves.jumps | moves.steps).any()
    return jnp.where(has_move, material(board), -WIN).astype(jnp.int32)


def _best_first(children: Children, n: int) -> tuple[Children, jax.Array]:
    """The children sorted by their static score, best for the mover first (better pruning)."""
    scores = -jax.vmap(evaluate, in_axes=(0, None))(children.boards, n)
    order = jnp.argsort(jnp.where(children.valid, -scores, INFINITY), stable=True)
    sorted_children = children._replace(
        boards=children.boards[order],
        first_actions=children.first_actions[order],
        valid=children.valid[order],
    )
    return sorted_children, scores[order]


def _negamax(board, jumper, depth: int, alpha, beta, n: int, capacity: int) -> jax.Array:
    """int32 (): the depth-`depth` minimax score for the side to move (fail-soft alpha-beta).

    Exact when it lies strictly inside (alpha, beta); otherwise a bound on the same side.
    """
    children = complete_moves(board, jumper, n, capacity)
    if depth == 1:
        scores = -jax.vmap(evaluate, in_axes=(0, None))(children.boards, n)
        best = jnp.where(children.valid, scores, -INFINITY).max()
        return jnp.where(children.valid.any(), best, -WIN).astype(jnp.int32)

    children, _ = _best_first(children, n)
    count = children.valid.sum()
    no_jumper = jnp.int32(-1)

    def keep_going(carry):
        i, best, alpha = carry
        return (i < count) & (alpha < beta)

    def search_child(carry):
        i, best, alpha = carry
        score = -_negamax(children.boards[i], no_jumper, depth - 1, -beta, -alpha, n, capacity)
        return i + 1, jnp.maximum(best, score), jnp.maximum(alpha, score)

    start = (jnp.int32(0), jnp.int32(-INFINITY), jnp.asarray(alpha, jnp.int32))
    _, best, _ = jax.lax.while_loop(keep_going, search_child, start)
    return jnp.where(count > 0, best, -WIN).astype(jnp.int32)


class RootValues(NamedTuple):
    values: jax.Array  # int32 (C,)  exact where ≥ the best value; below it only an upper bound
    first_actions: jax.Array  # int32 (C,)
    valid: jax.Array  # bool (C,)
    overflow: jax.Array  # bool ()


def root_values(board, jumper, *, depth: int, n: int, capacity: int) -> RootValues:
    """The score of every complete move of the side to move, searched to `depth` turns.

    Every move whose value ties the best is searched with an open window, so all best moves are
    known exactly (for the random tie-break); worse moves only need to be shown worse.
    """
    if depth < 1:
        raise ValueError(f"the search depth must be at least 1, got {depth}")
    children = complete_moves(board, jumper, n, capacity)
    if depth == 1:
        values = -jax.vmap(evaluate, in_axes=(0, None))(children.boards, n)
        return RootValues(values, children.first_actions, children.valid, children.overflow)

    children, _ = _best_first(children, n)
    count = children.valid.sum()
    no_jumper = jnp.int32(-1)

    def search_child(i, carry):
        values, best = carry
        # Root window (best − 1, ∞): a move at least as good as the best so far comes out exact.
        score = -_negamax(
            children.boards[i], no_jumper, depth - 1, -INFINITY, -(best - 1), n, capacity
        )
        score = jnp.where(i < count, score, -INFINITY)
        return values.at[i].set(score), jnp.maximum(best, score)

    values = jnp.full(capacity, -INFINITY, jnp.int32)

    def loop(carry):
        i, values, best = carry
        values, best = search_child(i, (values, best))
        return i + 1, values, best

    _, values, _ = jax.lax.while_loop(
        lambda carry: carry[0] < count, loop, (jnp.int32(0), values, jnp.int32(-INFINITY))
    )
    return RootValues(values, children.first_actions, children.valid, children.overflow)


def search_value(board, jumper, *, depth: int, n: int, capacity: int) -> jax.Array:
    """int32 (): the minimax score of the position for the side to move (−WIN with no move)."""
    root = root_values(board, jumper, depth=depth, n=n, capacity=capacity)
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
    n = env.board_size
    capacity = default_capacity(n) if capacity is None else int(capacity)

    def act(state, key: jax.Array) -> jax.Array:
        root = root_values(state.board, state.jumper, depth=depth, n=n, capacity=capacity)
        return choose(root, key)

    return act
