"""Checkers or chess in the terminal: a person against an agent, two people, or two agents.

    jaxcheckers play                                  you (black) against alphabeta:3
    jaxcheckers play --black alphabeta:3 --white human
    jaxcheckers play --black human --white human      two people at one keyboard
    jaxcheckers play --black random --white alphabeta:2 --delay 0.5
    jaxcheckers play --game chess                     you (white) against alphabeta:2

At your turn type a move in standard notation: `11-15`, a capture `15x22`, a multi-jump
`15x22x29` (or only its ends, `15x29`, or one hop at a time), or the squares as row,col pairs:
`2,5 3,4`. `?` lists the legal moves (the legal hops instead, where captures branch into more
whole moves than a screen holds), `undo` takes back your last move (and the replies to it),
`quit` ends the game. Black (player 0) moves first, down the board from squares 1–12.

Chess moves are typed in SAN (`e4`, `Nf3`, `O-O`, `exd5`, `e8=Q`, `Nbd7`; the `+` or `#` may be
left out) or UCI (`e2e4`, `e7e8n`); `?` lists them in both. White (player 0) moves first.
Each game's notation is a `Notation` (the board, reading a move, writing one down, the record);
the loop itself is the same for every game.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
import time
from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

import jaxcheckers
from jaxcheckers.agents import AGENT_SPECS, make_agent
from jaxcheckers.argtypes import check_writable, non_negative_float, positive_int, seed
from jaxcheckers.checkers.fen import state_from_fen
from jaxcheckers.checkers.pdn import PdnGame, default_tags, format_game, hops_of_move
from jaxcheckers.checkers.positions import absolute_board
from jaxcheckers.checkers.render import (
    continue_move,
    legal_moves,
    square_number,
    write_hop,
)
from jaxcheckers.core import compiled_step

PLAYER_NAMES = ("black", "white")
HUMAN = "human"
HELP = (
    "type a move like 11-15 or 15x22 (multi-jumps 15x22x29), or row,col pairs like 2,5 3,4; "
    "? lists the legal moves, undo takes back your move, quit ends the game"
)

CHESS_HELP = (
    "type a move like e4, Nf3, O-O, exd5 or e8=Q (SAN) or e2e4, e7e8n (UCI); "
    "? lists the legal moves, undo takes back your move, quit ends the game"
)

__all__ = [
    "Seat",
    "Style",
    "Notation",
    "notation_of",
    "board_lines",
    "play_in_terminal",
    "interpret",
    "add_arguments",
    "run",
]


@dataclasses.dataclass(frozen=True)
class Seat:
    """Who plays one colour: a person (agent None) or an agent."""

    name: str
    agent: Callable | None = None


@dataclasses.dataclass(frozen=True)
class Style:
    unicode: bool = True
    colour: bool = False


PIECES_UNICODE = {1: "●", 2: "♛", -1: "○", -2: "♕"}
PIECES_ASCII = {1: "b", 2: "B", -1: "w", -2: "W"}
DARK, RESET, DIM = "\033[42m", "\033[0m", "\033[2m"
INK = {1: "\033[1;30m", -1: "\033[1;97m"}


def board_lines(state, style: Style = Style()) -> list[str]:
    """The board as a person sees it: black at the top, empty dark squares show their number."""
    board = absolute_board(state)
    n = board.shape[0]
    pieces = PIECES_UNICODE if style.unicode else PIECES_ASCII
    width = len(str(n * n // 2)) + 1
    lines = ["    " + "".join(f"{col:>{width}}" for col in range(n))]
    for row in range(n):
        cells = []
        for col in range(n):
            value = int(board[row, col])
            if (row + col) % 2 == 0:
                cell = " " * width
            elif value:
                cell = f"{pieces[value]:>{width}}"
                if style.colour:
                    cell = INK[int(np.sign(value))] + cell + RESET + DARK
            else:
                number = f"{square_number(row, col, n):>{width}}"
                cell = DIM + number + RESET + DARK if style.colour else number
            cells.append(DARK + cell + RESET if style.colour else cell)
        lines.append(f"{row:>3} " + "".join(cells))
    return lines


# -- reading what a person types --

_PAIR = re.compile(r"\(?\s*(\d+)\s*,\s*(\d+)\s*\)?")


def _command(text: str) -> str | None:
    """The command `text` names ("quit", "help", "undo"), or None; ValueError if empty."""
    command = text.strip().lower()
    if not command:
        raise ValueError("nothing typed")
    for name, words in (
        ("quit", ("quit", "q", "exit")),
        ("help", ("?", "help", "h", "moves")),
        ("undo", ("undo", "u", "takeback")),
    ):
        if command in words:
            return name
    return None


def interpret(text: str, state, env) -> tuple[str, list[int]]:
    """("quit"|"help"|"undo", []) or ("move", hop actions). ValueError with a short reason."""
    command = _command(text)
    if command:
        return command, []
    command = text.strip().lower()
    notation = _pairs_to_notation(command, env.board_size) if "," in command else command
    notation = notation.replace(" ", "").replace("×", "x")
    if not re.fullmatch(r"\d+([-x]\d+)+", notation):
        raise ValueError(f"could not read {text.strip()!r}")
    try:
        return "move", hops_of_move(env, state, notation)
    except ValueError:
        pass
    # One hop of a longer capture, typed hop by hop.
    for action, hop_text in legal_moves(state):
        if hop_text == notation:
            return "move", [action]
    raise ValueError(f"{notation} is not legal here")


def _pairs_to_notation(text: str, n: int) -> str:
    pairs = _PAIR.findall(text)
    leftover = _PAIR.sub("", text).replace("-", "").replace("x", "").replace(" ", "")
    if len(pairs) < 2 or leftover:
        raise ValueError(f"could not read {text.strip()!r} as row,col pairs")
    squares = []
    for row_text, col_text in pairs:
        row, col = int(row_text), int(col_text)
        if not (0 <= row < n and 0 <= col < n) or (row + col) % 2 == 0:
            raise ValueError(f"({row},{col}) is not a dark square of the {n}x{n} board")
        squares.append((row, col))
    capture = abs(squares[1][0] - squares[0][0]) == 2
    return ("x" if capture else "-").join(str(square_number(r, c, n)) for r, c in squares)


# -- each game's notation --


class Notation:
    """What the terminal game needs to know about one game; this one is checkers'."""

    names = PLAYER_NAMES  # of players 0 and 1
    help = HELP

    def board_lines(self, state, style: Style) -> list[str]:
        return board_lines(state, style)

    def turn_start(self, state) -> bool:
        """No move is under way (checkers: not in the middle of a capture)."""
        return int(state.jumper) < 0

    def interpret(self, text: str, state, env) -> tuple[str, list[int]]:
        return interpret(text, state, env)

    def legal_moves_text(self, env, state) -> str:
        return legal_moves_text(env, state)

    def write(self, env, moves: list[str], movers: list[int], state, action: int) -> None:
        """Writes `action`, about to be played from `state`, into the record."""
        write_hop(moves, movers, state, action)

    def result(self, state) -> str:
        return _result(state)

    def record(self, env, start, seats, moves, movers, result: str) -> PdnGame:
        tags = default_tags(env, start, Event="jaxcheckers play")
        tags.update(Black=seats[0].name, White=seats[1].name, Result=result)
        return PdnGame(tags, moves, movers, result)


class ChessNotation(Notation):
    """Chess: SAN or UCI typed, SAN written down; the record is PGN (PDN's twin)."""

    names = ("white", "black")
    help = CHESS_HELP

    def board_lines(self, state, style: Style) -> list[str]:
        from jaxcheckers.chess.render import render

        return render(state).splitlines()

    def turn_start(self, state) -> bool:
        return True  # every chess action is a whole move

    def interpret(self, text: str, state, env) -> tuple[str, list[int]]:
        from jaxcheckers.chess.san import read_move

        command = _command(text)
        return (command, []) if command else ("move", [read_move(env, state, text)])

    def legal_moves_text(self, env, state) -> str:
        from jaxcheckers.chess.san import legal_moves

        moves = sorted(legal_moves(env, state), key=lambda m: m.san)
        return "legal moves: " + ", ".join(f"{m.san} ({m.uci})" for m in moves)

    def write(self, env, moves, movers, state, action) -> None:
        from jaxcheckers.chess.pgn import write_move

        write_move(env, moves, movers, state, action)

    def result(self, state) -> str:
        from jaxcheckers.chess.pgn import result_text

        return result_text(state)

    def record(self, env, start, seats, moves, movers, result: str) -> PdnGame:
        from jaxcheckers.chess.pgn import default_tags

        tags = default_tags(start, Event="jaxcheckers play", Result=result)
        tags.update(White=seats[0].name, Black=seats[1].name)
        return PdnGame(tags, moves, movers, result)


def notation_of(env) -> Notation:
    """The notation of `env`'s game; ValueError for a game the terminal cannot play."""
    notations = {"checkers": Notation, "chess": ChessNotation}
    if env.id not in notations:
        raise ValueError(f"{env.id} cannot be played in the terminal (checkers and chess can)")
    return notations[env.id]()


# -- the game loop --


@dataclasses.dataclass
class _Snapshot:
    state: object
    moves: int  # how many whole moves had been written down


def play_in_terminal(
    env,
    seats: tuple[Seat, Seat],
    state,
    *,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
    style: Style = Style(),
    key: jax.Array | None = None,
    delay: float = 0.0,
    notation: Notation | None = None,
) -> tuple[object, PdnGame]:
    """Plays until the game ends or a person quits. Returns the last state and the game record.

    `notation` defaults to that of `env`'s game (`notation_of`).
    """
    key = jax.random.key(0) if key is None else key
    text = notation_of(env) if notation is None else notation
    step = compiled_step(env)
    acts = [None if seat.agent is None else jax.jit(seat.agent) for seat in seats]
    start = state
    moves: list[str] = []
    movers: list[int] = []
    history: list[_Snapshot] = []

    def show():
        write("\n".join(text.board_lines(state, style)))
        write(_status(state, seats, text))

    show()
    while not bool(state.terminated | state.truncated):
        player = int(state.current_player)
        turn_start = text.turn_start(state)
        if acts[player] is not None:
            key, subkey = jax.random.split(key)
            try:
                hops = [int(acts[player](state, subkey))]
            except KeyboardInterrupt:  # Ctrl-C while an agent thinks: the game so far is kept
                write("\ninterrupted")
                break
        else:
            try:
                line = read(f"{text.names[player]} ({seats[player].name})> ")
            except (EOFError, KeyboardInterrupt):
                write("\ngoodbye")
                break
            try:
                what, hops = text.interpret(line, state, env)
            except ValueError as error:
                unreadable = str(error).startswith(("could not read", "nothing typed"))
                write(f"{error}; {text.help if unreadable else '? lists the legal moves'}")
                continue
            if what == "quit":
                write("game abandoned")
                break
            if what == "help":
                write(text.legal_moves_text(env, state))
                continue
            if what == "undo":
                back = _undo(history, seats, mid_capture=not turn_start)
                if back is None:
                    write("nothing to undo")
                    continue
                state = back.state
                del moves[back.moves :], movers[back.moves :]
                write("taken back")
                show()
                continue
        if turn_start:
            history.append(_Snapshot(state, len(moves)))
        for action in hops:
            text.write(env, moves, movers, state, action)
            state = step(state, jnp.int32(action))
        turn_over = text.turn_start(state) or bool(state.terminated | state.truncated)
        if acts[player] is not None and turn_over:
            write(f"{text.names[player]} plays {moves[-1]}")
            if delay:
                try:
                    time.sleep(delay)
                except KeyboardInterrupt:
                    write("\ninterrupted")
                    break
        if turn_over or acts[player] is None:
            show()

    return state, text.record(env, start, seats, moves, movers, text.result(state))


def _undo(history: list[_Snapshot], seats, mid_capture: bool) -> _Snapshot | None:
    """The latest earlier turn start where a person was to move (this turn's, mid-capture)."""
    if mid_capture and history:
        return history.pop()
    for index in range(len(history) - 1, -1, -1):
        if seats[int(history[index].state.current_player)].agent is None:
            snapshot = history[index]
            del history[index:]
            return snapshot
    return None


# `?` lists whole moves up to these bounds; beyond them (many kings with branching captures on a
# big board: 37,831 whole moves on one 14×14 position) it lists the legal hops instead.
MOVE_LIST_LIMIT = 60  # whole moves listed at most
HOP_SEARCH_LIMIT = 400  # hops stepped while looking for them


class WholeMoves(NamedTuple):
    moves: list[str]  # as a person writes them, in action order
    complete: bool  # every whole move is in `moves`
    hops_stepped: int  # how many hops the search played (its cost)


def _whole_moves(
    env, state, limit: int = MOVE_LIST_LIMIT, hop_limit: int = HOP_SEARCH_LIMIT
) -> WholeMoves:
    """Legal moves as a person writes them: whole capture sequences where there are captures.

    Stops early, rather than enumerating and truncating, once it has found more than `limit`
    moves or stepped `hop_limit` hops: capture sequences can branch exponentially.
    """
    step = compiled_step(env)
    found: list[str] = []
    stepped = 0

    def extend(current, prefix) -> bool:  # False: stopped at a bound
        nonlocal stepped
        for action, text in legal_moves(current):
            written = text if prefix is None else continue_move(prefix, text)
            if "x" not in text:  # a simple move: it ends the turn, no need to play it
                found.append(written)
            else:
                if stepped >= hop_limit:
                    return False
                stepped += 1
                after = step(current, jnp.int32(action))
                if int(after.jumper) >= 0:
                    if not extend(after, written):
                        return False
                else:
                    found.append(written)
            if len(found) > limit:
                return False
        return True

    complete = extend(state, None)
    return WholeMoves(found, complete, stepped)


def legal_moves_text(env, state) -> str:
    """What `?` prints: the whole moves, or the legal hops where they are too many to list."""
    listing = _whole_moves(env, state)
    if listing.complete:
        return "legal moves: " + ", ".join(listing.moves)
    hops = ", ".join(text for _, text in legal_moves(state))
    return (
        f"more than {len(listing.moves)} whole moves (the captures branch too much to list them);"
        f" legal hops: {hops}; play a capture one hop at a time"
    )


def _status(state, seats, notation: Notation) -> str:
    names = notation.names
    if bool(state.truncated):
        return "game over: cut at the step limit"
    if bool(state.terminated):
        rewards = np.asarray(state.rewards)
        if rewards[0] == rewards[1]:
            return "game over: draw"
        winner = int(rewards[1] > rewards[0])
        return f"game over: {names[winner]} ({seats[winner].name}) wins"
    player = int(state.current_player)
    status = f"{names[player]} ({seats[player].name}) to move"
    if not notation.turn_start(state):
        status += ", continuing the capture"
    return status


def _result(state) -> str:
    from jaxcheckers.checkers.pdn import result_text

    if not bool(state.terminated | state.truncated):
        return "*"
    return result_text(np.asarray(state.rewards), bool(state.truncated))


# -- the command --


def add_arguments(parser: argparse.ArgumentParser) -> None:
    choices = ", ".join([HUMAN, *AGENT_SPECS])
    parser.add_argument("--game", choices=("checkers", "chess"), default="checkers")
    parser.add_argument(
        "--black", help=f"who plays black ({choices}; default: checkers human, chess alphabeta)"
    )
    parser.add_argument(
        "--white", help="who plays white (same choices; default: checkers alphabeta:3, chess human)"
    )
    parser.add_argument("--board-size", type=positive_int, default=None, help="checkers: n×n")
    parser.add_argument("--fen", help="start from this position (a FEN of the game)")
    parser.add_argument("--seed", type=seed, default=0)
    parser.add_argument(
        "--delay", type=non_negative_float, default=0.0, help="seconds to pause after a move"
    )
    parser.add_argument("--ascii", action="store_true", help="letters instead of unicode pieces")
    parser.add_argument("--no-color", action="store_true", help="no colours even on a terminal")
    parser.add_argument(
        "--pdn", "--pgn", metavar="FILE", help="save the game to FILE (PDN; for chess, PGN)"
    )


# Who sits where unless told: a person moves first, against alpha-beta (chess searches plies,
# checkers whole turns; these depths answer in about a second).
DEFAULT_SEATS = {"checkers": (HUMAN, "alphabeta:3"), "chess": (HUMAN, "alphabeta:2")}


def _env_and_start(args: argparse.Namespace):
    if args.game == "chess":
        if args.board_size is not None:
            raise ValueError("chess has no --board-size")
        from jaxcheckers.chess.fen import state_from_fen as chess_state_from_fen

        env = jaxcheckers.make("chess")
        state = chess_state_from_fen(args.fen) if args.fen else env.reset(jax.random.key(0))
        return env, state
    env = jaxcheckers.make("checkers", board_size=args.board_size or 8)
    state = state_from_fen(env, args.fen) if args.fen else env.reset(jax.random.key(0))
    return env, state


def run(args: argparse.Namespace) -> int:
    try:
        if args.pdn:
            check_writable(args.pdn)  # now, not after a whole game
        env, state = _env_and_start(args)
        notation = notation_of(env)
        first, second = DEFAULT_SEATS[args.game]
        specs = (args.black, args.white)  # players 0 and 1 in checkers
        if args.game == "chess":
            specs = (args.white, args.black)
        specs = (specs[0] or first, specs[1] or second)
        seats = tuple(
            Seat(spec, None if spec == HUMAN else make_agent(spec, env)) for spec in specs
        )
    except (ValueError, OSError) as error:
        print(f"play: {error}", file=sys.stderr)
        return 2
    style = Style(unicode=not args.ascii, colour=sys.stdout.isatty() and not args.no_color)
    if any(seat.agent is None for seat in seats):
        print(notation.help)
    _, game = play_in_terminal(
        env,
        seats,
        state,
        style=style,
        key=jax.random.key(args.seed),
        delay=args.delay,
        notation=notation,
    )
    if args.pdn:
        try:
            with open(args.pdn, "w", encoding="utf-8") as file:
                file.write(format_game(game))
        except OSError as error:  # the path was checked; it can still fail (a full disk)
            print(f"play: could not save the game to {args.pdn}: {error}", file=sys.stderr)
            print(format_game(game))  # the game is not lost: it goes to the screen instead
            return 1
        print(f"game saved to {args.pdn}")
    return 0
