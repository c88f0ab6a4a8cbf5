"""Shared pieces of the chess tests: one env and its jitted functions (compiled once per session),
random play recorded ply by ply, and an action encoding written from PettingZoo's description,
independent of the env's tables."""

from __future__ import annotations

import functools
from types import SimpleNamespace

import chess
import jax
import jax.numpy as jnp
import numpy as np

import jaxcheckers
from jaxcheckers.agents.random import random_legal_actions


@functools.cache
def env():
    return jaxcheckers.make("chess")


@functools.cache
def jitted_step():
    return jax.jit(env().step)


@functools.cache
def batched_play(plies: int):
    """jit: (states (B,…), key) -> (states, records): `plies` random plies, no auto-reset; a game
    that ended stays as it is. Records per ply (leading axis T, then B), the position *before*
    the ply and the action played."""
    e = env()

    def one(carry, _):
        states, key = carry
        key, pick = jax.random.split(key)
        actions = random_legal_actions(pick, states.legal_action_mask)
        record = dict(
            pieces=states.position.pieces,
            own=states.position.own,
            castling=states.position.castling,
            ep=states.position.ep,
            ep_legal=states.ep_legal,
            player=states.current_player,
            halfmove=states.halfmove_clock,
            fullmove=states.fullmove_number,
            bits=states.legal_action_bits,
            in_check=states.in_check,
            terminated=states.terminated,
            rewards=states.rewards,
            action=actions,
        )
        return (jax.vmap(e.step)(states, actions), key), record

    def run(states, key):
        return jax.lax.scan(one, (states, key), None, length=plies)

    return jax.jit(run)


def record_state(record: dict, t: int, g: int) -> SimpleNamespace:
    """A state-like object for `jaxcheckers.chess.fen.chess_fen` from ply t of game g."""
    position = SimpleNamespace(
        pieces=record["pieces"][t, g],
        own=record["own"][t, g],
        castling=record["castling"][t, g],
        ep=record["ep"][t, g],
    )
    return SimpleNamespace(
        env_id="chess",  # the FEN writer reads only a chess state
        position=position,
        current_player=record["player"][t, g],
        ep_legal=record["ep_legal"][t, g],
        halfmove_clock=record["halfmove"][t, g],
        fullmove_number=record["fullmove"][t, g],
        terminated=record["terminated"][t, g],
        truncated=False,
        legal_action_bits=record["bits"][t, g],
    )


def actions_of_bits(words: np.ndarray) -> set[int]:
    """The action ids of packed legal moves (action a is bit a % 32 of word a // 32)."""
    flat = np.unpackbits(np.asarray(words, "<u4").view(np.uint8), bitorder="little")
    return {int(i) for i in np.flatnonzero(flat)}


# -- PettingZoo's action encoding, rewritten from its description --------------------------------

_QUEEN = [(x, y) for x in (-1, 0, 1) for y in (-1, 0, 1) if (x, y) != (0, 0)]
_KNIGHT = [(x, y) for x in (-2, -1, 0, 1, 2) for y in (-2, -1, 0, 1, 2) if abs(x) + abs(y) == 3]


def encode(move: chess.Move, turn: bool) -> int:
    """The action id of a python-chess move with `turn` (chess.WHITE / BLACK) to move."""
    return _encode(move.from_square, move.to_square, move.promotion, turn)


@functools.cache  # the random-game tests encode millions of moves
def _encode(frm: int, to: int, promotion: int | None, turn: bool) -> int:
    if turn == chess.BLACK:
        frm, to = chess.square_mirror(frm), chess.square_mirror(to)
    fx, fy, tx, ty = frm % 8, frm // 8, to % 8, to // 8
    dx, dy = tx - fx, ty - fy
    if (dx, dy) in _KNIGHT:
        plane = 56 + _KNIGHT.index((dx, dy))
    elif promotion not in (None, chess.QUEEN):
        plane = 64 + 3 * (dx + 1) + [chess.KNIGHT, chess.BISHOP, chess.ROOK].index(promotion)
    else:
        distance = max(abs(dx), abs(dy))
        plane = (distance - 1) * 8 + _QUEEN.index((int(np.sign(dx)), int(np.sign(dy))))
    return (fx * 8 + fy) * 73 + plane


def pettingzoo_game_over(board: chess.Board, may_repeat: bool = True) -> tuple[bool, str | None]:
    """Whether PettingZoo's chess ends the game after the last push, and why.

    may_repeat: False when no position of the game has occurred twice yet, which rules out a
    threefold claim (python-chess's check of it, which tries every legal move, is the slow part).
    """
    if board.is_checkmate():
        return True, "checkmate"
    if not any(board.generate_legal_moves()):
        return True, "stalemate"
    if board.is_insufficient_material():
        return True, "insufficient_material"
    if board.can_claim_fifty_moves():
        return True, "fifty_moves"
    if may_repeat and board.can_claim_threefold_repetition():
        return True, "threefold_repetition"
    return False, None


def start_batch(batch: int):
    states = jax.vmap(env().reset)(jax.random.split(jax.random.key(0), batch))
    return states


def device_get(tree):
    return jax.tree.map(np.asarray, jax.device_get(tree))


__all__ = [
    "env",
    "jitted_step",
    "batched_play",
    "record_state",
    "actions_of_bits",
    "encode",
    "pettingzoo_game_over",
    "start_batch",
    "device_get",
    "jnp",
]
