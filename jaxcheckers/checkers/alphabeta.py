"""Minimax with alpha-beta pruning, in JAX: fixed shapes, jit-compiled, vmapped over games.

Depth counts TURNS: a whole capture sequence is one ply, as in the original agent. The search
works on complete moves built from the rules' own functions (`rules.legal_moves`, `rules.hop`):
every legal first hop, then, while a sequence can go on capturing, every legal next hop of it.

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

Every legal move of every node is searched; nothing is cut off. Fixed shapes hold because of two
bounds that need no assumption about the position:
- a first hop is one (direction, dark square) pair, so a node has at most `num_slots(n)` = 4·n²/2
  of them (128 on 8×8): they are all hopped at once, one slot each;
- the rest of a capture sequence is walked depth first (`MoveCursor`), one hop per step, keeping
  per level the jumps not yet tried: each level has captured one more piece, so there are at most
  n²/2 levels (the opponent cannot have more pieces than there are dark squares).
However many complete moves a position has (branching captures can have more than there are
squares), they come out one at a time. Pruning is real work saved, not a masked no-op: each
level is a `lax.while_loop` over the first hops, best-looking first, and over the complete moves
each one starts, that stops at a cut-off (under `vmap` a batch loops as long as its longest
member).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxcheckers.agents import MAX_ALPHABETA_DEPTH, depth_argument, game_by_game
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
    "FirstHops",
    "MoveCursor",
    "first_hops",
    "move_cursor",
    "next_move",
    "num_slots",
    "max_levels",
    "capture_cursor",
    "evaluate",
    "material",
    "root_values",
    "choose",
    "make_alphabeta_agent",
]


def num_slots(n: int) -> int:
    """The first hops a node can have at most: one per (direction, dark square), 4·n²/2."""
    return rules.NUM_DIRECTIONS * n * n // 2


def max_levels(n: int) -> int:
    """The levels of a capture sequence at most: one per piece it captures, ≤ n²/2."""
    return n * n // 2


class FirstHops(NamedTuple):
    positions: Position  # each uint32 (A, W): after the hop, in the mover's frame
    squares: jax.Array  # int32 (A,)  where the moving piece landed (full-board square)
    actions: jax.Array  # int32 (A,)  the action of each slot
    valid: jax.Array  # bool (A,)  the slot's hop is legal
    going: jax.Array  # bool (A,)  legal, and the piece must capture again (move not complete)


class MoveCursor(NamedTuple):
    """The complete moves that begin with one first hop, walked one at a time (depth first)."""

    levels: Position  # each uint32 (L, W): the position at each level of the capture sequence
    jumps: jax.Array  # uint32 (L, 4, W)  the jumps of the moving piece not yet tried, per level
    top: jax.Array  # int32 ()  the deepest level in use, −1 when none is
    move: Position  # each uint32 (W,): the next complete move, in the mover's frame
    found: jax.Array  # bool ()  `move` holds a complete move not visited yet


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


def _take(tree, index: jax.Array):
    return jax.tree.map(lambda x: x[index], tree)


def _hop_all(position: Position, actions: jax.Array, lay: Layout) -> rules.Hop:
    return jax.vmap(rules.hop, in_axes=(None, 0, None))(position, actions, lay)


def first_hops(position: Position, jumper: jax.Array, lay: Layout) -> FirstHops:
    """Every legal first hop of the side to move, one slot per (direction, dark square).

    `jumper` ≥ 0 is a piece in the middle of a capture (a full-board square): its jumps only.
    """
    legal = _bits(rules.legal_moves(position, jnp.asarray(jumper, jnp.int32), lay), lay)
    legal = legal.reshape(-1)  # (4·n²/2,), direction-major like `_dark_actions`
    actions = jnp.asarray(_dark_actions(lay), jnp.int32)
    hops = _hop_all(position, actions, lay)
    going = legal & jax.vmap(rules.continues_capture, in_axes=(0, None))(hops, lay)
    return FirstHops(hops.position, hops.square, actions, legal, going)


def _lowest_jump(jumps: jax.Array, lay: Layout) -> tuple[jax.Array, jax.Array]:
    """(int32 () action, uint32 (4, W) the rest): the first jump of a non-empty (4, W) set."""
    words = jumps.reshape(-1)  # direction-major
    k = jnp.argmax(words != 0)
    word = words[k]
    low = word & (~word + jnp.uint32(1))
    dark = (k % lay.words) * 32 + jax.lax.population_count(low - jnp.uint32(1)).astype(jnp.int32)
    table = np.zeros(lay.words * 32, np.int32)
    table[: lay.squares] = lay.rows * lay.n + lay.cols
    action = (k // lay.words) * (lay.n * lay.n) + jnp.asarray(table)[dark]
    return action.astype(jnp.int32), words.at[k].set(word & ~low).reshape(jumps.shape)


def capture_cursor(position: Position, jumps: jax.Array, lay: Layout) -> MoveCursor:
    """A cursor over the capture sequences that start with `jumps` (uint32 (4, W)) from `position`.

    It stands before the first complete move: call `next_move`.
    """
    levels = jax.tree.map(lambda x: jnp.zeros((max_levels(lay.n),) + x.shape, x.dtype), position)
    levels = jax.tree.map(lambda buf, x: buf.at[0].set(x), levels, position)
    stack = jnp.zeros((max_levels(lay.n),) + jumps.shape, jnp.uint32).at[0].set(jumps)
    return MoveCursor(levels, stack, jnp.int32(0), position, jnp.bool_(False))


def move_cursor(hops: FirstHops, slot: jax.Array, lay: Layout) -> MoveCursor:
    """A cursor standing on the first complete move that begins with first hop `slot`."""
    position = _take(hops.positions, slot)
    going = hops.going[slot]
    jumps = jnp.where(going, rules.legal_moves(position, hops.squares[slot], lay), jnp.uint32(0))
    cursor = capture_cursor(position, jumps, lay)
    cursor = next_move(cursor._replace(top=jnp.where(going, 0, -1).astype(jnp.int32)), lay)
    # A hop that ends the move is the one complete move of its slot.
    return cursor._replace(found=cursor.found | ~going)


def next_move(cursor: MoveCursor, lay: Layout) -> MoveCursor:
    """The cursor on the next complete move (`found` false when there is none).

    A step hops the deepest level's next untried jump: a sequence that can go on opens a level,
    one that cannot is a complete move; a level with no jump left is closed.
    """

    def going_on(c: MoveCursor):
        return (c.top >= 0) & ~c.found

    def step(c: MoveCursor) -> MoveCursor:
        t = jnp.maximum(c.top, 0)
        jumps = c.jumps[t]
        exhausted = ~bb.any_bit(jumps.reshape(-1))
        action, rest = _lowest_jump(jumps, lay)
        hop = rules.hop(_take(c.levels, t), action, lay)
        again = rules.continues_capture(hop, lay)
        deeper = ~exhausted & again
        below = jnp.minimum(t + 1, max_levels(lay.n) - 1)  # deeper ⇒ t + 1 < L (see the module)
        next_jumps = rules.legal_moves(hop.position, hop.square, lay)
        stack = c.jumps.at[t].set(rest)
        stack = stack.at[below].set(jnp.where(deeper, next_jumps, stack[below]))
        levels = jax.tree.map(
            lambda buf, x: buf.at[below].set(jnp.where(deeper, x, buf[below])),
            c.levels,
            hop.position,
        )
        top = jnp.where(exhausted, c.top - 1, jnp.where(deeper, below, c.top))
        found = ~exhausted & ~again
        move = jax.tree.map(lambda new, old: jnp.where(found, new, old), hop.position, c.move)
        return MoveCursor(levels, stack, top.astype(jnp.int32), move, found)

    return jax.lax.while_loop(going_on, step, cursor._replace(found=jnp.bool_(False)))


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


def _score_after(move: Position, lay: Layout) -> jax.Array:
    """int32 (): the static score of a complete move (mover's frame) for the side that made it."""
    return -evaluate(rules.flip_position(move, lay), lay)


def _stable_order(keys: jax.Array) -> jax.Array:
    """int32 (C,): the indices of `keys` in ascending order, ties in index order."""
    # A sort, not the C² compares of counting ranks: faster on a CPU, game by game and vmapped
    # alike (docs/performance.md).
    return jnp.argsort(keys, stable=True).astype(jnp.int32)


def _slot_scores(hops: FirstHops, lay: Layout) -> jax.Array:
    """int32 (A,): each slot's static score after its hop, for the mover (complete or not)."""
    return jax.vmap(_score_after, in_axes=(0, None))(hops.positions, lay)


def _best_first(hops: FirstHops, lay: Layout) -> jax.Array:
    """int32 (A,): the slots, legal ones first, best static score for the mover first."""
    return _stable_order(jnp.where(hops.valid, -_slot_scores(hops, lay), INFINITY))


def _visit_moves(hops, slots, count, carry, visit, more, lay):
    """Folds `visit(carry, slot, move)` over every complete move of the first `count` `slots`.

    Stops early once `more(carry)` is false (a cut-off).
    """

    def slot_loop(state):
        i, carry = state
        slot = slots[i]

        def move_loop(inner):
            cursor, carry = inner
            carry = visit(carry, slot, cursor.move)
            return next_move(cursor, lay), carry

        _, carry = jax.lax.while_loop(
            lambda inner: inner[0].found & more(inner[1]),
            move_loop,
            (move_cursor(hops, slot, lay), carry),
        )
        return i + 1, carry

    _, carry = jax.lax.while_loop(
        lambda state: (state[0] < count) & more(state[1]), slot_loop, (jnp.int32(0), carry)
    )
    return carry


def _going_slots(hops: FirstHops) -> tuple[jax.Array, jax.Array]:
    """(int32 (A,) the slots whose move goes on capturing first, their count)."""
    return _stable_order(~hops.going), hops.going.sum(dtype=jnp.int32)


def _always(_carry) -> jax.Array:
    return jnp.bool_(True)


def _depth_one(hops: FirstHops, lay: Layout) -> jax.Array:
    """int32 (A,): per first hop, the best static score of the complete moves it begins."""
    done = hops.valid & ~hops.going
    values = jnp.where(done, _slot_scores(hops, lay), -INFINITY)
    slots, count = _going_slots(hops)

    def visit(values, slot, move):
        return values.at[slot].max(_score_after(move, lay))

    return _visit_moves(hops, slots, count, values, visit, _always, lay)


NO_JUMPER = np.int32(-1)  # not mid-capture


def _negamax(position, jumper, depth: int, alpha, beta, lay: Layout) -> jax.Array:
    """int32 (): the depth-`depth` minimax score for the side to move (fail-soft alpha-beta).

    Exact when it lies strictly inside (alpha, beta); otherwise a bound on the same side.
    """
    hops = first_hops(position, jumper, lay)
    if depth == 1:
        best = _depth_one(hops, lay).max()
        return jnp.where(hops.valid.any(), best, -WIN).astype(jnp.int32)

    def visit(carry, slot, move):
        best, alpha = carry
        child = rules.flip_position(move, lay)
        score = -_negamax(child, NO_JUMPER, depth - 1, -beta, -alpha, lay)
        return jnp.maximum(best, score), jnp.maximum(alpha, score)

    start = (jnp.int32(-INFINITY), jnp.asarray(alpha, jnp.int32))
    best, _ = _visit_moves(
        hops, _best_first(hops, lay), hops.valid.sum(), start, visit, lambda c: c[1] < beta, lay
    )
    return jnp.where(hops.valid.any(), best, -WIN).astype(jnp.int32)


class RootValues(NamedTuple):
    values: jax.Array  # int32 (A,)  per first hop: exact where ≥ the best value, else a bound
    first_actions: jax.Array  # int32 (A,)
    valid: jax.Array  # bool (A,)


def root_values(position: Position, jumper, *, depth: int, n: int) -> RootValues:
    """Per legal first hop, the best score of the complete moves it begins, searched to `depth`.

    Every move whose value ties the best is searched with an open window, so all best first hops
    are known exactly (for the random tie-break); worse ones only need to be shown worse.
    """
    if depth < 1:
        raise ValueError(f"the search depth must be at least 1, got {depth}")
    lay = layout(n)
    hops = first_hops(position, jnp.asarray(jumper, jnp.int32), lay)
    if depth == 1:
        return RootValues(_depth_one(hops, lay), hops.actions, hops.valid)

    def visit(carry, slot, move):
        values, best = carry
        # Root window (best − 1, ∞): a move at least as good as the best so far comes out exact.
        child = rules.flip_position(move, lay)
        score = -_negamax(child, NO_JUMPER, depth - 1, -INFINITY, -(best - 1), lay)
        return values.at[slot].max(score), jnp.maximum(best, score)

    start = (jnp.full(hops.valid.shape, -INFINITY, jnp.int32), jnp.int32(-INFINITY))
    values, _ = _visit_moves(
        hops, _best_first(hops, lay), hops.valid.sum(), start, visit, _always, lay
    )
    return RootValues(values, hops.actions, hops.valid)


def choose(root: RootValues, key: jax.Array) -> jax.Array:
    """int32 (): a best first hop, uniformly at random among the tied best."""
    best = jnp.where(root.valid, root.values, -INFINITY).max()
    tied = root.valid & (root.values == best)
    noise = jax.random.uniform(key, tied.shape)
    pick = jnp.argmax(jnp.where(tied, noise, -1.0))
    return jnp.where(root.valid.any(), root.first_actions[pick], 0).astype(jnp.int32)


def from_spec(argument: str, env):
    """`alphabeta[:DEPTH]` for a checkers env."""
    depth = depth_argument("alphabeta", argument, DEFAULT_DEPTH)
    if not 1 <= depth <= MAX_ALPHABETA_DEPTH:
        why = " (deeper searches take minutes a move)" if depth > MAX_ALPHABETA_DEPTH else ""
        limits = f"1 to {MAX_ALPHABETA_DEPTH} turns deep"
        raise ValueError(f"alphabeta searches {limits}, got {depth}{why}")
    return make_alphabeta_agent(env, depth)


def make_alphabeta_agent(env, depth: int = DEFAULT_DEPTH):
    """act(state, key) -> int32 action: a best first hop at `depth` turns, ties broken by `key`."""
    if not isinstance(depth, int) or depth < 1:
        raise ValueError(f"the alpha-beta depth must be a positive int, got {depth!r}")
    if not isinstance(env, Checkers):
        raise ValueError(f"alpha-beta searches checkers positions; {env} is not checkers")
    if env.crowning != "ends":
        # Its move generator ends a capture at crowning (American rules); under ealt's rule it
        # would miss the captures a new king goes on with.
        raise ValueError("alpha-beta searches American rules only (crowning='ends')")
    n = env.board_size

    def act(state, key: jax.Array) -> jax.Array:
        return choose(root_values(state.position, state.jumper, depth=depth, n=n), key)

    return game_by_game(act)
