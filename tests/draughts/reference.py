"""A plain-Python draughts move generator, written to be obviously right rather than fast: the
reference the JAX rules are checked against (tests/draughts/).

Squares are FMJD numbers in White's frame. A position is a dict square -> piece ("w", "W", "b",
"B"), with the side to move. A route is (start, [landing squares], [taken squares], king at the
end); a move is (start, end, frozenset(taken)).
"""

from __future__ import annotations

SIZE = {"international": 10, "brazilian": 8, "russian": 8}
STEPS = ((-1, -1), (-1, 1), (1, -1), (1, 1))  # NW, NE, SW, SE


def geometry(n: int):
    """square -> (row, col) and back, FMJD numbering (square 1 top left, on column 1)."""
    to_cell, to_square = {}, {}
    for row in range(n):
        for i in range(n // 2):
            col = 2 * i + (1 if row % 2 == 0 else 0)
            square = row * (n // 2) + i + 1
            to_cell[square], to_square[(row, col)] = (row, col), square
    return to_cell, to_square


def routes(pieces: dict, white_to_move: bool, variant: str, jumper=None, taken=()) -> list[tuple]:
    """Every legal route of the side to move: the longest captures (or, in Russian, any capture
    that cannot go on), else every plain move. Mid-capture: `jumper` is the square of the piece
    capturing and `taken` the pieces it took (still on the board); the routes of the rest."""
    n = SIZE[variant]
    to_cell, to_square = geometry(n)
    mine = "w" if white_to_move else "b"
    forward = -1 if white_to_move else 1
    last_row = 0 if white_to_move else n - 1

    def at(row, col):
        return to_square.get((row, col)) if 0 <= row < n and 0 <= col < n else None

    def captures(start, square, king, taken, path, found):
        row, col = to_cell[square]
        extended = False
        for dr, dc in STEPS:
            r, c = row + dr, col + dc
            # Find the first piece along the line (a man looks at the adjacent square only); the
            # square the capturing piece left is empty.
            while king and at(r, c) is not None and (at(r, c) == start or at(r, c) not in pieces):
                r, c = r + dr, c + dc
            victim = at(r, c)
            if victim is None or victim == start or victim not in pieces:
                continue
            if pieces[victim].lower() == mine or victim in taken:
                continue
            r, c = r + dr, c + dc
            # Each landing behind the piece, with the routes from it; a king must land where it
            # can capture again if any landing allows it (in every variant; under the majority
            # rule the shorter captures drop out anyway).
            results = []
            while at(r, c) is not None and (at(r, c) == start or at(r, c) not in pieces):
                land = at(r, c)
                crowned = king or (variant == "russian" and r == last_row)
                routes_from = []
                captures(start, land, crowned, [*taken, victim], [*path, land], routes_from)
                results.append(routes_from)
                if not king:
                    break
                r, c = r + dr, c + dc
            going_on = [
                res for res in results if any(len(t) > len(taken) + 1 for _, _, t, _ in res)
            ]
            for res in going_on or results:
                found.extend(res)
            extended = extended or bool(results)
        if not extended and taken:
            found.append((start, path, taken, king))

    found = []
    for square, piece in pieces.items():
        if piece.lower() == mine and jumper in (None, square):
            captures(square, square, piece.isupper(), list(taken), [], found)
    if jumper is not None:
        found = [(s, p, t, k) for s, p, t, k in found if len(t) > len(taken)]
    if found or jumper is not None:
        if variant != "russian":
            most = max(len(route[2]) for route in found)
            found = [route for route in found if len(route[2]) == most]
        return found
    plain = []
    for square, piece in pieces.items():
        if piece.lower() != mine:
            continue
        row, col = to_cell[square]
        for dr, dc in STEPS:
            if not piece.isupper() and dr != forward:
                continue
            r, c = row + dr, col + dc
            while at(r, c) is not None and at(r, c) not in pieces:
                plain.append((square, [at(r, c)], [], piece.isupper()))
                if not piece.isupper():
                    break
                r, c = r + dr, c + dc
    return plain


def moves(pieces: dict, white_to_move: bool, variant: str) -> set[tuple]:
    """The whole moves, each once: (start, end, frozenset(taken))."""
    return {(r[0], r[1][-1], frozenset(r[2])) for r in routes(pieces, white_to_move, variant)}


def pieces_of(board, squares_per_side=None) -> dict:
    """The pieces of an absolute int8 board (index = square − 1)."""
    names = {1: "w", 2: "W", -1: "b", -2: "B"}
    return {s + 1: names[int(v)] for s, v in enumerate(board) if v}
