"""Draughts' entry in the game registry (`jaxcheckers.games`)."""

from __future__ import annotations

import numpy as np

from jaxcheckers.draughts import drawing, fen, notation, pdn
from jaxcheckers.draughts.env import Draughts, DraughtsState
from jaxcheckers.games import Adapters, Defaults, Drawing, GameAgent, GameSpec, Notation


def from_fen(text: str, **options) -> DraughtsState:
    """The position of a PDN FEN (`W:W31-50:B1-20`) on the env `options` build."""
    return fen.state_from_fen(Draughts(**options), text)


def start(start, env: Draughts) -> DraughtsState:
    """A PDN FEN string, or an unbatched DraughtsState of this env's variant."""
    if isinstance(start, str):
        return fen.state_from_fen(env, start)
    if not isinstance(start, env.state_type) or np.shape(start.board) != (env.layout.squares,):
        raise ValueError(
            "options['start'] must be a FEN string or an unbatched DraughtsState of this variant"
        )
    return start


def alphabeta(argument: str, env: Draughts):
    from jaxcheckers.draughts import alphabeta  # when the agent is first asked for

    return alphabeta.from_spec(argument, env)


def alphabeta_values(argument: str, env: Draughts):
    from jaxcheckers.draughts import alphabeta

    return alphabeta.values_from_spec(argument, env)


AGENTS = {
    "alphabeta": GameAgent(
        alphabeta,
        "alphabeta[:DEPTH] alpha-beta minimax to DEPTH hops, men 1 and kings 3 (draughts; "
        "default 3, at most 6)",
        move_values=alphabeta_values,
    ),
}


def move_perft(env: Draughts, state: DraughtsState, depth: int) -> int:
    """Whole moves `depth` deep from `state` (at the start of a move), each once whatever its
    route: the counts the draughts literature publishes (`draughts.perft`)."""
    from jaxcheckers.draughts.perft import perft

    if int(state.jumper) >= 0:
        raise ValueError("draughts' perft counts from the start of a move, not mid-capture")
    return perft(depth, env.variant, np.asarray(state.board))


SPEC = GameSpec(
    name="draughts",
    make=Draughts,
    players=("white", "black"),
    drawing=Drawing(
        text=notation.text,
        rgb=drawing.state_rgb,
        terminal=notation.board_lines,
    ),
    notation=Notation(
        from_fen=from_fen,
        to_fen=fen.state_to_fen,
        parse_move=notation.parse_move,
        move_name=notation.move_name,
        legal_moves_text=notation.legal_moves_text,
        move_help=notation.HELP,
        mid_move=notation.mid_move,
        move_perft=move_perft,
        record=pdn.DIALECT,
    ),
    adapters=Adapters(
        start=start,
    ),
    agents=AGENTS,
    defaults=Defaults(
        seats=("human", "alphabeta:3"),
        perft_depth=4,
        scored_against=("random", "alphabeta:3"),
    ),
)
