"""Alpha-beta for chess over the env's own `step`: material evaluation, whole moves, one jit.

Every chess action is a whole move, so the search needs no move generator of its own: a node's
children are `env.step(state, action)` for its legal actions, and the env's judge decides mates
and draws (threefold repetition and the 50-move rule included, since the state carries its
history). Depth counts plies.

Scores are int32, from the side to move: material (pawn 1, knight 3, bishop 3, rook 5, queen 9)
at the horizon, 0 for a draw (or a game cut at the step limit), and −(`WIN` + plies left to
search) for the side that is mated, so a quicker mate scores higher than a slower one.

The search is fixed-shape JAX, so the arena can `vmap` it over games and compile a whole match:
- a node's legal actions are compacted into `MAX_MOVES` slots (`jnp.nonzero(size=...)`; no chess
  position has more than 218 legal moves) and ordered captures first, most valuable victim and
  least valuable attacker first (MVV-LVA), then promotions;
- interior nodes are `lax.while_loop`s over those slots that stop at a cut-off;
- the last ply steps `CHUNK` children at once (`vmap(env.step)`) and stops after the chunk that
  causes a cut-off: one batched step costs far less than `CHUNK` single ones.

At the root the moves are searched in their order, each with the window (best so far, ∞), and
the first move to reach the best value is played. Ties are broken by the order: moves of equal
MVV-LVA rank are shuffled with the key (uniform noise below one rank), so the agent is random
among equally good moves of one kind and deterministic given its key. Proving that a move only
ties needs one refutation per reply instead of all of them, which makes depth 3 affordable.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxcheckers.agents import depth_argument, game_by_game
from jaxcheckers.chess import tables

__all__ = [
    "WIN",
    "DEFAULT_DEPTH",
    "MAX_DEPTH",
    "material",
    "positional",
    "EVALUATIONS",
    "ordered_moves",
    "search",
    "move_values",
    "make_chess_alphabeta_agent",
]

WIN = 10_000  # a mate; beyond any material score
INFINITY = 1_000_000  # beyond any score: the open ends of the search window
DEFAULT_DEPTH = 2
# The deepest search `make_chess_alphabeta_agent` builds: each ply more multiplies the time a
# move takes, the time to compile and, under `vmap` in the arena, the longest game's time
# (docs/performance.md).
MAX_DEPTH = 4
MAX_MOVES = 256  # slots per node: above the 218 legal moves a chess position can have at most
CHUNK = 32  # children stepped at once on the last ply (MAX_MOVES is a multiple of it)

PIECE_VALUES = np.array([1, 3, 3, 5, 9, 0], np.int32)  # pawn knight bishop rook queen king
# Attackers in MVV-LVA: the king last among captures of equal victims.
ATTACKER_VALUES = np.array([1, 3, 3, 5, 9, 10], np.int32)
RANK_SCALE = 16  # > any attacker value: victims and promotions first, then the cheaper attacker


def _popcount(words: jax.Array) -> jax.Array:
    return jax.lax.population_count(words).astype(jnp.int32).sum(axis=-1)


def material(position) -> jax.Array:
    """int32 (): the material of the side to move minus its opponent's (`rules.Position`)."""
    own = _popcount(position.pieces & position.own)  # (6,)
    theirs = _popcount(position.pieces & ~position.own)
    return (jnp.asarray(PIECE_VALUES) * (own - theirs)).sum()


_SQUARE = np.arange(64)
_RANK, _FILE = _SQUARE // 8, _SQUARE % 8  # the mover's frame: its pawns move up the ranks
_EDGE = np.minimum(np.minimum(_RANK, 7 - _RANK), np.minimum(_FILE, 7 - _FILE))  # 0 on the edge


def _on(words: jax.Array) -> jax.Array:
    """bool (…, 64): the squares of uint32 (…, 2) boards of the mover's frame."""
    return ((words[..., _SQUARE // 32] >> jnp.asarray(_SQUARE % 32, jnp.uint32)) & 1).astype(bool)


def positional(position) -> jax.Array:
    """int32 (): material in centipawns plus what makes progress at a short horizon, for the
    side to move minus its opponent's: 5 a rank each pawn has advanced, and for a side a piece
    (3 pawns) or more ahead, 10 a step its opponent's king stands nearer the edge and 5 a step
    the kings stand nearer each other (driving a lone king to the edge, where it is mated).
    A teacher's evaluation (`move_values`): material alone leaves most moves of a won game equal,
    and a player copying one of them at random shuffles into repetitions."""
    own, pieces = _on(position.own), _on(position.pieces)  # (64,), (6, 64)
    ahead = material(position)
    pawns = pieces[0]
    advance = (
        jnp.where(pawns & own, _RANK - 1, 0).sum() - jnp.where(pawns & ~own, 6 - _RANK, 0).sum()
    )
    king, their_king = jnp.argmax(pieces[5] & own), jnp.argmax(pieces[5] & ~own)
    rank, file, edge = jnp.asarray(_RANK), jnp.asarray(_FILE), jnp.asarray(_EDGE)
    apart = jnp.maximum(
        jnp.abs(rank[king] - rank[their_king]), jnp.abs(file[king] - file[their_king])
    )
    drive = 10 * (3 - edge[their_king]) + 5 * (7 - apart)
    driven = 10 * (3 - edge[king]) + 5 * (7 - apart)
    chase = jnp.where(ahead >= 3, drive, 0) - jnp.where(ahead <= -3, driven, 0)
    return (100 * ahead + 5 * advance + chase).astype(jnp.int32)


# A leaf's score: name -> evaluation of a `rules.Position` for its side to move (int32, below WIN).
EVALUATIONS = {"material": material, "positional": positional}


def _square_kinds(position) -> jax.Array:
    """int32 (64,): the piece kind (0–5) on each square of the mover's frame, −1 where empty."""
    square = np.arange(64)
    words = position.pieces[:, square // 32]  # (6, 64)
    on = ((words >> jnp.asarray(square % 32, jnp.uint32)) & 1).astype(jnp.int32)
    return (on * jnp.arange(1, 7)[:, None]).sum(axis=0) - 1


class Moves(NamedTuple):
    actions: jax.Array  # int32 (MAX_MOVES,)  legal actions, best-looking first; padding after
    count: jax.Array  # int32 ()  how many slots hold a legal action


def ordered_moves(state, noise: jax.Array | None = None) -> Moves:
    """The legal actions of `state`, captures by MVV-LVA first, then promotions, then the rest.

    `noise` float (MAX_MOVES,) in [0, 1) shuffles the moves within one rank (the root's random
    tie-break); without it equal ranks keep the action order.
    """
    mask = state.legal_action_mask
    count = mask.sum(dtype=jnp.int32)
    actions = jnp.nonzero(mask, size=MAX_MOVES, fill_value=0)[0].astype(jnp.int32)
    kinds = _square_kinds(state.position)
    frm = jnp.asarray(tables.FROM_SQUARE)[actions]
    to = jnp.asarray(tables.TO_SQUARE)[actions]
    under = jnp.asarray(tables.UNDER)[actions]
    attacker, victim = kinds[frm], kinds[to]  # a legal move never lands on its own piece
    values = jnp.asarray(PIECE_VALUES)
    gain = jnp.where(victim >= 0, values[jnp.maximum(victim, 0)], 0)
    promotes = (attacker == 0) & (to >= 56)
    gain = gain + jnp.where(promotes, values[jnp.where(under > 0, under, 4)] - 1, 0)
    rank = RANK_SCALE * gain - jnp.where(
        victim >= 0, jnp.asarray(ATTACKER_VALUES)[jnp.maximum(attacker, 0)], 0
    )
    rank = rank.astype(jnp.float32) + (0.0 if noise is None else noise)
    rank = jnp.where(jnp.arange(MAX_MOVES) < count, rank, -jnp.inf)
    order = jnp.argsort(-rank, stable=True)
    return Moves(actions[order], count)


def _over_value(state, plies_left: int) -> jax.Array:
    """int32 (): the score of a finished game for its side to move: mated, or a draw (0)."""
    mover_reward = state.rewards[state.current_player]  # −1 for the mated side, 0 on a draw
    lost = state.terminated & (mover_reward < 0)
    return jnp.where(lost, -(WIN + plies_left), 0).astype(jnp.int32)


def _leaf_value(state, evaluate=material) -> jax.Array:
    over = state.terminated | state.truncated
    return jnp.where(over, _over_value(state, 0), evaluate(state.position)).astype(jnp.int32)


def _chunk_values(env, state, moves: Moves, start: jax.Array, evaluate=material) -> jax.Array:
    """int32 (CHUNK,): −leaf value of the children in slots start…start+CHUNK, −INFINITY past
    the legal ones."""
    actions = jax.lax.dynamic_slice(moves.actions, (start,), (CHUNK,))
    children = jax.vmap(env.step, in_axes=(None, 0))(state, actions)
    values = -jax.vmap(lambda child: _leaf_value(child, evaluate))(children)
    return jnp.where(start + jnp.arange(CHUNK) < moves.count, values, -INFINITY)


def _last_ply(env, state, moves: Moves, beta, evaluate=material) -> jax.Array:
    """int32 (): the best child's score (fail-soft), chunk by chunk until one reaches `beta`."""

    def going(carry):
        start, best = carry
        return (start < moves.count) & (best < beta)

    def chunk(carry):
        start, best = carry
        values = _chunk_values(env, state, moves, start, evaluate)
        return start + CHUNK, jnp.maximum(best, values.max())

    _, best = jax.lax.while_loop(going, chunk, (jnp.int32(0), jnp.int32(-INFINITY)))
    return best


def _negamax(env, state, depth: int, alpha, beta, evaluate=material) -> jax.Array:
    """int32 (): the depth-`depth` score for the side to move (fail-soft alpha-beta): exact
    strictly inside (alpha, beta), otherwise a bound on the same side."""
    moves = ordered_moves(state)
    if depth == 1:
        best = _last_ply(env, state, moves, beta, evaluate)
    else:

        def going(carry):
            i, _, alpha = carry
            return (i < moves.count) & (alpha < beta)

        def visit(carry):
            i, best, alpha = carry
            child = env.step(state, moves.actions[i])
            score = -_negamax(env, child, depth - 1, -beta, -alpha, evaluate)
            return i + 1, jnp.maximum(best, score), jnp.maximum(alpha, score)

        start = (jnp.int32(0), jnp.int32(-INFINITY), jnp.asarray(alpha, jnp.int32))
        _, best, _ = jax.lax.while_loop(going, visit, start)
    over = state.terminated | state.truncated  # no legal move: the loops did not run
    return jnp.where(over, _over_value(state, depth), best).astype(jnp.int32)


class Choice(NamedTuple):
    action: jax.Array  # int32 ()  the move to play (0 when the game is over)
    value: jax.Array  # int32 ()  its exact minimax score for the side to move


def search(env, state, key: jax.Array, depth: int) -> Choice:
    """The first best move in the key's order of `state`'s moves, searched `depth` plies."""
    if not isinstance(depth, int) or depth < 1:
        raise ValueError(f"the search depth must be a positive int, got {depth!r}")
    moves = ordered_moves(state, jax.random.uniform(key, (MAX_MOVES,), maxval=0.5))
    if depth == 1:
        # Every child, chunk by chunk; the first slot with the best value in the key's order.
        def chunk(start, values):
            return jax.lax.dynamic_update_slice(
                values, _chunk_values(env, state, moves, start * CHUNK), (start * CHUNK,)
            )

        values = jax.lax.fori_loop(
            0, (moves.count + CHUNK - 1) // CHUNK, chunk, jnp.full(MAX_MOVES, -INFINITY)
        )
        pick = jnp.argmax(values)
        best = values[pick]
    else:

        def visit(i, carry):
            best, pick = carry
            child = env.step(state, moves.actions[i])
            # Window (best, ∞): a move is searched exactly only when it beats the best so far.
            score = -_negamax(env, child, depth - 1, jnp.int32(-INFINITY), -best)
            return jnp.where(score > best, score, best), jnp.where(score > best, i, pick)

        best, pick = jax.lax.fori_loop(0, moves.count, visit, (jnp.int32(-INFINITY), jnp.int32(0)))
    over = state.terminated | state.truncated
    action = jnp.where(over, 0, moves.actions[pick]).astype(jnp.int32)
    return Choice(action, jnp.where(over, _over_value(state, depth), best).astype(jnp.int32))


def move_values(env, state, depth: int, evaluate=material) -> jax.Array:
    """int32 (num_actions,): the exact `depth`-ply score of every legal move of `state` for the
    side to move (the score of the position after it, from the mover's view), −INFINITY for the
    illegal ones (every action once the game is over).

    What a student learns from (`jaxcheckers.training.distill`): every move of the best score,
    not only the one `search` plays. At depth 2 it costs about what `search` does, since a
    move's reply list is stepped in one or two chunks either way. `evaluate` scores the
    positions at the horizon (one of EVALUATIONS).
    """
    if not isinstance(depth, int) or depth < 1:
        raise ValueError(f"the search depth must be a positive int, got {depth!r}")
    moves = ordered_moves(state)
    open_window = (jnp.int32(-INFINITY), jnp.int32(INFINITY))

    def visit(i, values):
        child = env.step(state, moves.actions[i])
        if depth == 1:
            score = -_leaf_value(child, evaluate)
        else:
            score = -_negamax(env, child, depth - 1, *open_window, evaluate)
        return values.at[moves.actions[i]].set(score)

    count = jnp.where(state.terminated | state.truncated, 0, moves.count)
    return jax.lax.fori_loop(0, count, visit, jnp.full(env.num_actions, -INFINITY, jnp.int32))


def from_spec(argument: str, env):
    """`alphabeta[:DEPTH]` for a chess env: DEPTH plies."""
    return make_chess_alphabeta_agent(env, depth_argument("alphabeta", argument, DEFAULT_DEPTH))


def values_from_spec(argument: str, env):
    """`alphabeta[:DEPTH[:EVALUATION]]` as a teacher: `values(state) -> int32 (num_actions,)`,
    every legal move's DEPTH-ply score (`move_values`) under one of EVALUATIONS (default
    material, in pawns; positional is in centipawns), ±(WIN + plies) for mates."""
    depth_text, _, name = argument.partition(":")
    name = name or "material"
    if name not in EVALUATIONS:
        known = ", ".join(EVALUATIONS)
        raise ValueError(f"alphabeta evaluates with one of {known}, not {name!r}")
    depth = depth_argument("alphabeta", depth_text, DEFAULT_DEPTH)
    make_chess_alphabeta_agent(env, depth)  # the same checks of the env and the depth
    return lambda state: move_values(env, state, depth, EVALUATIONS[name])


def make_chess_alphabeta_agent(env, depth: int = DEFAULT_DEPTH):
    """act(state, key) -> int32 action: a best move at `depth` plies, ties broken by `key`."""
    if env.id != "chess":
        raise ValueError(f"the chess alpha-beta searches chess positions; {env} is not chess")
    if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= MAX_DEPTH:
        deep = isinstance(depth, int) and depth > MAX_DEPTH
        why = " (deeper searches take minutes a move)" if deep else ""
        limits = f"1 to {MAX_DEPTH} plies deep"
        raise ValueError(f"chess alpha-beta searches {limits}, got {depth!r}{why}")

    def act(state, key: jax.Array) -> jax.Array:
        return search(env, state, key, depth).action

    return game_by_game(act)
