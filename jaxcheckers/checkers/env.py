"""The checkers environment: wires the pure rules into `reset` / `step` and keeps the draw rules."""

from __future__ import annotations

import functools
import inspect
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxcheckers import bits, svg
from jaxcheckers.checkers import bitboard as bb
from jaxcheckers.checkers import drawing, rules
from jaxcheckers.core import (
    Env,
    checked_max_steps,
    checked_player,
    compiled_method,
    computed_once,
    outside_traces,
    pgx_step_count,
    replace_fields,
    tree_where,
)

MIN_SIZE, MAX_SIZE = 4, 16
QUIET_PLY_LIMIT = 80  # the 40-move rule: 40 turns of each side without a capture or a man move
# History lengths are multiples of 4: the repetition count reads the slots in rows by ply mod 4.
HISTORY_WITH_FORTY_MOVE = 80  # enough: the 40-move rule ends the game before the history is full
HISTORY_WITHOUT_FORTY_MOVE = 128  # without it, repetitions are looked for in the last 128 plies
DEFAULT_MAX_STEPS = 1000  # as OpenSpiel's checkers; far above what real games need
NO_MOVES_RULES = ("lose", "pass")


class CheckersState(NamedTuple):
    """One game (or a batch, with a leading axis on every field).

    `board`, `observation` and `legal_action_mask` are derived on reading from the bitsets in
    `position` and `legal_action_bits`: a step writes a few dozen bytes of board instead of
    hundreds, and a caller that never reads the observation never pays for it.
    """

    current_player: jax.Array  # int32 ()  0 (black, moves first) or 1
    rewards: jax.Array  # float32 (2,)  of the last step, indexed by player
    terminated: jax.Array  # bool ()
    truncated: jax.Array  # bool ()
    step_count: jax.Array  # int32 ()  environment steps (hops) taken
    position: rules.Position  # uint32 (W,) ×3  own, opponent and king squares, mover's frame
    legal_action_bits: jax.Array  # uint32 (⌈4·n²/32⌉,)  the legal actions as a packed mask
    #   (action a is bit a % 32 of word a // 32, as `jaxcheckers.bits.pack_mask` packs it)
    jumper: jax.Array  # int32 ()  square (mover's frame) of a piece mid-capture, −1 if none
    quiet_plies: jax.Array  # int32 ()  turns since the last capture or man move
    history: jax.Array  # uint32 (H, W)  kings of the side not to move in each position since
    #   then, complemented when player 1 is to move (`_side_key`); (H, 2W) under no_moves="pass":
    #   both sides' kings; H=1 without the repetition rule

    board_size = None  # n: a class attribute, static, set by `state_type(n)`
    env_id = "checkers"  # pgx's State.env_id: the name `jaxcheckers.make` takes
    replace = replace_fields  # pgx's name for `_replace`
    _step_count = pgx_step_count
    to_svg, save_svg = svg.state_methods(drawing.state_svg)

    @property
    def board(self) -> jax.Array:
        """int8 (…, n·n): mover's frame, +1/+2 own man/king, −1/−2 the opponent's."""
        return rules.board_of(self.position, self.board_size)

    @property
    def observation(self) -> jax.Array:
        """bool (…, n, n, 4): own men, own kings, opponent men, opponent kings (mover's frame)."""
        return _observation(self.position, self.board_size)

    @property
    def legal_action_mask(self) -> jax.Array:
        """bool (…, 4·n·n): action = direction·n² + square; all False once the game is over
        (`Checkers.step` clears the bits of a finished game)."""
        return _legal_action_mask(self.legal_action_bits, self.board_size)


@functools.cache
def state_type(n: int) -> type[CheckersState]:
    """The State class of n×n games: the board size is part of the type, so it stays static
    under jit and vmap (the bitsets alone do not tell 6×6 from 8×8)."""
    cls = type(f"CheckersState{n}", (CheckersState,), {"board_size": n, "__slots__": ()})
    cls.__module__ = __name__
    globals()[cls.__name__] = cls  # importable by name, so states pickle
    return cls


def __getattr__(name: str) -> type[CheckersState]:
    """`CheckersState<n>` made on first use: a state pickled in one process loads in a fresh one,
    where no n×n env has been made yet."""
    size = name.removeprefix("CheckersState")
    if size != name and size.isdigit():
        return state_type(int(size))
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Checkers(Env):
    """American checkers (English draughts) on an n×n board, PettingZoo checkers_v3 layout.

    Options (keyword-only):
        board_size: even, 4 to 16 (default 8).
        no_moves: "lose" (default; tournament rule) or "pass" (a side that still has pieces but
            no move passes; the game is drawn when neither side can move; a side with no pieces
            left loses in both).
        crowning: "ends" (default; tournament rule: a man crowned by a capture stops there) or
            "continues" (ealt/Checkers: the new king goes on capturing if it can). Static: the
            default compiles exactly as before.
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
        crowning: str = "ends",
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
        if crowning not in rules.CROWNING_RULES:
            raise ValueError(f"crowning must be one of {rules.CROWNING_RULES}, got {crowning!r}")
        for name, flag in (
            ("forty_move_draw", forty_move_draw),
            ("repetition_draw", repetition_draw),
        ):
            if not isinstance(flag, (bool, np.bool_)):
                raise ValueError(f"{name} must be True or False, got {flag!r}")

        self.board_size = n = int(board_size)
        self.no_moves = no_moves
        self.crowning = crowning
        self.forty_move_draw = bool(forty_move_draw)
        self.repetition_draw = bool(repetition_draw)
        self.max_steps = checked_max_steps(max_steps)
        self.num_actions = rules.num_actions(n)
        self.observation_shape = (n, n, 4)
        # Without the repetition rule one slot stays, unused: zero-size arrays break checkpointers.
        self.history_length = (
            1
            if not self.repetition_draw
            else HISTORY_WITH_FORTY_MOVE
            if self.forty_move_draw
            else HISTORY_WITHOUT_FORTY_MOVE
        )
        self._layout = rules.layout(n)
        # Without passes every quiet ply is one turn, so a slot needs only half the kings (see
        # `_record`); with them, both sides' kings.
        self._history_words = self._layout.words * (2 if no_moves == "pass" else 1)
        self.state_type = state_type(n)

    @functools.cached_property
    def _opening_state(self) -> CheckersState:
        """The opening position, built at the first reset (making an env stays cheap)."""
        opening = np.asarray(rules.opening_board(self.board_size))
        return outside_traces(compiled_method(self, "start"), opening, np.int32(0), np.int32(-1))

    def __repr__(self) -> str:
        return (
            f"Checkers(board_size={self.board_size}, no_moves={self.no_moves!r}, "
            f"crowning={self.crowning!r}, "
            f"forty_move_draw={self.forty_move_draw}, repetition_draw={self.repetition_draw}, "
            f"max_steps={self.max_steps})"
        )

    # -- the two entry points the core plumbing calls -------------------------------------------

    def _init(self, key: jax.Array) -> CheckersState:
        del key  # the opening is fixed
        return jax.tree.map(jnp.asarray, self._opening_state)

    def start(self, board: jax.Array, player: jax.Array, jumper: jax.Array) -> CheckersState:
        """A game from `board` (int8 (n·n,), in `player`'s frame), `player` to move.

        Unvalidated and traceable; users go through `jaxcheckers.checkers.positions`.
        """
        n = self.board_size
        position = rules.position_of(jnp.asarray(board, jnp.int8), n)
        jumper = jnp.int32(jumper)
        legal = self._legal_action_bits(position, jumper)
        state = self.state_type(
            current_player=jnp.int32(player),
            rewards=jnp.zeros(2, jnp.float32),
            terminated=jnp.bool_(False),
            truncated=jnp.bool_(False),
            step_count=jnp.int32(0),
            position=position,
            legal_action_bits=legal,
            jumper=jumper,
            quiet_plies=jnp.int32(0),
            history=jnp.zeros((self.history_length, self._history_words), jnp.uint32),
        )
        has_move = _any(legal)
        if self.no_moves == "pass":
            has_pieces = _any(position.own)
            state, has_move = self._pass(state, has_pieces & ~has_move, has_move)
        if self.repetition_draw:
            state = self._record(state)
        # A position decided before any move carries its result: the side to move, with no move,
        # has lost (with "pass", a position neither side can move in is drawn: zero rewards).
        lost = ~has_move if self.no_moves == "lose" else jnp.bool_(False)
        mover = jax.nn.one_hot(jnp.int32(player), 2, dtype=jnp.float32)
        rewards = jnp.where(lost, 1.0 - 2.0 * mover, 0.0).astype(jnp.float32)
        return state._replace(terminated=~has_move, rewards=rewards)

    def _is_legal(self, state: CheckersState, action: jax.Array) -> jax.Array:
        over = state.terminated | state.truncated
        return bits.bit_at(state.legal_action_bits, action) & ~over

    def captures_pending(self, state: CheckersState) -> jax.Array:
        """bool (): the legal actions are captures, so some may not end the turn.

        Where False, every legal action ends the turn: perft counts those moves from the mask.
        """
        jumps, _ = rules.origins(state.position, self._layout)
        return _any(rules.union(jumps))

    def _legal_action_bits(self, position: rules.Position, jumper: jax.Array) -> jax.Array:
        """The legal actions of `position`, packed: the random player and the mask's readers
        take the mask in 32-action words, and packing the (4, W) origin sets directly costs a
        few operations per word where packing the 256-entry mask cost several per action."""
        return rules.action_bits(rules.legal_moves(position, jumper, self._layout), self._layout)

    def observe(self, state: CheckersState, player: jax.Array) -> jax.Array:
        """bool (n, n, 4): own men, own kings, opponent men, opponent kings, in `player`'s
        frame."""
        player = checked_player(player)
        board = jnp.where(state.current_player == player, state.board, rules.flip(state.board))
        return rules.observation(board)

    def _rules_step(self, state: CheckersState, action: jax.Array) -> CheckersState:
        """`Env.step`, then the position it leads to written into the repetition history.

        The history is written here, once, after the generic step has chosen between playing,
        forfeiting and leaving a finished game alone: in all of those branches the history is
        then the same array, so none of them copies it, and the write is a select that XLA fuses
        with the next pass over the batch. Rewriting an unchanged game's slot with its own
        position is harmless, and so is a mid-capture position taking the slot of the turn's
        start: the capture resets the quiet plies, so that slot is never compared again.
        """
        state = super()._rules_step(state, action)  # a finished game's bits cleared there
        if not self.repetition_draw:
            return state
        # What the write reads, computed once: else each of its H slots' loops would redo the step.
        position, quiet, player = computed_once(
            (state.position, state.quiet_plies, state.current_player), state.step_count
        )
        return self._record(
            state._replace(position=position, quiet_plies=quiet, current_player=player)
        )

    def check_state(self, state) -> None:
        """Raises ValueError where `state` (one game or a batch) cannot be a game of this env.

        The board size is part of the State's type and the draw and pass rules shape its
        history, so a state made under other rules is told apart from its structure alone (the
        check runs when the step is traced, and costs nothing after). `max_steps` and the
        crowning rule leave no trace in a State: a state moves on under either.
        """
        if not isinstance(state, self.state_type):
            raise ValueError(
                f"{self!r} cannot step a {type(state).__name__}: it plays "
                f"{self.state_type.__name__} ({self.board_size}×{self.board_size} checkers)"
            )
        expected = (self.history_length, self._history_words)
        found = tuple(jnp.shape(state.history)[-2:])
        if found != expected:
            raise ValueError(
                f"the state was made under other rules than {self!r} (its repetition history "
                f"is {found}, this env's {expected}); step it with the env that made it"
            )

    def _step(self, state: CheckersState, action: jax.Array) -> CheckersState:
        lay = self._layout
        hop = rules.hop(state.position, action, lay)
        continues = rules.continues_capture(hop, lay, self.crowning)

        # Mid-capture, the same player moves the same piece again; otherwise the turn passes.
        # Computed once: else the loop that writes the legal moves redoes the hop for each word.
        position = computed_once(
            tree_where(continues, hop.position, rules.flip_position(hop.position, lay)),
            state.step_count,
        )
        jumper = jnp.where(continues, hop.square, -1)
        legal = self._legal_action_bits(position, jumper)
        mid_capture = state._replace(
            position=position,
            jumper=jumper,
            current_player=jnp.where(continues, state.current_player, 1 - state.current_player),
            legal_action_bits=legal,
            rewards=jnp.zeros(2, jnp.float32),
        )
        irreversible = hop.captured | hop.man_moved
        turn_over = self._end_turn(mid_capture, _any(legal), irreversible, state.current_player)
        return tree_where(continues, mid_capture, turn_over)

    # -- turn bookkeeping: the loss without moves, passes, and the two draw rules ----------------

    def _end_turn(
        self, state: CheckersState, has_move: jax.Array, irreversible: jax.Array, mover: jax.Array
    ) -> CheckersState:
        """`state` has the turn handed to the opponent; `mover` just played."""
        quiet = jnp.where(irreversible, 0, state.quiet_plies + 1)
        state = state._replace(quiet_plies=quiet)

        # Losing every piece loses in both variants; a side that is only blocked passes in "pass".
        if self.no_moves == "pass":
            lost = ~_any(state.position.own)
            state, has_move = self._pass(state, ~lost & ~has_move, has_move)
            drawn = ~lost & ~has_move  # neither side can move
        else:
            lost = ~has_move
            drawn = jnp.bool_(False)
        rewards = jnp.where(lost, jnp.where(jnp.arange(2) == mover, 1.0, -1.0), 0.0)

        if self.repetition_draw:
            drawn |= self._occurrences_before(state) >= 2  # this one is the third
        if self.forty_move_draw:
            drawn |= quiet >= QUIET_PLY_LIMIT
        return state._replace(rewards=rewards.astype(jnp.float32), terminated=lost | drawn)

    def _occurrences_before(self, state: CheckersState) -> jax.Array:
        """int32 (): how often the position (same side to move) is in the history already.

        `state` has its quiet plies counted but is not recorded yet: the slots of the earlier
        plies of this quiet stretch hold those positions, except the one this ply will take
        (with the 40-move rule off, the ring's oldest entry, out of the window from now on).
        """
        size, quiet = self.history_length, state.quiet_plies
        entry, entry_before = self._entries(state)
        if self.no_moves == "pass":
            slot = jnp.arange(size)
            same = (state.history == entry).all(axis=-1)
        else:
            # A quiet ply moves one king of the side to move one row, so each side needs an even
            # number of its own moves to bring its kings back: a position recurs a multiple of
            # four plies later. The history keeps those slots together (`history_index`), so the
            # candidates are one of its four rows; the side to move's kings are in the slot
            # before each, in the row before (in the last row, one slot back, for row 0).
            residue = quiet & 3
            by_residue = state.history.reshape(4, size // 4, -1)
            last_row_back = jnp.roll(by_residue[3], 1, axis=0)  # slot 4j − 1; for j = 0, H − 1
            here = _pick(residue, by_residue)
            before = _pick(residue, (last_row_back, *by_residue[:3]))
            slot = 4 * jnp.arange(size // 4) + residue
            same = (here == entry).all(axis=-1) & (before == entry_before).all(axis=-1)
        earlier = (slot < quiet) & (slot != quiet % size)
        assert size < 256, "the count below is a byte"
        # Counted in bytes: where XLA on the CPU splits a sum (over more than 32 entries, as
        # under passes) it keeps the entries in memory between, so their size is what it costs.
        return (same & earlier).astype(jnp.uint8).sum(dtype=jnp.uint8).astype(jnp.int32)

    def _record(self, state: CheckersState) -> CheckersState:
        """Writes the position into the history slot of its quiet ply (a ring of H slots).

        Between two irreversible moves only kings move, so the kings and the side to move
        identify a position. Without passes, each quiet ply is one turn: the side to move did not
        move in the last ply, so its kings are those the slot before holds for the side not to
        move then. A slot therefore keeps only the kings of the side not to move, and a record
        also writes the side to move's kings, turned to the other side's frame, into the slot
        before: the same value again, except at the start of a stretch, where it gives the first
        position its other half. With passes a slot keeps both sides' kings. Either way the
        entry tells the side to move too (`_side_key`).

        Selects over the whole history rather than scatters into a slot or two: XLA fuses them
        with the selects that surround a step (auto-reset), where a scatter would need a copy.
        """
        size = self.history_length
        slot = jnp.arange(size)
        here = (slot == self.history_index(state.quiet_plies))[:, None]
        entry, entry_before = self._entries(state)
        if self.no_moves == "pass":
            return state._replace(history=jnp.where(here, entry, state.history))
        before = (slot == self.history_index(state.quiet_plies - 1))[:, None]
        history = jnp.where(before, entry_before, state.history)
        return state._replace(history=jnp.where(here, entry, history))

    def history_index(self, ply):
        """The index in `history` of the entry of quiet ply `ply` (≥ −1; an int or an array).

        The history is a ring over the plies (`ply mod H`). Without passes its slots are kept in
        four rows by ply mod 4, the plies a position can recur at (`_occurrences_before`).
        """
        size = self.history_length
        slot = (ply + size) % size
        if self.no_moves == "pass" or size == 1:
            return slot
        return (slot % 4) * (size // 4) + slot // 4

    def _entries(self, state: CheckersState) -> tuple[jax.Array, jax.Array | None]:
        """The history entry of `state`'s position, and what the slot before holds for it.

        Without passes: the kings of the side not to move, and the side to move's kings turned
        to the other side's frame (the entry of the ply before). With passes: both sides' kings,
        and None. Each keyed by its side to move (`_side_key`).
        """
        own, not_to_move = _kings_by_side(state.position)
        player = state.current_player
        if self.no_moves == "pass":
            return _side_key(jnp.concatenate([own, not_to_move]), player), None
        turned = bb.rotate(own, self._layout)
        return _side_key(not_to_move, player), _side_key(turned, 1 - player)

    def _pass(
        self, state: CheckersState, passes: jax.Array, has_move: jax.Array
    ) -> tuple[CheckersState, jax.Array]:
        """The "pass" variant: where `passes`, the turn goes back to the other player.

        Returns the state and whether its player to move has a move.
        """
        back = rules.flip_position(state.position, self._layout)
        legal = self._legal_action_bits(back, jnp.int32(-1))
        passed = state._replace(
            position=back,
            current_player=1 - state.current_player,
            legal_action_bits=legal,
            jumper=jnp.int32(-1),
        )
        return tree_where(passes, passed, state), jnp.where(passes, _any(legal), has_move)


# Jitted, as `rules.board_of` is, for one dispatch when a host reads a property of one state.


@functools.partial(jax.jit, static_argnums=1)
def _legal_action_mask(legal_action_bits: jax.Array, n: int) -> jax.Array:
    """The packed legal actions unpacked."""
    return bits.unpack_mask(legal_action_bits, rules.num_actions(n))


@functools.partial(jax.jit, static_argnums=1)
def _observation(position: rules.Position, n: int) -> jax.Array:
    """The observation planes of `position`.

    XLA fuses the board into the loop that writes the (…, n, n, 4) planes, so each entry works
    out its square's value from the bitsets again, with index arithmetic that is shifts where n
    is a power of two and divisions elsewhere. There the board is computed once into memory
    first (n² bytes a game), and each entry only loads and compares. Where n is a power of two
    the shifts cost less than the board's round trip through memory, so it stays fused there
    (docs/performance.md has the figures).
    """
    board = rules.board_of(position, n)
    if n & (n - 1):  # not a power of two
        board = computed_once(board, board)
    return rules.observation(board)


def _kings_by_side(position: rules.Position) -> tuple[jax.Array, jax.Array]:
    """uint32 (W,) each: the kings of the side to move and of the other side (mover's frame)."""
    return position.own & position.kings, position.opponent & position.kings


def _side_key(kings: jax.Array, player: jax.Array) -> jax.Array:
    """uint32 (W,): `kings` as the history entry of a position with `player` to move.

    Player 1's entries are complemented. A side has fewer pieces than half the dark squares
    ((n/2 − 1)·n/2 < n²/4), so a complemented entry has more bits set than any set of kings: the
    entry tells the side to move too, where an array of its own took a byte per slot.
    """
    return jnp.where(player == 1, ~kings, kings)


def _pick(index: jax.Array, rows) -> jax.Array:
    """rows[index] for a traced index below len(rows) ≤ 4: a select per row, not a gather."""
    picked = rows[-1]
    for i in range(len(rows) - 2, -1, -1):
        picked = jnp.where(index == i, rows[i], picked)
    return picked


def _any(bits: jax.Array) -> jax.Array:
    """bool (): the bitset (any shape) has a square in it."""
    return (bits != 0).any()


# Named sets of env options. "ealt": the rules of the ealt/Checkers library, whose games a Game
# with these rules plays move for move: a blocked side passes (neither side able to move draws),
# a man crowned by a capture captures on as a king, and there are no draw rules. Chosen here:
# the env's max_steps (1000 hops) stays, so that a game of two wandering kings still ends (ealt
# has no limit); pass max_steps=None beside it to lift it.
RULE_SETS: dict[str, dict[str, Any]] = {
    "american": {},
    "ealt": {
        "no_moves": "pass",
        "crowning": "continues",
        "forty_move_draw": False,
        "repetition_draw": False,
    },
}


def checkers_with_rule_set(*, rule_set: str | None = None, **options) -> Checkers:
    """`Checkers(**options)`, with the options of the named `rule_set` (`RULE_SETS`) beneath them:
    options given beside it win."""
    if rule_set is not None:
        if not isinstance(rule_set, str) or rule_set not in RULE_SETS:
            raise ValueError(f"rule_set must be one of {sorted(RULE_SETS)}, got {rule_set!r}")
        options = {**RULE_SETS[rule_set], **options}
    return Checkers(**options)


# Its options are `rule_set` and Checkers' own: `jaxcheckers.make` reads them off the signature.
checkers_with_rule_set.__signature__ = inspect.Signature(
    [
        inspect.Parameter("rule_set", inspect.Parameter.KEYWORD_ONLY, default=None),
        *inspect.signature(Checkers).parameters.values(),
    ],
    return_annotation=Checkers,
)
