"""Attack maps of a chess observation: which squares each side's pieces attack, what hangs, where
a check can be given and where the kings can go.

A network input for a tactical MLP over chess (the chess counterpart of `checkers.features`).
Everything is read off the (…, 8, 8, 20) observation (`chess_utils.get_observation`'s planes, in
the mover's frame: row 0 is the mover's eighth rank, the mover's pawns move towards row 0) with
fixed shapes, as 64-bit bitboards (`chess.bitboard`, Kogge–Stone slides), so it runs inside
`jit` on any device. The observation already holds the position; these maps show a policy network
the patterns (attacker, victim, defender; checking squares; the king's flight squares) that an
MLP over the piece planes would otherwise have to learn square by square.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxcheckers.chess import bitboard as bb
from jaxcheckers.chess.rules import KDX, KDY, ORTHO, QDX, QDY

__all__ = ["NUM_FEATURE_PLANES", "attack_maps", "tactical_inputs"]

OWN, OPP = 7, 13  # first piece plane of each side: pawn, knight, bishop, rook, queen, king
VALUES = (1.0, 3.0, 3.0, 5.0, 9.0, 100.0)  # the king's attacker value: last of all
NUM_FEATURE_PLANES = 24
# Bit (7 - row) * 8 + column of a bitboard is square (row, column) of the observation.
_WEIGHTS = np.uint64(1) << ((7 - np.arange(8))[:, None] * 8 + np.arange(8)).astype(np.uint64)


def _boards(planes: jax.Array) -> bb.BB:
    """uint64 (…, P) bitboards of bool (…, 8, 8, P) planes."""
    x = planes.astype(jnp.uint64) * jnp.asarray(_WEIGHTS)[:, :, None]
    return bb.BB(x.sum(axis=(-3, -2), dtype=jnp.uint64))


def _squares(a: bb.BB) -> jax.Array:
    """int32 (…, 8, 8): the bits of boards (…) as the observation's squares."""
    bits = (a.x[..., None] >> jnp.arange(64, dtype=jnp.uint64)) & jnp.uint64(1)
    bits = bits.astype(jnp.int32).reshape(*a.x.shape, 8, 8)  # (…, rank, file)
    return jnp.flip(bits, axis=-2)


def _counts(a: bb.BB) -> jax.Array:
    """int32 (…, 8, 8): per square, how many boards along the last axis of `a` hold it."""
    return _squares(a).sum(axis=-3)


def _expand(a: bb.BB, n: int = 1) -> bb.BB:
    return bb.BB(jnp.broadcast_to(a.x[..., None], a.x.shape + (n,)))


@bb.wide
def _maps(observation: jax.Array) -> list[jax.Array]:
    planes = _boards(observation.astype(bool))
    own = [bb.BB(planes.x[..., OWN + i]) for i in range(6)]
    opp = [bb.BB(planes.x[..., OPP + i]) for i in range(6)]
    # PettingZoo shows the opponent's pawn that just made a double push on the mover's eighth
    # rank, where no opponent pawn can stand; put it back on its real square, four ranks lower.
    rank8 = bb.const(bb.rank_mask(7))
    ghost = opp[0] & rank8
    opp[0] = (opp[0] & ~rank8) | bb.shift(ghost, -32)
    own_all = own[0] | own[1] | own[2] | own[3] | own[4] | own[5]
    opp_all = opp[0] | opp[1] | opp[2] | opp[3] | opp[4] | opp[5]
    empty = ~(own_all | opp_all)

    # Slides along the 8 queen directions, all sets at once, channels: 0 own B/R (by direction),
    # 1 own Q, 2 opp B/R, 3 opp Q, 4 opp K (squares checking it), then with the defending king
    # lifted off the board (for its flight squares): 5 own B/R, 6 own Q, 7 opp B/R, 8 opp Q.
    ortho = jnp.asarray(ORTHO)

    def by_line(bishops, rooks):  # (…, 8): each direction's sliders
        return bb.BB(jnp.where(ortho, rooks.x[..., None], bishops.x[..., None]))

    sets = [by_line(own[2], own[3]), _expand(own[4], 8), by_line(opp[2], opp[3])]
    sets += [_expand(opp[4], 8), _expand(opp[5], 8)]
    sets += sets[:4]
    gen = bb.BB(jnp.stack([s.x for s in sets], axis=-2))  # (…, 9, 8)
    through_opp = empty | opp[5]
    through_own = empty | own[5]
    empties = bb.BB(jnp.stack([empty.x] * 5 + [through_opp.x] * 2 + [through_own.x] * 2, -1))
    rays = bb.slides(gen, _expand(empties, 8), QDX, QDY)  # (…, 9, 8)
    line = [bb.BB(rays.x[..., k, :]) for k in range(9)]  # (…, 8) each
    diag_mask = jnp.asarray(~ORTHO)

    def part(board, mask):  # the directions of `mask` only
        return bb.BB(jnp.where(mask, board.x, jnp.uint64(0)))

    own_pawn = bb.BB(jnp.stack([bb.step(own[0], -1, 1).x, bb.step(own[0], 1, 1).x], -1))
    opp_pawn = bb.BB(jnp.stack([bb.step(opp[0], -1, -1).x, bb.step(opp[0], 1, -1).x], -1))
    own_knight = bb.steps(_expand(own[1]), KDX, KDY)
    opp_knight = bb.steps(_expand(opp[1]), KDX, KDY)
    own_king = bb.steps(_expand(own[5]), QDX, QDY)
    opp_king = bb.steps(_expand(opp[5]), QDX, QDY)

    u = bb.union
    own_types = [
        u(own_pawn),
        u(own_knight),
        u(part(line[0], diag_mask)),
        u(part(line[0], ortho)),
        u(line[1]),
        u(own_king),
    ]
    opp_types = [
        u(opp_pawn),
        u(opp_knight),
        u(part(line[2], diag_mask)),
        u(part(line[2], ortho)),
        u(line[3]),
        u(opp_king),
    ]
    own_any = own_types[0] | own_types[1] | own_types[2] | own_types[3] | own_types[4]
    own_any = own_any | own_types[5]
    opp_any = opp_types[0] | opp_types[1] | opp_types[2] | opp_types[3] | opp_types[4]
    opp_any = opp_any | opp_types[5]
    own_through = own_types[0] | own_types[1] | own_types[5] | u(line[5]) | u(line[6])
    opp_through = opp_types[0] | opp_types[1] | opp_types[5] | u(line[7]) | u(line[8])

    def cheaper(pieces, by):  # pieces attacked by a cheaper attacker (`by`: per-type attacks)
        minor = (pieces[1] | pieces[2]) & by[0]
        rook = pieces[3] & (by[0] | by[1] | by[2])
        queen = pieces[4] & (by[0] | by[1] | by[2] | by[3])
        return minor | rook | queen

    own_hanging = (own_all & ~own[5]) & opp_any & (~own_any | cheaper(own, opp_types))
    opp_hanging = (opp_all & ~opp[5]) & own_any & (~opp_any | cheaper(opp, own_types))
    checks = [
        bb.step(opp[5], -1, -1) | bb.step(opp[5], 1, -1),  # a mover's pawn there checks
        u(bb.steps(_expand(opp[5]), KDX, KDY)),
        u(part(line[4], diag_mask)),
        u(part(line[4], ortho)),
    ]
    opp_flight = u(opp_king) & ~opp_all & ~own_through
    own_flight = u(own_king) & ~own_all & ~opp_through
    boards = own_types + opp_types + [own_hanging, opp_hanging] + checks + [opp_flight, own_flight]
    sq = _squares(bb.BB(jnp.stack([b.x for b in boards], axis=-1)))  # (…, 22, 8, 8)
    sq = jnp.moveaxis(sq, -3, -1).astype(jnp.float32)  # (…, 8, 8, 22)
    pieces = observation.astype(jnp.float32)
    values = jnp.asarray(VALUES[:5], jnp.float32) / 9.0
    own_value = (pieces[..., OWN : OWN + 5] * values).sum(-1)
    opp_value = (pieces[..., OPP : OPP + 5] * values).sum(-1)
    own_total = sq[..., 0:6].sum(-1) / 4.0
    opp_total = sq[..., 6:12].sum(-1) / 4.0
    extra = [own_total, opp_total, sq[..., 12], sq[..., 13]]
    extra += [sq[..., 12] * own_value, sq[..., 13] * opp_value]
    return jnp.concatenate([sq[..., :12], jnp.stack(extra, -1), sq[..., 14:]], axis=-1)


def attack_maps(observation: jax.Array) -> jax.Array:
    """float32 (…, 8, 8, NUM_FEATURE_PLANES) of a (…, 8, 8, 20) chess observation:

    0–5.   squares the mover's pawns, knights, bishops, rooks, queens, king attack;
    6–11.  the same for the opponent's pieces;
    12–13. how many of the mover's / the opponent's piece kinds attack each square, divided by 4;
    14.    the mover's pieces en prise: attacked, and undefended or attacked by a cheaper piece;
    15.    the opponent's pieces en prise (the mover can win material there);
    16.    the value of the mover's piece en prise (14 × value / 9; the ghost pawn's 0);
    17.    the value of the opponent's piece en prise (15 × value / 9);
    18–21. squares from which a mover's pawn, knight, bishop, rook would check the opponent's
           king (the queen's: 20 | 21);
    22.    the opponent king's flight squares (empty or the mover's, not attacked by the mover);
    23.    the mover king's flight squares.
    """
    return _maps(observation)


def tactical_inputs(observation: jax.Array) -> jax.Array:
    """float32 [B, 8 * 8 * (20 + NUM_FEATURE_PLANES)]: the observation's planes and the attack
    maps, flattened (the input of a tactical MLP)."""
    x = jnp.concatenate([observation.astype(jnp.float32), attack_maps(observation)], axis=-1)
    return x.reshape(x.shape[0], -1)
