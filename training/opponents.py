"""Fixed opponents in part of the training games: a snapshot of the learner or any agent spec.

With `opponent_fraction > 0` the first `num_opponent_envs` games of the batch have one seat
(alternating from game to game) played by a fixed opponent from `config.opponents`. Their moves
are played here, between two learner moves, and are not trained on; what they do to the game (its
reward, its end) is credited to the learner's move that led to them. Where an opponent holds
seat 0 of a game at the trainer's start, that game's first move is a random one (`open`).

Who plays which game (`config.opponent_sampling`): "groups" gives each spec one contiguous,
equal group of games for the whole run; "league" draws each game's opponent when the game starts,
with weight (1 - score)^2 + LEAGUE_FLOOR, where score is the learner's running score against that
opponent (prioritised fictitious self-play: the opponents it does worst against are met most).
Both keep the running scores (`League`), which the metrics report.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jaxcheckers.training.config import TrainConfig

from jaxcheckers.agents import act_where, make_agent
from jaxcheckers.agents.networks import sample_action
from jaxcheckers.agents.random import random_legal_actions
from jaxcheckers.core import step_autoreset

__all__ = [
    "StepOutcome",
    "League",
    "Opponents",
    "make_opponents",
    "opponent_names",
    "no_outcome",
    "batched_autoreset_step",
]

MAX_OPPONENT_STEPS = 64  # bound on an opponent's consecutive steps (a multi-jump is a few hops)
# The running score moves this far towards each finished game's result (about the last 100
# games against an opponent count).
SCORE_RATE = 0.01
# A league's weight for an opponent the learner always beats: it is still met now and then, so
# that its score stays current.
LEAGUE_FLOOR = 0.02


class StepOutcome(NamedTuple):
    """What one move (and, against a fixed opponent, its replies) did to each game."""

    state: Any  # the next state to act on (a fresh game where one ended)
    reward: jax.Array  # float32 [B]  to `seat`
    terminated: jax.Array  # bool [B]
    truncated: jax.Array  # bool [B]
    last_observation: jax.Array  # [B, *obs]  of the ended game's last state (for truncation)
    last_player: jax.Array  # int32 [B]  mover of that state
    game_length: jax.Array  # int32 [B]
    first_player_reward: jax.Array  # float32 [B]


class League(NamedTuple):
    """Who plays each opponent game, and how the learner fares against each opponent."""

    opponent: jax.Array  # int32 [count]  index into config.opponents, per opponent game
    score: jax.Array  # float32 [len(opponents)]  running score (win 1, draw 1/2, loss 0)


class Opponents(NamedTuple):
    count: int  # games with a fixed opponent (the first ones of the batch)
    league: League | None  # the starting assignment and scores (None without opponent games)
    # (snapshot_params, league, outcome [B], key) -> (outcome with the opponent games at the
    # learner's turn, league with the games that ended scored (and, in a league, re-drawn))
    advance: Callable
    # (league, outcome [B], key) -> the same, each opponent move a random legal one: how a
    # trainer's init opens the games where the opponent moves first (an opening turn at random),
    # so that init, a program of its own, does not compile the opponents again
    open: Callable


def opponent_names(specs) -> list[str]:
    """The opponents' names in the metrics: their specs, the k-th repeat of one marked "#k"
    (a spec given twice plays twice the share of the games, each share reported on its own)."""
    seen: dict[str, int] = {}
    names = []
    for spec in specs:
        seen[spec] = seen.get(spec, 0) + 1
        names.append(spec if seen[spec] == 1 else f"{spec}#{seen[spec]}")
    return names


def no_outcome(state) -> StepOutcome:
    """A batch of games [B] that nothing has happened to yet."""
    num_envs = state.current_player.shape[0]
    zeros = jnp.zeros(num_envs, jnp.float32)
    falses = jnp.zeros(num_envs, bool)
    return StepOutcome(
        state,
        zeros,
        falses,
        falses,
        state.observation,
        state.current_player,
        jnp.zeros(num_envs, jnp.int32),
        zeros,
    )


def batched_autoreset_step(env, state, action: jax.Array, key: jax.Array, reset=None):
    """`step_autoreset` over a batch [B], one fresh-game key per game (`reset`: how a fresh
    game starts, default `env.reset`)."""
    keys = jax.random.split(key, action.shape[0])
    return jax.vmap(lambda s, a, k: step_autoreset(env, s, a, k, reset))(state, action, keys)


def make_opponents(config: TrainConfig, env, network, reset=None) -> Opponents:
    """The opponent games of `config`; `advance` is the identity when there are none. `reset`
    starts the games that end during the opponents' replies (default `env.reset`)."""
    count = config.num_opponent_envs
    if not count:
        return Opponents(
            0,
            None,
            lambda snapshot_params, league, outcome, key: (outcome, league),
            lambda league, outcome, key: (outcome, league),
        )
    num_opponents = len(config.opponents)
    bounds = np.linspace(0, count, num_opponents + 1).astype(int)
    groups = [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    first = League(
        opponent=jnp.asarray(np.repeat(np.arange(num_opponents), np.diff(bounds)), jnp.int32),
        score=jnp.full(num_opponents, 0.5, jnp.float32),
    )
    binders = _opponent_agents(config, env, network)
    in_league = config.opponent_sampling == "league"
    # The learner's seat in each opponent game: alternating from game to game.
    learner_seat = jnp.asarray(np.arange(count) % 2, jnp.int32)

    def act(snapshot_params, league: League, state, key, replying) -> jax.Array:
        """Actions [count] for the opponent games that await a reply, 0 in the others."""
        if not in_league:  # each group of games played by its own agent
            actions = []
            for index, (start, stop) in enumerate(groups):
                if stop == start:
                    continue
                agent = binders[index](snapshot_params)
                keys = jax.random.split(jax.random.fold_in(key, index), stop - start)
                group = _rows(state, start, stop)
                actions.append(act_where(agent, group, keys, replying[start:stop]))
            return jnp.concatenate(actions)
        actions = jnp.zeros(count, jnp.int32)
        for index, bind in enumerate(binders):
            keys = jax.random.split(jax.random.fold_in(key, index), count)
            mine = replying & (league.opponent == index)
            moves = act_where(bind(snapshot_params), state, keys, mine)
            actions = jnp.where(mine, moves, actions)
        return actions

    def settle(league: League, ended, reward, key) -> League:
        """`league` with the games that `ended` [count] (learner's `reward`) scored and, in a
        league, their next opponent drawn."""
        result = (reward + 1.0) / 2.0
        played = ended[:, None] & (league.opponent[:, None] == jnp.arange(num_opponents))
        games = played.sum(axis=0)
        mean = (played * result[:, None]).sum(axis=0) / jnp.maximum(games, 1)
        # As if the games were added one by one, each moving the score SCORE_RATE of the way.
        step = 1.0 - (1.0 - SCORE_RATE) ** games
        score = league.score + step * (mean - league.score)
        if not in_league:
            return League(league.opponent, score)
        weights = (1.0 - score) ** 2 + LEAGUE_FLOOR
        drawn = jax.random.categorical(key, jnp.log(weights), shape=(count,)).astype(jnp.int32)
        return League(jnp.where(ended, drawn, league.opponent), score)

    def at_random(snapshot_params, league: League, state, key, replying) -> jax.Array:
        del snapshot_params, league
        return jnp.where(replying, random_legal_actions(key, state.legal_action_mask), 0)

    def replies(snapshot_params, league: League, outcome: StepOutcome, key, act=act):
        """Plays the opponents' moves (`act`'s) until the learner is to move in every opponent
        game.

        Rewards, game ends and the truncated state are credited to the move that led here, unless
        that move's game had already ended (a reply then opens the next game, e.g. as player 0).
        """

        def needs_reply(carry):
            outcome, _, _, steps = carry
            waiting = outcome.state.current_player != learner_seat
            return waiting.any() & (steps < MAX_OPPONENT_STEPS)

        def reply(carry):
            outcome, league, key, steps = carry
            key, act_key, step_key = jax.random.split(key, 3)
            replying = outcome.state.current_player != learner_seat
            action = act(snapshot_params, league, outcome.state, act_key, replying)
            stepped = batched_autoreset_step(env, outcome.state, action, step_key, reset)
            final = stepped.final
            state = jax.tree.map(
                lambda new, old: jnp.where(_expand(replying, new), new, old),
                stepped.state,
                outcome.state,
            )
            open_game = replying & ~(outcome.terminated | outcome.truncated)
            ended = open_game & (final.terminated | final.truncated)
            reward = jnp.take_along_axis(final.rewards, learner_seat[:, None], axis=1)[:, 0]
            outcome = StepOutcome(
                state=state,
                reward=outcome.reward + jnp.where(open_game, reward, 0.0),
                terminated=outcome.terminated | (open_game & final.terminated),
                truncated=outcome.truncated | (open_game & final.truncated),
                last_observation=jnp.where(
                    _expand(ended, final.observation),
                    final.observation,
                    outcome.last_observation,
                ),
                last_player=jnp.where(ended, final.current_player, outcome.last_player),
                game_length=jnp.where(ended, final.step_count, outcome.game_length),
                first_player_reward=jnp.where(
                    ended, final.rewards[:, 0], outcome.first_player_reward
                ),
            )
            league = settle(league, ended, reward, jax.random.fold_in(step_key, 1))
            return outcome, league, key, steps + 1

        # The games the learner's own move ended: scored, and their next opponent drawn before
        # it opens the next game.
        ended = outcome.terminated | outcome.truncated
        league = settle(league, ended, outcome.reward, jax.random.fold_in(key, 1))
        outcome, league, _, _ = jax.lax.while_loop(
            needs_reply, reply, (outcome, league, key, jnp.int32(0))
        )
        return outcome, league

    def advance(snapshot_params, league: League, outcome: StepOutcome, key, act=act):
        num_envs = outcome.reward.shape[0]
        head, league = replies(snapshot_params, league, _rows(outcome, 0, count), key, act)
        tail = _rows(outcome, count, num_envs)
        return jax.tree.map(lambda a, b: jnp.concatenate([a, b]), head, tail), league

    def open_at_random(league: League, outcome: StepOutcome, key):
        return advance(None, league, outcome, key, at_random)

    return Opponents(count, first, advance, open_at_random)


def _opponent_agents(config: TrainConfig, env, network) -> list[Callable]:
    """Per opponent spec, `bind(params) -> agent` (params: the snapshot's)."""
    binders = []
    for spec in config.opponents:
        if spec == "snapshot":

            def snapshot(params):
                def act(state, key):
                    logits, _ = network.apply(params, state.observation[None])
                    return sample_action(key, logits[0], state.legal_action_mask)

                return act

            binders.append(snapshot)
        else:
            agent = make_agent(spec, env)  # ValueError for an unknown spec: fail early
            binders.append(lambda params, agent=agent: agent)
    return binders


def _rows(tree, start: int, stop: int):
    return jax.tree.map(lambda x: x[start:stop], tree)


def _expand(mask: jax.Array, like: jax.Array) -> jax.Array:
    """`mask` [B] reshaped to broadcast against `like` [B, ...]."""
    return mask.reshape(mask.shape + (1,) * (like.ndim - mask.ndim))
