"""Lookup tables, built once with numpy at import: PettingZoo's chess action layout.

Action a = (file·8 + rank)·73 + plane, the from-square in the mover's frame (the board mirrored
top to bottom for black), as `pettingzoo.classic.chess.chess_utils` numbers it:
planes 0–55 queen moves (distance − 1)·8 + direction, the directions (dx, dy) in the order of
`QUEEN_DIRS`; planes 56–63 knight moves in the order of `KNIGHT_DIRS`; planes 64–72
under-promotions 64 + 3·(dx + 1) + (0 knight, 1 bishop, 2 rook). A pawn reaching the last rank by
a queen plane promotes to a queen.

The move generator finds the legal moves plane-major: bit plane·64 + square (square =
rank·8 + file), so each plane is one bitboard of from-squares. `PLANE_MAJOR[a]` is that index of
action a. The State keeps them in action order (bit a of 146 words), turned by
`rules.action_order` with the tables at the end of this module.
"""

from __future__ import annotations

import numpy as np

NUM_ACTIONS = 8 * 8 * 73
NUM_PLANES = 73
QUEEN_DIRS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))
KNIGHT_DIRS = ((-2, -1), (-2, 1), (-1, -2), (-1, 2), (1, -2), (1, 2), (2, -1), (2, 1))
KNIGHT_PLANE = 56
UNDER_PLANE = 64
UNDER_PIECES = (1, 2, 3)  # knight, bishop, rook (piece indices of `PIECES`)
PIECES = "pnbrqk"  # piece indices 0–5


def queen_plane(dx: int, dy: int, distance: int) -> int:
    return (distance - 1) * 8 + QUEEN_DIRS.index((dx, dy))


def _build():
    to_square = np.full(NUM_ACTIONS, -1, np.int32)
    under = np.zeros(NUM_ACTIONS, np.int32)  # 0, or the piece index of an under-promotion
    plane_major = np.zeros(NUM_ACTIONS, np.int32)
    for a in range(NUM_ACTIONS):
        t, plane = divmod(a, NUM_PLANES)
        file, rank = divmod(t, 8)
        plane_major[a] = plane * 64 + rank * 8 + file
        if plane < KNIGHT_PLANE:
            distance, direction = divmod(plane, 8)
            dx, dy = QUEEN_DIRS[direction]
            dx, dy = dx * (distance + 1), dy * (distance + 1)
        elif plane < UNDER_PLANE:
            dx, dy = KNIGHT_DIRS[plane - KNIGHT_PLANE]
        else:
            step, piece = divmod(plane - UNDER_PLANE, 3)
            dx, dy = step - 1, 1
            under[a] = UNDER_PIECES[piece]
        if 0 <= file + dx < 8 and 0 <= rank + dy < 8:
            to_square[a] = (rank + dy) * 8 + file + dx
    # The plane of a move by (dx, dy), index (dy + 7)·15 + dx + 7; −1 where no plane has it.
    delta_plane = np.full(15 * 15, -1, np.int32)
    for dy in range(-7, 8):
        for dx in range(-7, 8):
            plane = -1
            if (dx, dy) in KNIGHT_DIRS:
                plane = KNIGHT_PLANE + KNIGHT_DIRS.index((dx, dy))
            elif (dx or dy) and (dx == 0 or dy == 0 or abs(dx) == abs(dy)):
                distance = max(abs(dx), abs(dy))
                plane = queen_plane(int(np.sign(dx)), int(np.sign(dy)), distance)
            delta_plane[(dy + 7) * 15 + dx + 7] = plane
    return to_square, under, plane_major, delta_plane


TO_SQUARE, UNDER, PLANE_MAJOR, DELTA_PLANE = _build()
FROM_SQUARE = np.array(
    [(t % 8) * 8 + t // 8 for t in np.arange(NUM_ACTIONS) // NUM_PLANES], np.int32
)


def action_of(from_square: int, to_square: int, under: int = 0) -> int:
    """The action of a move in the mover's frame (squares rank·8 + file); −1 if none has it.

    under: 0 for any move but an under-promotion, else the piece index 1–3 (N, B, R).
    """
    fx, fy = from_square % 8, from_square // 8
    dx, dy = to_square % 8 - fx, to_square // 8 - fy
    if under:
        if dy != 1 or abs(dx) > 1:
            return -1
        plane = UNDER_PLANE + 3 * (dx + 1) + UNDER_PIECES.index(under)
    else:
        if abs(dx) > 7 or abs(dy) > 7:
            return -1
        plane = int(DELTA_PLANE[(dy + 7) * 15 + dx + 7])
        if plane < 0:
            return -1
    return (fx * 8 + fy) * NUM_PLANES + plane


def _stream():
    """How `rules.action_order` lays the 73-bit row of each from-square into 146 words.

    Row t (t = file·8 + rank, the action's square number) is three chunks, planes 0–31, 32–63
    and 64–72 (9 bits), at bits 73·t, +32, +64 of the action-order stream. Word j is the OR over
    k of (chunk[STREAM_CHUNK[k, j]] << STREAM_LEFT[k, j]) >> STREAM_RIGHT[k, j], kept where
    STREAM_KEEP[k, j]; chunk c = 3·t + part. At most three chunks meet in a word.
    """
    chunk = np.zeros((3, NUM_ACTIONS // 32), np.int32)
    left = np.zeros(chunk.shape, np.uint32)
    right = np.zeros(chunk.shape, np.uint32)
    keep = np.zeros(chunk.shape, np.uint32)
    used = np.zeros(chunk.shape[1], np.int32)
    for t in range(64):
        for part, width in enumerate((32, 32, NUM_PLANES - 64)):
            start = NUM_PLANES * t + 32 * part
            for j in range(start // 32, (start + width - 1) // 32 + 1):
                k = used[j]
                used[j] += 1
                chunk[k, j], keep[k, j] = 3 * t + part, 0xFFFFFFFF
                if start >= 32 * j:
                    left[k, j] = start - 32 * j
                else:
                    right[k, j] = 32 * j - start
    return chunk, left, right, keep


STREAM_CHUNK, STREAM_LEFT, STREAM_RIGHT, STREAM_KEEP = _stream()
