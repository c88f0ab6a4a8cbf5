"""Chess games written down as PGN: SAN moves, the seven tags, a FEN tag for a set-up start.

PGN and checkers' PDN share their syntax (tags in brackets, numbered moves, the result last), so
a game is a `records.GameRecord` and `records.format_game` writes it; what differs is this
dialect: white is player 0 and moves first, and "1-0" means white won.
"""

from __future__ import annotations

from jaxcheckers import records
from jaxcheckers.chess.env import START
from jaxcheckers.chess.fen import chess_fen
from jaxcheckers.chess.san import move_name

__all__ = [
    "PLAYER_TAGS",
    "DIALECT",
    "result_text",
    "default_tags",
    "write_move",
    "game_from_actions",
]

PLAYER_TAGS = ("White", "Black")  # the tags naming players 0 and 1


def result_text(state) -> str:
    """ "1-0", "0-1", "1/2-1/2", or "*" for a game not over or cut at the step limit."""
    return records.result_from_rewards(state)


def default_tags(start_state, **tags: str) -> dict[str, str]:
    """The seven-tag roster in PGN's order, then SetUp and FEN where the game did not start from
    the opening."""
    out = {"Event": "?", "Site": "?", "Date": "????.??.??", "Round": "?"}
    out.update({"White": "?", "Black": "?", "Result": "*"})
    out.update({k: str(v) for k, v in tags.items()})
    fen = chess_fen(start_state)
    if fen != START:
        out.update(SetUp="1", FEN=fen)
    return out


def write_move(env, moves: list[str], movers: list[int], state, action: int) -> None:
    """Writes `action`, about to be played from `state`, into a record: its SAN and mover."""
    moves.append(move_name(env, state, action))
    movers.append(int(state.current_player))


def _tags(env, start_state, **tags: str) -> dict[str, str]:
    return default_tags(start_state, **tags)


DIALECT = records.Dialect(PLAYER_TAGS, write_move, result_text, _tags)


def game_from_actions(env, start_state, actions, **tags: str) -> records.GameRecord:
    """The game of `actions` played from an unbatched start state (host replay, SAN moves)."""
    return records.game_from_actions(DIALECT, env, start_state, actions, **tags)
