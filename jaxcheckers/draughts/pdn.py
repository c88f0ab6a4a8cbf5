"""Draughts game records in PDN (GameType 20 for international draughts): moves as FMJD square
numbers, a capture written as its whole path (`28x19x10`), results 2-0, 0-2 and 1-1."""

from __future__ import annotations

from jaxcheckers import records
from jaxcheckers.draughts import fen, notation, rules

__all__ = ["DIALECT", "GAME_TYPES"]

PLAYER_TAGS = ("White", "Black")
# PDN's GameType numbers of the variants (PDN 3.0's list: 20 international, 25 Russian,
# 26 Brazilian).
GAME_TYPES = {"international": "20", "russian": "25", "brazilian": "26"}


def _write(env, moves: list[str], movers: list[int], state, action: int) -> None:
    """A hop: a new move, or the next landing square of a capture under way."""
    if int(state.jumper) >= 0 and moves:
        lay = env.layout
        direction, distance, square = rules.hop_of(int(action), lay)
        land = int(lay.ray[square, direction, distance - 1])
        moves[-1] += f"x{notation.number(state, land)}"
        return
    moves.append(notation.move_name(env, state, action))
    movers.append(int(state.current_player))


def _result(state) -> str:
    token = records.result_from_rewards(state)
    return {"1-0": "2-0", "0-1": "0-2", "1/2-1/2": "1-1"}.get(token, token)


def _tags(env, start_state=None, **given: str) -> dict[str, str]:
    out = {"Event": "?", "Site": "?", "Date": "????.??.??", "Round": "?"}
    out.update(dict.fromkeys(PLAYER_TAGS, "?"))
    out["GameType"] = GAME_TYPES[env.variant]
    if start_state is not None:
        start = fen.state_to_fen(start_state)  # refuses a start mid-capture (taken pieces on)
        opening = fen.board_to_fen(rules.opening_board(env.layout), 0)
        if start != opening:
            out["FEN"] = start
    out.update({k: str(v) for k, v in given.items()})
    return out


DIALECT = records.Dialect(PLAYER_TAGS, _write, _result, _tags)
