"""Checkers' entry in the game registry (`jaxcheckers.games`)."""

from __future__ import annotations

import jax
import numpy as np

from jaxcheckers.checkers import ballots, drawing, features, fen, frames, notation, pdn, render
from jaxcheckers.checkers.env import Checkers, CheckersState, checkers_with_rule_set
from jaxcheckers.checkers.game import Game
from jaxcheckers.games import Adapters, Defaults, Drawing, GameAgent, GameSpec, Notation


def start(start, env: Checkers) -> CheckersState:
    """A FEN string, a `Game` of the same rules, or an unbatched `CheckersState` of this env."""
    if isinstance(start, str):
        return jax.device_get(fen.state_from_fen(env, start))
    if isinstance(getattr(start, "state", None), CheckersState):  # a Game (checkers.game)
        if repr(start.env) != repr(env):
            raise ValueError(f"options['start'] is a game of {start.env!r}, not {env!r}")
        return start.state
    if not isinstance(start, CheckersState) or np.shape(start.board) != (env.board_size**2,):
        raise ValueError(
            "options['start'] must be a FEN string, a Game or an unbatched CheckersState of this "
            "env"
        )
    return start


def global_state(state: CheckersState) -> np.ndarray:
    """int8 (n, n, 5), absolute frame (black at the top): black men, black kings, white men,
    white kings, and a plane of ones when white is to move."""
    board = frames.absolute_board(state)
    to_move = np.full(board.shape, int(state.current_player), dtype=bool)
    planes = [board == 1, board == 2, board == -1, board == -2, to_move]
    return np.stack(planes, axis=-1).astype(np.int8)


def from_fen(text: str, **options) -> CheckersState:
    """The position of a checkers FEN (`B:W21-32:B1-12`) on the env `options` build."""
    return fen.state_from_fen(checkers_with_rule_set(**options), text)


# Its agents, each module imported when the agent is first asked for.
def alphabeta(argument: str, env: Checkers):
    from jaxcheckers.checkers import alphabeta

    return alphabeta.from_spec(argument, env)


def sarsa(argument: str, env: Checkers):
    from jaxcheckers.checkers import sarsa

    return sarsa.from_spec(argument, env)


AGENTS = {
    "alphabeta": GameAgent(
        alphabeta,
        "alphabeta[:DEPTH] alpha-beta minimax to DEPTH whole turns, material evaluation "
        "(default 3, at most 8)",
    ),
    "sarsa": GameAgent(
        sarsa, "sarsa:WEIGHTS the linear SARSA player with weights from a JSON file"
    ),
}


SPEC = GameSpec(
    name="checkers",
    make=checkers_with_rule_set,
    players=("black", "white"),
    size_option="board_size",
    drawing=Drawing(
        text=render.render_text,
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
        record=pdn.DIALECT,
    ),
    adapters=Adapters(
        observation_dtype=np.int8,
        pettingzoo_name="checkers_v3",
        start=start,
        global_state=global_state,
        global_state_shape=lambda env: (env.board_size, env.board_size, 5),
        game_object=Game,
    ),
    tactical_inputs=features.tactical_inputs,
    agents=AGENTS,
    openings={"ballots": ballots.deck},
    defaults=Defaults(
        # A person moves first, against alpha-beta searching 3 whole turns (about a second a move).
        seats=("human", "alphabeta:3"),
        perft_depth=7,
        scored_against=("random", "alphabeta:3", "alphabeta:5"),
    ),
)
