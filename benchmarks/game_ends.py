"""How a checkers match's games end: the material each result leaves on the board.

    python -m benchmarks.game_ends ppo:pretrained alphabeta:3 [--games 100] [--opening-plies 2]

Plays the match as `jaxcheckers arena` does (both seats, random opening turns), records every
game, replays each to its last position and counts the material there (men 1, kings 2). Prints,
for A's wins, draws and losses, how many there were, A's mean material lead at the end and the
mean length in env steps: whether draws are won positions left unfinished (a lead) or even
games.
"""

from __future__ import annotations

import argparse

import jax
import jax.numpy as jnp
import numpy as np

import jaxcheckers
from benchmarks.common import agent_or_exit
from jaxcheckers.argtypes import games_count, non_negative_int, seed
from jaxcheckers.checkers.alphabeta import material
from jaxcheckers.core import tree_where
from jaxcheckers.match import play_match


def final_states(env, match):
    """The last state of every recorded game of `match`, batched."""

    def replay(reset_key, actions, length):
        def one_step(state, indexed):
            t, action = indexed
            return tree_where(t < length, env.step(state, action), state), None

        state = env.reset(jax.random.wrap_key_data(reset_key))
        steps = (jnp.arange(actions.shape[0]), actions)
        return jax.lax.scan(one_step, state, steps)[0]

    return jax.jit(jax.vmap(replay))(match.reset_keys, match.actions, match.length)


def material_lead_of_a(states, a_plays_first) -> np.ndarray:
    """A's material minus B's in each state, as alpha-beta counts it (from the mover's side)."""
    mover_lead = jax.vmap(material)(states.position)
    a_to_move = (states.current_player == 0) == jnp.asarray(a_plays_first)
    return np.asarray(jnp.where(a_to_move, mover_lead, -mover_lead))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("agent_a")
    parser.add_argument("agent_b")
    parser.add_argument("--games", type=games_count, default=100)
    parser.add_argument("--opening-plies", type=non_negative_int, default=2)
    parser.add_argument("--seed", type=seed, default=0)
    args = parser.parse_args(argv)
    env = jaxcheckers.make("checkers")
    agents = [agent_or_exit(parser, spec, env) for spec in (args.agent_a, args.agent_b)]
    match = play_match(
        env,
        *agents,
        args.games,
        jax.random.key(args.seed),
        opening_plies=args.opening_plies,
        record=True,
    )
    lead = material_lead_of_a(final_states(env, match), match.a_plays_first)
    print(f"{args.agent_a} vs {args.agent_b}: {args.games} games, score {match.a_score.mean():.3f}")
    for name, score in (("wins", 1.0), ("draws", 0.5), ("losses", 0.0)):
        ended = match.a_score == score
        if ended.any():
            print(
                f"  {name:6} {ended.sum():4d}  A's material lead at the end"
                f" {lead[ended].mean():+.2f}  length {match.length[ended].mean():.1f} steps"
            )


if __name__ == "__main__":
    main()
