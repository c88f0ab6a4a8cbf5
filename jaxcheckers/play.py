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
import sys
import time
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from jaxcheckers import games, records
from jaxcheckers.agents import agent_specs, make_agent
from jaxcheckers.argtypes import (
    add_fen_argument,
    add_option_argument,
    check_writable,
    delay_seconds,
    env_and_start,
    positive_int,
    seed,
)
from jaxcheckers.core import compiled_step

HUMAN = "human"
MAX_TYPED = 200  # characters; the longest move typed (a king's many-hop capture) is shorter
COMMANDS_HELP = "? lists the legal moves, undo takes back your move, quit ends the game"

__all__ = [
    "Seat",
    "Style",
    "Notation",
    "notation_of",
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


# -- reading what a person types --


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
    """("quit"|"help"|"undo", []) or ("move", the move's actions). ValueError with a short
    reason."""
    return notation_of(env).interpret(text, state, env)


def _parse_action(env, state, text: str) -> list[int]:
    """A move typed as its action number (games with no notation of their own)."""
    typed = text.strip()
    if not (typed.isascii() and typed.isdigit()):
        raise ValueError(f"could not read {typed[:40]!r} as an action number")
    action = int(typed)
    if action >= env.num_actions or not bool(np.asarray(state.legal_action_mask)[action]):
        raise ValueError(f"{action} is not legal here")
    return [action]


def _name_action(env, state, action: int) -> str:
    return str(action)


# -- each game's notation, read from the registry --


@dataclasses.dataclass(frozen=True)
class Notation:
    """What the terminal game needs to know about one game: its spec's notation, or action
    numbers where it has none."""

    spec: games.GameSpec

    @property
    def names(self) -> tuple[str, str]:
        return self.spec.players

    @property
    def help(self) -> str:
        return f"{self.spec.notation.move_help or 'type the number of an action'}; {COMMANDS_HELP}"

    def board_lines(self, state, style: Style) -> list[str]:
        if self.spec.drawing.terminal is not None:
            return self.spec.drawing.terminal(state, unicode=style.unicode, colour=style.colour)
        if self.spec.drawing.text is not None:
            return self.spec.drawing.text(state).splitlines()
        return [f"observation {np.asarray(state.observation).astype(int).tolist()}"]

    def turn_start(self, state) -> bool:
        """No move is under way (checkers: not in the middle of a capture)."""
        return self.spec.notation.mid_move is None or not self.spec.notation.mid_move(state)

    def interpret(self, text: str, state, env) -> tuple[str, list[int]]:
        """("quit"|"help"|"undo", []) or ("move", the move's actions); ValueError."""
        command = _command(text)
        if command:
            return command, []
        typed = text.strip()
        if len(typed) > MAX_TYPED:  # a paste, not a move: no 5,000-digit number read or echoed
            raise ValueError(f"could not read {typed[:20]!r}... ({len(typed):,} characters)")
        return "move", (self.spec.notation.parse_move or _parse_action)(env, state, text)

    def legal_moves_text(self, env, state) -> str:
        if self.spec.notation.legal_moves_text is not None:
            return self.spec.notation.legal_moves_text(env, state)
        name = self.spec.notation.move_name or _name_action
        legal = np.flatnonzero(np.asarray(state.legal_action_mask))
        return "legal moves: " + ", ".join(name(env, state, int(a)) for a in legal)

    def write(self, env, moves: list[str], movers: list[int], state, action: int) -> None:
        """Writes `action`, about to be played from `state`, into the record."""
        self.spec.dialect.write(env, moves, movers, state, action)

    def result(self, state) -> str:
        return self.spec.dialect.result(state)

    def record(self, env, start, seats, moves, movers, result: str) -> records.GameRecord:
        dialect = self.spec.dialect
        tags = dialect.tags(env, start, Event="jaxcheckers play")
        tags.update(zip(dialect.player_tags, (seat.name for seat in seats), strict=True))
        tags["Result"] = result
        return records.GameRecord(tags, moves, movers, result)


def notation_of(env) -> Notation:
    """The notation of `env`'s game (its registry entry)."""
    return Notation(games.spec(env.id))


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
    write: Callable[[str], None] = lambda text: print(text, flush=True),
    style: Style = Style(),
    key: jax.Array | None = None,
    delay: float = 0.0,
    notation: Notation | None = None,
) -> tuple[object, records.GameRecord]:
    """Plays until the game ends or a person quits. Returns the last state and the game record.

    `notation` defaults to that of `env`'s game (`notation_of`). `write` prints and flushes
    by default: piped (to `tee`, a test), the board is out before an agent thinks.
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

    try:
        show()
        while not bool(state.terminated | state.truncated):
            player = int(state.current_player)
            turn_start = text.turn_start(state)
            if acts[player] is not None:
                key, subkey = jax.random.split(key)
                hops = [int(acts[player](state, subkey))]
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
                    time.sleep(delay)
            if turn_over or acts[player] is None:
                show()
    except KeyboardInterrupt:  # Ctrl-C whenever an agent thinks (compiles, searches), or
        write("\ninterrupted")  # between moves: the game so far is kept

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


# -- the command --


def add_arguments(parser: argparse.ArgumentParser) -> None:
    choices = ", ".join([HUMAN, *agent_specs()])
    parser.add_argument("--game", choices=games.names(), default=games.DEFAULT)
    parser.add_argument(
        "--black",
        help=f"who plays black ({choices}); in a game without black, the first player "
        "(default: the game's own, e.g. checkers human)",
    )
    parser.add_argument(
        "--white",
        help="who plays white (same choices); in a game without white, the second player "
        "(default: the game's own, e.g. checkers alphabeta:3)",
    )
    parser.add_argument("--board-size", type=positive_int, default=None, help="n of an n×n board")
    add_option_argument(parser)
    add_fen_argument(parser)
    parser.add_argument("--seed", type=seed, default=0)
    parser.add_argument(
        "--delay", type=delay_seconds, default=0.0, help="seconds to pause after a move (≤ 60)"
    )
    parser.add_argument("--ascii", action="store_true", help="letters instead of unicode pieces")
    parser.add_argument("--no-color", action="store_true", help="no colours even on a terminal")
    parser.add_argument(
        "--pdn", "--pgn", metavar="FILE", help="save the game to FILE (PDN; for chess, PGN)"
    )


def _seat_specs(args: argparse.Namespace, game: games.GameSpec) -> tuple[str, str]:
    """Who plays players 0 and 1: --black/--white name a colour where the game has it, else the
    first and second player. One seat given, the person at the terminal takes the other (as
    `--white AGENT` in checkers, where black is the human by default, so in every game); none
    given, the game's defaults."""
    given = {"black": args.black, "white": args.white}
    if set(game.players) != set(given):
        given = dict(zip(game.players, (args.black, args.white), strict=True))
    if sum(spec is not None for spec in given.values()) == 1:
        return tuple(given[name] or HUMAN for name in game.players)
    defaults = zip(game.players, game.defaults.seats, strict=True)
    return tuple(given[name] or default for name, default in defaults)


def run(args: argparse.Namespace) -> int:
    try:
        if args.pdn is not None:
            check_writable(args.pdn, new=True)  # now, not after a whole game
        env, state = env_and_start(args)
        notation = notation_of(env)
        seats = tuple(
            Seat(spec, None if spec == HUMAN else make_agent(spec, env))
            for spec in _seat_specs(args, notation.spec)
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
    if args.pdn is not None:
        try:
            with open(args.pdn, "w", encoding="utf-8") as file:
                file.write(records.format_game(game))
        except OSError as error:  # the path was checked; it can still fail (a full disk)
            print(f"play: could not save the game to {args.pdn}: {error}", file=sys.stderr)
            print(records.format_game(game))  # the game is not lost: it goes to the screen instead
            return 1
        print(f"game saved to {args.pdn}")
    return 0
