"""Minimax with alpha-beta pruning for draughts, in JAX: jit-compiled, vmapped over games.

The tree is the env's own: a node is a State, its children `env.step` of each legal hop, so the
search keeps every rule the env keeps (the majority rule, the Turkish strike, promotion only at a
move's end, the draw rules) with no move generator of its own. Depth counts HOPS: a capture of
three pieces is three levels, each a choice the mask allows. A child whose mover is the node's
(a capture under way) keeps the node's sign and window; where the turn passes they flip (negamax).

Evaluation, from the side to move: a finished game is worth `WIN` times the mover's reward (a
draw 0); otherwise material, men `MAN` and kings `KING` (a king is worth about three men in
draughts play), own minus the opponent's, the pieces already taken by a move under way counted
as gone. A leaf in the middle of a capture is valued once the capture is played to its end (by
its first legal hops: under the majority rule every route takes as many pieces), so that a
capture's later pieces count as much as its first.

Pruning is real work saved: each node is a `lax.while_loop` over its legal hops (in action
order: ordering them would cost a step of each) that stops at a cut-off; under `vmap` a batch
loops as long as its longest member, so on a CPU the agent is asked game by game
(`game_by_game`).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxcheckers.agents import depth_argument, game_by_game
from jaxcheckers.draughts.env import Draughts

__all__ = ["WIN", "MAN", "KING", "DEFAULT_DEPTH", "MAX_DEPTH", "evaluate", "root_values"]

WIN = 1_000  # a won position; a lost one is −WIN (beyond any material: 20 kings are 60)
MAN, KING = 1, 3
INFINITY = 1_000_000  # beyond any score: the open ends of the search window
DEFAULT_DEPTH = 3
# Each hop of depth multiplies the work by the number of legal hops (tens): beyond this a move
# takes minutes on a CPU.
MAX_DEPTH = 6


def material(state) -> jax.Array:
    """int32 (): the mover's men and kings less the opponent's, pieces taken by a move under way
    left out."""
    board = jnp.where(state.taken, 0, state.board).astype(jnp.int32)
    values = jnp.where(jnp.abs(board) == 2, KING, MAN) * jnp.sign(board)
    return values.sum()


def evaluate(state) -> jax.Array:
    """int32 (): the score of `state` for the side to move."""
    outcome = jnp.round(state.rewards[state.current_player]).astype(jnp.int32) * WIN
    return jnp.where(state.terminated | state.truncated, outcome, material(state))


def _leaf_value(env: Draughts, state) -> jax.Array:
    """int32 (): `evaluate` for the mover of `state`, a capture under way played to its end
    first (each hop the first legal one): the leaf then counts every piece the capture takes,
    not only those taken so far. Under the majority rule each route takes as many."""

    def going_on(s):
        return env.mid_capture(s) & ~(s.terminated | s.truncated)

    def next_hop(s):
        return env.step(s, jnp.argmax(s.legal_action_mask).astype(jnp.int32))

    done = jax.lax.while_loop(going_on, next_hop, state)
    same = done.current_player == state.current_player
    return jnp.where(same, 1, -1) * evaluate(done)


def _legal_hops(state):
    """The legal hops (int32 (num_actions,), in action order, padded with 0) and their count."""
    mask = state.legal_action_mask
    (actions,) = jnp.nonzero(mask, size=mask.shape[0], fill_value=0)
    return actions.astype(jnp.int32), mask.sum()


def _negamax(env: Draughts, state, depth: int, alpha, beta) -> jax.Array:
    """The value of `state` for its mover, searched `depth` hops; alpha-beta in (alpha, beta)."""
    if depth == 0:
        return _leaf_value(env, state)
    actions, count = _legal_hops(state)

    def more(carry):
        i, best, alpha = carry
        return (i < count) & (alpha < beta)

    def visit(carry):
        i, best, alpha = carry
        child = env.step(state, actions[i])
        same = child.current_player == state.current_player
        sign = jnp.where(same, 1, -1)
        low, high = jnp.where(same, alpha, -beta), jnp.where(same, beta, -alpha)
        score = sign * _negamax(env, child, depth - 1, low, high)
        return i + 1, jnp.maximum(best, score), jnp.maximum(alpha, score)

    over = state.terminated | state.truncated
    start = (jnp.int32(0), jnp.int32(-INFINITY), jnp.asarray(alpha, jnp.int32))
    _, best, _ = jax.lax.while_loop(more, visit, start)
    return jnp.where(over | (count == 0), evaluate(state), best)


def root_values(env: Draughts, state, depth: int) -> jax.Array:
    """int32 (num_actions,): the value of each legal hop for the mover, searched `depth` hops
    (the hop itself the first); −INFINITY for an illegal one. A hop worse than the best found
    before it may come out as a bound below the best (its window's lower end), never as the
    best: the best hops' values are exact."""
    actions, count = _legal_hops(state)

    def visit(i, carry):
        values, best = carry
        action = actions[i]
        child = env.step(state, action)
        same = child.current_player == state.current_player
        # Window (best − 1, ∞): a hop at least as good as the best so far comes out exact.
        low = jnp.where(same, best - 1, -INFINITY)
        high = jnp.where(same, INFINITY, -(best - 1))
        score = jnp.where(same, 1, -1) * _negamax(env, child, depth - 1, low, high)
        return values.at[action].set(score), jnp.maximum(best, score)

    start = (jnp.full(state.legal_action_mask.shape, -INFINITY, jnp.int32), jnp.int32(-INFINITY))
    values, _ = jax.lax.fori_loop(0, count, visit, start)
    return values


def make_alphabeta_agent(env: Draughts, depth: int = DEFAULT_DEPTH):
    """act(state, key) -> int32 action: a best hop at `depth` hops, ties broken at random."""
    if not isinstance(env, Draughts):
        raise ValueError(f"this alpha-beta searches draughts positions; {env} is not draughts")
    if not isinstance(depth, int) or not 1 <= depth <= MAX_DEPTH:
        raise ValueError(f"alphabeta searches 1 to {MAX_DEPTH} hops deep, got {depth!r}")

    def act(state, key: jax.Array) -> jax.Array:
        values = root_values(env, state, depth)
        legal = state.legal_action_mask
        best = jnp.where(legal, values, -INFINITY).max()
        tied = legal & (values == best)
        noise = jax.random.uniform(key, tied.shape)
        return jnp.argmax(jnp.where(tied, noise, -1.0)).astype(jnp.int32)

    return game_by_game(act)


def from_spec(argument: str, env: Draughts):
    """`alphabeta[:DEPTH]` for a draughts env (DEPTH in hops, default 3)."""
    return make_alphabeta_agent(env, depth_argument("alphabeta", argument, DEFAULT_DEPTH))


def values_from_spec(argument: str, env: Draughts):
    """`alphabeta[:DEPTH]` as a teacher (`train --algo distill`): `values(state) -> int32
    (num_actions,)`, `root_values` (the best hops exact, the others below them, the illegal ones
    below all)."""
    depth = depth_argument("alphabeta", argument, DEFAULT_DEPTH)
    make_alphabeta_agent(env, depth)  # the same checks of the env and the depth
    return lambda state: root_values(env, state, depth)
