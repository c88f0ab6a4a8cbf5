"""Draughts game records in PDN (GameType 20 for international draughts): moves as FMJD square
numbers, a capture written as its whole path (`28x19x10`), results 2-0, 0-2 and 1-1.

    text = records.format_game(records.game_from_actions(DIALECT, env, start, actions))
    for game in parse_pdn(text):
        played = replay(game)              # the env of its GameType, the states and actions

The reader takes what other programs write too: a capture as its start and end (`28x10`) where
that names one move, move numbers, comments, variations and annotations, and the results 1-0,
0-1 and 1/2-1/2 (read as 2-0, 0-2 and 1-1). A record's last move may stop mid-capture (a game
cut there): the replay then ends with that capture pending.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import jax

from jaxcheckers import records
from jaxcheckers.draughts import fen, notation, rules
from jaxcheckers.draughts.env import Draughts

__all__ = ["DIALECT", "GAME_TYPES", "parse_pdn", "variant_of", "replay", "Replay"]

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


# -- reading ------------------------------------------------------------------------------------

_MOVE = re.compile(r"[0-9]+(?:[-xX][0-9]+)+")
RESULTS = {"2-0": "2-0", "0-2": "0-2", "1-1": "1-1", "*": "*"}
RESULTS.update({"1-0": "2-0", "0-1": "0-2", "1/2-1/2": "1-1"})  # as chess and checkers write them


def parse_pdn(text: str) -> list[records.GameRecord]:
    """Every game of a PDN text. Movers alternate from the side to move of its FEN (White without
    one); `replay` checks the moves. ValueError for text that is not PDN."""
    games = []
    for tags, moves, result in records.read_games(text, move=_MOVE, results=RESULTS):
        first = 1 if tags.get("FEN", "").strip().upper().startswith("B") else 0
        movers = [(first + i) % 2 for i in range(len(moves))]
        final = result or RESULTS.get(tags.get("Result", "*").strip(), "*")
        games.append(records.GameRecord(tags, [m.lower() for m in moves], movers, final))
    return games


def variant_of(game: records.GameRecord) -> str:
    """The variant a record's GameType tag names (its first field: `20,W,10,10,N2,0` is
    international); international where the tag is missing. ValueError for another game."""
    number = game.tags.get("GameType", GAME_TYPES["international"]).split(",")[0].strip()
    for variant, game_type in GAME_TYPES.items():
        if number == game_type:
            return variant
    known = ", ".join(f"{n} {v}" for v, n in GAME_TYPES.items())
    raise ValueError(f"GameType {number!r} is not a draughts variant this env plays ({known})")


class Replay(NamedTuple):
    env: Draughts  # the env of the record's variant
    start: object  # the state the game starts from
    actions: list[int]  # every hop, in order
    states: list  # the state before each hop, then the last one


def replay(game: records.GameRecord, env: Draughts | None = None) -> Replay:
    """Plays `game` hop by hop in `env` (default: the env of its GameType, with the draw rules
    on). ValueError at the first move that is not legal, or that stops mid-capture before the
    last move."""
    variant = variant_of(game)
    if env is None:
        env = Draughts(variant=variant)
    elif env.variant != variant:
        raise ValueError(f"the record is {variant} draughts (GameType), the env {env.variant}")
    if "FEN" in game.tags:
        state = fen.state_from_fen(env, game.tags["FEN"])
    else:
        state = env.reset(jax.random.key(0))
    actions, states = records.replay_moves(
        env,
        state,
        game.moves,
        lambda state, move, last: notation.parse_move(env, state, move),
        mid_move=notation.mid_move,
    )
    return Replay(env, states[0], actions, states)
