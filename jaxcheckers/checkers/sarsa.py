"""The SARSA learner of the original project: a linear Q over 8 hand-made features, in JAX.

Q(s, a) = w · φ(s, s′) / scale, where s′ is the position after the whole move a. The features,
from the learner's side, as the original README lists them:

    0 own men in s            4 change in opponent men from s to s′ (≤ 0: men taken)
    1 own kings in s          5 change in opponent kings from s to s′
    2 opponent men in s       6 change in opponent pieces from s to s′
    3 opponent kings in s     7 own pieces under attack in s′: every piece of the learner that
                                some capture sequence of the opponent can take (a double jump
                                attacks two)

Reward of a move, from s to s″ (the learner's next turn, or the end of the game), on raw counts:
−0.4 × (own men in s − own men in s″) − 0.5 × (own kings …) + 0.2 × (opponent men …) + 0.3 ×
(opponent kings …), so a man crowned is −0.4 + 0.5 = +0.1; plus 500 for a win and −500 for a loss
in s′ or s″; and the living reward −0.1 when all of that sums to 0 (as the original's
`if reward == 0`, so an even trade also earns −0.1).

As in the original code: α = 0.01, γ = 0.1, ε = 0.5, weights from zero, and optionally its one
schedule, both α and ε halved every `halve_every` games (its `-r` option; its README run halved
them at 10,000 games); 0 keeps them fixed, its default.

Different on purpose (docs: README, "Agents"): the features are divided by the number of pieces
a side starts with (12 on 8×8) before they meet the weights (with raw counts α·|φ|² reaches 2.9
at the opening, past the 2 where a linear TD step overshoots); the updates of the games that made
one in a step are averaged (a sum over 256 games would be α × 256); greedy ties are broken at
random; a game cut by the draw rules earns no ±500 (the seed's code gives −500 to both sides of a
game cut at 200 moves, its README no such thing); feature 8 is the README's (the seed's code
measures it with the learner still to move, counting the pieces the learner attacks).

Whole moves and hop-level actions: the learner decides on whole moves (complete capture
sequences, every one of them: `alphabeta.first_hops` and `alphabeta.next_move`), returns the first
hop of its choice, and in the middle of a capture decides again among the sequences that go on
from there. Q is linear in φ, and φ measured from the middle of the turn differs from φ measured
from its start by the same amount for every continuation, so the greedy player finishes the
sequence it chose.

Weights save to and load from a JSON file; the trainer is `jaxcheckers.checkers.sarsa_trainer`.
"""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from jaxcheckers.agents.random import random_legal_action
from jaxcheckers.checkers import alphabeta as ab
from jaxcheckers.checkers import rules
from jaxcheckers.checkers.bitboard import Layout, layout
from jaxcheckers.checkers.rules import Position

FEATURE_NAMES = (
    "own men",
    "own kings",
    "opponent men",
    "opponent kings",
    "change in opponent men",
    "change in opponent kings",
    "change in opponent pieces",
    "own pieces under attack",
)
NUM_FEATURES = len(FEATURE_NAMES)
WIN_REWARD = 500.0
LIVING_REWARD = -0.1

__all__ = [
    "FEATURE_NAMES",
    "counts",
    "features",
    "reward",
    "attacked",
    "pieces_under_attack",
    "make_sarsa_agent",
    "load_sarsa_agent",
    "save_weights",
    "load_weights",
]


def _count(bits: jax.Array) -> jax.Array:
    return jax.lax.population_count(bits).astype(jnp.int32).sum()


def counts(position: Position) -> jax.Array:
    """float32 (4,): own men, own kings, opponent men, opponent kings, in the position's frame."""
    kings = position.kings
    return jnp.stack([
        _count(position.own & ~kings),
        _count(position.own & kings),
        _count(position.opponent & ~kings),
        _count(position.opponent & kings),
    ]).astype(jnp.float32)


def _swap(c: jax.Array) -> jax.Array:
    """The same counts seen from the other side."""
    return jnp.concatenate([c[..., 2:], c[..., :2]], axis=-1)


def attacked(position: Position, lay: Layout) -> jax.Array:
    """uint32 (W,): the pieces of the side NOT to move that some capture sequence can take.

    Every piece a sequence passes over is taken by the complete sequence too (a sequence must be
    finished), so the union over the complete capture moves is the answer.
    """
    jumps, _ = rules.origins(position, lay)
    cursor = ab.next_move(ab.capture_cursor(position, jnp.stack(jumps), lay), lay)

    def add(state):
        cursor, taken = state
        taken = taken | (position.opponent & ~cursor.move.opponent)
        return ab.next_move(cursor, lay), taken

    _, taken = jax.lax.while_loop(
        lambda state: state[0].found, add, (cursor, jnp.zeros_like(position.opponent))
    )
    return taken


def pieces_under_attack(position: Position, lay: Layout) -> jax.Array:
    """float32 (): how many pieces of the side not to move `attacked` finds."""
    return _count(attacked(position, lay)).astype(jnp.float32)


def features(start_counts: jax.Array, child: Position, lay: Layout) -> jax.Array:
    """float32 (8,): φ(s, s′) from the learner's counts of s and s′ in the OPPONENT's frame."""
    after = _swap(counts(child))
    change = after[2:] - start_counts[2:]
    return jnp.concatenate([
        start_counts,
        change,
        change.sum()[None],
        pieces_under_attack(child, lay)[None],
    ])


def reward(before: jax.Array, after: jax.Array, outcome: jax.Array) -> jax.Array:
    """float32 (): the learner's reward from counts `before` (s) to `after` (s″), own frame.

    `outcome` is +1 for a win, −1 for a loss (in s′ or s″), 0 otherwise.
    """
    lost = (before - after).astype(jnp.int32)  # own men, own kings, opponent men, opponent kings
    tenths = jnp.dot(lost, jnp.asarray([-4, -5, 2, 3], jnp.int32))  # exact: no float compare
    total = 0.1 * tenths.astype(jnp.float32) + WIN_REWARD * jnp.asarray(outcome, jnp.float32)
    nothing = (tenths == 0) & (jnp.asarray(outcome) == 0)
    return jnp.where(nothing, LIVING_REWARD, total).astype(jnp.float32)


def _scale(n: int) -> float:
    return float((n // 2 - 1) * (n // 2))  # pieces a side starts with


class Choice(NamedTuple):
    action: jax.Array  # int32 ()  the first hop of the chosen move (0 when there is none)
    phi: jax.Array  # float32 (8,)  φ of the chosen complete move
    found: jax.Array  # bool ()  there was a move


def choose_move(weights, position, jumper, start_counts, epsilon, key, lay: Layout) -> Choice:
    """ε-greedy over every complete move: with probability ε uniform, else the best Q, ties at
    random. Moves that end with their first hop are scored at once; longer capture sequences are
    walked one by one (`alphabeta.next_move`)."""
    hops = ab.first_hops(position, jumper, lay)
    coin_key, noise_key = jax.random.split(key)
    explore = jax.random.uniform(coin_key) < epsilon
    scale = _scale(lay.n)

    def feats(move):
        return features(start_counts, rules.flip_position(move, lay), lay)

    def rank(phi, noise):  # (primary, tie-break) keys: exploring, every move ties
        return jnp.where(explore, 0.0, phi @ weights / scale), noise

    slots = hops.valid.shape[0]
    done = hops.valid & ~hops.going
    phi = jax.vmap(feats)(hops.positions)
    primary, noise = rank(phi, jax.random.uniform(noise_key, (slots,)))
    primary = jnp.where(done, primary, -jnp.inf)
    top = primary.max()
    pick = jnp.argmax(jnp.where(done & (primary == top), noise, -1.0))
    start = (top, noise[pick], hops.actions[pick], phi[pick], jnp.int32(slots))

    def visit(carry, slot, move):
        best, tie, action, best_phi, index = carry
        phi = feats(move)
        p, u = rank(phi, jax.random.uniform(jax.random.fold_in(noise_key, index)))
        better = (p > best) | ((p == best) & (u > tie))
        return (
            jnp.where(better, p, best),
            jnp.where(better, u, tie),
            jnp.where(better, hops.actions[slot], action),
            jnp.where(better, phi, best_phi),
            index + 1,
        )

    going = ab._stable_order(~hops.going)
    count = hops.going.sum(dtype=jnp.int32)
    _, _, action, phi, _ = ab._visit_moves(hops, going, count, start, visit, ab._always, lay)
    found = hops.valid.any()
    return Choice(jnp.where(found, action, 0).astype(jnp.int32), phi, found)


def make_sarsa_agent(weights, env, epsilon: float = 0.0):
    """act(state, key) -> int32 action: the greedy (or ε-greedy) whole move's next hop."""
    lay = layout(env.board_size)
    weights = jnp.asarray(weights, jnp.float32)

    def act(state, key):
        start = counts(state.position)
        choice = choose_move(weights, state.position, state.jumper, start, epsilon, key, lay)
        fallback = random_legal_action(key, state.legal_action_mask)
        return jnp.where(choice.found, choice.action, fallback).astype(jnp.int32)

    return act


# -- weights on disk --------------------------------------------------------------------------


def save_weights(path, weights, *, board_size: int, config: Any = None, **info):
    """Writes the weights, with the trainer's `config` (a dataclass) and `info`, as JSON."""
    record = {
        "format": "jaxcheckers-sarsa-2",
        "board_size": board_size,
        "features": list(FEATURE_NAMES),
        "feature_scale": _scale(board_size),
        "weights": [float(w) for w in weights],
        "config": dataclasses.asdict(config) if config else None,
        **info,
    }
    Path(path).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")


def load_weights(path) -> tuple[jax.Array, dict]:
    try:
        record = json.loads(Path(path).read_text(encoding="utf-8"))
        weights = jnp.asarray(record["weights"], jnp.float32)
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"cannot read SARSA weights from {path}: {error}") from None
    if weights.shape != (NUM_FEATURES,):
        raise ValueError(f"{path}: expected {NUM_FEATURES} weights, got {weights.shape}")
    if not bool(jnp.isfinite(weights).all()):
        raise ValueError(f"{path}: the weights must be finite numbers, got {record['weights']}")
    scale = record.get("feature_scale", 1.0)
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not 0 < scale < math.inf:
        raise ValueError(f"{path}: feature_scale must be a positive number, got {scale!r}")
    return weights, record


def from_spec(argument: str, env):
    """`sarsa:PATH` for a checkers env: the weights in the JSON file at PATH."""
    if not argument:
        raise ValueError("sarsa needs the path of its weights: sarsa:PATH")
    return load_sarsa_agent(argument, env)


def load_sarsa_agent(path, env):
    weights, record = load_weights(path)
    if record.get("board_size", env.board_size) != env.board_size:
        raise ValueError(f"{path} was trained on {record['board_size']}×{record['board_size']}")
    return make_sarsa_agent(weights, env)
