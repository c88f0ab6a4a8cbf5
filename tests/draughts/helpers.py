"""Random-game positions of the draughts env, and their moves as the references write them."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from jaxcheckers.core import step_autoreset
from jaxcheckers.draughts import moves, rules
from jaxcheckers.draughts.env import Draughts
from tests.draughts import reference

FAST_SAMPLE = (8, 100, 1)  # games, hops, seed: the random positions the fast tests share


@functools.cache
def _player(env, games: int, steps: int):
    def one_step(carry, key):
        state = carry
        pick, again = jax.random.split(key)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        action = jax.random.categorical(pick, logits)
        keys = jax.random.split(again, games)
        stepped = jax.vmap(lambda s, a, k: step_autoreset(env, s, a, k))(state, action, keys)
        return stepped.state, state

    @jax.jit
    def play(key):
        start, run = jax.random.split(key)
        first = jax.vmap(env.reset)(jax.random.split(start, games))
        _, seen = jax.lax.scan(one_step, first, jax.random.split(run, steps))
        return seen

    return play


@functools.cache
def random_states(variant: str, games: int, steps: int, seed: int = 0):
    """The live states of `games` random games of `variant` played `steps` hops each (restarted
    as they end), as host arrays with one leading axis; computed once per process."""
    env = Draughts(variant=variant)
    seen = jax.device_get(_player(env, games, steps)(jax.random.key(seed)))
    flat = jax.tree.map(lambda x: x.reshape(-1, *x.shape[2:]), seen)
    live = ~(flat.terminated | flat.truncated)
    return jax.tree.map(lambda x: x[live], flat)


def crowded_boards(variant: str, count: int, seed: int) -> np.ndarray:
    """int8 (count, S): random boards, White to move, three squares in five taken by men and
    kings of both sides (no man on the row it would be crowned on). Random play rarely reaches
    captures of several pieces with a choice of first hops, where the capture search works;
    these boards are full of them. Each side has at most the pieces it starts with."""
    lay = rules.layout(variant)
    rng = np.random.default_rng(seed)
    kinds = np.array([0, 1, 2, -1, -2], np.int8)
    boards = rng.choice(kinds, size=(count, lay.squares), p=[0.4, 0.2, 0.1, 0.2, 0.1])
    for row, man in ((0, 1), (lay.n - 1, -1)):
        on_row = boards[:, lay.row == row]
        boards[:, lay.row == row] = np.where(on_row == man, 0, on_row)
    for board in boards:  # no side with more pieces than it starts with
        for side in (1, -1):
            mine = np.flatnonzero(np.sign(board) == side)
            board[rng.permutation(mine)[lay.men_per_side :]] = 0
    return boards


def white_frame(board, taken, jumper, player):
    """The absolute board, taken squares and jumper (FMJD numbers) of one state."""
    squares = len(board)
    if player == 1:
        board, taken = -board[::-1], taken[::-1]
        jumper = squares - 1 - jumper if jumper >= 0 else jumper
    return board, [int(s) + 1 for s in np.flatnonzero(taken)], (jumper + 1 if jumper >= 0 else None)


def reference_hops(board, taken, jumper, player, variant) -> set[tuple[int, int]]:
    """(start, landing) of the legal hops, by the reference generator."""
    absolute, taken_numbers, jumper_number = white_frame(board, taken, jumper, player)
    pieces = reference.pieces_of(absolute)
    found = reference.routes(pieces, player == 0, variant, jumper_number, taken_numbers)
    at = jumper_number
    return {(start if at is None else at, path[0]) for start, path, _, _ in found}


def env_hops(mask, player, lay: rules.Layout) -> set[tuple[int, int]]:
    """(start, landing) of the hops a mask offers, as FMJD numbers."""
    out = set()
    for action in np.flatnonzero(mask):
        direction, distance, square = rules.hop_of(int(action), lay)
        land = int(lay.ray[square, direction, distance - 1])
        out.add(_numbers(square, player, lay) + _numbers(land, player, lay))
    return out


def _numbers(square, player, lay):
    return (square + 1,) if player == 0 else (lay.squares - square,)


def whole_moves_of(moves, index, player, lay: rules.Layout) -> set[tuple]:
    """The whole moves of position `index` in a batch of `moves.Moves` (host arrays), as
    (start, end, frozenset(taken)) in FMJD numbers."""
    out = set()
    for k in np.flatnonzero(moves.valid[index]):
        words = np.asarray(moves.taken[index, k], np.uint64)
        bits = (words[:, None] >> np.arange(32, dtype=np.uint64)) & 1
        taken = np.flatnonzero(bits.reshape(-1)[: lay.squares])
        start = _numbers(int(moves.origin[index, k]), player, lay)[0]
        end = _numbers(int(moves.square[index, k]), player, lay)[0]
        out.add((start, end, frozenset(_numbers(int(t), player, lay)[0] for t in taken)))
    return out


CAPACITY = 64  # whole moves a position (and capture-search nodes a level) in the tests


@functools.cache
def _generator(variant: str):
    lay = rules.layout(variant)
    return jax.jit(jax.vmap(lambda board: moves.whole_moves(board, lay, CAPACITY)))


def whole_moves(variant: str, boards) -> moves.Moves:
    """`moves.whole_moves` of a batch of boards, as host arrays (compiled once per variant)."""
    return jax.device_get(_generator(variant)(boards))
