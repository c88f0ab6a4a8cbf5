"""Draughts' PDN game records read by an outside library: py-draughts (a test-only dependency)
replays each record we write, move by move, and reaches the position our env reached."""

from __future__ import annotations

import re

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


# -- reading -------------------------------------------------------------------------------------


def their_random_game(board_class, seed: int, plies: int = 90):
    """A py-draughts board after up to `plies` random moves (fewer where the game ends)."""
    import random

    board, rng = board_class(), random.Random(seed)
    for _ in range(plies):
        if not board.legal_moves or board.game_over:
            break
        board.push(rng.choice(board.legal_moves))
    return board


@pytest.mark.parametrize(
    "variant",
    ["international", *(pytest.param(v, marks=pytest.mark.slow) for v in ("brazilian", "russian"))],
)
def test_we_replay_py_draughts_records_to_its_position(variant):
    draughts = pytest.importorskip("draughts")
    spec = games.spec("draughts")
    squares = Draughts(variant=variant).layout.squares
    captures = 0
    for seed in range(3):
        theirs = their_random_game(getattr(draughts, BOARDS[variant]), seed)
        (game,) = pdn.parse_pdn(theirs.pdn)
        assert pdn.variant_of(game) == variant
        played = pdn.replay(game)
        captures += sum(move.count("x") >= 2 for move in game.moves)
        our_board, our_player = fen_to_board(spec.notation.to_fen(played.states[-1]), squares)
        their_board, their_player = fen_to_board(theirs.fen, squares)
        assert our_player == their_player and our_board.tolist() == their_board.tolist()
    assert captures > 0  # their records hold captures of several pieces


def test_our_records_read_back_to_the_same_game():
    env = Draughts()
    spec = games.spec("draughts")
    for seed in range(2):
        actions, final = random_game(env, seed)
        record = records.game_from_actions(pdn.DIALECT, env, env.init(jax.random.key(0)), actions)
        (game,) = pdn.parse_pdn(records.format_game(record))
        assert game.moves == record.moves and game.result == record.result
        played = pdn.replay(game, env)
        assert spec.notation.to_fen(played.states[-1]) == spec.notation.to_fen(final)
        assert len(played.actions) == len(actions)


def test_the_reader_takes_other_programs_forms_and_refuses_bad_records():
    text = """[GameType "20,W,10,10,N2,0"]
[FEN "W:W37:B32,22"]
1. 37x17 {two pieces, written as start and end} 1-0"""
    (game,) = pdn.parse_pdn(text)
    played = pdn.replay(game)
    assert game.result == "2-0" and int(played.states[-1].jumper) == -1
    assert spec_fen(played.states[-1]) == "B:W17:B" and len(played.actions) == 2
    for bad, word in [
        ('[GameType "21"]\n1. 32-28 *', "GameType '21'"),
        ("1. 31-22 *", "move 1 (31-22)"),
        ('[FEN "W:W37:B32,22"]\n1. 37x28 2. 28x17 *', "move 1 (37x28) stops"),
        ("1. 32-28 (19-23 *", "never closed"),
    ]:
        with pytest.raises(ValueError, match=re.escape(word)):
            [pdn.replay(game) for game in pdn.parse_pdn(bad)]
    with pytest.raises(ValueError, match="the env russian"):
        pdn.replay(pdn.parse_pdn("1. 32-28 *")[0], Draughts(variant="russian"))


def spec_fen(state) -> str:
    return games.spec("draughts").notation.to_fen(state)
