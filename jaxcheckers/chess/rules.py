"""The rules of chess over bitboards, in the mover's frame: small pure functions.

A position is kept from the side to move's point of view (the board mirrored top to bottom when
black moves, colours named own/opponent), so that one move generator serves both sides and its
from-squares are PettingZoo's action squares directly. Squares are rank·8 + file of that frame.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxcheckers.chess import bitboard as bb
from jaxcheckers.chess import tables
from jaxcheckers.chess.bitboard import BB

PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = range(6)
ORTHOGONAL = ((-1, 0), (1, 0), (0, -1), (0, 1))
DIAGONAL = ((-1, -1), (-1, 1), (1, -1), (1, 1))
KING_STEPS = tables.QUEEN_DIRS
RANK_3, RANK_7 = bb.rank_mask(2), bb.rank_mask(6)
DARK_SQUARES = 0xAA55AA55AA55AA55


class Position(NamedTuple):
    """A position in the mover's frame."""

    pieces: jax.Array  # uint32 (6, 2)  pawns, knights, bishops, rooks, queens, kings (both sides)
    own: jax.Array  # uint32 (2,)  the side to move's pieces
    castling: (
        jax.Array
    )  # bool (4,)  own king side, own queen side, opponent's king side, queen side
    ep: jax.Array  # int32 ()  en-passant target square after a double push (rank 6), −1 if none


class Moves(NamedTuple):
    """What move generation finds out about a position."""

    bits: jax.Array  # uint32 (146,)  legal moves, plane-major: bit plane·64 + from-square
    in_check: jax.Array  # bool ()
    ep_legal: jax.Array  # bool ()  an en-passant capture is legal
    quiet: jax.Array  # bool ()  some legal move is neither a capture nor a pawn move


def piece_boards(position: Position) -> list[BB]:
    return [bb.of(position.pieces[i]) for i in range(6)]


QDX = np.array([d[0] for d in tables.QUEEN_DIRS])
QDY = np.array([d[1] for d in tables.QUEEN_DIRS])
QD = 8 * QDY + QDX
ORTHO = (QDX == 0) | (QDY == 0)  # per queen direction: a rook line (else a bishop line)
KDX = np.array([d[0] for d in tables.KNIGHT_DIRS])
KDY = np.array([d[1] for d in tables.KNIGHT_DIRS])
KD = 8 * KDY + KDX
DISTANCE = np.arange(1, 8)[:, None]  # (7, 1)


def _spread(a: BB, n: int = 8) -> BB:
    return bb.broadcast(a, a.x.shape + (n,))


def _expand(a: BB) -> BB:
    return BB(a.x[..., None])


def _knight_attacks(a: BB) -> BB:
    return bb.union(bb.steps(_expand(a), KDX, KDY))


def _king_attacks(a: BB) -> BB:
    return bb.union(bb.steps(_expand(a), QDX, QDY))


def _line_sliders(p: list[BB], mask: BB) -> BB:
    """(8,): per queen direction, the pieces in `mask` ((1,) or (8,)) that slide along it."""
    rooks = _expand(p[ROOK] | p[QUEEN]) & mask
    bishops = _expand(p[BISHOP] | p[QUEEN]) & mask
    return bb.where(jnp.asarray(ORTHO), rooks, bishops)


def attacked_by_opponent(p: list[BB], opp: BB, occupied: BB) -> BB:
    """The squares the opponent attacks, with `occupied` as the blockers."""
    pawns = p[PAWN] & opp
    att = bb.step(pawns, -1, -1) | bb.step(pawns, 1, -1)
    att = att | _knight_attacks(p[KNIGHT] & opp) | _king_attacks(p[KING] & opp)
    rays = bb.slides(_line_sliders(p, _expand(opp)), _expand(~occupied), QDX, QDY)
    return att | bb.union(rays)


def _king_attacked(p: list[BB], opp: BB, king: BB, occupied: BB) -> jax.Array:
    """bool: `king` is attacked by the opponent's pieces `opp` with blockers `occupied`."""
    hit = (_knight_attacks(king) & p[KNIGHT] & opp) | (
        (bb.step(king, -1, 1) | bb.step(king, 1, 1)) & p[PAWN] & opp
    )
    rays = bb.slides(_spread(king), _expand(~occupied), QDX, QDY) & _line_sliders(p, _expand(opp))
    return (hit | bb.union(rays)).any()


@bb.wide
def legal_moves(position: Position) -> Moves:
    """Every legal move of the side to move, as plane-major from-square bitboards."""
    with bb.runtime_one(position.ep):
        return _legal_moves(position)


def _legal_moves(position: Position) -> Moves:
    p = piece_boards(position)
    own = bb.of(position.own)
    occupied = p[0] | p[1] | p[2] | p[3] | p[4] | p[5]
    opp = occupied & ~own
    empty = ~occupied
    king = p[KING] & own
    p, own, occupied, opp, empty, king = bb.once((p, own, occupied, opp, empty, king))

    # Squares the opponent attacks, through our king (it cannot hide behind itself).
    attacked = bb.once(attacked_by_opponent(p, opp, occupied & ~king))
    in_check = (attacked & king).any()

    # Checkers, and pins along each direction from the king.
    sliders = _line_sliders(p, _expand(opp))  # (8,)
    ray = bb.slides(_spread(king), _expand(empty), QDX, QDY)
    checkers = (_knight_attacks(king) & p[KNIGHT] & opp) | (
        (bb.step(king, -1, 1) | bb.step(king, 1, 1)) & p[PAWN] & opp
    )
    checkers = checkers | bb.union(ray & sliders)
    ray, sliders, checkers = bb.once((ray, sliders, checkers))
    blocker = ray & _expand(own)
    beyond = bb.slides(_spread(king), _expand(empty) | blocker, QDX, QDY) & ~ray & sliders
    pinned_dir = bb.where(beyond.any(), blocker, bb.zero())  # (8,)
    pinned = bb.union(pinned_dir)
    line = pinned_dir | BB(pinned_dir.x[..., ::-1])  # d and −d
    movable = _expand(own) & ~(_expand(pinned) & ~line)  # (8,) free to move along d

    n_checkers = bb.popcount(checkers)
    between = _between(bb.lowest(king), bb.lowest(checkers))
    evasion = bb.where(n_checkers == 0, bb.const((1 << 64) - 1), checkers | between)
    evasion = bb.where(n_checkers >= 2, bb.zero(), evasion)
    target = ~own & evasion
    pinned, movable, evasion, target = bb.once((pinned, movable, evasion, target))

    # Sliding pieces: one plane per distance and direction.
    ray = _line_sliders(p, movable)  # (8,)
    found, quiet_found = [], []
    for distance in range(1, 8):
        ray = bb.steps(ray, QDX, QDY)
        reached = ray & _expand(target)
        found.append(bb.shift(reached, -QD * distance))
        quiet_found.append(bb.shift(reached & _expand(empty), -QD * distance))
        ray = bb.once(ray & _expand(empty))
    queen = BB(jnp.stack([f.x for f in found], -2))
    queen, quiet_found = bb.once((queen, quiet_found))
    quiet = bb.union(bb.union(BB(jnp.stack([f.x for f in quiet_found], -1))))

    # The king: one step to a square the opponent does not attack.
    reached = bb.steps(_spread(king), QDX, QDY) & _expand(~own & ~attacked)
    king_from = bb.shift(reached, -QD)  # (8,)
    quiet = quiet | bb.union(bb.shift(reached & _expand(empty), -QD))
    castling = position.castling
    free = ~in_check
    king_side = (
        castling[..., 0]
        & free
        & ~(occupied & bb.const(0x60)).any()
        & ~(attacked & bb.const(0x60)).any()
    )
    queen_side = (
        castling[..., 1]
        & free
        & ~(occupied & bb.const(0x0E)).any()
        & ~(attacked & bb.const(0x0C)).any()
    )
    e1 = bb.const(0x10)
    king_side_from = bb.where(king_side, e1, bb.zero())
    queen_side_from = bb.where(queen_side, e1, bb.zero())
    quiet = quiet | king_side_from | queen_side_from

    # Knights: a pinned knight cannot move.
    knights = _expand(p[KNIGHT] & own & ~pinned)
    reached = bb.steps(knights, KDX, KDY) & _expand(target)
    knight_planes = bb.shift(reached, -KD)  # (8,)
    quiet = quiet | bb.union(bb.shift(reached & _expand(empty), -KD))

    # Pawns: pushes, double pushes, captures, promotions (a queen by the queen plane).
    pawns = p[PAWN] & own
    rank7 = bb.const(RANK_7)
    up = tables.QUEEN_DIRS.index((0, 1))
    pushers = pawns & BB(movable.x[..., up])
    one = bb.step(pushers, 0, 1) & empty
    single = bb.shift(one & evasion, -8)
    double = bb.shift(bb.step(one & bb.const(RANK_3), 0, 1) & empty & evasion, -16)
    promotions = {0: single & rank7}

    ep_square = bb.square(position.ep)  # empty when ep = −1
    ep_victim = bb.shift(ep_square, -8)
    captures, ep_from = {}, {}
    for dx in (-1, 1):
        d = tables.QUEEN_DIRS.index((dx, 1))
        capturers = pawns & BB(movable.x[..., d])
        reached = bb.step(capturers, dx, 1)
        origins = bb.shift(reached & opp & target, -(8 + dx))
        ep_from[dx] = bb.shift(reached & ep_square, -(8 + dx))
        captures[d] = origins
        promotions[dx] = origins & rank7
    # En passant: played out on the board, then the king must not be attacked. One test serves
    # both capturers. A capturer pinned off its capture line is not in `movable`; one pinned
    # along it stays on the line. What the captured pawn's removal can open is seen with it
    # removed; a lone capturer's own departure matters only on the rank it shares with that pawn
    # (the one line through both), so it is removed too; with two capturers, the one that stays
    # still blocks that rank.
    both = ep_from[-1] | ep_from[1]
    leaving = bb.where(bb.popcount(both) == 1, both, bb.zero())
    after = (occupied & ~ep_victim & ~leaving) | ep_square
    ep_legal = both.any() & ~_king_attacked(p, opp & ~ep_victim, king, after)
    for dx in (-1, 1):
        d = tables.QUEEN_DIRS.index((dx, 1))
        captures[d] = captures[d] | bb.where(ep_legal, ep_from[dx], bb.zero())
    under = [promotions[dx] for dx in (-1, 0, 1) for _ in range(3)]  # 64 + 3·(dx + 1) + piece

    extra = {d: bb.zero() for d in range(16)}
    extra[up] = single
    extra[8 + up] = double
    for d, b in captures.items():
        extra[d] = extra[d] | b
    extra[8 + tables.QUEEN_DIRS.index((1, 0))] = king_side_from
    extra[8 + tables.QUEEN_DIRS.index((-1, 0))] = queen_side_from
    near = BB(jnp.stack([extra[i].x for i in range(16)], -1))
    near = near | BB(jnp.concatenate([king_from.x, jnp.zeros_like(king_from.x)], -1))

    # The 73 planes: queen planes (…, 7, 8) with the 16 near planes OR'ed in, knights, under.
    queen, near, knight_planes, under = bb.once((queen, near, knight_planes, under))
    x = queen.x.reshape(*queen.x.shape[:-2], 56)
    y = jnp.concatenate([near.x, jnp.zeros((*near.x.shape[:-1], 40), near.x.dtype)], -1)
    planes = BB(jnp.concatenate([x | y, knight_planes.x, jnp.stack([u.x for u in under], -1)], -1))
    bits = planes.stack().reshape(*planes.x.shape[:-1], 2 * tables.NUM_PLANES)
    return Moves(bits, in_check, ep_legal, quiet.any())


def action_order(planes: jax.Array) -> jax.Array:
    """uint32 (…, 146): the plane-major legal moves (`Moves.bits`) in PettingZoo's action order,
    bit a of word a // 32 (as `bits.pack_mask` packs the mask).

    A bit-matrix transpose (planes × squares to squares × planes) in word operations: planes
    0–63 as 32 × 32 blocks, each transposed in five rounds of masked swaps, planes 64–72 bit by
    bit; then each square's 73-bit row is laid into the stream (`tables.STREAM_*`). Unpacking
    this order is a shift per entry, where the plane-major order made every reader of the mask
    (a sampler packing it again) permute 4,672 entries one by one.
    """
    batch = planes.shape[:-1]
    words = planes.reshape(*batch, tables.NUM_PLANES, 2)  # plane, half of the board
    # (part, bit, half): bit i is plane 32·part + i on square 32·half + bit. Planes 0–63 fill
    # two blocks, transposed in rounds; the last nine planes are read bit by bit.
    full = _transpose32(words[..., :64, :].reshape(*batch, 2, 32, 2))
    squares = jnp.arange(32, dtype=jnp.uint32)[:, None]  # bit, (half)
    last = sum(
        ((words[..., 64 + i, None, :] >> squares) & jnp.uint32(1)) << jnp.uint32(i)
        for i in range(tables.NUM_PLANES - 64)
    )
    blocks = jnp.concatenate([full, last[..., None, :, :]], -3)
    blocks = blocks.reshape(*batch, 192)
    out = jnp.zeros((*batch, tables.NUM_ACTIONS // 32), jnp.uint32)
    for k in range(tables.STREAM_CHUNK.shape[0]):
        chunk = blocks[..., _CHUNK_IN_BLOCKS[tables.STREAM_CHUNK[k]]]
        placed = (chunk << tables.STREAM_LEFT[k]) >> tables.STREAM_RIGHT[k]
        out = out | (placed & tables.STREAM_KEEP[k])
    return out


def _chunks_in_blocks() -> np.ndarray:
    """Where chunk 3·(file·8 + rank) + part (a square's row, 32 planes at a time) lies in the
    transposed blocks (part, bit, half) flattened: one gather reads it, no transposes."""
    blocks = np.arange(192).reshape(3, 32, 2)
    rows = np.swapaxes(blocks, -1, -2).reshape(3, 8, 8)  # part, rank, file
    rows = np.swapaxes(rows, -1, -2).reshape(3, 64)  # part, file·8 + rank
    return np.swapaxes(rows, -1, -2).reshape(192)


_CHUNK_IN_BLOCKS = _chunks_in_blocks()


def _transpose32(a: jax.Array) -> jax.Array:
    """uint32 (…, 32, X): each 32 × 32 bit matrix along axis −2 transposed (bit i of word b of
    the result is bit b of word i), by swapping ever smaller blocks of bits."""
    shape = a.shape
    for width, low in (
        (16, 0x0000FFFF),
        (8, 0x00FF00FF),
        (4, 0x0F0F0F0F),
        (2, 0x33333333),
        (1, 0x55555555),
    ):
        pairs = a.reshape(*shape[:-2], 32 // (2 * width), 2, width, shape[-1])
        first, second = pairs[..., 0, :, :], pairs[..., 1, :, :]
        swap = ((first >> width) ^ second) & jnp.uint32(low)  # first's high bits ⇄ second's low
        a = jnp.stack([first ^ (swap << width), second ^ swap], axis=-3).reshape(shape)
    return a


def _between(a: jax.Array, b: jax.Array) -> BB:
    """The squares strictly between squares a and b on a line (empty if not on one or b ≥ 64)."""
    ax, ay, bx, by = a % 8, a // 8, b % 8, b // 8
    dx, dy = jnp.sign(bx - ax), jnp.sign(by - ay)
    aligned = ((ax == bx) | (ay == by) | (jnp.abs(bx - ax) == jnp.abs(by - ay))) & (b < 64)
    out = bb.zero()
    for k in range(1, 7):
        s = a + k * (8 * dy + dx)
        inside = aligned & (k < jnp.maximum(jnp.abs(bx - ax), jnp.abs(by - ay)))
        out = out | bb.where(inside, bb.square(s), bb.zero())
    return out


class Played(NamedTuple):
    position: Position  # in the opponent's frame, with the opponent to move
    zeroing: jax.Array  # bool ()  a capture or a pawn move (resets the 50-move clock)
    castling_changed: jax.Array  # bool ()
    hash_change: jax.Array  # uint32 (2,)  XOR into the placement hash (absolute squares)


@bb.wide
def play(position: Position, action: jax.Array, player: jax.Array) -> Played:
    """The position after the legal `action`, turned to the opponent's frame."""
    action = jnp.asarray(action, jnp.int32)
    frm = jnp.asarray(tables.FROM_SQUARE)[action]
    to = jnp.asarray(tables.TO_SQUARE)[action]
    under = jnp.asarray(tables.UNDER)[action]
    p = piece_boards(position)
    own = bb.of(position.own)
    from_bb, to_bb = bb.square(frm), bb.square(to)

    moved = sum(jnp.int32(i) * bb.has(p[i], frm) for i in range(6))
    capture_kind = sum(jnp.int32(i) * bb.has(p[i], to) for i in range(6))
    captured = (bb.of(position.own) ^ (p[0] | p[1] | p[2] | p[3] | p[4] | p[5])) & to_bb
    is_capture = captured.any()
    is_pawn = moved == PAWN
    en_passant = is_pawn & (to == position.ep) & ((to - frm) % 8 != 0)
    victim = bb.where(en_passant, bb.square(to - 8), captured)
    victim_square = jnp.where(en_passant, to - 8, to)
    victim_kind = jnp.where(en_passant, PAWN, capture_kind)
    lands_as = jnp.where(is_pawn & (to >= 56), jnp.where(under > 0, under, QUEEN), moved)
    castles = (moved == KING) & (jnp.abs(to - frm) == 2)
    king_side = castles & (to == 6)
    queen_side = castles & (to == 2)
    rook_move = bb.where(king_side, bb.const(0xA0), bb.where(queen_side, bb.const(0x09), bb.zero()))
    with bb.runtime_one(position.ep):  # read by every board below: computed once, not in each
        from_bb, to_bb, victim, lands_as, rook_move = bb.once(
            (from_bb, to_bb, victim, lands_as, rook_move)
        )

    new = []
    for i in range(6):
        board = p[i] & ~from_bb & ~to_bb & ~victim
        board = board | bb.where(lands_as == i, to_bb, bb.zero())
        if i == ROOK:
            board = board ^ rook_move
        new.append(board)
    own = (own & ~from_bb) | to_bb
    own = own ^ rook_move

    rights = position.castling
    touched = from_bb | to_bb
    rights = jnp.stack(
        [
            rights[0] & (moved != KING) & ~(touched & bb.const(1 << 7)).any(),
            rights[1] & (moved != KING) & ~(touched & bb.const(1 << 0)).any(),
            rights[2] & (to != 63),
            rights[3] & (to != 56),
        ]
    )
    castling_changed = (rights != position.castling).any()
    double_push = is_pawn & (to - frm == 16)
    ep = jnp.where(double_push, (frm + 8) ^ 56, -1)

    # The placement hash changes (absolute squares and colours).
    flip = jnp.where(player == 1, 56, 0)
    colour, other = player, 1 - player
    change = zobrist(moved, colour, frm ^ flip) ^ zobrist(lands_as, colour, to ^ flip)
    change = change ^ jnp.where(
        is_capture | en_passant, zobrist(victim_kind, other, victim_square ^ flip), jnp.uint32(0)
    )
    rook_change = zobrist(ROOK, colour, jnp.where(king_side, 7, 0) ^ flip) ^ zobrist(
        ROOK, colour, jnp.where(king_side, 5, 3) ^ flip
    )
    change = change ^ jnp.where(castles, rook_change, jnp.uint32(0))

    occupied = new[0] | new[1] | new[2] | new[3] | new[4] | new[5]
    turned = Position(
        pieces=jnp.stack([bb.flip(b).stack() for b in new]),
        own=bb.flip(occupied & ~own).stack(),
        castling=rights[jnp.array([2, 3, 0, 1])],
        ep=ep.astype(jnp.int32),
    )
    return Played(turned, is_pawn | is_capture | en_passant, castling_changed, change)


def _mix(x: jax.Array) -> jax.Array:
    """A 32-bit integer hash (murmur3's finaliser)."""
    x = x ^ (x >> 16)
    x = x * jnp.uint32(0x85EBCA6B)
    x = x ^ (x >> 13)
    x = x * jnp.uint32(0xC2B2AE35)
    return x ^ (x >> 16)


def zobrist(kind: jax.Array, colour: jax.Array, square: jax.Array) -> jax.Array:
    """uint32 (…, 2): the Zobrist key of a piece (0–5) of `colour` (0 white) on an absolute
    square, computed rather than looked up (a gather per key costs more under vmap)."""
    code = (jnp.asarray(kind) * 2 + jnp.asarray(colour)) * 64 + jnp.asarray(square)
    code = code.astype(jnp.uint32)
    return jnp.stack(
        [
            _mix(code * jnp.uint32(2) + jnp.uint32(0x9E3779B9)),
            _mix(code * jnp.uint32(2) + jnp.uint32(0x7F4A7C15)),
        ],
        axis=-1,
    )


def absolute(position: Position, player: jax.Array) -> tuple[list[BB], BB]:
    """The piece bitboards and white's pieces in absolute squares (white's frame)."""
    p = piece_boards(position)
    own = bb.of(position.own)
    black = player == 1
    occupied = p[0] | p[1] | p[2] | p[3] | p[4] | p[5]
    white = bb.where(black, occupied & ~own, own)
    p = [bb.where(black, bb.flip(b), b) for b in p]
    white = bb.where(black, bb.flip(white), white)
    return p, white


@bb.wide
def placement_hash(position: Position, player: jax.Array) -> jax.Array:
    """uint32 (2,): the XOR of the Zobrist keys of every piece (used once, at a game's start)."""
    p, white = absolute(position, player)
    squares = jnp.arange(64)
    out = jnp.zeros(2, jnp.uint32)
    for kind in range(6):
        for colour in range(2):
            mine = p[kind] & (white if colour == 0 else ~white)
            on = jax.vmap(lambda s, m=mine: bb.has(m, s))(squares)
            keys = zobrist(kind, colour, squares)
            out = out ^ jax.lax.reduce(
                jnp.where(on[:, None], keys, jnp.uint32(0)),
                jnp.uint32(0),
                jax.lax.bitwise_xor,
                (0,),
            )
    return out


@bb.wide
def insufficient_material(position: Position) -> jax.Array:
    """bool: neither side can ever mate, as python-chess's `is_insufficient_material` decides."""
    p = piece_boards(position)
    own = bb.of(position.own)
    occupied = p[0] | p[1] | p[2] | p[3] | p[4] | p[5]
    sides = (own, occupied & ~own)
    dark = bb.const(DARK_SQUARES)
    # The frame is mirrored for black, which swaps the square colours: "all alike" is unchanged.
    bishops_alike = ~(p[BISHOP] & dark).any() | ~(p[BISHOP] & ~dark).any()
    result = jnp.bool_(True)
    for me, them in (sides, sides[::-1]):
        heavy = (me & (p[PAWN] | p[ROOK] | p[QUEEN])).any()
        knights = (me & p[KNIGHT]).any()
        bishops = (me & p[BISHOP]).any()
        knight_case = (bb.popcount(me) <= 2) & ~(them & ~p[KING] & ~p[QUEEN]).any()
        bishop_case = bishops_alike & ~p[PAWN].any() & ~p[KNIGHT].any()
        mine = jnp.where(knights, knight_case, jnp.where(bishops, bishop_case, True))
        result = result & ~heavy & mine
    return result


def observation_pieces(position: Position) -> list[BB]:
    """The 12 piece planes of PettingZoo's observation (own P N B R Q K, then the opponent's), the
    opponent's pawn that just made a double push shown on its first rank (rank 8 here)."""
    p = piece_boards(position)
    own = bb.of(position.own)
    occupied = p[0] | p[1] | p[2] | p[3] | p[4] | p[5]
    opp = occupied & ~own
    planes = [p[i] & own for i in range(6)] + [p[i] & opp for i in range(6)]
    has_ep = position.ep >= 0
    moved = bb.where(
        has_ep, bb.square(position.ep - 8) ^ bb.square(56 + position.ep % 8), bb.zero()
    )
    planes[6] = planes[6] ^ moved
    return planes
