"""Chess games written down as PGN: SAN moves, the seven tags, a FEN tag for a set-up start.

PGN and checkers' PDN share their syntax (tags in brackets, numbered moves, the result last), so
a game is a `checkers.pdn.PdnGame` and `pdn.format_game` writes it; what differs is here: white
is player 0 and moves first, and "1-0" means white won.
"""

from __future__ import annotations

import functools

import numpy as np

from jaxcheckers.checkers.pdn import PdnGame, replay_actions
from jaxcheckers.chess.env import START
from jaxcheckers.chess.fen import chess_fen
from jaxcheckers.chess.san import move_name

__all__ = ["PLAYER_TAGS", "result_text", "default_tags", "write_move", "game_from_actions"]

PLAYER_TAGS = ("White", "Black")  # the tags naming players 0 and 1


def result_text(state) -> str:
    """ "1-0", "0-1", "1/2-1/2", or "*" for a game not over or cut at the step limit."""
    if not bool(state.terminated) or bool(state.truncated):
        return "*"
    white, black = (float(r) for r in np.asarray(state.rewards))
    return "1-0" if white > black else "0-1" if black > white else "1/2-1/2"


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


def game_from_actions(env, start_state, actions, **tags: str) -> PdnGame:
    """The game of `actions` played from an unbatched start state (host replay, SAN moves)."""
    moves, movers, state = replay_actions(
        env, start_state, actions, functools.partial(write_move, env)
    )
    result = result_text(state)
    return PdnGame(default_tags(start_state, **tags, Result=result), moves, movers, result)
