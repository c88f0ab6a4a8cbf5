"""The SARSA learner of the original project: a linear Q over 8 hand-made features, in JAX.

Q(s, a) = w · φ(s, s′) / scale, where s′ is the position after the whole move a. The features,
from the learner's side:

    0 own men in s            4 change in opponent men from s to s′ (≤ 0: men taken)
    1 own kings in s          5 change in opponent kings from s to s′
    2 opponent men in s       6 change in all pieces on the board from s to s′
    3 opponent kings in s     7 own pieces under attack in s′ (the opponent can jump them)

Reward of a move, measured from s to s″ (the learner's next turn, or the end of the game):
−0.4 per own man lost, −0.5 per own king lost, +0.2 per opponent man taken, +0.3 per opponent
king taken, +500 for a win, −500 for a loss, and −0.1 when none of that happened. A king lost is
counted from the fall in kings; the rest of the pieces lost are men (a man crowned is not lost).

Defaults as in the original: α = 0.01, γ = 0.1, ε = 0.5 decaying by `epsilon_decay` per game
played by each environment slot. One change for stability: the features are divided by the
number of pieces a side starts with (12 on 8×8) before they meet the weights; with raw counts
and α = 0.01 the step α·|φ|² exceeds 2 and the weights diverge.

Whole moves and hop-level actions: the learner decides on whole moves (complete capture
sequences, `alphabeta.complete_moves`), returns the first hop of its choice, and in the middle
of a capture decides again among the sequences that go on from there. Q is linear in φ, and φ
measured from the middle of the turn differs from φ measured from its start by the same amount for
every continuation, so the greedy player finishes the sequence it chose.

Training (`train`) runs many games at once against a chosen opponent, the learner's seat
alternating game by game, in one jitted `lax.scan` over environment steps; each step averages the
SARSA updates of the games that produced one. Weights save to and load from a JSON file.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxcheckers.agents.alphabeta import complete_moves, default_capacity
from jaxcheckers.agents.random import random_legal_action
from jaxcheckers.checkers import rules
from jaxcheckers.core import step_autoreset

FEATURE_NAMES = (
    "own men",
    "own kings",
    "opponent men",
    "opponent kings",
    "change in opponent men",
    "change in opponent kings",
    "change in all pieces",
    "own pieces under attack",
)
NUM_FEATURES = len(FEATURE_NAMES)
WIN_REWARD = 500.0

__all__ = [
    "SarsaConfig",
    "FEATURE_NAMES",
    "counts",
    "features",
    "reward",
    "pieces_under_attack",
    "make_sarsa_agent",
    "load_sarsa_agent",
    "save_weights",
    "load_weights",
    "train",
]


@dataclasses.dataclass(frozen=True)
class SarsaConfig:
    alpha: float = 0.01
    gamma: float = 0.1
    epsilon: float = 0.5
    epsilon_decay: float = 0.99  # per game, per environment slot
    epsilon_min: float = 0.01
    num_envs: int = 256
    num_steps: int = 2000  # environment steps (hops) of every slot


def counts(board: jax.Array) -> jax.Array:
    """float32 (4,): own men, own kings, opponent men, opponent kings of a board in own frame."""
    values = (rules.MAN, rules.KING, -rules.MAN, -rules.KING)
    return jnp.stack([(board == v).sum() for v in values]).astype(jnp.float32)


def pieces_under_attack(board_opponent_frame: jax.Array, n: int) -> jax.Array:
    """float32 (): pieces of the side NOT to move that the side to move can jump right away."""
    jumps = rules.moves(board_opponent_frame, n).jumps  # (4, n·n), starting squares
    squares = jnp.arange(n * n)
    attacked = jnp.zeros(n * n, bool)
    for direction, (dr, dc) in enumerate(rules.DIRECTIONS):
        # A jump from square q in this direction takes the piece on q + dr·n + dc.
        target = squares + dr * n + dc
        hit = (squares[None, :] == target[:, None]) & jumps[direction][:, None]
        attacked |= hit.any(axis=0)
    return attacked.sum().astype(jnp.float32)


def features(start_counts: jax.Array, after_board: jax.Array, n: int) -> jax.Array:
    """float32 (8,): φ(s, s′) from the counts of s and the board s′ in the OPPONENT's frame."""
    after = counts(rules.flip(after_board))
    change_opponent = after[2:] - start_counts[2:]
    change_all = after.sum() - start_counts.sum()
    return jnp.concatenate(
        [
            start_counts,
            change_opponent,
            change_all[None],
            pieces_under_attack(after_board, n)[None],
        ]
    )


def reward(before: jax.Array, after: jax.Array, outcome: jax.Array, over: jax.Array) -> jax.Array:
    """float32 (): the learner's reward from counts `before` (s) to `after` (s″).

    `outcome` is +1 win, −1 loss, 0 otherwise; `over` says the game ended at s″.
    """
    own_lost = before[:2].sum() - after[:2].sum()
    own_kings_lost = jnp.maximum(before[1] - after[1], 0.0)
    own_men_lost = jnp.maximum(own_lost - own_kings_lost, 0.0)
    taken = before[2:].sum() - after[2:].sum()
    kings_taken = jnp.maximum(before[3] - after[3], 0.0)
    men_taken = jnp.maximum(taken - kings_taken, 0.0)
    material = -0.4 * own_men_lost - 0.5 * own_kings_lost + 0.2 * men_taken + 0.3 * kings_taken
    nothing = (own_lost == 0) & (taken == 0) & ~over
    return jnp.where(nothing, -0.1, material + WIN_REWARD * outcome).astype(jnp.float32)


def _scale(n: int) -> float:
    return float((n // 2 - 1) * (n // 2))  # pieces a side starts with


def _move_values(weights, board, jumper, start_counts, n: int, capacity: int):
    """(Q of every complete move (C,), first hops (C,), valid (C,), φ (C, 8))."""
    children = complete_moves(board, jumper, n, capacity)
    phi = jax.vmap(features, in_axes=(None, 0, None))(start_counts, children.boards, n)
    q = phi @ weights / _scale(n)
    return q, children.first_actions, children.valid, phi


def _epsilon_greedy(key, q, valid, epsilon):
    explore_key, tie_key = jax.random.split(key)
    best = jnp.where(valid, q, -jnp.inf).max()
    greedy = valid & (q == best)
    candidates = jnp.where(jax.random.uniform(explore_key) < epsilon, valid, greedy)
    noise = jax.random.uniform(tie_key, q.shape)
    return jnp.argmax(jnp.where(candidates, noise, -1.0))


def make_sarsa_agent(weights, env, epsilon: float = 0.0):
    """act(state, key) -> int32 action: the greedy (or ε-greedy) whole move's next hop."""
    n = env.board_size
    capacity = default_capacity(n)
    weights = jnp.asarray(weights, jnp.float32)

    def act(state, key):
        start = counts(state.board)
        q, first, valid, _ = _move_values(weights, state.board, state.jumper, start, n, capacity)
        pick = _epsilon_greedy(key, q, valid, epsilon)
        fallback = random_legal_action(key, state.legal_action_mask)
        return jnp.where(valid.any(), first[pick], fallback).astype(jnp.int32)

    return act


# -- weights on disk --------------------------------------------------------------------------


def save_weights(path, weights, *, board_size: int, config: SarsaConfig | None = None, **info):
    record = {
        "format": "jaxcheckers-sarsa-1",
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
    return weights, record


def load_sarsa_agent(path, env):
    weights, record = load_weights(path)
    if record.get("board_size", env.board_size) != env.board_size:
        raise ValueError(f"{path} was trained on {record['board_size']}×{record['board_size']}")
    return make_sarsa_agent(weights, env)


# -- training -----------------------------------------------------------------------------------


class TrainCarry(NamedTuple):
    state: object  # batched env state
    key: jax.Array
    weights: jax.Array  # float32 (8,)
    learner: jax.Array  # int32 (B,)  the learner's seat in each game
    start_counts: jax.Array  # float32 (B, 4)  counts of s at the learner's current turn
    prev_counts: jax.Array  # float32 (B, 4)  counts of s at the learner's previous turn
    prev_phi: jax.Array  # float32 (B, 8)  φ of the learner's previous move
    has_prev: jax.Array  # bool (B,)  a previous move waits for its update
    games: jax.Array  # int32 (B,)  games finished by each slot (for ε decay)
    results: jax.Array  # float32 (3,)  learner wins, draws, losses so far


def train(env, opponent, config: SarsaConfig, key: jax.Array, weights=None):
    """Trains against `opponent` (an agent). Returns (weights, results (wins, draws, losses))."""
    n = env.board_size
    capacity = default_capacity(n)
    scale = _scale(n)
    num_envs = config.num_envs

    def one_step(carry: TrainCarry, _):
        key, act_key, opp_key, reset_key = jax.random.split(carry.key, 4)
        state = carry.state
        to_move = state.current_player == carry.learner
        turn_start = to_move & (state.jumper < 0)
        start_counts = jnp.where(
            turn_start[:, None], jax.vmap(counts)(state.board), carry.start_counts
        )
        epsilon = jnp.maximum(
            config.epsilon * config.epsilon_decay ** carry.games.astype(jnp.float32),
            config.epsilon_min,
        )

        def learner_action(st, start, eps, k):
            q, first, valid, _ = _move_values(
                carry.weights, st.board, st.jumper, start, n, capacity
            )
            pick = _epsilon_greedy(k, q, valid, eps)
            return jnp.where(valid.any(), first[pick], 0).astype(jnp.int32)

        own = jax.vmap(learner_action)(
            state, start_counts, epsilon, jax.random.split(act_key, num_envs)
        )
        other = jax.vmap(opponent)(state, jax.random.split(opp_key, num_envs))
        action = jnp.where(to_move, own, other)
        stepped = jax.vmap(lambda s, a, k: step_autoreset(env, s, a, k))(
            state, action, jax.random.split(reset_key, num_envs)
        )
        final = stepped.final
        over = final.terminated | final.truncated
        # Boards after the step, in the learner's frame.
        learner_board = jnp.where(
            (final.current_player == carry.learner)[:, None],
            final.board,
            jax.vmap(rules.flip)(final.board),
        )
        after_counts = jax.vmap(counts)(learner_board)
        outcome = jnp.take_along_axis(final.rewards, carry.learner[:, None], axis=1)[:, 0]
        outcome = jnp.where(final.truncated, 0.0, outcome)

        turn_end = to_move & ((final.jumper < 0) | over)
        opponent_board = jax.vmap(rules.flip)(learner_board)
        phi_now = jax.vmap(features, in_axes=(0, 0, None))(start_counts, opponent_board, n)
        w = carry.weights

        def q(phi):
            return phi @ w / scale

        # 1. The learner finished a move: the previous move gets its SARSA update (s″ = now's s).
        live = jnp.zeros(num_envs, bool)
        r_prev = jax.vmap(reward)(carry.prev_counts, start_counts, jnp.zeros(num_envs), live)
        delta_prev = r_prev + config.gamma * q(phi_now) - q(carry.prev_phi)
        update_prev = turn_end & carry.has_prev
        # 2. The game ended on the learner's move: that move's terminal update.
        r_end = jax.vmap(reward)(start_counts, after_counts, outcome, over)
        delta_end = r_end - q(phi_now)
        update_end = turn_end & over
        # 3. The game ended on the opponent's move: the learner's last move's terminal update.
        r_lost = jax.vmap(reward)(carry.prev_counts, after_counts, outcome, over)
        delta_lost = r_lost - q(carry.prev_phi)
        update_lost = ~to_move & over & carry.has_prev

        gradient = (
            (update_prev * delta_prev)[:, None] * carry.prev_phi
            + (update_end * delta_end)[:, None] * phi_now
            + (update_lost * delta_lost)[:, None] * carry.prev_phi
        ).sum(axis=0) / scale
        updates = (update_prev.astype(jnp.float32) + update_end + update_lost).sum()
        weights = w + config.alpha * gradient / jnp.maximum(updates, 1.0)

        made_move = turn_end & ~over
        results = carry.results + jnp.stack(
            [
                ((outcome > 0) & over).sum(),
                ((outcome == 0) & over).sum(),
                ((outcome < 0) & over).sum(),
            ]
        ).astype(jnp.float32)
        new_carry = TrainCarry(
            state=stepped.state,
            key=key,
            weights=weights,
            learner=jnp.where(over, 1 - carry.learner, carry.learner),
            start_counts=start_counts,
            prev_counts=jnp.where(made_move[:, None], start_counts, carry.prev_counts),
            prev_phi=jnp.where(made_move[:, None], phi_now, carry.prev_phi),
            has_prev=jnp.where(over, False, carry.has_prev | made_move),
            games=carry.games + over,
            results=results,
        )
        return new_carry, None

    init_key, key = jax.random.split(key)
    state = jax.vmap(env.reset)(jax.random.split(init_key, num_envs))
    carry = TrainCarry(
        state=state,
        key=key,
        weights=jnp.zeros(NUM_FEATURES, jnp.float32) if weights is None else jnp.asarray(weights),
        learner=jnp.arange(num_envs, dtype=jnp.int32) % 2,
        start_counts=jnp.zeros((num_envs, 4), jnp.float32),
        prev_counts=jnp.zeros((num_envs, 4), jnp.float32),
        prev_phi=jnp.zeros((num_envs, NUM_FEATURES), jnp.float32),
        has_prev=jnp.zeros(num_envs, bool),
        games=jnp.zeros(num_envs, jnp.int32),
        results=jnp.zeros(3, jnp.float32),
    )
    final, _ = jax.jit(lambda c: jax.lax.scan(one_step, c, None, length=config.num_steps))(carry)
    return final.weights, final.results


def main(argv: list[str] | None = None) -> int:
    """python -m jaxcheckers.agents.sarsa --opponent random --out sarsa.json"""
    import argparse
    import time

    from jaxcheckers import make
    from jaxcheckers.agents import make_agent

    parser = argparse.ArgumentParser(description="train the linear SARSA player")
    parser.add_argument("--opponent", default="random", help="agent spec to train against")
    parser.add_argument("--out", required=True, help="JSON file for the weights")
    parser.add_argument("--init", help="start from the weights in this JSON file")
    parser.add_argument("--board-size", type=int, default=8)
    parser.add_argument("--envs", type=int, default=SarsaConfig.num_envs)
    parser.add_argument("--steps", type=int, default=SarsaConfig.num_steps)
    parser.add_argument("--epsilon", type=float, default=SarsaConfig.epsilon)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    env = make("checkers", board_size=args.board_size)
    config = SarsaConfig(num_envs=args.envs, num_steps=args.steps, epsilon=args.epsilon)
    weights = load_weights(args.init)[0] if args.init else None
    start = time.perf_counter()
    weights, results = train(
        env, make_agent(args.opponent, env), config, jax.random.key(args.seed), weights
    )
    wins, draws, losses = (int(x) for x in results)
    seconds = time.perf_counter() - start
    save_weights(
        args.out,
        weights,
        board_size=args.board_size,
        config=config,
        opponent=args.opponent,
        training_games={"wins": wins, "draws": draws, "losses": losses},
        seconds=round(seconds, 1),
    )
    print(f"{wins + draws + losses} games against {args.opponent}: {wins} won, {draws} drawn, "
          f"{losses} lost (exploring); {seconds:.0f} s; weights in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
