"""Playing many games at once between two agents: the match engine of the project.

    match = play_match(env, agent_a, agent_b, 1000, jax.random.key(0))
    summary = ratings.summarize(match.a_score)

The one match runner, for every game: the `arena` and `ladder` commands, the trainer's
evaluations and the benchmarks all play through `play_games`. Game i puts agent A in seat 0
(moves first) when i is even and in seat 1 when it is odd. The first `opening_plies` turns of
every game are random legal moves, so deterministic agents meet in many different positions; a
turn is a player's whole move (a capture sequence of several hops is one turn). Or games open
from a game's opening deck (`GameSpec.openings`): games 2k and 2k + 1 play the same opening
with the seats swapped, the openings taken in an order shuffled by the seed, so that
2 × (deck size) games play every opening with both colours. All games of a match run together,
batched, in one compiled `lax.while_loop` that stops when the last game ends. A game cut at the
step limit is a draw; scores, intervals and Elo are `jaxcheckers.ratings`'.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxcheckers import records
from jaxcheckers.agents import act_where
from jaxcheckers.agents.random import random_agent
from jaxcheckers.core import per_rules
from jaxcheckers.games import OpeningDeck
from jaxcheckers.games import spec as game_spec
from jaxcheckers.ratings import Summary, summarize

UNLIMITED_GAME_CAP = 10_000  # env steps, for an env that never truncates: a draw at the cap

__all__ = [
    "UNLIMITED_GAME_CAP",
    "Outcome",
    "Match",
    "play_games",
    "play_match",
    "match_batches",
    "deck_order",
    "replay_start",
    "PairMatch",
    "scheduled_pairs",
    "round_robin",
    "match_games",
    "each_game",
]


class Outcome(NamedTuple):
    """What `play_games` returns for a batch of G games (jax arrays)."""

    a_score: jax.Array  # float32 (G,)  1 win, 0.5 draw (or cut), 0 loss for A
    rewards: jax.Array  # float32 (G, 2)  rewards of the step that ended each game, by player
    truncated: jax.Array  # bool (G,)  cut at the step limit (or at UNLIMITED_GAME_CAP)
    length: jax.Array  # int32 (G,)  env steps played
    actions: jax.Array  # int32 (G, T)  the actions played (T = 0 unless recorded)


class Match(NamedTuple):
    """The games of one match, A against B (numpy arrays on the host)."""

    a_plays_first: np.ndarray  # bool (G,)  A was player 0
    a_score: np.ndarray  # float32 (G,)
    rewards: np.ndarray  # float32 (G, 2)
    truncated: np.ndarray  # bool (G,)
    length: np.ndarray  # int32 (G,)  env steps played
    actions: np.ndarray  # int32 (G, T)  the actions played, T = 0 unless recorded
    reset_keys: np.ndarray  # (G,) the key each game was reset with (to replay it)
    opening: np.ndarray  # int32 (G,)  the deck's opening each game began with; -1 without a deck


class _Carry(NamedTuple):
    state: object  # batched game state
    key: jax.Array
    t: jax.Array  # int32 ()  env steps taken by the longest game
    turns: jax.Array  # int32 (G,)  whole turns completed per game
    length: jax.Array  # int32 (G,)
    final_rewards: jax.Array  # float32 (G, 2)
    actions: jax.Array  # int32 (G, T)


def play_games(
    env,
    agent_a,
    agent_b,
    key: jax.Array,
    a_plays_first: jax.Array,
    *,
    opening_plies: int = 0,
    reset_keys: jax.Array | None = None,
    record: bool = False,
    opening_actions: jax.Array | None = None,
) -> Outcome:
    """Plays one batch of games of A against B to their ends. Pure: jit it, vmap it.

    a_plays_first: bool [G], A is player 0 in game g. reset_keys: [G] keys for `env.reset`
    (default: split from `key`). record: keep every action played, [G, step limit].
    opening_actions: int32 [G, K], the first env steps of each game, played before anyone is
    asked (-1: no more); their turns count toward `opening_plies`.
    """
    games = a_plays_first.shape[0]
    limit = env.max_steps or UNLIMITED_GAME_CAP
    if reset_keys is None:
        reset_keys, key = jax.random.split(key)
        reset_keys = jax.random.split(reset_keys, games)
    carry = _Carry(
        state=jax.vmap(env.reset)(reset_keys),
        key=key,
        t=jnp.int32(0),
        turns=jnp.zeros(games, jnp.int32),
        length=jnp.zeros(games, jnp.int32),
        final_rewards=jnp.zeros((games, 2), jnp.float32),
        actions=jnp.zeros((games, limit if record else 0), jnp.int32),
    )

    def live(c: _Carry) -> jax.Array:
        return ~(c.state.terminated | c.state.truncated)

    def keep_going(c: _Carry) -> jax.Array:
        return (c.t < limit) & live(c).any()

    def one_step(c: _Carry) -> _Carry:
        key, key_a, key_b, key_random = jax.random.split(c.key, 4)
        playing = live(c)
        scripted = _scripted(opening_actions, c.length, games)
        playing_freely = playing & (scripted < 0)
        opening = c.turns < opening_plies
        a_to_move = (c.state.current_player == 0) == a_plays_first
        asked = lambda agent, k, needed: act_where(  # noqa: E731
            agent, c.state, jax.random.split(k, games), needed
        )
        action = asked(agent_a, key_a, playing_freely & ~opening & a_to_move)
        action += asked(agent_b, key_b, playing_freely & ~opening & ~a_to_move)
        action += asked(random_agent, key_random, playing_freely & opening)
        action = jnp.where(playing & (scripted >= 0), scripted, action)
        state = jax.vmap(env.step)(c.state, action)
        over = state.terminated | state.truncated
        turn_over = (state.current_player != c.state.current_player) | over
        actions = c.actions
        if record:
            actions = actions.at[:, c.t].set(jnp.where(playing, action, 0))
        return _Carry(
            state=state,
            key=key,
            t=c.t + 1,
            turns=c.turns + (playing & turn_over),
            length=c.length + playing,
            # A finished game's later steps carry zero rewards: keep those of its last step.
            final_rewards=jnp.where(playing[:, None], state.rewards, c.final_rewards),
            actions=actions,
        )

    final = jax.lax.while_loop(keep_going, one_step, carry)
    cut = final.state.truncated | live(final)  # still playing at the cap: cut, a draw
    first_result = jnp.sign(final.final_rewards[:, 0] - final.final_rewards[:, 1])
    a_result = jnp.where(cut, 0.0, jnp.where(a_plays_first, first_result, -first_result))
    return Outcome(
        a_score=(a_result + 1) / 2,
        rewards=final.final_rewards,
        truncated=cut,
        length=final.length,
        actions=final.actions,
    )


def _scripted(opening_actions: jax.Array | None, length: jax.Array, games: int) -> jax.Array:
    """int32 [G]: each game's set action at its step `length`, -1 where there is none."""
    if opening_actions is None:
        return jnp.full(games, -1, jnp.int32)
    width = opening_actions.shape[1]
    at = jnp.minimum(length, width - 1)[:, None]
    action = jnp.take_along_axis(opening_actions, at, axis=1)[:, 0]
    return jnp.where(length < width, action, -1).astype(jnp.int32)


def deck_order(deck_size: int, games: int, key: jax.Array) -> np.ndarray:
    """int32 [games]: the opening of each game of a match from a deck. Games 2k and 2k + 1 play
    the same one (A first in the even game); the openings come in an order shuffled by `key`,
    every one before any comes again."""
    rounds = -(-games // (2 * deck_size))
    keys = jax.random.split(jax.random.fold_in(key, deck_size), rounds)
    order = np.concatenate([np.asarray(jax.random.permutation(k, deck_size)) for k in keys])
    return np.repeat(order, 2)[:games].astype(np.int32)


def play_match(env, agent_a, agent_b, games: int, key: jax.Array, **options) -> Match:
    """Plays `games` games of A against B, A first in the even-numbered ones (host arrays).

    options: opening_plies, batch_size, record and deck, as `match_batches` takes them.
    """
    parts = list(match_batches(env, agent_a, agent_b, games, key, **options))
    return Match(*(np.concatenate(fields) for fields in zip(*parts, strict=True)))


def match_batches(
    env,
    agent_a,
    agent_b,
    games: int,
    key: jax.Array,
    *,
    opening_plies: int = 0,
    batch_size: int | None = None,
    record: bool = False,
    deck: OpeningDeck | None = None,
    openings: np.ndarray | None = None,
    first_game: int = 0,
):
    """The games of `play_match`, `batch_size` at a time (default all): yields each batch's
    Match as soon as it is played, so that a long match can save as it goes.

    first_game: skip the games before it (a multiple of batch_size), as a stopped match
    resumes: every batch is keyed by its first game, so the rest are the games it would have
    played.

    opening_plies: random turns first. record: keep every action played. deck: games open
    with its openings, `games` must then be even; openings: int [games], which one each game
    opens with (default `deck_order(len(deck.names), games, key)`).
    """
    if deck is not None and games % 2:
        raise ValueError(
            f"{games} games: each opening of a deck is played with both colours, so give an "
            f"even number (the whole deck is {2 * len(deck.names)})"
        )
    batch_size = min(batch_size or games, games)
    if first_game % batch_size or not 0 <= first_game <= games:
        raise ValueError(
            f"first game {first_game}: give a multiple of the batch size {batch_size} "
            f"from 0 to {games}"
        )
    if not jnp.issubdtype(key.dtype, jax.dtypes.prng_key):
        key = jax.random.wrap_key_data(key)  # a raw PRNGKey
    play = _compiled_games(env, agent_a, agent_b, opening_plies, record, deck is not None)
    if deck is None:
        openings = np.full(games, -1, np.int32)
    elif openings is None:
        openings = deck_order(len(deck.names), games, key)
    for first in range(first_game, games, batch_size):
        count = min(batch_size, games - first)
        a_plays_first = (np.arange(first, first + count) % 2) == 0
        batch_key, play_key = jax.random.split(jax.random.fold_in(key, first))
        reset_keys = jax.random.split(batch_key, batch_size)
        # Pad the last batch to the compiled shape; the padding games are dropped after.
        padded = jnp.asarray(np.resize(a_plays_first, batch_size))
        opening = openings[first : first + count]
        scripted = (
            None if deck is None else jnp.asarray(deck.actions[np.resize(opening, batch_size)])
        )
        outcome = jax.device_get(play(play_key, padded, reset_keys, scripted))
        trim = lambda x, count=count: np.asarray(x)[:count]  # noqa: E731
        yield Match(
            a_plays_first,
            *(trim(x) for x in outcome),
            reset_keys=trim(jax.random.key_data(reset_keys)),
            opening=opening,
        )


@per_rules(maxsize=16)
def _compiled_games(env, agent_a, agent_b, opening_plies: int, record: bool, scripted: bool):
    def play(key, a_plays_first, reset_keys, opening_actions):
        return play_games(
            env,
            agent_a,
            agent_b,
            key,
            a_plays_first,
            opening_plies=opening_plies,
            reset_keys=reset_keys,
            record=record,
            opening_actions=opening_actions if scripted else None,
        )

    return jax.jit(play)


def replay_start(env, match: Match, game: int):
    """The start state of game `game` of `match` (unbatched, host arrays)."""
    key = jax.random.wrap_key_data(match.reset_keys[game])
    return jax.device_get(env.reset(key))


class PairMatch(NamedTuple):
    """One pair's match in a round-robin: `a` against `b`, scored from `a`'s side."""

    a: str
    b: str
    match: Match
    summary: Summary
    seconds: float


def scheduled_pairs(count: int, neighbours: int | None = None) -> list[tuple[int, int, int]]:
    """(place among all pairs, i, j) for each pair i < j of `count` entrants that plays: all of
    them, or with `neighbours` K those with j − i ≤ K (each entrant meets the K listed after it)."""
    pairs = [(i, j) for i in range(count) for j in range(i + 1, count)]
    return [
        (n, i, j) for n, (i, j) in enumerate(pairs) if neighbours is None or j - i <= neighbours
    ]


def round_robin(
    env,
    entrants: list[tuple[str, object]],
    games: int,
    key: jax.Array,
    *,
    opening_plies: int = 0,
    batch_size: int | None = None,
    record: bool = False,
    deck: OpeningDeck | None = None,
    first_pair: int = 0,
    neighbours: int | None = None,
):
    """Every pair of `entrants` ((name, agent), in order) plays `games` games through
    `play_match`, with a key of its own; yields each pair's result as soon as it is played.
    With a deck, every pair plays the same openings (`deck_order` of `key`).

    neighbours: only the pairs at most this far apart in `entrants` play (`scheduled_pairs`).
    first_pair: skip the scheduled pairs before it, as a stopped round-robin resumes. A pair's
    key is its place among all pairs, so it plays the same games in any schedule."""
    openings = None if deck is None else deck_order(len(deck.names), games, key)
    scheduled = scheduled_pairs(len(entrants), neighbours)
    for index, i, j in scheduled[first_pair:]:
        (a, agent_a), (b, agent_b) = entrants[i], entrants[j]
        start = time.perf_counter()
        match = play_match(
            env,
            agent_a,
            agent_b,
            games,
            jax.random.fold_in(key, index),
            opening_plies=opening_plies,
            batch_size=batch_size,
            record=record,
            deck=deck,
            openings=openings,
        )
        seconds = time.perf_counter() - start
        yield PairMatch(a, b, match, summarize(match.a_score), seconds)


def match_games(
    match: Match, a: str, b: str, env, first_round: int = 1, deck: OpeningDeck | None = None
) -> list:
    """The games of a recorded match as game records in the game's dialect
    (`GameSpec.notation.record`: PDN, PGN...), replayed on the host; with the `deck` the match
    opened from, an `Opening` tag names each game's opening."""
    dialect = game_spec(env.id).dialect
    recorded = []
    for i in range(len(match.a_score)):
        players = (a, b) if match.a_plays_first[i] else (b, a)
        actions = match.actions[i, : match.length[i]]
        tags = {"Event": "jaxcheckers arena", "Round": str(first_round + i)}
        if deck is not None and match.opening[i] >= 0:
            tags["Opening"] = deck.names[match.opening[i]]
        tags.update(zip(dialect.player_tags, players, strict=True))
        start = replay_start(env, match, i)
        recorded.append(records.game_from_actions(dialect, env, start, actions, **tags))
    return recorded


def each_game(match: Match, deck: OpeningDeck) -> list[dict]:
    """One entry per game of a match opened from `deck`: its opening, A's seat, A's score."""
    return [
        {
            "opening": deck.names[opening],
            "a_plays_first": bool(first),
            "a_score": float(score),
        }
        for opening, first, score in zip(
            match.opening, match.a_plays_first, match.a_score, strict=True
        )
    ]
