"""Chess's entry in the game registry (`jaxcheckers.games`)."""

from __future__ import annotations

import jax
import numpy as np

from jaxcheckers.chess import features, pgn, san
from jaxcheckers.chess.env import Chess, ChessState, moves_of_the_position, state_from_fen
from jaxcheckers.chess.fen import chess_fen
from jaxcheckers.chess.pictures import position_rgb
from jaxcheckers.chess.render import render
from jaxcheckers.games import Adapters, Defaults, Drawing, GameAgent, GameSpec, Notation

_OPTIONS = ("max_steps", "insufficient_material", "threefold_repetition", "fifty_move_rule")


def start(start, env: Chess) -> ChessState:
    """A FEN string, or an unbatched ChessState of this env."""
    if isinstance(start, str):
        options = {name: getattr(env, name) for name in (*_OPTIONS, "history")}
        return jax.device_get(state_from_fen(start, **options))
    if not isinstance(start, env.state_type) or np.shape(start.current_player) != ():
        raise ValueError(
            "options['start'] must be a FEN string or an unbatched ChessState of this env"
        )
    return start


HELP = "type a move like e4, Nf3, O-O, exd5 or e8=Q (SAN) or e2e4, e7e8n (UCI)"


def parse_move(env: Chess, state: ChessState, text: str) -> list[int]:
    """The action of a move typed in SAN or UCI; ValueError with a short reason."""
    return [san.read_move(env, state, text)]


def legal_moves_text(env: Chess, state: ChessState) -> str:
    moves = sorted(san.legal_moves(env, state), key=lambda m: m.san)
    return "legal moves: " + ", ".join(f"{m.san} ({m.uci})" for m in moves)


# Its agent, the module imported when the agent is first asked for.
def alphabeta(argument: str, env: Chess):
    from jaxcheckers.chess import alphabeta

    return alphabeta.from_spec(argument, env)


def alphabeta_values(argument: str, env: Chess):
    from jaxcheckers.chess import alphabeta

    return alphabeta.values_from_spec(argument, env)


AGENTS = {
    "alphabeta": GameAgent(
        alphabeta,
        "alphabeta[:DEPTH] alpha-beta minimax to DEPTH plies, material evaluation "
        "(default 2, at most 4)",
        move_values=alphabeta_values,
    ),
}


# chess_v6 observes the (8, 8, 111) stack and never truncates (its games end by the draw rules,
# the fifty-move rule bounding their length); its observation Box is bool.
SPEC = GameSpec(
    name="chess",
    make=Chess,
    players=("white", "black"),
    drawing=Drawing(
        text=render,
        rgb=position_rgb,  # drawn by matplotlib (its font has the chess glyphs)
    ),
    notation=Notation(
        from_fen=state_from_fen,
        to_fen=chess_fen,
        parse_move=parse_move,
        move_name=san.move_name,
        legal_moves_text=legal_moves_text,
        move_help=HELP,
        record=pgn.DIALECT,
    ),
    adapters=Adapters(
        observation_dtype=np.bool_,
        pettingzoo_name="chess_v6",
        pettingzoo_defaults={"history": True, "max_steps": None},
        start=start,
        moves_of_the_position=moves_of_the_position,
    ),
    tactical_inputs=features.tactical_inputs,
    agents=AGENTS,
    defaults=Defaults(
        # A person plays white against alpha-beta searching 2 plies (about a second a move).
        seats=("human", "alphabeta:2"),
        perft_depth=4,
        scored_against=("random", "alphabeta:1", "alphabeta:2"),
    ),
)
