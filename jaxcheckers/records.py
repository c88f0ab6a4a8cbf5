"""Game records, the same for every game: PDN (checkers) and PGN (chess) are dialects of one
syntax: tag pairs in brackets, numbered moves, the result last.

    record = game_from_actions(env, start_state, actions, Event="my match")
    text = format_game(record)
    games = read_games(text, move=re.compile(r"[0-9]+(?:[-x][0-9]+)+"), results={...})

What differs between games is a `Dialect` (the tags naming the players, how a move is written,
the result from the last state, the game's own tags); a game's spec in the registry names its
dialect, and a game without one is written with `plain_dialect`: moves as action numbers.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from jaxcheckers.core import compiled_step

__all__ = [
    "GameRecord",
    "Dialect",
    "plain_dialect",
    "result_from_rewards",
    "replay_actions",
    "game_from_actions",
    "is_legal",
    "format_game",
    "format_games",
    "read_games",
    "replay_moves",
    "squares_of",
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
        state = step(state, np.int32(action))  # a host scalar: no device array made first
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
    """The record of `actions` played from an unbatched start state (replayed on the host).

    An illegal action (an agent's forfeit: the env ends the game there, the mover losing) is no
    move and is not written; the record ends before it, with the forfeit's result and the tag
    `Termination "rules infraction"` (PGN's name for it)."""
    forfeits = []

    def write(moves, movers, state, action):
        if is_legal(state, action, env.num_actions):
            dialect.write(env, moves, movers, state, action)
        else:
            forfeits.append(action)

    moves, movers, state = replay_actions(env, start_state, actions, write)
    result = dialect.result(state)
    all_tags = dialect.tags(env, start_state, **tags)
    all_tags["Result"] = result
    if forfeits:
        all_tags["Termination"] = "rules infraction"
    return GameRecord(all_tags, moves, movers, result)


def squares_of(move: str) -> list[int]:
    """The square numbers of a move written with numbers (`32-28`, `28x19x10`), in order: the
    key that lists moves as a player reads them, by their first square, then the next."""
    return [int(number) for number in re.findall(r"[0-9]+", move)]


def is_legal(state, action: int, num_actions: int) -> bool:
    """`action` is a legal action of an unbatched host state."""
    return 0 <= action < num_actions and bool(np.asarray(state.legal_action_mask)[action])


# One token of record text, tried in this order at each position: a tag pair (its value may hold
# any character but an unescaped quote), a comment, the two brackets of a variation, a word (move
# numbers, moves, results), and anything else (an error).
_TOKEN = re.compile(
    r"""\[\s*(?P<tag>\w+)\s*"(?P<value>(?:[^"\\]|\\.)*)"\s*\]
    |(?P<comment>\{[^}]*\})
    |(?P<open>\()|(?P<close>\))
    |(?P<word>[^\s\[\]{}()"]+)
    |(?P<space>\s+)
    |(?P<other>.)""",
    re.VERBOSE | re.DOTALL,
)
_NAG = re.compile(r"^\$[0-9]+$")  # a numeric annotation glyph, $1 ...


def read_games(
    text: str, *, move: re.Pattern, results: dict[str, str]
) -> list[tuple[dict[str, str], list[str], str | None]]:
    """Every game of a record text, as (tags, moves as written, result token or None).

    Comments `{...}` and `(...)` variations (nested, over several lines) are skipped, and so are
    move numbers (also glued, `1.11-15`), numeric annotations ($1) and the marks `!?*` after a
    move. `move` is the pattern a whole move matches; `results` maps each result token the
    dialect reads to the one it keeps (its own tokens to themselves). Raises ValueError for text
    it cannot read (an unclosed comment or variation, a stray bracket, a word that is not a move).
    """
    if not isinstance(text, str):
        raise ValueError(f"a game record is text, got {type(text).__name__}")
    games: list[tuple[dict[str, str], list[str], str | None]] = []
    tags: dict[str, str] = {}
    moves: list[str] = []
    result = None
    depth = 0  # how many variations are open

    def finish():
        nonlocal tags, moves, result
        if tags or moves:
            games.append((dict(tags), list(moves), result))
        tags, moves, result = {}, [], None

    for match in _TOKEN.finditer(text):
        kind, token = match.lastgroup, match.group()
        if kind in ("space", "comment"):
            continue
        if kind == "open":
            depth += 1
            continue
        if kind == "close":
            if depth == 0:
                raise ValueError(f"a ')' at character {match.start()} closes no variation")
            depth -= 1
            continue
        if depth:
            if kind == "other" and token == "{":
                raise ValueError(f"a comment opened at character {match.start()} is never closed")
            continue  # inside a variation
        if kind in ("tag", "value"):
            if moves or result:
                finish()
            tags[match.group("tag")] = re.sub(r"\\(.)", r"\1", match.group("value"), flags=re.S)
            continue
        if kind == "other":
            what = "comment" if token == "{" else "tag" if token == "[" else "character"
            raise ValueError(f"cannot read the {what} at character {match.start()}: {token!r}")
        token = re.sub(r"^[0-9]+\.(\.\.)?", "", token)  # move numbers, also glued: "1.11-15"
        if not token or _NAG.match(token):
            continue
        if token in results:
            result = results[token]
            finish()
            continue
        token = token.rstrip("!?*")
        if not move.fullmatch(token):
            raise ValueError(f"cannot read the move {token[:40]!r}")
        moves.append(token)
    if depth:
        raise ValueError("a variation '(' is never closed")
    finish()
    return games


def replay_moves(env, state, moves: list[str], hops_of, mid_move=None) -> tuple[list[int], list]:
    """Plays written moves from `state`, hop by hop: (every hop action, the state before each hop
    and then the last). `hops_of(state, move, last)` gives one move's hop actions (ValueError if
    it is not legal there; `last`: the record's last move, which may stop mid-capture); with
    `mid_move`, a move before the last that leaves a capture under way is refused too. Each
    ValueError names the move by its number."""
    step = compiled_step(env)
    actions: list[int] = []
    states = [state]
    for number, move in enumerate(moves, start=1):
        last = number == len(moves)
        try:
            hops = hops_of(state, move, last)
        except ValueError as error:
            raise ValueError(f"move {number} ({move}): {error}") from None
        for action in hops:
            state = step(state, np.int32(action))  # a host scalar: no device array made first
            actions.append(action)
            states.append(state)
        if mid_move is not None and not last and mid_move(state):
            raise ValueError(f"move {number} ({move}) stops in the middle of a capture")
    return actions, states
