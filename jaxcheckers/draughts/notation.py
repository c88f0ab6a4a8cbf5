"""Draughts as people write it: the board as text, moves typed and listed.

Moves are written with FMJD square numbers: `32-28` for a move, `28x19` for a capture from its
start to its end square; where two captures share both (they take different pieces) the whole
path of landing squares is written, `28x19x10` (and `from x to` is refused as ambiguous). Read:
`a-b`; `axb`; a path `axbxc…` (its landing squares in order, any of them left out); and, mid-
capture, a single hop.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import jax.numpy as jnp
import numpy as np

from jaxcheckers import records
from jaxcheckers.core import compiled_step
from jaxcheckers.draughts import rules
from jaxcheckers.draughts.fen import absolute_board

__all__ = ["text", "board_lines", "parse_move", "move_name", "legal_moves_text", "mid_move", "HELP"]

HELP = "type a move like 32-28, a capture 28x19 (or its path 28x19x10)"
PIECES = {1: "w", 2: "W", -1: "b", -2: "B"}
ROUTE_STEP_LIMIT = 2000  # hops stepped at most while listing whole moves


class TooManyRoutes(ValueError):
    """A position whose whole moves take more hops to list than the limit: its captures are
    typed hop by hop."""


def number(state, square: int) -> int:
    """The FMJD number of `square` (mover's frame) in `state`."""
    squares = np.shape(state.board)[-1]
    return square + 1 if int(state.current_player) == 0 else squares - square


def board_lines(state, *, unicode: bool = True, colour: bool = False) -> list[str]:
    """The board from White's side (square 1 top left): pieces w/W (White) and b/B; empty dark
    squares show their number; pieces taken by a move under way are in brackets."""
    del unicode, colour  # one plain style
    board = absolute_board(state)
    taken = np.asarray(state.taken)
    taken = taken if int(state.current_player) == 0 else taken[::-1]
    squares = board.shape[0]
    n = int(round((2 * squares) ** 0.5))
    lines = []
    for row in range(n):
        cells = []
        for col in range(n):
            if (row + col) % 2 == 0:
                cells.append("   ")
                continue
            s = row * (n // 2) + col // 2
            if board[s]:
                mark = PIECES[int(board[s])]
                cells.append(f"({mark})" if taken[s] else f" {mark} ")
            else:
                cells.append(f"{s + 1:>3}")
        lines.append("".join(cells))
    lines.append(f"{'White' if int(state.current_player) == 0 else 'Black'} to move")
    return lines


def text(state) -> str:
    return "\n".join(board_lines(state))


def mid_move(state) -> bool:
    """A capture is under way: the same side moves again."""
    return int(state.jumper) >= 0


def move_name(env, state, action: int) -> str:
    """One legal hop as written: `32-28`, or `28x19` for a hop that captures; ValueError for an
    action that is not legal here (it has no squares to name, or names a move nobody may play)."""
    if not records.is_legal(state, int(action), env.num_actions):
        raise ValueError(f"action {action} is not legal in this position")
    lay = env.layout
    direction, distance, square = rules.hop_of(int(action), lay)
    land = int(lay.ray[square, direction, distance - 1])
    board = np.asarray(state.board)
    between = lay.ray[square, direction, : distance - 1]
    captures = bool((board[between] != 0).any()) or int(state.jumper) >= 0
    return f"{number(state, square)}{'x' if captures else '-'}{number(state, land)}"


class Route(NamedTuple):
    actions: list[int]  # the hops
    path: list[int]  # FMJD numbers: the start, then each landing square
    taken: frozenset[int]  # FMJD numbers of the pieces taken


def routes(env, state, limit: int | None = None) -> list[Route]:
    """Every route of every legal move from `state` (mid-capture: of its rest), by stepping the
    env; TooManyRoutes past `limit` hops (default ROUTE_STEP_LIMIT)."""
    limit = ROUTE_STEP_LIMIT if limit is None else limit
    step = compiled_step(env)
    found, stepped = [], 0
    player = int(state.current_player)

    def walk(node, actions, path, taken):
        nonlocal stepped
        for action in np.flatnonzero(np.asarray(node.legal_action_mask)):
            lay = env.layout
            direction, distance, square = rules.hop_of(int(action), lay)
            between = lay.ray[square, direction, : distance - 1]
            board = np.asarray(node.board)
            jumped = [int(b) for b in between if board[b] != 0]
            land = int(lay.ray[square, direction, distance - 1])
            if not jumped:  # a quiet hop is a whole move: nothing to step to know it
                found.append(Route([*actions, int(action)], [*path, number(node, land)], taken))
                continue
            stepped += 1
            if stepped > limit:
                raise TooManyRoutes(f"more than {limit} capture hops to list in this position")
            child = step(node, jnp.int32(action))
            more_path = [*path, number(node, land)]
            more_taken = taken | {number(node, j) for j in jumped}
            if int(child.current_player) == player and not bool(child.terminated):
                walk(child, [*actions, int(action)], more_path, more_taken)
            else:
                found.append(Route([*actions, int(action)], more_path, frozenset(more_taken)))

    walk(state, [], [], frozenset())
    # The start of each route: the square of the first hop.
    result = []
    for route in found:
        _, _, square = rules.hop_of(route.actions[0], env.layout)
        result.append(Route(route.actions, [number(state, square), *route.path], route.taken))
    return result


def whole_move_names(env, state) -> list[tuple[str, Route]]:
    """Each legal move once (routes of the same move folded), as written, with a route."""
    moves: dict[tuple, Route] = {}
    for route in routes(env, state):
        moves.setdefault((route.path[0], route.path[-1], route.taken), route)
    ends = [(key[0], key[1]) for key in moves]
    named = []
    for (start, end, taken), route in moves.items():
        sep = "x" if taken or int(state.jumper) >= 0 else "-"
        unique = ends.count((start, end)) == 1
        named.append((f"{start}{sep}{end}" if unique else sep.join(map(str, route.path)), route))
    return named


def legal_moves_text(env, state) -> str:
    try:
        named = [name for name, _ in whole_move_names(env, state)]
    except TooManyRoutes as error:
        return f"{error}: type a capture hop by hop; its first hops: " + ", ".join(
            first_hops(env, state)
        )
    return "legal moves: " + ", ".join(sorted(named, key=records.squares_of))


def first_hops(env, state) -> dict[str, int]:
    """Each legal hop's name (`28x19`) and action."""
    actions = np.flatnonzero(np.asarray(state.legal_action_mask))
    return {move_name(env, state, int(action)): int(action) for action in actions}


_MOVE = re.compile(r"\d+([-x]\d+)+")


def parse_move(env, state, typed: str) -> list[int]:
    """The hop actions of the move `typed`; ValueError with a short reason. Where the whole moves
    are too many to list, only a first hop is understood."""
    if not isinstance(typed, str):
        raise ValueError(f"a move is typed as text, like 32-28, got {type(typed).__name__}")
    move = typed.strip().lower().replace(" ", "").replace("×", "x")
    if not _MOVE.fullmatch(move):
        raise ValueError(f"could not read {typed.strip()!r}")
    try:
        return _parse_whole_move(env, state, move)
    except TooManyRoutes as error:
        hops = first_hops(env, state)
        if move in hops:
            return [hops[move]]
        raise TooManyRoutes(f"{error}: type the capture hop by hop") from None


def _parse_whole_move(env, state, move: str) -> list[int]:
    squares = [int(part) for part in re.split(r"[-x]", move)]
    capture = "x" in move
    matches: dict[tuple, Route] = {}
    for route in routes(env, state):
        if (bool(route.taken) or int(state.jumper) >= 0) != capture:
            continue
        if route.path[0] != squares[0] or route.path[-1] != squares[-1]:
            if len(squares) == 2 and route.path[:2] == squares and int(state.jumper) >= 0:
                return route.actions[:1]  # one hop of a capture under way
            continue
        if not _in_order(squares[1:-1], route.path[1:-1]):
            continue
        matches.setdefault((route.path[0], route.path[-1], route.taken), route)
    if not matches:
        if len(squares) == 2 and capture:  # the first hop of a longer capture, typed alone
            for route in routes(env, state):
                if route.path[:2] == squares and route.taken:
                    return route.actions[:1]
        raise ValueError(f"{move} is not legal here")
    if len(matches) > 1:
        raise ValueError(f"{move} is ambiguous (it takes different pieces): write its path")
    return next(iter(matches.values())).actions


def _in_order(wanted: list[int], path: list[int]) -> bool:
    it = iter(path)
    return all(any(square == p for p in it) for square in wanted)
