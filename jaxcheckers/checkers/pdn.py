"""Games as PDN (Portable Draughts Notation): write them, read them, replay them in the env.

A game is tag pairs then the moves, one whole turn per move as on a score sheet:

    [Event "jaxcheckers arena"]
    [Black "alphabeta:3"]
    [White "random"]
    [Result "0-1"]

    1. 11-15 24-20 2. 8-11 28-24 3. 15x22x29 ... 0-1

Black is player 0 (moves first, starts on squares 1–12 of 8×8). Results follow the PDN standard's
wording: "1-0" white won, "0-1" black won, "1/2-1/2" a draw, "*" unfinished (a game cut at the
step limit). A game that does not start from the opening carries `[SetUp "1"]` and a `[FEN]` tag;
a board other than 8×8 a `[BoardSize "n"]` tag. Captures are written hop by hop (`15x22x29`); the
reader also takes the short form (`15x29`) and finds the sequence meant.
"""

from __future__ import annotations

import dataclasses
import re
from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxcheckers.checkers import rules
from jaxcheckers.checkers.fen import board_to_fen, fen_to_board, state_to_fen
from jaxcheckers.checkers.positions import from_board
from jaxcheckers.checkers.render import legal_moves, write_hop
from jaxcheckers.core import compiled_step

__all__ = [
    "PdnGame",
    "game_from_actions",
    "format_game",
    "format_games",
    "parse_pdn",
    "replay",
    "result_text",
]

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
_TAG = re.compile(r'^\[\s*(\w+)\s+"((?:[^"\\]|\\.)*)"\s*\]\s*$')
_MOVE = re.compile(r"^\d+(?:[-x]\d+)+$")


@dataclasses.dataclass(frozen=True)
class PdnGame:
    """One game: tags in the order written, moves as text (whole turns), who made each move."""

    tags: dict[str, str]
    moves: list[str]
    movers: list[int]  # 0 black, 1 white; one per move (a pass variant can repeat a side)
    result: str = "*"


def result_text(rewards, truncated: bool) -> str:
    """The PDN result of a finished game from its last rewards (indexed by player)."""
    if truncated:
        return "*"
    black, white = float(rewards[0]), float(rewards[1])
    if black > white:
        return "0-1"
    if white > black:
        return "1-0"
    return "1/2-1/2"


def default_tags(env, start_state=None, **tags: str) -> dict[str, str]:
    out = {"Event": "?", "Site": "?", "Date": "????.??.??", "Round": "?"}
    out.update({"Black": "?", "White": "?"})
    out.update({k: str(v) for k, v in tags.items()})
    if env.board_size != 8:
        out["BoardSize"] = str(env.board_size)
    if start_state is not None:
        fen = state_to_fen(start_state)
        opening = board_to_fen(rules.opening_board(env.board_size).reshape(env.board_size, -1), 0)
        if fen != opening:
            out["SetUp"] = "1"
            out["FEN"] = fen
    return out


def game_from_actions(env, start_state, actions, **tags: str) -> PdnGame:
    """A PdnGame from an unbatched start state and the hop actions played from it (host replay)."""
    step = compiled_step(env)
    state = start_state
    moves: list[str] = []
    movers: list[int] = []
    for action in actions:
        write_hop(moves, movers, state, int(action))
        state = step(state, jnp.int32(action))
    over = bool(state.terminated | state.truncated)
    result = result_text(state.rewards, bool(state.truncated)) if over else "*"
    all_tags = default_tags(env, start_state, **tags)
    all_tags["Result"] = result
    return PdnGame(all_tags, moves, movers, result)


# -- text --------------------------------------------------------------------------------


def format_game(game: PdnGame, width: int = 79) -> str:
    tags = dict(game.tags)
    tags["Result"] = game.result
    lines = [f'[{name} "{_escape(value)}"]' for name, value in tags.items()]
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


def parse_pdn(text: str) -> list[PdnGame]:
    """Every game in a PDN text. Comments `{...}` and `(...)` variations are skipped.

    Movers are not known from the text alone: they are filled in as alternating from the side
    to move of the FEN (or black); `replay` gives the true ones.
    """
    text = re.sub(r"\{[^}]*\}", " ", text)
    games: list[PdnGame] = []
    tags: dict[str, str] = {}
    moves: list[str] = []
    result = None

    def finish():
        nonlocal tags, moves, result
        if tags or moves:
            first = 0
            if "FEN" in tags:
                first = 0 if _strip_quotes(tags["FEN"]).upper().startswith("B") else 1
            movers = [(first + i) % 2 for i in range(len(moves))]
            final = result or tags.get("Result", "*")
            games.append(PdnGame(dict(tags), list(moves), movers, final))
        tags, moves, result = {}, [], None

    for raw_line in text.splitlines():
        line = raw_line.strip()
        if not line:
            continue
        if line.startswith("["):
            if moves or result:
                finish()
            match = _TAG.match(line)
            if not match:
                raise ValueError(f"cannot read the tag line {line!r}")
            tags[match.group(1)] = match.group(2).replace('\\"', '"').replace("\\\\", "\\")
            continue
        line = _drop_variations(line)
        for token in line.split():
            token = re.sub(r"^\d+\.(\.\.)?", "", token)  # move numbers, also glued: "1.11-15"
            if not token:
                continue
            if token in RESULTS or token in ("2-0", "0-2", "1-1"):
                result = {"2-0": "1-0", "0-2": "0-1", "1-1": "1/2-1/2"}.get(token, token)
                finish()
                continue
            token = token.rstrip("!?*")
            if not _MOVE.match(token):
                raise ValueError(f"cannot read the move {token!r}")
            moves.append(token)
    finish()
    return games


def _drop_variations(line: str) -> str:
    while "(" in line and ")" in line:
        line = re.sub(r"\([^()]*\)", " ", line)
    return line


def _strip_quotes(text: str) -> str:
    return text.strip().strip('"')


# -- replaying a game in the env ------------------------------------------------------------


class Replay(NamedTuple):
    start: object  # the unbatched state the game starts from
    actions: list[int]  # every hop action, in order
    states: list  # the state before each action, then the final one


def game_start(env, game: PdnGame):
    """The state a game starts from: its FEN tag, or the opening."""
    if "FEN" in game.tags:
        board, player = fen_to_board(game.tags["FEN"], env.board_size)
        return from_board(env, board, player=player)
    return env.reset(jax.random.key(0))


def replay(env, game: PdnGame) -> Replay:
    """Plays `game`'s moves in `env`, hop by hop. Raises ValueError at the first illegal move."""
    step = compiled_step(env)
    state = game_start(env, game)
    actions: list[int] = []
    states = [state]
    for number, move in enumerate(game.moves, start=1):
        try:
            hops = hops_of_move(env, state, move)
        except ValueError as error:
            raise ValueError(f"move {number} ({move}): {error}") from None
        for action in hops:
            state = step(state, jnp.int32(action))
            actions.append(action)
            states.append(state)
    return Replay(states[0], actions, states)


def parse_move(text: str) -> tuple[list[int], bool]:
    """([squares], is_capture) of a move such as '11-15', '15x22x29'."""
    text = text.strip()
    if not _MOVE.match(text):
        raise ValueError(f"{text!r} is not a move like 11-15 or 15x22")
    capture = "x" in text
    if capture and "-" in text:
        raise ValueError(f"{text!r} mixes '-' and 'x'")
    return [int(s) for s in re.split("[-x]", text)], capture


def hops_of_move(env, state, move: str) -> list[int]:
    """The hop actions of one whole move, written `a-b`, `axbxc` or short `axc`, in `state`.

    Short captures that more than one sequence fits resolve to the first in action order.
    """
    squares, capture = parse_move(move)
    found = _find_hops(compiled_step(env), state, squares, capture)
    if found is None:
        legal = ", ".join(text for _, text in legal_moves(state)) or "none"
        raise ValueError(f"not a legal move here (legal hops: {legal})")
    return found


def _find_hops(step, state, squares: list[int], capture: bool) -> list[int] | None:
    """Depth-first search for hops from squares[0] through the written squares, ending the turn.

    In the short form of a capture a hop may land on a square that is not written down.
    """
    for action, text in legal_moves(state):
        start, sep, end = re.split("([-x])", text)
        if int(start) != squares[0] or (sep == "x") != capture:
            continue
        waypoints = squares[1:]
        if int(end) == waypoints[0]:
            left = waypoints[1:]
        elif capture:
            left = waypoints
        else:
            continue
        after = step(state, jnp.int32(action))
        continuing = int(after.jumper) >= 0
        if not continuing:
            if not left:
                return [action]
            continue
        if left:
            tail = _find_hops(step, after, [int(end), *left], capture)
            if tail is not None:
                return [action, *tail]
    return None
