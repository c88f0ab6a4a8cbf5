"""Game records, the same for every game: PDN (checkers) and PGN (chess) are dialects of one
syntax: tag pairs in brackets, numbered moves, the result last.

    record = game_from_actions(env, start_state, actions, Event="my match")
    text = format_game(record)

What differs between games is a `Dialect` (the tags naming the players, how a move is written,
the result from the last state, the game's own tags); a game's spec in the registry names its
dialect, and a game without one is written with `plain_dialect`: moves as action numbers.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np

from jaxcheckers.core import compiled_step

__all__ = [
    "GameRecord",
    "Dialect",
    "plain_dialect",
    "result_from_rewards",
    "replay_actions",
    "game_from_actions",
    "format_game",
    "format_games",
]


@dataclasses.dataclass(frozen=True)
class GameRecord:
    """One game: tags in the order written, moves as text (whole turns), who made each move."""

    tags: dict[str, str]
    moves: list[str]
    movers: list[int]  # player 0 or 1, one per move (a pass variant can repeat a side)
    result: str = "*"


def replay_actions(env, start_state, actions, write) -> tuple[list[str], list[int], object]:
    """(moves, movers, last state): `actions` played from an unbatched start state on the host,
    each written down by `write(moves, movers, state, action)` before it is played."""
    step = compiled_step(env)
    state = start_state
    moves: list[str] = []
    movers: list[int] = []
    for action in actions:
        write(moves, movers, state, int(action))
        state = step(state, jnp.int32(action))
    return moves, movers, state


# -- text ---------------------------------------------------------------------------------


def format_game(game: GameRecord, width: int = 79) -> str:
    tags = dict(game.tags)
    tags["Result"] = game.result
    for name in tags:
        if not re.fullmatch(r"\w+", name):
            raise ValueError(f"a tag name is letters, digits and _, got {name!r}")
    lines = [f'[{name} "{_escape(str(value))}"]' for name, value in tags.items()]
    tokens: list[str] = []
    number = 0
    previous = None
    for move, mover in zip(game.moves, game.movers, strict=True):
        if mover == 0 or previous is None or previous == 1:
            number += 1
            if mover == 0:
                tokens.append(f"{number}.")
            else:
                tokens.append(f"{number}...")
        tokens.append(move)
        previous = mover
    tokens.append(game.result)
    return "\n".join(lines) + "\n\n" + _wrap(tokens, width) + "\n"


def format_games(games) -> str:
    return "\n".join(format_game(game) for game in games)


def _escape(value: str) -> str:
    """A tag value on one line: control characters (line breaks) become spaces; \\ and " escaped."""
    value = re.sub(r"[\x00-\x1f\x7f\x85\u2028\u2029]", " ", value)
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _wrap(tokens: list[str], width: int) -> str:
    lines, line = [], ""
    for token in tokens:
        if line and len(line) + 1 + len(token) > width:
            lines.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
    lines.append(line)
    return "\n".join(lines)


@dataclasses.dataclass(frozen=True)
class Dialect:
    """How one game's records are written.

    player_tags: the tags naming players 0 and 1 (PDN: Black, White; PGN: White, Black).
    write: `write(env, moves, movers, state, action)` appends `action` (about to be played from
        `state`) to the record: a move's text and its mover, or the next hop of a move under way.
    result: `result(state)` the result token of a game's last state ("1-0", "0-1", "1/2-1/2", "*").
    tags: `tags(env, start_state, **tags)` the full tag dict, in the order written (a game's own
        tags, a FEN of a set-up start).
    """

    player_tags: tuple[str, str]
    write: Callable[..., None]
    result: Callable[[Any], str]
    tags: Callable[..., dict[str, str]]


def result_from_rewards(state, first_wins: str = "1-0") -> str:
    """The result token of `state`: `first_wins` where player 0 won (its mirror where player 1
    did), "1/2-1/2" for a draw, "*" for a game not over or cut at the step limit."""
    if not bool(state.terminated) or bool(state.truncated):
        return "*"
    first, second = (float(r) for r in np.asarray(state.rewards))
    other = "-".join(reversed(first_wins.split("-")))
    return first_wins if first > second else other if second > first else "1/2-1/2"


def _write_action(env, moves: list[str], movers: list[int], state, action: int) -> None:
    moves.append(str(action))
    movers.append(int(state.current_player))


def plain_dialect(players: tuple[str, str]) -> Dialect:
    """The record of a game with no notation of its own: moves as action numbers, players named
    by `players`, "1-0" when player 0 wins."""

    def tags(env, start_state=None, **given: str) -> dict[str, str]:
        out = {"Event": "?", "Site": "?", "Date": "????.??.??", "Round": "?", "Game": env.id}
        out.update(dict.fromkeys(tags_of_players, "?"))
        out.update({k: str(v) for k, v in given.items()})
        return out

    tags_of_players = tuple(name.title().replace(" ", "") for name in players)
    return Dialect(tags_of_players, _write_action, result_from_rewards, tags)


def game_from_actions(dialect: Dialect, env, start_state, actions, **tags: str) -> GameRecord:
    """The record of `actions` played from an unbatched start state (replayed on the host)."""

    def write(moves, movers, state, action):
        dialect.write(env, moves, movers, state, action)

    moves, movers, state = replay_actions(env, start_state, actions, write)
    result = dialect.result(state)
    all_tags = dialect.tags(env, start_state, **tags)
    all_tags["Result"] = result
    return GameRecord(all_tags, moves, movers, result)
