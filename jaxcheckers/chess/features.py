"""Attack maps of a chess observation: which squares each side's pieces attack, what hangs, where
a check can be given and where the kings can go.

A network input for a tactical MLP over chess (the chess counterpart of `checkers.features`).
Everything is read off the (…, 8, 8, 20) observation (`chess_utils.get_observation`'s planes, in
the mover's frame: row 0 is the mover's eighth rank, the mover's pawns move towards row 0) with
fixed shapes and plain array shifts, so it runs inside `jit` on any device. The observation
already holds the position; these maps show a policy network the patterns (attacker, victim,
defender; checking squares; the king's flight squares) that an MLP over the piece planes would
otherwise have to learn square by square.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

__all__ = ["NUM_FEATURE_PLANES", "attack_maps", "tactical_inputs"]

OWN, OPP = 7, 13  # first piece plane of each side: pawn, knight, bishop, rook, queen, king
VALUES = (1.0, 3.0, 3.0, 5.0, 9.0, 100.0)  # the king's attacker value: last of all
_KNIGHT = ((-2, -1), (-2, 1), (-1, -2), (-1, 2), (1, -2), (1, 2), (2, -1), (2, 1))
_KING = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))
_DIAGONAL = ((-1, -1), (-1, 1), (1, -1), (1, 1))
_STRAIGHT = ((-1, 0), (1, 0), (0, -1), (0, 1))
NUM_FEATURE_PLANES = 24


def _shift(grid: jax.Array, dr: int, dc: int) -> jax.Array:
    """grid'[r, c] = grid[r - dr, c - dc] over the last two axes: every piece moved by (dr, dc),
    what leaves the board dropped."""
    padded = jnp.pad(grid, [(0, 0)] * (grid.ndim - 2) + [(2, 2), (2, 2)])
    return padded[..., 2 - dr : 10 - dr, 2 - dc : 10 - dc]


def _leaps(pieces: jax.Array, steps) -> jax.Array:
    """int32: per square, how many of `pieces` attack it with one of `steps`."""
    return sum(_shift(pieces, dr, dc).astype(jnp.int32) for dr, dc in steps)


def _slides(pieces: jax.Array, empty: jax.Array, steps) -> jax.Array:
    """int32: per square, how many directions of `steps` a piece of `pieces` attacks it along
    (stopping at the first occupied square, which is attacked)."""
    total = 0
    for dr, dc in steps:
        ray = _shift(pieces, dr, dc)
        seen = ray
        for _ in range(6):
            ray = _shift(ray & empty, dr, dc)
            seen = seen | ray
        total = total + seen.astype(jnp.int32)
    return total


def _attacks(pieces, empty, pawn_row_step: int) -> list[jax.Array]:
    """int32 attack counts of one side's (pawn, knight, bishop, rook, queen, king) planes."""
    pawn, knight, bishop, rook, queen, king = pieces
    return [
        _leaps(pawn, ((pawn_row_step, -1), (pawn_row_step, 1))),
        _leaps(knight, _KNIGHT),
        _slides(bishop, empty, _DIAGONAL),
        _slides(rook, empty, _STRAIGHT),
        _slides(queen, empty, _DIAGONAL + _STRAIGHT),
        _leaps(king, _KING),
    ]


def _least_attacker(counts: list[jax.Array]) -> jax.Array:
    """float32: the value of the cheapest piece attacking each square, 1000 where none does."""
    least = jnp.full(counts[0].shape, 1000.0, jnp.float32)
    for value, count in zip(reversed(VALUES), reversed(counts), strict=True):
        least = jnp.where(count > 0, value, least)
    return least


def _piece_value(pieces: list[jax.Array]) -> jax.Array:
    """float32: the value of the piece on each square (0 where empty)."""
    return sum(p.astype(jnp.float32) * v for p, v in zip(pieces, VALUES, strict=True))


def attack_maps(observation: jax.Array) -> jax.Array:
    """float32 (…, 8, 8, NUM_FEATURE_PLANES) of a (…, 8, 8, 20) chess observation:

    0–5.   squares the mover's pawns, knights, bishops, rooks, queens, king attack (counts);
    6–11.  the same for the opponent's pieces;
    12–13. all the mover's / the opponent's attackers of each square, divided by 4;
    14.    the mover's pieces en prise: attacked, and undefended or attacked by a cheaper piece;
    15.    the opponent's pieces en prise (the mover can win material there);
    16.    the value of the mover's piece en prise (14 × value / 9);
    17.    the value of the opponent's piece en prise (15 × value / 9);
    18–21. squares from which a mover's pawn, knight, bishop, rook would check the opponent's
           king (the queen's: 20 | 21);
    22.    the opponent king's flight squares (empty or the mover's, not attacked by the mover);
    23.    the mover king's flight squares.
    """
    planes = jnp.moveaxis(observation.astype(bool), -1, 0)  # (20, …, 8, 8)
    own = [planes[OWN + i] for i in range(6)]
    opp = [planes[OPP + i] for i in range(6)]
    # PettingZoo shows the opponent's pawn that just made a double push on the mover's eighth
    # rank (row 0), where no opponent pawn can stand; put it back on row 3 (its real square).
    ghost = opp[0][..., 0, :]
    opp[0] = opp[0].at[..., 0, :].set(False).at[..., 3, :].set(opp[0][..., 3, :] | ghost)
    own_all = own[0] | own[1] | own[2] | own[3] | own[4] | own[5]
    opp_all = opp[0] | opp[1] | opp[2] | opp[3] | opp[4] | opp[5]
    empty = ~(own_all | opp_all)

    own_attacks = _attacks(own, empty, -1)  # the mover's pawns move towards row 0
    opp_attacks = _attacks(opp, empty, 1)
    own_total = sum(own_attacks)
    opp_total = sum(opp_attacks)

    own_value = _piece_value(own)
    opp_value = _piece_value(opp)
    own_hanging = (
        own_all
        & ~own[5]
        & (opp_total > 0)
        & ((own_total == 0) | (_least_attacker(opp_attacks) < own_value))
    )
    opp_hanging = (
        opp_all
        & ~opp[5]
        & (own_total > 0)
        & ((opp_total == 0) | (_least_attacker(own_attacks) < opp_value))
    )

    king = opp[5]
    checks = [
        _leaps(king, ((1, -1), (1, 1))) > 0,  # a mover's pawn there attacks (r - 1, c ± 1)
        _leaps(king, _KNIGHT) > 0,
        _slides(king, empty, _DIAGONAL) > 0,
        _slides(king, empty, _STRAIGHT) > 0,
    ]
    # Flight squares: the king's own attackers of the board with the king itself lifted off, so
    # that a slider's ray through the king counts (a king cannot step back along a check).
    opp_flight = (_leaps(opp[5], _KING) > 0) & ~opp_all
    own_through = _attacks(own, empty | opp[5], -1)
    opp_flight = opp_flight & (sum(own_through) == 0)
    own_flight = (_leaps(own[5], _KING) > 0) & ~own_all
    opp_through = _attacks(opp, empty | own[5], 1)
    own_flight = own_flight & (sum(opp_through) == 0)

    maps = [a.astype(jnp.float32) for a in own_attacks + opp_attacks]
    maps += [own_total.astype(jnp.float32) / 4.0, opp_total.astype(jnp.float32) / 4.0]
    maps += [own_hanging.astype(jnp.float32), opp_hanging.astype(jnp.float32)]
    maps += [own_hanging * own_value / 9.0, opp_hanging * opp_value / 9.0]
    maps += [c.astype(jnp.float32) for c in checks]
    maps += [opp_flight.astype(jnp.float32), own_flight.astype(jnp.float32)]
    return jnp.stack(maps, axis=-1)


def tactical_inputs(observation: jax.Array) -> jax.Array:
    """float32 [B, 8 * 8 * (20 + NUM_FEATURE_PLANES)]: the observation's planes and the attack
    maps, flattened (the input of a tactical MLP)."""
    x = jnp.concatenate([observation.astype(jnp.float32), attack_maps(observation)], axis=-1)
    return x.reshape(x.shape[0], -1)
