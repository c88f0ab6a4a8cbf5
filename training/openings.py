"""How training games open: from one of the game's set openings (checkers' three-move ballots,
`GameSpec.openings`) and then uniformly random turns, so that the learner meets the positions a
match's openings lead to, not only those its own play steers to (a greedy policy trained from the
initial position alone plays its best games there; training/README.md has the measurements).
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp

from jaxcheckers.agents.random import random_agent
from jaxcheckers.core import tree_where
from jaxcheckers.games import OpeningDeck, opening_deck

__all__ = ["random_opening_reset", "deck_reset", "training_reset"]


def training_reset(env, game: str, deck_name: str, turns: int) -> Callable[[jax.Array], object]:
    """`reset(key)` for the training games of `env` (the game called `game`): from an opening of
    the deck `deck_name` ("" for none) drawn uniformly, then 0..`turns` random turns. ValueError,
    one line, for a deck the game lacks."""
    if not deck_name:
        return random_opening_reset(env, turns)
    try:
        deck = opening_deck(game, deck_name)(env)
    except ValueError as error:
        raise ValueError(f"openings {deck_name!r}: {error}") from None
    return random_opening_reset(env, turns, start=deck_reset(env, deck))


def deck_reset(env, deck: OpeningDeck) -> Callable[[jax.Array], object]:
    """`reset(key)` for `env` that plays one of the deck's openings, drawn uniformly, from the
    initial state."""
    openings = jnp.asarray(deck.actions, jnp.int32)

    def reset(key: jax.Array):
        start_key, pick_key = jax.random.split(key)
        actions = openings[jax.random.randint(pick_key, (), 0, openings.shape[0])]

        def play(state, action):  # -1 pads the shorter openings
            return tree_where(action >= 0, env.step(state, jnp.maximum(action, 0)), state), None

        return jax.lax.scan(play, env.reset(start_key), actions)[0]

    return reset


def random_opening_reset(env, turns: int, start=None) -> Callable[[jax.Array], object]:
    """`reset(key)` for `env` that opens each game with uniformly random legal moves for a number
    of whole turns (every hop of a multi-jump) drawn uniformly from 0..`turns`, from the state
    `start(key)` (default: `env.reset`). Those moves are part of no trajectory; a game they end
    starts again from the state before them."""
    start_state = env.reset if start is None else start
    if turns == 0:
        return start_state

    def reset(key: jax.Array):
        start_key, count_key, play_key = jax.random.split(key, 3)
        start = start_state(start_key)
        wanted = jax.random.randint(count_key, (), 0, turns + 1, dtype=jnp.int32)

        def going(carry):
            state, done, _ = carry
            return (done < wanted) & ~(state.terminated | state.truncated)

        def random_move(carry):
            state, done, key = carry
            key, move_key = jax.random.split(key)
            after = env.step(state, random_agent(state, move_key))
            return after, done + (after.current_player != state.current_player), key

        opened, _, _ = jax.lax.while_loop(going, random_move, (start, jnp.int32(0), play_key))
        return tree_where(opened.terminated | opened.truncated, start, opened)

    return reset
