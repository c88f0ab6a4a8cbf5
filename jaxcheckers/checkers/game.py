"""One game of checkers as a plain Python object, for people who want a game, not a tensor.

    game = Game.new()                       # or Game.from_board(drawing, player=1), from_fen(text)
    print(game)                             # the board, black at the top, and who is to move
    game.legal_moves()                      # [Move(start=9, end=13, captured=None, ...), ...]
    game = game.play("11-15")               # a Move, its notation, or an action id
    game.is_over, game.result               # result: (payoff of player 0, payoff of player 1)

`play_game(agents)` plays one between two agents:

    game = play_game(["alphabeta:3", "random"])   # a finished Game; game.moves, game.result

Rules and options: everything goes through the JAX environment `jaxcheckers.make("checkers", ...)`
(American checkers, tournament rules, by default); `Game.new` and the other constructors take its
options (`board_size`, `no_moves`, `crowning`, `forty_move_draw`, `repetition_draw`, `max_steps`)
as keywords, or a named set of them, `rule_set="ealt"` (`RULE_SETS`; options given beside it win).

Squares are the printed numbers of `jaxcheckers.checkers.render` (8×8: black's men start on 1–12);
`render.square_position(number, n)` gives a square's (row, col). Each hop of a multi-jump is one
`play` by the same side (`Move` describes one hop), as in the environment; `play("15x22x29")` plays
the hops of a whole capture in one call. A `Game` never changes: `play` returns a new one, and an
illegal move raises `ValueError` (unlike the RL adapters, where it loses the game).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import jax
import numpy as np

from jaxcheckers.checkers import Checkers, CheckersState, fen, positions, render, rules
from jaxcheckers.checkers.env import RULE_SETS, checkers_with_rule_set
from jaxcheckers.core import compiled_step, per_rules
from jaxcheckers.games import opening

__all__ = ["Game", "Move", "RULE_SETS", "play_game"]

_NOTATION = re.compile(r"^\s*\d+\s*(-\s*\d+|(x\s*\d+\s*)+)$")


class Move(NamedTuple):
    """One legal hop of the side to move. Squares are printed square numbers (1-based)."""

    start: int  # the square the piece leaves
    end: int  # the square it lands on
    captured: int | None  # the square of the piece it jumps, None for a simple move
    action: int  # the environment's action id (mover's frame)
    notation: str  # "11-15" or "15x22"

    def __str__(self) -> str:
        return self.notation


# -- compiled functions, shared by every Game (and adapter) with the same rules --------------------


@functools.cache
def _env(options: tuple[tuple[str, Any], ...]) -> Checkers:
    return checkers_with_rule_set(**dict(options))


def _env_from_options(**options) -> Checkers:
    return _env(tuple(sorted(options.items())))


# -- the game ---------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, eq=False)
class Game:
    """An immutable game of checkers: a JAX `CheckersState` (unbatched) and the moves played.

    Build one with `Game.new`, `Game.from_board`, `Game.from_fen` or `Game.from_state`.
    """

    env: Checkers
    state: CheckersState
    moves: tuple[Move, ...] = ()  # the hops played since this Game's start position

    # -- constructors -------------------------------------------------------------------------

    @classmethod
    def new(cls, board_size: int = 8, **options) -> Game:
        """The opening position; `options` are those of `jaxcheckers.make("checkers", ...)`."""
        env = _env_from_options(board_size=board_size, **options)
        return cls(env, opening(env))

    @classmethod
    def from_board(
        cls,
        board: np.ndarray | str | Sequence[str],
        *,
        player: int = 0,
        jumper: tuple[int, int] | int | None = None,
        **options,
    ) -> Game:
        """A position from an absolute (n, n) board array or a drawing (see `positions`).

        `player` is the side to move; `jumper` the piece in the middle of a multi-jump, as
        (row, col) or a printed square number. The board size is taken from the board.
        """
        if not isinstance(board, np.ndarray):
            rows = isinstance(board, (list, tuple)) and all(isinstance(r, str) for r in board)
            drawing = isinstance(board, str) or rows
            board = positions.parse_board(board) if drawing else np.asarray(board)
        if board.ndim != 2:
            raise ValueError(f"the board must be a square (n, n) array, got shape {board.shape}")
        n = board.shape[0]
        if options.pop("board_size", n) != n:
            raise ValueError(f"the board is {n}×{n}; board_size is taken from it")
        if isinstance(jumper, (int, np.integer)) and not isinstance(jumper, bool):
            jumper = render.square_position(int(jumper), n)
        env = _env_from_options(board_size=n, **options)
        state = positions.from_board(env, board, player=player, jumper=jumper)
        return cls(env, jax.device_get(state))

    @classmethod
    def from_fen(cls, text: str, board_size: int = 8, **options) -> Game:
        """A position from FEN text (`jaxcheckers.checkers.fen`); FEN does not say the size.

        A position in the middle of a capture has no FEN; use `from_board(..., jumper=)`.
        """
        board, player = fen.fen_to_board(text, board_size)
        return cls.from_board(board, player=player, **options)

    @classmethod
    def from_state(cls, state: CheckersState, env: Checkers) -> Game:
        """Wraps an unbatched State of `env` (for example one taken out of a batch)."""
        if np.shape(state.current_player) != ():
            raise ValueError("from_state takes one game; index a batched State first")
        env.check_state(state)  # a state of another board size or other rules: ValueError
        if state.board.shape != (env.board_size**2,):
            raise ValueError(f"the state's board does not fit {env!r}")
        return cls(env, jax.device_get(state))

    # -- what a person asks of a game ---------------------------------------------------------

    @property
    def board_size(self) -> int:
        return self.env.board_size

    @property
    def current_player(self) -> int:
        """0 (black, moves first) or 1 (white)."""
        return int(self.state.current_player)

    @property
    def board(self) -> np.ndarray:
        """int8 (n, n) absolute board: +1/+2 black man/king, −1/−2 white, black at the top."""
        return positions.absolute_board(self.state)

    @property
    def jumper(self) -> int | None:
        """Printed square of the piece that must continue a capture, None outside a capture."""
        square = int(self.state.jumper)
        if square < 0:
            return None
        n = self.board_size
        if self.current_player == 1:
            square = n * n - 1 - square
        return render.square_number(*divmod(square, n), n)

    @property
    def is_over(self) -> bool:
        return bool(self.state.terminated) or bool(self.state.truncated)

    @property
    def result(self) -> tuple[float, float] | None:
        """Payoff per player once the game is over (+1 win, −1 loss, 0 draw); None before.

        Read from the rewards of the step that ended the game; a position set up with the side
        to move already stuck counts as lost for it (under `no_moves="lose"`). A truncated game
        is 0, 0.
        """
        if not self.is_over:
            return None
        rewards = np.asarray(self.state.rewards, dtype=np.float64)
        if bool(self.state.truncated) or rewards.any():
            return float(rewards[0]), float(rewards[1])
        if self.env.no_moves == "lose" and not self._rules_allow_a_move():
            loser = self.current_player
            return (-1.0, 1.0) if loser == 0 else (1.0, -1.0)
        return 0.0, 0.0

    @property
    def winner(self) -> int | None:
        """0 or 1 once somebody has won, else None."""
        result = self.result
        if result is None or result[0] == result[1]:
            return None
        return int(np.argmax(result))

    def _rules_allow_a_move(self) -> bool:
        mask = rules.legal_action_mask(self.state.board, self.state.jumper, self.board_size)
        return bool(np.asarray(mask).any())

    def legal_moves(self) -> list[Move]:
        """One Move per legal hop, in action order; empty once the game is over."""
        return [self._move(action, text) for action, text in render.legal_moves(self.state)]

    def _move(self, action: int, notation: str) -> Move:
        n = self.board_size
        (r0, c0), (r1, c1), capture = render.action_squares(self.state, action)
        captured = render.square_number((r0 + r1) // 2, (c0 + c1) // 2, n) if capture else None
        return Move(
            start=render.square_number(r0, c0, n),
            end=render.square_number(r1, c1, n),
            captured=captured,
            action=int(action),
            notation=notation,
        )

    def play(self, move: Move | str | int) -> Game:
        """The game after `move`: a Move from `legal_moves()`, its notation, or an action id.

        A notation with several hops ("15x22x29") plays the whole capture. Raises ValueError for
        anything that is not legal here; the game itself is never changed.
        """
        if isinstance(move, str) and move.count("x") > 1:
            return self._play_capture(move)
        chosen = self._resolve(move)
        state = compiled_step(self.env)(self.state, np.int32(chosen.action))
        return dataclasses.replace(self, state=jax.device_get(state), moves=self.moves + (chosen,))

    def _play_capture(self, notation: str) -> Game:
        if not _NOTATION.match(notation):
            raise ValueError(f"{notation!r} is not checkers notation such as '11-15' or '15x22x29'")
        squares = [int(s) for s in notation.split("x")]
        game = self
        for i, (start, end) in enumerate(zip(squares, squares[1:], strict=False)):
            if i > 0 and (game.current_player != self.current_player or game.jumper != start):
                raise ValueError(f"{notation!r}: the capture ends on {start}; it cannot go on")
            game = game.play(f"{start}x{end}")
        return game

    def _resolve(self, move: Move | str | int) -> Move:
        if self.is_over:
            raise ValueError("the game is over; no move can be played")
        legal = self.legal_moves()
        if isinstance(move, Move):
            if move in legal:
                return move
            raise ValueError(f"{move} is not a legal move here; legal: {_listed(legal)}")
        if isinstance(move, str):
            if not _NOTATION.match(move):
                raise ValueError(f"{move!r} is not checkers notation such as '11-15' or '15x22'")
            text = re.sub(r"\s+", "", move)
            for candidate in legal:
                if candidate.notation == text:
                    return candidate
            raise ValueError(f"{text} is not a legal move here; legal: {_listed(legal)}")
        if isinstance(move, (int, np.integer)) and not isinstance(move, (bool, np.bool_)):
            if not 0 <= int(move) < self.env.num_actions:
                raise ValueError(f"action {int(move)} is out of range [0, {self.env.num_actions})")
            for candidate in legal:
                if candidate.action == int(move):
                    return candidate
            raise ValueError(f"action {int(move)} is not legal here; legal: {_listed(legal)}")
        raise ValueError(f"a move is a Move, a notation string or an action id, got {move!r}")

    # -- conversions and printing -------------------------------------------------------------

    def copy(self) -> Game:
        """A Game equal to this one (Games never change, so this is mostly for familiarity)."""
        return dataclasses.replace(self)

    def fen(self) -> str:
        """The position as FEN text (`jaxcheckers.checkers.fen.state_to_fen`)."""
        return fen.state_to_fen(self.state)

    def __str__(self) -> str:
        return render.render_text(self.state)

    def __repr__(self) -> str:
        status = render.status_line(self.state)
        return (
            f"<Game {self.board_size}×{self.board_size}, {len(self.moves)} moves played, {status}>"
        )


def _listed(moves: Sequence[Move]) -> str:
    return ", ".join(m.notation for m in moves) or "none"


# -- a whole game between two agents ---------------------------------------------------------


@per_rules(maxsize=32)
def _compiled_agent(env: Checkers, agent: str | Callable) -> Callable:
    """A jitted `act(state, key)` for `agent` (a spec such as "random", or an act function)."""
    from jaxcheckers.agents import make_agent  # the agents load when a game is played

    act = make_agent(agent, env) if isinstance(agent, str) else agent
    if not callable(act):
        raise ValueError(f"an agent is a spec string or an act(state, key) function, got {agent!r}")
    return jax.jit(act)


def play_game(
    agents: Sequence[str | Callable],
    start: Game | str | None = None,
    *,
    key: jax.Array | None = None,
) -> Game:
    """Plays a game to its end and returns the finished Game (its moves are `game.moves`).

    `agents[p]` plays player p: a spec for `jaxcheckers.agents.make_agent` ("random", ...) or an
    `act(state, key) -> action` function. `start` is a Game or a FEN string (8×8), by default
    the opening. `key` (default `jax.random.key(0)`) is split once per hop. An agent that picks
    an illegal action raises ValueError. The game ends by the rules or at the env's `max_steps`.
    """
    if len(agents) != 2:
        raise ValueError(f"play_game needs two agents (player 0, player 1), got {len(agents)}")
    if start is None:
        game = Game.new()
    elif isinstance(start, str):
        game = Game.from_fen(start)
    elif isinstance(start, Game):
        game = start
    else:
        raise ValueError(f"start must be a Game, a FEN string or None, got {type(start).__name__}")
    key = jax.random.key(0) if key is None else key
    acts = [_compiled_agent(game.env, agent) for agent in agents]
    while not game.is_over:
        key, subkey = jax.random.split(key)
        action = int(acts[game.current_player](game.state, subkey))
        game = game.play(action)
    return game
