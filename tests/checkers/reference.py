"""A slow, plain-Python reference implementation of jaxcheckers' rules.

This module exists to cross-check the JAX environment. It is written for
clarity, not speed: no jax, no numpy, small functions, and one obvious way to
do each thing. The rules are those of /work/shared/design/rules.md (American
checkers / English draughts on an n x n board, PettingZoo checkers_v3 action
layout).

Conventions
-----------
* ``board`` is a list of n lists of n ints in ABSOLUTE coordinates, row 0 at
  the top: 0 empty, +1 player-0 man, +2 player-0 king, -1 player-1 man,
  -2 player-1 king. Player 0 starts on the top rows and moves down (toward
  row n-1); player 1 starts at the bottom and moves up.
* Actions live in the MOVER'S FRAME. For player 0 that is the absolute board;
  for player 1 the board is rotated by 180 degrees, (r, c) -> (n-1-r, n-1-c).
  ``action = direction * n*n + row * n + col`` where (row, col) is the moving
  piece in the mover's frame and direction is 0 NW, 1 NE, 2 SW, 3 SE, also in
  the mover's frame. In that frame the mover's men always move toward larger
  rows (directions 2 and 3).

The trick used throughout: to generate or apply moves we first turn the
absolute board into a "frame" board (rotated for player 1, and with signs
flipped so the mover's pieces are positive). Move logic is then written once,
for a mover whose men go down and whose pieces are positive. The transform is
its own inverse, so the same function maps the frame board back.

Public names: ``ReferenceCheckers``, ``perft``, ``board_from_strings``,
``board_to_strings``, ``opening_board``, ``encode_action``, ``decode_action``,
``action_from_squares``, ``legal_actions_for``, ``to_frame``, the piece
constants ``EMPTY, MAN, KING`` and the
direction constants ``NW, NE, SW, SE``.
"""

from __future__ import annotations

import operator

# --------------------------------------------------------------------------
# Constants
# --------------------------------------------------------------------------

EMPTY = 0
MAN = 1   # player-0 man is +1, player-1 man is -1
KING = 2  # player-0 king is +2, player-1 king is -2

# Directions as (row delta, col delta), in the mover's frame.
NW, NE, SW, SE = 0, 1, 2, 3
DIRECTIONS = {
    NW: (-1, -1),
    NE: (-1, +1),
    SW: (+1, -1),
    SE: (+1, +1),
}
# In the mover's frame a man only goes toward larger rows; a king goes anywhere.
MAN_DIRECTIONS = (SW, SE)
KING_DIRECTIONS = (NW, NE, SW, SE)

# Plies without a capture or man move after which the 40-move rule draws.
FORTY_MOVE_PLIES = 80
# How many most recent history entries the repetition check looks at. With
# the 40-move rule on, the history never needs more than 80 entries; without
# it the JAX env keeps a fixed window of 128 (a documented bound), and the
# reference mirrors that window exactly.
HISTORY_WINDOW_WITH_FORTY = 80
HISTORY_WINDOW_WITHOUT_FORTY = 128

MIN_N, MAX_N = 4, 16

# Characters of the string board format used by the tests.
CHAR_TO_VALUE = {".": 0, "b": +1, "B": +2, "w": -1, "W": -2}
VALUE_TO_CHAR = {v: k for k, v in CHAR_TO_VALUE.items()}


# --------------------------------------------------------------------------
# Small board helpers
# --------------------------------------------------------------------------

def as_int(value):
    """value as a plain int if it is integer-like (numpy ints too), else None."""
    if isinstance(value, bool):
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None


def is_playable(row: int, col: int) -> bool:
    """Dark squares are the ones with (row + col) odd."""
    return (row + col) % 2 == 1


def on_board(n: int, row: int, col: int) -> bool:
    return 0 <= row < n and 0 <= col < n


def opening_rows(n: int) -> int:
    """Each side starts with men on its first n/2 - 1 rows."""
    return n // 2 - 1


def opening_piece_count(n: int) -> int:
    """Men per side in the opening: n/2 - 1 rows, n/2 dark squares per row."""
    return opening_rows(n) * (n // 2)


def opening_board(n: int = 8) -> list[list[int]]:
    """Player-0 men on rows 0..n/2-2, player-1 men on rows n/2+1..n-1."""
    board = [[EMPTY] * n for _ in range(n)]
    for row in range(n):
        for col in range(n):
            if not is_playable(row, col):
                continue
            if row < opening_rows(n):
                board[row][col] = +MAN
            elif row >= n - opening_rows(n):
                board[row][col] = -MAN
    return board


def owner(value: int) -> int | None:
    """Which player a square value belongs to (None for empty)."""
    if value > 0:
        return 0
    if value < 0:
        return 1
    return None


def to_frame(board: list[list[int]], player: int) -> list[list[int]]:
    """Board as seen by `player`, with `player`'s pieces positive.

    For player 0 this is a plain copy. For player 1 the board is rotated by
    180 degrees and signs are flipped. The map is an involution, so
    to_frame(to_frame(b, p), p) == b; we use the same function to go back.
    """
    n = len(board)
    if player == 0:
        return [list(row) for row in board]
    return [[-board[n - 1 - r][n - 1 - c] for c in range(n)] for r in range(n)]


def square_to_frame(n: int, player: int, square):
    """Absolute (row, col) -> mover's frame (row, col); also its own inverse."""
    if square is None:
        return None
    row, col = square
    if player == 0:
        return (row, col)
    return (n - 1 - row, n - 1 - col)


def board_key(board: list[list[int]]) -> tuple:
    """Hashable, immutable snapshot of a board (for the repetition history)."""
    return tuple(tuple(row) for row in board)


# --------------------------------------------------------------------------
# Action encoding
# --------------------------------------------------------------------------

def encode_action(n: int, row: int, col: int, direction: int) -> int:
    """(row, col, direction), all in the mover's frame -> action id."""
    return direction * n * n + row * n + col


def decode_action(n: int, action: int) -> tuple[int, int, int]:
    """Action id -> (row, col, direction) in the mover's frame."""
    direction, square = divmod(action, n * n)
    row, col = divmod(square, n)
    return row, col, direction


def action_from_squares(n: int, player: int, src, dst) -> int:
    """Action for moving the piece on absolute `src` toward absolute `dst`.

    `dst` is either the adjacent diagonal square (simple move) or the landing
    square two steps away (jump); both give the same action, since the env
    decides move vs. jump from the board. Handy for writing tests with
    absolute boards.
    """
    fr, fc = square_to_frame(n, player, src)
    tr, tc = square_to_frame(n, player, dst)
    dr, dc = tr - fr, tc - fc
    if abs(dr) != abs(dc) or abs(dr) not in (1, 2):
        raise ValueError(f"{src} -> {dst} is not a diagonal step or jump")
    unit = (dr // abs(dr), dc // abs(dc))
    for direction, delta in DIRECTIONS.items():
        if delta == unit:
            return encode_action(n, fr, fc, direction)
    raise AssertionError("unreachable")


# --------------------------------------------------------------------------
# String boards (for writing positions in tests)
# --------------------------------------------------------------------------

def board_from_strings(rows: list[str]) -> list[list[int]]:
    """Parse a board drawn as strings, row 0 first (absolute coordinates).

    '.' empty, 'b' player-0 man, 'B' player-0 king, 'w' player-1 man,
    'W' player-1 king. Whitespace inside a row is ignored, so both
    ".b.b.b.b" and ". b . b . b . b" work. Every row must have the same
    length as the number of rows.
    """
    board = []
    for row_index, text in enumerate(rows):
        cells = [ch for ch in text if not ch.isspace()]
        row = []
        for ch in cells:
            if ch not in CHAR_TO_VALUE:
                raise ValueError(
                    f"row {row_index}: unknown character {ch!r}; "
                    f"use one of {''.join(CHAR_TO_VALUE)}")
            row.append(CHAR_TO_VALUE[ch])
        board.append(row)
    n = len(board)
    for row_index, row in enumerate(board):
        if len(row) != n:
            raise ValueError(
                f"row {row_index} has {len(row)} squares, expected {n} "
                f"(the board must be square)")
    return board


def board_to_strings(board: list[list[int]]) -> list[str]:
    """Inverse of board_from_strings (no spaces)."""
    return ["".join(VALUE_TO_CHAR[v] for v in row) for row in board]


# --------------------------------------------------------------------------
# Move generation, in the mover's frame (mover's pieces positive, men go down)
# --------------------------------------------------------------------------

def piece_directions(value: int) -> tuple[int, ...]:
    """Directions a (positive, i.e. own) piece may move or capture in."""
    return KING_DIRECTIONS if value == KING else MAN_DIRECTIONS


def jump_actions_of_piece(frame, row: int, col: int) -> list[int]:
    """Jumps of the own piece on (row, col): over an opponent onto an empty square."""
    n = len(frame)
    actions = []
    for direction in piece_directions(frame[row][col]):
        dr, dc = DIRECTIONS[direction]
        mid_r, mid_c = row + dr, col + dc
        land_r, land_c = row + 2 * dr, col + 2 * dc
        if not on_board(n, land_r, land_c):
            continue
        if frame[mid_r][mid_c] < 0 and frame[land_r][land_c] == EMPTY:
            actions.append(encode_action(n, row, col, direction))
    return actions


def simple_actions_of_piece(frame, row: int, col: int) -> list[int]:
    """Non-capturing one-square moves of the own piece on (row, col)."""
    n = len(frame)
    actions = []
    for direction in piece_directions(frame[row][col]):
        dr, dc = DIRECTIONS[direction]
        to_r, to_c = row + dr, col + dc
        if on_board(n, to_r, to_c) and frame[to_r][to_c] == EMPTY:
            actions.append(encode_action(n, row, col, direction))
    return actions


def own_squares(frame):
    """All squares holding one of the mover's pieces."""
    n = len(frame)
    return [(r, c) for r in range(n) for c in range(n) if frame[r][c] > 0]


def legal_actions_in_frame(frame, jumper_in_frame) -> set[int]:
    """Legal actions for the mover of `frame`.

    * In the middle of a multi-jump only the jumping piece's jumps are legal.
    * Otherwise captures are compulsory: if any piece can jump, only jumps
      are legal (any of them, no majority rule); else all simple moves.
    """
    if jumper_in_frame is not None:
        return set(jump_actions_of_piece(frame, *jumper_in_frame))
    jumps = []
    for row, col in own_squares(frame):
        jumps.extend(jump_actions_of_piece(frame, row, col))
    if jumps:
        return set(jumps)
    simples = []
    for row, col in own_squares(frame):
        simples.extend(simple_actions_of_piece(frame, row, col))
    return set(simples)


def legal_actions_for(board, player: int, jumper=None) -> set[int]:
    """Legal actions of `player` on the absolute `board` (jumper absolute)."""
    n = len(board)
    return legal_actions_in_frame(to_frame(board, player),
                                  square_to_frame(n, player, jumper))


# --------------------------------------------------------------------------
# Validation of user-supplied positions
# --------------------------------------------------------------------------

def validate_n(n) -> None:
    if as_int(n) is None:
        raise ValueError(f"n must be an int, got {n!r}")
    if n % 2 != 0 or not (MIN_N <= n <= MAX_N):
        raise ValueError(f"n must be even and in {MIN_N}..{MAX_N}, got {n}")


def normalize_board(board, n: int) -> list[list[int]]:
    """Copy `board` into a list of lists of plain ints, checking its shape."""
    try:
        rows = [list(row) for row in board]
    except TypeError:
        raise ValueError(f"board must be a list of {n} rows of {n} ints") from None
    if len(rows) != n:
        raise ValueError(f"board has {len(rows)} rows, expected {n}")
    result = []
    for r, row in enumerate(rows):
        if len(row) != n:
            raise ValueError(f"board row {r} has {len(row)} squares, expected {n}")
        values = []
        for c, value in enumerate(row):
            as_plain = as_int(value)
            if as_plain is None:
                raise ValueError(f"board[{r}][{c}] = {value!r} is not an int")
            values.append(as_plain)
        result.append(values)
    return result


def validate_board(board: list[list[int]], n: int) -> None:
    """Check a normalized board holds a position that the rules can reach."""
    for r, row in enumerate(board):
        for c, value in enumerate(row):
            if not -2 <= value <= 2:
                raise ValueError(f"board[{r}][{c}] = {value} is not in -2..2")
            if value != EMPTY and not is_playable(r, c):
                raise ValueError(f"piece on light square ({r}, {c}); "
                                 f"only squares with (row + col) odd are playable")
    # A man on its own crowning row would already have been crowned.
    for c in range(n):
        if board[n - 1][c] == +MAN:
            raise ValueError(f"player-0 man on its crowning row at ({n - 1}, {c})")
        if board[0][c] == -MAN:
            raise ValueError(f"player-1 man on its crowning row at (0, {c})")
    limit = opening_piece_count(n)
    for player in (0, 1):
        count = sum(1 for row in board for v in row if owner(v) == player)
        if count > limit:
            raise ValueError(f"player {player} has {count} pieces, more than the "
                             f"{limit} of the opening on a {n}x{n} board")


def validate_jumper(board, player: int, jumper) -> tuple[int, int]:
    n = len(board)
    try:
        row, col = jumper
    except (TypeError, ValueError):
        raise ValueError(f"jumper must be a (row, col) pair or None, got {jumper!r}") from None
    row, col = as_int(row), as_int(col)
    if row is None or col is None:
        raise ValueError(f"jumper must hold ints, got {jumper!r}")
    if not on_board(n, row, col):
        raise ValueError(f"jumper {jumper!r} is off the board")
    if owner(board[row][col]) != player:
        raise ValueError(f"jumper {jumper!r} is not a piece of the side to move "
                         f"(player {player})")
    frame = to_frame(board, player)
    if not jump_actions_of_piece(frame, *square_to_frame(n, player, (row, col))):
        raise ValueError(f"jumper {jumper!r} has no jump available")
    return (row, col)


# --------------------------------------------------------------------------
# The game
# --------------------------------------------------------------------------

class ReferenceCheckers:
    """One game of checkers, stepped one hop at a time.

    Public state: n, board (absolute), player (side to move), jumper
    (absolute square of the piece in the middle of a multi-jump, or None),
    terminated, truncated, rewards ([r0, r1] of the last step), step_count,
    plus quiet_plies and history for inspection.
    """

    def __init__(self, n=8, *, no_moves="lose", forty_move_draw=True,
                 repetition_draw=True, max_steps=1000, board=None, player=0,
                 jumper=None, crowning="ends"):
        validate_n(n)
        n = as_int(n)
        if no_moves not in ("lose", "pass"):
            raise ValueError(f"no_moves must be 'lose' or 'pass', got {no_moves!r}")
        if crowning not in ("ends", "continues"):
            raise ValueError(f"crowning must be 'ends' or 'continues', got {crowning!r}")
        if max_steps is not None:
            if as_int(max_steps) is None or as_int(max_steps) < 1:
                raise ValueError(f"max_steps must be a positive int or None, got {max_steps!r}")
            max_steps = as_int(max_steps)
        if as_int(player) not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        player = as_int(player)
        if board is None:
            board = opening_board(n)
        board = normalize_board(board, n)
        validate_board(board, n)
        if jumper is not None:
            jumper = validate_jumper(board, player, jumper)

        self.n = n
        self.no_moves = no_moves
        self.crowning = crowning
        self.forty_move_draw = bool(forty_move_draw)
        self.repetition_draw = bool(repetition_draw)
        self.max_steps = max_steps
        self.board = board
        self.player = player
        self.jumper = jumper
        self.terminated = False
        self.truncated = False
        self.rewards = [0.0, 0.0]
        self.step_count = 0
        self.quiet_plies = 0
        # Bookkeeping for the turn in progress. A given jumper means the
        # turn already contains a capture (so it will be irreversible).
        self.turn_had_capture = jumper is not None
        self.turn_started_with_man = False

        # A side to move without any legal action at the start: the game is
        # over before it began, so nobody is rewarded. With "pass" the other
        # side takes over if it can move.
        if not self._has_moves(self.player):
            if (self.no_moves == "pass" and self._has_pieces(self.player)
                    and self._has_moves(1 - self.player)):
                self.player = 1 - self.player
            else:
                self.terminated = True
        # Decision: the history starts with the position as it will actually
        # be played, i.e. after any pass above. (Step 3 of the turn-end rules
        # also only ever records the mover who actually moves next.)
        self.history = [(board_key(self.board), self.player)]

    # ---- queries ---------------------------------------------------------

    @property
    def game_over(self) -> bool:
        return self.terminated or self.truncated

    def _has_pieces(self, player: int) -> bool:
        sign = 1 if player == 0 else -1
        return any(value * sign > 0 for row in self.board for value in row)

    def _has_moves(self, player: int) -> bool:
        # Only ever asked at a turn boundary, so no jumper applies.
        return bool(legal_actions_for(self.board, player, None))

    def legal_actions(self) -> set[int]:
        if self.game_over:
            return set()
        return legal_actions_for(self.board, self.player, self.jumper)

    def copy(self) -> ReferenceCheckers:
        other = object.__new__(ReferenceCheckers)
        other.__dict__.update(self.__dict__)
        other.board = [list(row) for row in self.board]
        other.rewards = list(self.rewards)
        other.history = list(self.history)  # entries are immutable tuples
        return other

    def __repr__(self) -> str:
        status = ("terminated" if self.terminated else
                  "truncated" if self.truncated else "live")
        lines = [f"ReferenceCheckers(n={self.n}, player={self.player}, "
                 f"jumper={self.jumper}, {status}, step={self.step_count}, "
                 f"quiet={self.quiet_plies}, rewards={self.rewards})"]
        lines += ["  " + s for s in board_to_strings(self.board)]
        return "\n".join(lines)

    # ---- stepping --------------------------------------------------------

    def step(self, action) -> None:
        self.rewards = [0.0, 0.0]
        if self.game_over:
            return  # a finished game does not change
        self.step_count += 1

        action = as_int(action)
        if action is None or action not in self.legal_actions():
            # Illegal action: the mover loses at once, the other gets 0.
            self.terminated = True
            self.rewards[self.player] = -1.0
            return

        self._play_hop(action)
        if not self.terminated and self.max_steps is not None \
                and self.step_count >= self.max_steps:
            self.truncated = True

    def _play_hop(self, action: int) -> None:
        """Apply one legal hop, then either continue the jump or end the turn."""
        n = self.n
        frame = to_frame(self.board, self.player)
        row, col, direction = decode_action(n, action)
        dr, dc = DIRECTIONS[direction]
        piece = frame[row][col]

        if self.jumper is None:
            # First hop of a new turn: remember what kind of piece started it.
            self.turn_had_capture = False
            self.turn_started_with_man = piece == MAN

        # The env tells a jump from a move by what stands next to the piece.
        mid_r, mid_c = row + dr, col + dc
        if frame[mid_r][mid_c] == EMPTY:
            captured = False
            to_r, to_c = mid_r, mid_c
        else:
            captured = True
            frame[mid_r][mid_c] = EMPTY
            to_r, to_c = row + 2 * dr, col + 2 * dc

        frame[row][col] = EMPTY
        crowned = piece == MAN and to_r == n - 1
        frame[to_r][to_c] = KING if crowned else piece
        self.turn_had_capture = self.turn_had_capture or captured

        self.board = to_frame(frame, self.player)  # back to absolute

        # Multi-jump: the same piece goes on capturing, unless this hop
        # crowned it and crowning ends the move (the default; with
        # crowning="continues" the new king captures on).
        ends_here = crowned and self.crowning == "ends"
        if captured and not ends_here and jump_actions_of_piece(frame, to_r, to_c):
            self.jumper = square_to_frame(n, self.player, (to_r, to_c))
            return
        self._end_turn()

    def _end_turn(self) -> None:
        # 1. Irreversible turns (captures, man moves, so also crownings) reset
        #    the quiet-ply counter and the repetition history: no earlier
        #    position can ever come back after one.
        irreversible = self.turn_had_capture or self.turn_started_with_man
        if irreversible:
            self.quiet_plies = 0
            self.history = []
        else:
            self.quiet_plies += 1

        # 2. Hand the move over; a player with no legal action loses
        #    (or passes, in the "pass" variant).
        just_moved = self.player
        self.jumper = None
        self.player = 1 - just_moved
        if not self._has_moves(self.player):
            # Losing every piece loses in both variants; only a blocked side passes.
            if self.no_moves == "lose" or not self._has_pieces(self.player):
                self.terminated = True
                self.rewards[self.player] = -1.0
                self.rewards[just_moved] = +1.0
                return
            if self._has_moves(just_moved):
                self.player = just_moved  # pass: no extra ply is counted
            else:
                self.terminated = True  # neither side can move: draw
                return

        # 3. Threefold repetition, over the last H recorded positions.
        position = (board_key(self.board), self.player)
        self.history.append(position)
        if self.repetition_draw:
            window = (HISTORY_WINDOW_WITH_FORTY if self.forty_move_draw
                      else HISTORY_WINDOW_WITHOUT_FORTY)
            if self.history[-window:].count(position) >= 3:
                self.terminated = True
                return

        # 4. 40-move rule: 80 plies without a capture or a man move.
        if self.forty_move_draw and self.quiet_plies >= FORTY_MOVE_PLIES:
            self.terminated = True


# --------------------------------------------------------------------------
# Perft
# --------------------------------------------------------------------------

def perft(game: ReferenceCheckers, depth: int, *, move_level: bool = False) -> int:
    """Count the leaves of the game tree `depth` plies below `game`.

    move_level=False: one ply is one environment step (one hop).
    move_level=True:  one ply is one whole turn; a multi-jump is followed to
    its end inside the same ply (a step that leaves a jumper is mid-turn).
    Games that end before the depth is reached contribute no leaves.
    """
    if depth == 0:
        return 1
    total = 0
    for action in sorted(game.legal_actions()):
        child = game.copy()
        child.step(action)
        turn_completed = child.jumper is None
        if move_level and not turn_completed:
            total += perft(child, depth, move_level=True)
        else:
            total += perft(child, depth - 1, move_level=move_level)
    return total
