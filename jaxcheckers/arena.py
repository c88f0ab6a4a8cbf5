"""Agents against each other: many games at once, seats swapped, score with a confidence interval.

    jaxcheckers arena alphabeta:3 random --games 1000
    jaxcheckers arena random alphabeta:1 alphabeta:2 --games 200     (a round-robin table)

Game i puts agent A on black (player 0, moves first) when i is even and on white when it is odd.
The first `--opening-plies` turns of every game are random legal moves, so deterministic agents
meet in many different positions. All games of a match run together, batched, in one compiled
`lax.while_loop` that stops when the last game ends.

Score = (wins + draws / 2) / games, from A's side. A game cut at the step limit is a draw. The 95%
interval is the Wilson score interval on that score (a draw counted as half a win: conservative,
since draws make the score vary less than wins and losses do). Elo difference = −400·log10(1/score
− 1), with the interval mapped through the same formula; it is ±inf at a score of 1 or 0.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
import time
from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

import jaxcheckers
from jaxcheckers.agents import AGENT_SPECS, make_agent
from jaxcheckers.agents.random import random_agent
from jaxcheckers.checkers.pdn import HopRecord, PdnGame, format_games, hop_record, moves_from_hops

Z_95 = 1.959964  # two-sided 95% quantile of the standard normal

__all__ = ["Match", "play_match", "Summary", "summarize", "elo_difference", "add_arguments", "run"]


class Match(NamedTuple):
    """The games of one match, A against B (numpy arrays on the host)."""

    a_is_black: np.ndarray  # bool (G,)
    a_score: np.ndarray  # float32 (G,)  1 win, 0.5 draw, 0 loss for A
    rewards: np.ndarray  # float32 (G, 2)  last rewards, indexed by player
    truncated: np.ndarray  # bool (G,)
    length: np.ndarray  # int32 (G,)  hops played
    hops: HopRecord  # each field (G, T)  what was played, for PDN


class _Carry(NamedTuple):
    state: object  # batched game state
    key: jax.Array
    t: jax.Array  # int32 ()  hops played so far (by the longest game)
    turns: jax.Array  # int32 (G,)  whole turns completed per game
    length: jax.Array  # int32 (G,)
    final_rewards: jax.Array  # float32 (G, 2)  rewards of the step that ended each game
    hops: HopRecord  # each field (G, T)


def make_match(env, agent_a, agent_b, *, opening_plies: int = 0, record_hops: int | None = None):
    """A jitted `play(key, a_is_black) -> (truncated, final rewards, lengths, hops)` for a batch.

    `record_hops` is the longest game recorded (default: the env's step limit).
    """
    steps = record_hops or env.max_steps
    if steps is None:
        raise ValueError("the arena needs an env with a step limit (max_steps)")
    n = env.board_size

    def play(key: jax.Array, a_is_black: jax.Array):
        games = a_is_black.shape[0]
        reset_key, key = jax.random.split(key)
        state = jax.vmap(env.reset)(jax.random.split(reset_key, games))
        empty = HopRecord(
            player=jnp.zeros((games, steps), jnp.int32),
            start=jnp.zeros((games, steps), jnp.int32),
            end=jnp.zeros((games, steps), jnp.int32),
            capture=jnp.zeros((games, steps), bool),
            continues=jnp.zeros((games, steps), bool),
        )
        carry = _Carry(
            state=state,
            key=key,
            t=jnp.int32(0),
            turns=jnp.zeros(games, jnp.int32),
            length=jnp.zeros(games, jnp.int32),
            final_rewards=jnp.zeros((games, 2), jnp.float32),
            hops=empty,
        )

        def live(c: _Carry):
            return ~(c.state.terminated | c.state.truncated)

        def keep_going(c: _Carry):
            return (c.t < steps) & live(c).any()

        def one_hop(c: _Carry) -> _Carry:
            key, key_a, key_b, key_random = jax.random.split(c.key, 4)
            action_a = jax.vmap(agent_a)(c.state, jax.random.split(key_a, games))
            action_b = jax.vmap(agent_b)(c.state, jax.random.split(key_b, games))
            action_random = jax.vmap(random_agent)(c.state, jax.random.split(key_random, games))
            a_to_move = (c.state.current_player == 0) == a_is_black
            action = jnp.where(a_to_move, action_a, action_b)
            action = jnp.where(c.turns < opening_plies, action_random, action)

            playing = live(c)
            record = jax.vmap(partial(hop_record, n=n))(c.state, action)
            hops = jax.tree.map(
                lambda log, new: log.at[:, c.t].set(jnp.where(playing, new, log[:, c.t])),
                c.hops,
                record,
            )
            state = jax.vmap(env.step)(c.state, action)
            turn_over = (state.jumper < 0) | state.terminated | state.truncated
            return _Carry(
                state=state,
                key=key,
                t=c.t + 1,
                turns=c.turns + (playing & turn_over),
                length=c.length + playing,
                # A finished game's later steps carry zero rewards: keep those of its last step.
                final_rewards=jnp.where(playing[:, None], state.rewards, c.final_rewards),
                hops=hops,
            )

        final = jax.lax.while_loop(keep_going, one_hop, carry)
        return final.state.truncated, final.final_rewards, final.length, final.hops

    return jax.jit(play)


def play_match(
    env,
    agent_a,
    agent_b,
    games: int,
    key: jax.Array,
    *,
    opening_plies: int = 0,
    batch_size: int | None = None,
) -> Match:
    """Plays `games` games of A against B, A on black in the even-numbered ones."""
    batch_size = min(batch_size or games, games)
    play = make_match(env, agent_a, agent_b, opening_plies=opening_plies)
    parts = []
    for first in range(0, games, batch_size):
        count = min(batch_size, games - first)
        a_is_black = (np.arange(first, first + count) % 2) == 0
        # Pad the last batch to the compiled shape; the padding games are dropped after.
        padded = np.resize(a_is_black, batch_size)
        outcome = play(jax.random.fold_in(key, first), jnp.asarray(padded))
        parts.append(_to_host(*outcome, a_is_black, count))
    return Match(*(_concat([getattr(p, f) for p in parts]) for f in Match._fields))


def _to_host(truncated, rewards, length, hops, a_is_black, count) -> Match:
    rewards = np.asarray(rewards)[:count]
    truncated = np.asarray(truncated)[:count]
    black_result = np.sign(rewards[:, 0] - rewards[:, 1])  # +1 black won, −1 white won, 0 drawn
    a_result = np.where(a_is_black, black_result, -black_result)
    a_result = np.where(truncated, 0.0, a_result)
    return Match(
        a_is_black=a_is_black,
        a_score=((a_result + 1) / 2).astype(np.float32),
        rewards=rewards,
        truncated=truncated,
        length=np.asarray(length)[:count],
        hops=jax.tree.map(lambda x: np.asarray(x)[:count], hops),
    )


def _concat(values):
    if isinstance(values[0], HopRecord):
        return HopRecord(*(np.concatenate(fields) for fields in zip(*values, strict=True)))
    return np.concatenate(values)


# -- statistics ------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Summary:
    games: int
    wins: int
    draws: int
    losses: int
    score: float
    score_low: float
    score_high: float
    elo: float
    elo_low: float
    elo_high: float


def elo_difference(score: float) -> float:
    """Elo points of A over B that make `score` the expected score (±inf at 1 and 0)."""
    if score >= 1.0:
        return math.inf
    if score <= 0.0:
        return -math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def wilson_interval(score: float, games: int, z: float = Z_95) -> tuple[float, float]:
    if games == 0:
        return 0.0, 1.0
    denominator = 1 + z * z / games
    centre = (score + z * z / (2 * games)) / denominator
    half = z / denominator * math.sqrt(score * (1 - score) / games + z * z / (4 * games * games))
    # At a score of exactly 0 or 1 that end of the interval is exact; rounding must not move it.
    low = 0.0 if score <= 0 else max(0.0, centre - half)
    high = 1.0 if score >= 1 else min(1.0, centre + half)
    return low, high


def summarize(a_scores: np.ndarray) -> Summary:
    a_scores = np.asarray(a_scores, dtype=np.float64)
    games = len(a_scores)
    score = float(a_scores.mean()) if games else 0.5
    low, high = wilson_interval(score, games)
    return Summary(
        games=games,
        wins=int((a_scores == 1).sum()),
        draws=int((a_scores == 0.5).sum()),
        losses=int((a_scores == 0).sum()),
        score=score,
        score_low=low,
        score_high=high,
        elo=elo_difference(score),
        elo_low=elo_difference(low),
        elo_high=elo_difference(high),
    )


def _elo_text(value: float) -> str:
    return f"{round(value):+d}" if math.isfinite(value) else ("+inf" if value > 0 else "-inf")


def describe(a: str, b: str, summary: Summary, seconds: float) -> str:
    s = summary
    return (
        f"{a} vs {b}: {s.games} games, {s.wins} wins, {s.draws} draws, {s.losses} losses "
        f"(for {a})\n"
        f"score {s.score:.3f}  95% CI [{s.score_low:.3f}, {s.score_high:.3f}]\n"
        f"Elo difference {_elo_text(s.elo)}  95% CI [{_elo_text(s.elo_low)}, "
        f"{_elo_text(s.elo_high)}]\n"
        f"{seconds:.1f} s"
    )


# -- PDN ------------------------------------------------------------


def match_games(match: Match, a: str, b: str, env, first_round: int = 1) -> list[PdnGame]:
    """The games of a match as PDN games."""
    from jaxcheckers.checkers.pdn import default_tags, result_text

    games = []
    for i in range(len(match.a_score)):
        hops = jax.tree.map(lambda x, i=i: x[i], match.hops)
        moves, movers = moves_from_hops(hops, int(match.length[i]))
        black, white = (a, b) if match.a_is_black[i] else (b, a)
        result = result_text(match.rewards[i], bool(match.truncated[i]))
        tags = default_tags(env, None, Event="jaxcheckers arena", Round=str(first_round + i))
        tags.update(Black=black, White=white)
        tags["Result"] = result
        games.append(PdnGame(tags, moves, movers, result))
    return games


# -- the command ------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    specs = "; ".join(f"{name}: {text}" for name, text in AGENT_SPECS.items())
    parser.add_argument("agents", nargs="+", metavar="AGENT", help=f"two or more agents ({specs})")
    parser.add_argument("--games", type=int, default=100, help="games per pair (default 100)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--opening-plies", type=int, default=0, help="random turns at the start of every game"
    )
    parser.add_argument("--board-size", type=int, default=8)
    parser.add_argument("--max-steps", type=int, default=1000, help="hops before a game is cut")
    parser.add_argument("--batch-size", type=int, default=None, help="games played at once")
    parser.add_argument("--pdn", metavar="FILE", help="save every game to FILE as PDN")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")


def run(args: argparse.Namespace) -> int:
    if len(args.agents) < 2:
        print("arena: give at least two agents", file=sys.stderr)
        return 2
    if args.games < 1:
        print("arena: --games must be at least 1", file=sys.stderr)
        return 2
    try:
        env = jaxcheckers.make("checkers", board_size=args.board_size, max_steps=args.max_steps)
        agents = {spec: make_agent(spec, env) for spec in dict.fromkeys(args.agents)}
    except (ValueError, OSError) as error:
        print(f"arena: {error}", file=sys.stderr)
        return 2

    names = list(agents)
    if len(names) < 2:
        names = [args.agents[0], args.agents[1]]  # the same agent twice: a self-play match
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    key = jax.random.key(args.seed)
    results, pdn_games = [], []
    for index, (a, b) in enumerate(pairs):
        start = time.perf_counter()
        match = play_match(
            env,
            agents[a],
            agents[b],
            args.games,
            jax.random.fold_in(key, index),
            opening_plies=args.opening_plies,
            batch_size=args.batch_size,
        )
        seconds = time.perf_counter() - start
        summary = summarize(match.a_score)
        results.append({"a": a, "b": b, "seconds": seconds, **dataclasses.asdict(summary)})
        if args.pdn:
            pdn_games += match_games(match, a, b, env, first_round=len(pdn_games) + 1)
        if not args.json:
            print(describe(a, b, summary, seconds))
            print()

    if args.pdn:
        with open(args.pdn, "w", encoding="utf-8") as file:
            file.write(format_games(pdn_games))
    if args.json:
        report = {"agents": names, "matches": [_finite(r) for r in results]}
        print(json.dumps(report, indent=2))
    elif len(names) > 2:
        print(round_robin_table(names, results))
    if args.pdn and not args.json:
        print(f"{len(pdn_games)} games saved to {args.pdn}")
    return 0


def _finite(result: dict) -> dict:
    """JSON has no infinity: an infinite Elo difference is written as the string "inf"/"-inf"."""
    return {
        key: (("inf" if value > 0 else "-inf") if isinstance(value, float) and math.isinf(value)
              else value)
        for key, value in result.items()
    }


def round_robin_table(names: list[str], results: list[dict]) -> str:
    """Each row agent's score against each column agent, and its overall score."""
    score = {(r["a"], r["b"]): r["score"] for r in results}
    score.update({(r["b"], r["a"]): 1 - r["score"] for r in results})
    width = max(8, *(len(name) for name in names))
    lines = [" " * width + "".join(f" {name[:width]:>{width}}" for name in names) + "    total"]
    for row in names:
        cells = []
        for column in names:
            cells.append("-" if row == column else f"{score[(row, column)]:.3f}")
        total = np.mean([score[(row, c)] for c in names if c != row])
        row_text = "".join(f" {c:>{width}}" for c in cells)
        lines.append(f"{row:<{width}}{row_text}    {total:.3f}")
    return "\n".join(lines)
