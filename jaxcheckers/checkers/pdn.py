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

A game cut in the middle of a capture (at the step limit, or quit) ends with the hops played so
far (`15x22` where the piece could take on) and the result `*`; chosen here: the reader replays a
game's last move up to where it stops, leaving the capture pending, as the game was. Tag values
are one line: the writer turns line breaks (and other control characters) into spaces.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxcheckers import records
from jaxcheckers.checkers import rules
from jaxcheckers.checkers.fen import board_to_fen, fen_to_board, state_to_fen
from jaxcheckers.checkers.positions import from_board
from jaxcheckers.checkers.render import legal_moves, write_hop
from jaxcheckers.core import compiled_step
from jaxcheckers.records import GameRecord, format_game, format_games, replay_actions

__all__ = [
    "PLAYER_TAGS",
    "PdnGame",
    "game_from_actions",
    "replay_actions",
    "format_game",
    "format_games",
    "parse_pdn",
    "replay",
    "result_text",
    "DIALECT",
]

PdnGame = GameRecord  # a PDN game is a game record in the PDN dialect
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
PLAYER_TAGS = ("Black", "White")  # the tags naming players 0 and 1 (black moves first)
_MOVE = re.compile(r"^[0-9]+(?:[-x][0-9]+)+$")


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


def _result(state) -> str:
    over = bool(state.terminated | state.truncated)
    return result_text(state.rewards, bool(state.truncated)) if over else "*"


def _write(env, moves: list[str], movers: list[int], state, action: int) -> None:
    write_hop(moves, movers, state, action)


DIALECT = records.Dialect(PLAYER_TAGS, _write, _result, default_tags)


def game_from_actions(env, start_state, actions, **tags: str) -> PdnGame:
    """A PdnGame from an unbatched start state and the hop actions played from it (host replay)."""
    return records.game_from_actions(DIALECT, env, start_state, actions, **tags)


def parse_pdn(text: str) -> list[PdnGame]:
    """Every game in a PDN text (`records.read_games`: comments, variations and annotations
    skipped; the draughts results 2-0, 0-2 and 1-1 read as 1-0, 0-1 and 1/2-1/2).

    Movers are not known from the text alone: they are filled in as alternating from the side
    to move of the FEN (or black); `replay` gives the true ones. Raises ValueError for text it
    cannot read (an unclosed comment or variation, a stray bracket, a word that is not a move).
    """
    results = {**{r: r for r in RESULTS}, "2-0": "1-0", "0-2": "0-1", "1-1": "1/2-1/2"}
    games = []
    for tags, moves, result in records.read_games(text, move=_MOVE, results=results):
        first = 0
        if "FEN" in tags:
            first = 0 if _strip_quotes(tags["FEN"]).upper().startswith("B") else 1
        movers = [(first + i) % 2 for i in range(len(moves))]
        games.append(PdnGame(tags, moves, movers, result or tags.get("Result", "*")))
    return games


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
    """Plays `game`'s moves in `env`, hop by hop. Raises ValueError at the first illegal move.

    The last move may stop in the middle of a capture (a game cut there); the replay then ends
    with that capture pending.
    """
    actions, states = records.replay_moves(
        env,
        game_start(env, game),
        game.moves,
        lambda state, move, last: hops_of_move(env, state, move, cut=last),
    )
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


def hops_of_move(env, state, move: str, *, cut: bool = False) -> list[int]:
    """The hop actions of one whole move, written `a-b`, `axbxc` or short `axc`, in `state`.

    Short captures that more than one sequence fits resolve to the first in action order.
    `cut`: the move may also stop mid-capture (the last move of a game cut there), where no
    sequence that ends the turn fits.
    """
    squares, capture = parse_move(move)
    step = compiled_step(env)
    found = _find_hops(step, state, squares, capture)
    if found is None and cut and capture:
        found = _find_hops(step, state, squares, capture, cut=True)
    if found is None:
        legal = ", ".join(text for _, text in legal_moves(state)) or "none"
        raise ValueError(f"not a legal move here (legal hops: {legal})")
    return found


def _find_hops(
    step, state, squares: list[int], capture: bool, cut: bool = False
) -> list[int] | None:
    """Depth-first search for hops from squares[0] through the written squares, ending the turn
    (or, where `cut`, possibly stopping mid-capture on the last written square).

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
            tail = _find_hops(step, after, [int(end), *left], capture, cut)
            if tail is not None:
                return [action, *tail]
        elif cut:
            return [action]
    return None
