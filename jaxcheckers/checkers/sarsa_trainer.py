"""The trainer of checkers' linear SARSA player (`jaxcheckers.checkers.sarsa`, where it acts):
a learner of this game's features only, so it lives in the game's folder (pure JAX, no training
extra).

    python -m jaxcheckers.checkers.sarsa_trainer --opponent random --out sarsa.json

`train` runs many games at once against a chosen opponent, the learner's seat alternating game by
game, in one jitted `lax.scan` over environment steps; each step averages the SARSA updates of the
games that produced one. As in the original code: α = 0.01, γ = 0.1, ε = 0.5, weights from zero,
and optionally its one schedule, α and ε halved every `halve_every` games.
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxcheckers import make
from jaxcheckers.agents import make_agent
from jaxcheckers.checkers.bitboard import layout
from jaxcheckers.checkers.sarsa import (
    NUM_FEATURES,
    _scale,
    _swap,
    choose_move,
    counts,
    load_weights,
    reward,
    save_weights,
)
from jaxcheckers.core import step_autoreset

__all__ = ["SarsaConfig", "train", "main"]


@dataclasses.dataclass(frozen=True)
class SarsaConfig:
    alpha: float = 0.01
    gamma: float = 0.1
    epsilon: float = 0.5
    halve_every: int = 0  # games (all slots together) between halvings of α and ε; 0: never
    num_envs: int = 256
    num_steps: int = 2000  # environment steps (hops) of every slot


# -- the trainer -----------------------------------------------------------------------------------


class TrainCarry(NamedTuple):
    state: object  # batched env state
    key: jax.Array
    weights: jax.Array  # float32 (8,)
    learner: jax.Array  # int32 (B,)  the learner's seat in each game
    start_counts: jax.Array  # float32 (B, 4)  counts of s at the learner's current turn
    prev_counts: jax.Array  # float32 (B, 4)  counts of s at the learner's previous turn
    prev_phi: jax.Array  # float32 (B, 8)  φ of the learner's previous move
    has_prev: jax.Array  # bool (B,)  a previous move waits for its update
    games: jax.Array  # int32 ()  games finished by all slots (for the halving schedule)
    results: jax.Array  # float32 (3,)  learner wins, draws, losses so far


def _learner_counts(state, learner) -> jax.Array:
    """float32 (B, 4): counts of every game's position in the learner's frame."""
    c = jax.vmap(counts)(state.position)
    return jnp.where((state.current_player == learner)[:, None], c, _swap(c))


def train(env, opponent, config: SarsaConfig, key: jax.Array, weights=None):
    """Trains against `opponent` (an agent). Returns (weights, results (wins, draws, losses))."""
    lay = layout(env.board_size)
    scale = _scale(env.board_size)
    num_envs = config.num_envs

    def one_step(carry: TrainCarry, _):
        key, act_key, opp_key, reset_key = jax.random.split(carry.key, 4)
        state = carry.state
        to_move = state.current_player == carry.learner
        turn_start = to_move & (state.jumper < 0)
        start_counts = jnp.where(
            turn_start[:, None], _learner_counts(state, carry.learner), carry.start_counts
        )
        halvings = (carry.games // config.halve_every) if config.halve_every > 0 else 0
        factor = 0.5 ** jnp.asarray(halvings, jnp.float32)
        epsilon, alpha = config.epsilon * factor, config.alpha * factor
        w = carry.weights

        def learner_choice(st, start, k):
            return choose_move(w, st.position, st.jumper, start, epsilon, k, lay)

        choice = jax.vmap(learner_choice)(state, start_counts, jax.random.split(act_key, num_envs))
        other = jax.vmap(opponent)(state, jax.random.split(opp_key, num_envs))
        action = jnp.where(to_move, choice.action, other)
        stepped = jax.vmap(lambda s, a, k: step_autoreset(env, s, a, k))(
            state, action, jax.random.split(reset_key, num_envs)
        )
        final = stepped.final
        over = final.terminated | final.truncated
        after_counts = _learner_counts(final, carry.learner)
        outcome = jnp.take_along_axis(final.rewards, carry.learner[:, None], axis=1)[:, 0]
        outcome = jnp.where(final.truncated, 0.0, jnp.sign(outcome))

        turn_end = to_move & ((final.jumper < 0) | over)
        phi_now = choice.phi  # the last decision of a turn scores exactly the move it made

        def q(phi):
            return phi @ w / scale

        # 1. The learner finished a move: the previous move gets its SARSA update (s″ = now's s).
        r_prev = jax.vmap(reward)(carry.prev_counts, start_counts, jnp.zeros(num_envs))
        delta_prev = r_prev + config.gamma * q(phi_now) - q(carry.prev_phi)
        update_prev = turn_end & carry.has_prev
        # 2. The game ended on the learner's move (in s′): that move's terminal update.
        r_end = jax.vmap(reward)(start_counts, after_counts, outcome)
        delta_end = r_end - q(phi_now)
        update_end = turn_end & over
        # 3. The game ended on the opponent's move (in s″): the learner's last move's update.
        r_lost = jax.vmap(reward)(carry.prev_counts, after_counts, outcome)
        delta_lost = r_lost - q(carry.prev_phi)
        update_lost = ~to_move & over & carry.has_prev

        gradient = (
            (update_prev * delta_prev)[:, None] * carry.prev_phi
            + (update_end * delta_end)[:, None] * phi_now
            + (update_lost * delta_lost)[:, None] * carry.prev_phi
        ).sum(axis=0) / scale
        updates = (update_prev.astype(jnp.float32) + update_end + update_lost).sum()
        weights = w + alpha * gradient / jnp.maximum(updates, 1.0)

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
            games=carry.games + over.sum(dtype=jnp.int32),
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
        games=jnp.int32(0),
        results=jnp.zeros(3, jnp.float32),
    )
    final, _ = jax.jit(lambda c: jax.lax.scan(one_step, c, None, length=config.num_steps))(carry)
    return final.weights, final.results


def main(argv: list[str] | None = None) -> int:
    """python -m jaxcheckers.checkers.sarsa_trainer --opponent random --out sarsa.json"""
    parser = argparse.ArgumentParser(description="train the linear SARSA player")
    parser.add_argument("--opponent", default="random", help="agent spec to train against")
    parser.add_argument("--out", required=True, help="JSON file for the weights")
    parser.add_argument("--init", help="start from the weights in this JSON file")
    parser.add_argument("--board-size", type=int, default=8)
    parser.add_argument("--envs", type=int, default=SarsaConfig.num_envs)
    parser.add_argument("--steps", type=int, default=SarsaConfig.num_steps)
    parser.add_argument("--epsilon", type=float, default=SarsaConfig.epsilon)
    parser.add_argument(
        "--halve-every", type=int, default=SarsaConfig.halve_every,
        help="halve α and ε every this many games, as the original's -r (0: never)",
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    env = make("checkers", board_size=args.board_size)
    config = SarsaConfig(
        num_envs=args.envs, num_steps=args.steps, epsilon=args.epsilon,
        halve_every=args.halve_every,
    )
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
        init=args.init,
        training_games={"wins": wins, "draws": draws, "losses": losses},
        seconds=round(seconds, 1),
    )
    print(f"{wins + draws + losses} games against {args.opponent}: {wins} won, {draws} drawn, "
          f"{losses} lost (exploring); {seconds:.0f} s; weights in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
