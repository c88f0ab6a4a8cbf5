"""The checkers environment: wires the pure rules into `reset` / `step` and keeps the draw rules."""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxcheckers.checkers import rules
from jaxcheckers.core import Env, tree_where

MIN_SIZE, MAX_SIZE = 4, 16
QUIET_PLY_LIMIT = 80  # the 40-move rule: 40 turns of each side without a capture or a man move
HISTORY_WITH_FORTY_MOVE = 80  # enough: the 40-move rule ends the game before the history is full
HISTORY_WITHOUT_FORTY_MOVE = 128  # without it, repetitions are looked for in the last 128 plies
DEFAULT_MAX_STEPS = 1000  # as OpenSpiel's checkers; far above what real games need
NO_MOVES_RULES = ("lose", "pass")


class CheckersState(NamedTuple):
    current_player: jax.Array  # int32 ()  0 (black, moves first) or 1
    observation: jax.Array  # bool (n, n, 4)  own men, own kings, opponent men, opponent kings
    legal_action_mask: jax.Array  # bool (4·n·n,)  all False once the game is over
    rewards: jax.Array  # float32 (2,)  of the last step, indexed by player
    terminated: jax.Array  # bool ()
    truncated: jax.Array  # bool ()
    step_count: jax.Array  # int32 ()  environment steps (hops) taken
    board: jax.Array  # int8 (n·n,)  mover's frame: +1/+2 own man/king, −1/−2 the opponent's
    jumper: jax.Array  # int32 ()  square (mover's frame) of a piece mid-capture, −1 if none
    quiet_plies: jax.Array  # int32 ()  turns since the last capture or man move
    history: jax.Array  # uint32 (H, key words)  king keys of the positions since then
    history_player: jax.Array  # int8 (H,)  the side to move in each of those positions


class Checkers(Env):
    """American checkers (English draughts) on an n×n board, PettingZoo checkers_v3 layout.

    Options (keyword-only):
        board_size: even, 4 to 16 (default 8).
        no_moves: "lose" (default; tournament rule) or "pass" (a side that still has pieces but
            no move passes; the game is drawn when neither side can move; a side with no pieces
            left loses in both).
        forty_move_draw: draw after 80 plies without a capture or a man move (default True).
        repetition_draw: draw when a position recurs for the third time, same side to move
            (default True). Looks back over the whole stretch since the last irreversible move
            with the 40-move rule on, over the last 128 plies with it off.
        max_steps: environment steps (hops) before `truncated` is set; None never truncates
            (default 1000, as OpenSpiel's checkers).
    """

    def __init__(
        self,
        *,
        board_size: int = 8,
        no_moves: str = "lose",
        forty_move_draw: bool = True,
        repetition_draw: bool = True,
        max_steps: int | None = DEFAULT_MAX_STEPS,
    ):
        if not isinstance(board_size, (int, np.integer)) or isinstance(board_size, bool):
            raise ValueError(f"board_size must be an int, got {board_size!r}")
        if board_size % 2 or not MIN_SIZE <= board_size <= MAX_SIZE:
            raise ValueError(
                f"board_size must be even and between {MIN_SIZE} and {MAX_SIZE}, got {board_size}"
            )
        if no_moves not in NO_MOVES_RULES:
            raise ValueError(f"no_moves must be one of {NO_MOVES_RULES}, got {no_moves!r}")
        for name, flag in (("forty_move_draw", forty_move_draw), ("repetition_draw", repetition_draw)):
            if not isinstance(flag, (bool, np.bool_)):
                raise ValueError(f"{name} must be True or False, got {flag!r}")
        if max_steps is not None and (
            isinstance(max_steps, bool) or not isinstance(max_steps, (int, np.integer)) or max_steps < 1
        ):
            raise ValueError(f"max_steps must be a positive int or None, got {max_steps!r}")

        self.board_size = n = int(board_size)
        self.no_moves = no_moves
        self.forty_move_draw = bool(forty_move_draw)
        self.repetition_draw = bool(repetition_draw)
        self.max_steps = None if max_steps is None else int(max_steps)
        self.num_actions = rules.num_actions(n)
        self.observation_shape = (n, n, 4)
        self.history_length = (
            HISTORY_WITH_FORTY_MOVE if self.forty_move_draw else HISTORY_WITHOUT_FORTY_MOVE
        )
        self._opening = rules.opening_board(n)

    def __repr__(self) -> str:
        return (
            f"Checkers(board_size={self.board_size}, no_moves={self.no_moves!r}, "
            f"forty_move_draw={self.forty_move_draw}, repetition_draw={self.repetition_draw}, "
            f"max_steps={self.max_steps})"
        )

    # -- the two entry points the core plumbing calls -------------------------------------------

    def _init(self, key: jax.Array) -> CheckersState:
        del key  # the opening is fixed
        return self.start(jnp.asarray(self._opening), jnp.int32(0), jnp.int32(-1))

    def start(self, board: jax.Array, player: jax.Array, jumper: jax.Array) -> CheckersState:
        """A game from `board` (int8 (n·n,), in `player`'s frame), `player` to move.

        Unvalidated and traceable; users go through `jaxcheckers.checkers.positions`.
        """
        n = self.board_size
        board = jnp.asarray(board, jnp.int8)
        no_history = jnp.zeros((self.history_length, rules.key_words(n)), jnp.uint32)
        state = CheckersState(
            current_player=jnp.int32(player),
            observation=rules.observation(board, n),
            legal_action_mask=rules.legal_action_mask(board, jumper, n),
            rewards=jnp.zeros(2, jnp.float32),
            terminated=jnp.bool_(False),
            truncated=jnp.bool_(False),
            step_count=jnp.int32(0),
            board=board,
            jumper=jnp.int32(jumper),
            quiet_plies=jnp.int32(0),
            history=no_history,
            history_player=jnp.zeros(self.history_length, jnp.int8),
        )
        if self.no_moves == "pass":
            state = tree_where((board > 0).any(), self._pass_if_stuck(state), state)
        return self._record(state)._replace(terminated=~state.legal_action_mask.any())

    def _step(self, state: CheckersState, action: jax.Array) -> CheckersState:
        n = self.board_size
        hop = rules.apply_hop(state.board, action, n)
        continues = hop.captured & ~hop.crowned & rules.can_jump_from(hop.board, hop.destination, n)

        # Mid-capture, the same player moves the same piece again; otherwise the turn passes.
        board = jnp.where(continues, hop.board, rules.flip(hop.board))
        jumper = jnp.where(continues, hop.destination, -1)
        player = jnp.where(continues, state.current_player, 1 - state.current_player)
        mid_capture = state._replace(
            board=board,
            jumper=jumper,
            current_player=player,
            legal_action_mask=rules.legal_action_mask(board, jumper, n),
            rewards=jnp.zeros(2, jnp.float32),
        )
        irreversible = hop.captured | hop.man_moved
        turn_over = self._end_turn(mid_capture, irreversible, winner=state.current_player)
        next_state = tree_where(continues, mid_capture, turn_over)
        return next_state._replace(observation=rules.observation(next_state.board, n))

    # -- turn bookkeeping: the loss without moves, passes, and the two draw rules ----------------

    def _end_turn(
        self, state: CheckersState, irreversible: jax.Array, winner: jax.Array
    ) -> CheckersState:
        n = self.board_size
        quiet = jnp.where(irreversible, 0, state.quiet_plies + 1)
        state = state._replace(quiet_plies=quiet)

        # Losing every piece loses in both variants; a side that is only blocked passes in "pass".
        lost = ~(state.board > 0).any()
        if self.no_moves == "pass":
            state = tree_where(lost, state, self._pass_if_stuck(state))
            drawn = ~lost & ~state.legal_action_mask.any()  # neither side can move
        else:
            lost = ~state.legal_action_mask.any()
            drawn = jnp.bool_(False)
        rewards = jnp.where(lost, jnp.where(jnp.arange(2) == winner, 1.0, -1.0), 0.0)

        state = self._record(state)
        same = (state.history == rules.king_key(state.board, n)).all(axis=-1)
        same &= state.history_player == state.current_player
        recorded = jnp.arange(self.history_length) <= quiet
        repeated = (same & recorded).sum() >= 3

        if self.repetition_draw:
            drawn |= repeated
        if self.forty_move_draw:
            drawn |= quiet >= QUIET_PLY_LIMIT
        terminated = lost | drawn
        return state._replace(
            rewards=rewards.astype(jnp.float32),
            terminated=terminated,
            legal_action_mask=state.legal_action_mask & ~terminated,
        )

    def _record(self, state: CheckersState) -> CheckersState:
        """Writes the position into the history slot of its quiet ply (a ring of H slots)."""
        slot = jnp.arange(self.history_length) == state.quiet_plies % self.history_length
        key = rules.king_key(state.board, self.board_size)
        return state._replace(
            history=jnp.where(slot[:, None], key, state.history),
            history_player=jnp.where(slot, state.current_player, state.history_player).astype(jnp.int8),
        )

    def _pass_if_stuck(self, state: CheckersState) -> CheckersState:
        """The "pass" variant: a player without a move hands the turn back."""
        n = self.board_size
        stuck = ~state.legal_action_mask.any()
        board = jnp.where(stuck, rules.flip(state.board), state.board)
        return state._replace(
            board=board,
            current_player=jnp.where(stuck, 1 - state.current_player, state.current_player),
            legal_action_mask=jnp.where(
                stuck, rules.legal_action_mask(board, jnp.int32(-1), n), state.legal_action_mask
            ),
            observation=rules.observation(board, n),
        )
