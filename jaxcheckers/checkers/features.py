"""Attack maps of a checkers observation: which pieces and squares a capture threatens now.

A network input for the tactical MLP (`agents.networks`, network "mlp-tactical"). Each map is one
hop of the capture rule read off the board as it stands (no move is made): they show a policy
network the pattern "attacker, victim, empty landing square" that a plain MLP over the piece
planes must otherwise learn square by square.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxcheckers.checkers import bitboard as bb

__all__ = ["attack_maps", "tactical_inputs"]

# (row, column) steps of the four directions; the mover's men go down (row + 1), the opponent's up.
_DIRECTIONS = ((-1, -1), (-1, 1), (1, -1), (1, 1))


def _at(grid: jax.Array, dr: int, dc: int) -> jax.Array:
    """grid'[r, c] = grid[r + dr, c + dc] over the last two axes (False off the board)."""
    n = grid.shape[-1]
    padded = jnp.pad(grid, [(0, 0)] * (grid.ndim - 2) + [(1, 1), (1, 1)])
    return padded[..., 1 + dr : 1 + dr + n, 1 + dc : 1 + dc + n]


def _capturable(targets, men, kings, landing, forward: int) -> jax.Array:
    """bool: squares of `targets` that a piece of men/kings could jump (landing on `landing`)."""
    hits = jnp.zeros_like(targets)
    for dr, dc in _DIRECTIONS:
        attackers = kings | men if dr == forward else kings
        hits |= _at(attackers, -dr, -dc) & _at(landing, dr, dc)
    return targets & hits


def attack_maps(observation: jax.Array) -> jax.Array:
    """bool (…, n, n, 5) of (…, n, n, 4) piece planes (mover's frame):

    0. the mover's pieces the opponent can capture now;
    1. empty squares where a piece of the mover's would be capturable;
    2. empty squares that would be capturable if the mover's piece behind them moved (moving
       that piece onto them, for one);
    3. the opponent's pieces the mover can capture now;
    4. empty squares where a piece of the opponent's would be capturable.
    """
    planes = jnp.moveaxis(observation.astype(bool), -1, 0)
    own_men, own_kings, opp_men, opp_kings = planes
    own, opp = own_men | own_kings, opp_men | opp_kings
    empty = ~(own | opp)
    maps = (
        _capturable(own, opp_men, opp_kings, empty, -1),
        _capturable(empty, opp_men, opp_kings, empty, -1),
        _capturable(empty, opp_men, opp_kings, own, -1),
        _capturable(opp, own_men, own_kings, empty, 1),
        _capturable(empty, own_men, own_kings, empty, 1),
    )
    return jnp.stack(maps, axis=-1)


def tactical_inputs(observation: jax.Array) -> jax.Array:
    """float32 (…, n²/2 · 9): the piece planes and attack maps on the dark squares only, square
    by square (the dark squares in row-major order, the nine planes of each together)."""
    n = observation.shape[-2]
    grids = jnp.concatenate([observation.astype(bool), attack_maps(observation)], axis=-1)
    planes = jnp.moveaxis(grids, -1, -3).reshape(*grids.shape[:-3], grids.shape[-1], n * n)
    on_dark = jnp.swapaxes(bb.from_grid(planes, n), -1, -2)
    return on_dark.reshape(*observation.shape[:-3], -1).astype(jnp.float32)
