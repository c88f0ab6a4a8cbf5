"""Draughts' PDN game records read by an outside library: py-draughts (a test-only dependency)
replays each record we write, move by move, and reaches the position our env reached."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxcheckers import games, records
from jaxcheckers.core import compiled_step
from jaxcheckers.draughts import pdn
from jaxcheckers.draughts.env import Draughts
from jaxcheckers.draughts.fen import fen_to_board

BOARDS = {
    "international": "StandardBoard",
    "brazilian": "BrazilianBoard",
    "russian": "RussianBoard",
}
HOPS = 150  # a game stops at the first move boundary past this many hops, if it has not ended


def random_game(env, seed: int) -> tuple[list[int], object]:
    """(actions, last state) of a random game from the opening, ended or stopped between moves."""
    step = compiled_step(env)
    rng = np.random.default_rng(seed)
    state, actions = env.init(jax.random.key(0)), []
    while not bool(state.terminated) and (len(actions) < HOPS or int(state.jumper) >= 0):
        action = int(rng.choice(np.flatnonzero(np.asarray(state.legal_action_mask))))
        actions.append(action)
        state = step(state, jnp.int32(action))
    return actions, state


@pytest.mark.parametrize(
    "variant",
    ["international", *(pytest.param(v, marks=pytest.mark.slow) for v in ("brazilian", "russian"))],
)
def test_py_draughts_replays_our_records_to_the_same_position(variant):
    draughts = pytest.importorskip("draughts")
    env = Draughts(variant=variant)
    spec = games.spec("draughts")
    captures = 0
    for seed in range(2):
        actions, final = random_game(env, seed)
        record = records.game_from_actions(pdn.DIALECT, env, env.init(jax.random.key(0)), actions)
        assert record.tags["GameType"] == pdn.GAME_TYPES[variant]
        captures += sum(move.count("x") >= 2 for move in record.moves)  # two pieces or more
        theirs = getattr(draughts, BOARDS[variant]).from_pdn(records.format_game(record))
        their_board, their_player = fen_to_board(theirs.fen, env.layout.squares)
        our_board, our_player = fen_to_board(spec.notation.to_fen(final), env.layout.squares)
        assert their_player == our_player and their_board.tolist() == our_board.tolist()
    assert captures > 0  # the sample holds captures of several pieces, written as their paths
