"""The draughts environment: international draughts (FMJD rules, 10×10) and, on the same core,
Brazilian (international rules on 8×8) and Russian (8×8, no majority rule, a man crowned
mid-capture goes on capturing as a king).

    env = jaxcheckers.make("draughts")                       # international
    env = jaxcheckers.make("draughts", variant="russian")

Player 0 is White and moves first; FMJD squares 1–50 (1–32 on 8×8), White's men start on the
highest numbers (31–50) and move toward square 1.

Actions are hops, as in our checkers: `action = (direction·L + distance − 1)·S + square`
(`rules.action_of`), with S playable squares (50 or 32), L = n − 1, directions 0 NW, 1 NE, 2 SW,
3 SE, all in the mover's frame (the board turned for Black, square s ↦ S − 1 − s). Discrete(1800)
on 10×10, Discrete(896) on 8×8. A capture of several pieces is several steps by the same player
(`current_player` stays); the mask offers only hops that lie on a capture the rules allow (under
the majority rule, one taking the most pieces). Two routes of one move (same start, end and
pieces taken) are both offered: either plays the same move. Pieces taken stay on the board,
marked in `taken`, until the move ends (they block and cannot be jumped twice).

Observation: bool (n, n, 5) in the mover's frame: own men, own kings, opponent men, opponent
kings, and the opponent pieces taken so far by the move under way.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxcheckers import bits, svg
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
from jaxcheckers.draughts import drawing, rules

DEFAULT_MAX_STEPS = 1000  # hops; far above a real game's length (the draw rules end the rest)
KING_MOVES_LIMIT = 50  # the 25-move rule: 25 moves of each side, only kings, nothing taken
ENDGAME_LIMITS = (0, 32, 10)  # plies of the 16-move and the 5-move endings (by category)


class DraughtsState(NamedTuple):
    """One game (or a batch, with a leading axis on every field)."""

    current_player: jax.Array  # int32 ()  0 White (moves first), 1 Black
    legal_action_bits: jax.Array  # uint32 (⌈A/32⌉,)  the legal hops, packed; none once over
    rewards: jax.Array  # float32 (2,)  of the last step, by player
    terminated: jax.Array  # bool ()
    truncated: jax.Array  # bool ()
    step_count: jax.Array  # int32 ()  environment steps (hops)
    position: jax.Array  # uint32 (5, 2)  mover's frame, as sets of squares: own men, own kings,
    #   their men, their kings, and their pieces taken by the move under way (still on the
    #   board), each as two words (`rules.Position`; read `board` and `taken`)
    jumper: jax.Array  # int32 ()  square of the piece mid-capture, −1 at the start of a move
    quiet_plies: jax.Array  # int32 ()  whole moves since the last capture or man move
    endgame_plies: jax.Array  # int32 ()  whole moves since the 16- or 5-move ending began
    history: jax.Array  # uint32 (H, 2)  since the last capture or man move, at slot q % H the
    #   kings of the side to move at ply q in the other side's frame, which are those of the side
    #   not to move at ply q − 1 (`rules.stretch_kings`): slots q % H and (q + 1) % H are ply q

    env_id = "draughts"  # pgx's State.env_id: the name `jaxcheckers.make` takes
    replace = replace_fields  # pgx's name for `_replace`
    _step_count = pgx_step_count
    to_svg, save_svg = svg.state_methods(drawing.state_svg)

    @property
    def board(self) -> jax.Array:
        """int8 (…, S): the mover's frame, +1/+2 own man/king, −1/−2 the opponent's, 0 empty."""
        return _board(self.position, self.variant)

    @property
    def taken(self) -> jax.Array:
        """bool (…, S): the opponent pieces taken by the move under way (still on the board)."""
        return _taken(self.position, self.variant)

    @property
    def observation(self) -> jax.Array:
        """bool (…, n, n, 5): own men, own kings, their men, their kings, taken; mover's frame."""
        return _observation(self.position, self.variant)

    @property
    def legal_action_mask(self) -> jax.Array:
        """bool (…, A): the legal hops (see the module docstring); all False once over."""
        return _legal_action_mask(self.legal_action_bits, rules.layout(self.variant).num_actions)


@functools.cache
def state_type(variant: str) -> type[DraughtsState]:
    """The State class of a variant's games: the board size is static under jit."""
    name = f"DraughtsState{variant.capitalize()}"
    cls = type(name, (DraughtsState,), {"variant": variant, "__slots__": ()})
    cls.__module__ = __name__
    globals()[name] = cls  # importable by name, so states pickle
    return cls


def __getattr__(name: str) -> type[DraughtsState]:
    """`DraughtsState<Variant>` made on first use: a state pickled in one process loads in a
    fresh one, where no env of that variant has been made yet."""
    variant = name.removeprefix("DraughtsState").lower()
    if variant != name.lower() and variant in rules.VARIANTS:
        return state_type(variant)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def observation(board: jax.Array, taken: jax.Array, variant: str) -> jax.Array:
    """bool (n, n, 5) of one position (see `DraughtsState.observation`)."""
    planes = jnp.stack([board == v for v in (1, 2, -1, -2)] + [taken], axis=-1)  # (S, 5)
    return _on_cells(planes, rules.layout(variant).n)


def _on_cells(planes: jax.Array, n: int) -> jax.Array:
    """bool (…, n, n, 5): planes (…, S, 5) of the squares spread over the board's cells.

    Row r holds squares r·n/2 … on every other cell, from column 1 on even rows and column 0 on
    odd ones: each row's planes are interleaved with empty cells by a reshape, not gathered
    cell by cell (a gather under vmap cost more than the rest of the observation)."""
    lead = planes.shape[:-2]
    rows = planes.reshape(*lead, n, n // 2, 1, 5)
    light = jnp.zeros_like(rows)
    from_column_1 = jnp.concatenate([light, rows], axis=-2).reshape(*lead, n, n, 5)
    from_column_0 = jnp.concatenate([rows, light], axis=-2).reshape(*lead, n, n, 5)
    even_row = (jnp.arange(n) % 2 == 0)[:, None, None]
    return jnp.where(even_row, from_column_1, from_column_0)


@functools.partial(jax.jit, static_argnums=1)
def _legal_action_mask(legal_action_bits: jax.Array, num_actions: int) -> jax.Array:
    return bits.unpack_mask(legal_action_bits, num_actions)


@functools.partial(jax.jit, static_argnums=1)
def _board(position: jax.Array, variant: str) -> jax.Array:
    return rules.board_of(position, rules.layout(variant))


@functools.partial(jax.jit, static_argnums=1)
def _taken(position: jax.Array, variant: str) -> jax.Array:
    return rules.planes_of(position[..., rules.TAKEN, :], rules.layout(variant))


@functools.partial(jax.jit, static_argnums=1)
def _observation(position: jax.Array, variant: str) -> jax.Array:
    return rules.cells_of(position, rules.layout(variant))


class Draughts(Env):
    """International draughts and its 8×8 variants (see the module docstring).

    Options (keyword-only):
        variant: "international" (default), "brazilian" or "russian".
        repetition_draw: the third occurrence of a position, same side to move, draws (True).
        king_moves_draw: 25 moves of each side with only kings moved and nothing taken draw
            (True).
        endgame_draw: the FMJD endings against a lone king: three pieces with a king draw after
            16 moves each, two pieces with a king (or a king alone) after 5 moves each (True).
        max_steps: hops before `truncated` is set; None never truncates (default 1000).
    """

    def __init__(
        self,
        *,
        variant: str = "international",
        repetition_draw: bool = True,
        king_moves_draw: bool = True,
        endgame_draw: bool = True,
        max_steps: int | None = DEFAULT_MAX_STEPS,
    ):
        if not isinstance(variant, str) or variant not in rules.VARIANTS:
            raise ValueError(f"variant must be one of {rules.VARIANTS}, got {variant!r}")
        for name, flag in (
            ("repetition_draw", repetition_draw),
            ("king_moves_draw", king_moves_draw),
            ("endgame_draw", endgame_draw),
        ):
            if not isinstance(flag, (bool, np.bool_)):
                raise ValueError(f"{name} must be True or False, got {flag!r}")
        self.variant = variant = str(variant)  # numpy's str_ would make a second State class
        self.repetition_draw = bool(repetition_draw)
        self.king_moves_draw = bool(king_moves_draw)
        self.endgame_draw = bool(endgame_draw)
        self.max_steps = checked_max_steps(max_steps)
        self.layout = lay = rules.layout(variant)
        self.board_size = lay.n
        self.num_actions = lay.num_actions
        self.observation_shape = (lay.n, lay.n, 5)
        # With the 25-move rule a stretch without capture or man move ends within 50 plies; the
        # slots are a ring of even length, so a slot's parity is its side to move.
        self.history_length = (
            1 if not self.repetition_draw else KING_MOVES_LIMIT if self.king_moves_draw else 100
        )
        self.state_type = state_type(variant)

    def __repr__(self) -> str:
        return (
            f"Draughts(variant={self.variant!r}, repetition_draw={self.repetition_draw}, "
            f"king_moves_draw={self.king_moves_draw}, endgame_draw={self.endgame_draw}, "
            f"max_steps={self.max_steps})"
        )

    @property
    def id(self) -> str:
        return "draughts"

    @functools.cached_property
    def _opening_state(self) -> DraughtsState:
        return self.start_on_host(rules.opening_board(self.layout), 0)

    def start_on_host(self, board, player: int) -> DraughtsState:
        """`start` of a host board at the start of a move, as host arrays, through one compiled
        program per set of rules (`core.compiled_method`), even when a trace asks for it.

        `taken` and `jumper` go in as arguments: as constants, XLA folds the capture search
        through them, which took 11 s of compiling instead of 1.7 s."""
        start = compiled_method(self, "start")
        board, player = np.asarray(board, np.int8), np.int32(player)
        return outside_traces(start, board, player, np.zeros(len(board), bool), np.int32(-1))

    def _init(self, key: jax.Array) -> DraughtsState:
        del key  # the opening is fixed
        return jax.tree.map(jnp.asarray, self._opening_state)

    def start(self, board, player, taken=None, jumper=-1) -> DraughtsState:
        """A game from `board` (int8 (S,), in `player`'s frame), `player` to move; `taken` and
        `jumper` for a position mid-capture. Unvalidated and traceable (users go through FEN)."""
        lay = self.layout
        board = jnp.asarray(board, jnp.int8)
        taken = jnp.zeros(lay.squares, bool) if taken is None else jnp.asarray(taken, bool)
        jumper = jnp.asarray(jumper, jnp.int32)
        legal = rules.legal_hops(board, taken, jumper, lay)
        has_move = legal.has_hop
        position = rules.position_words(board, taken, lay)
        mover = jax.nn.one_hot(jnp.asarray(player, jnp.int32), 2, dtype=jnp.float32)
        state = self.state_type(
            current_player=jnp.asarray(player, jnp.int32),
            legal_action_bits=legal.bits,
            rewards=jnp.where(has_move, 0.0, 1.0 - 2.0 * mover).astype(jnp.float32),
            terminated=~has_move,
            truncated=jnp.bool_(False),
            step_count=jnp.int32(0),
            position=position,
            jumper=jumper,
            quiet_plies=jnp.int32(0),
            endgame_plies=jnp.int32(0),
            history=jnp.zeros((self.history_length, 2), jnp.uint32),
        )
        return self._record(state, self._kings(state)) if self.repetition_draw else state

    def observe(self, state: DraughtsState, player: jax.Array) -> jax.Array:
        """bool (n, n, 5): the observation planes in `player`'s frame."""
        own = state.current_player == checked_player(player)
        board = jnp.where(own, state.board, rules.flip(state.board))
        taken = jnp.where(own, state.taken, state.taken[::-1])
        return observation(board, taken, self.variant)

    def check_state(self, state) -> None:
        if not isinstance(state, self.state_type):
            raise ValueError(
                f"{self!r} cannot step a {type(state).__name__}: it plays "
                f"{self.state_type.__name__}"
            )
        found = tuple(jnp.shape(state.history)[-2:])
        expected = (self.history_length, 2)
        if found != expected:
            raise ValueError(
                f"the state was made under other draw rules than {self!r}, or by an older "
                f"jaxcheckers (its history is {found}, this env's {expected}); step it with the "
                "env that made it"
            )

    def mid_capture(self, state: DraughtsState) -> jax.Array:
        """bool (): a capture is under way (the same player moves again)."""
        return state.jumper >= 0

    def _is_legal(self, state: DraughtsState, action: jax.Array) -> jax.Array:
        return bits.bit_at(state.legal_action_bits, action)

    def _step(self, state: DraughtsState, action: jax.Array) -> DraughtsState:
        hopped = rules.play_hop(state.position, action, self.layout)
        state = state._replace(
            position=hopped.position,
            jumper=hopped.jumper,
            legal_action_bits=hopped.legal.bits,
            current_player=jnp.where(
                hopped.goes_on, state.current_player, 1 - state.current_player
            ),
            rewards=jnp.zeros(2, jnp.float32),
        )
        turn_over = self._end_move(state, hopped, hopped.legal.has_hop)
        return tree_where(hopped.goes_on, state, turn_over)

    def _end_move(self, state, hop: rules.Hopped, has_move) -> DraughtsState:
        """`state` has the move handed to the opponent; `hop` was the mover's last hop."""
        mover = 1 - state.current_player
        irreversible = hop.captured | hop.man_moved
        quiet = jnp.where(irreversible, 0, state.quiet_plies + 1)
        lost = ~has_move
        rewards = jnp.where(lost, jnp.where(jnp.arange(2) == mover, 1.0, -1.0), 0.0)
        state = state._replace(quiet_plies=quiet, rewards=rewards.astype(jnp.float32))
        drawn = jnp.bool_(False)
        if self.king_moves_draw:
            drawn |= quiet >= KING_MOVES_LIMIT
        if self.endgame_draw:
            state, ending = self._count_endgame(state, hop)
            drawn |= ending
        if self.repetition_draw:
            kings = self._kings(state)
            drawn |= self._occurrences_before(state, kings) >= 2  # this one is the third
            state = self._record(state, kings)
        return state._replace(terminated=lost | (drawn & has_move))

    def _count_endgame(self, state, hop: rules.Hopped):
        """The 16- and 5-move endings: counts whole moves since the present one began; a change
        of ending (a capture, or reaching one) starts the count again."""
        category = endgame_category(rules.piece_counts(state.position))
        # A capture changes the material; else the ending is the one of the move before.
        same = ~hop.captured & (category > 0)
        plies = jnp.where(same, state.endgame_plies + 1, 0)
        # The move that reaches an ending is not one of its moves: a man crowned into it counts.
        limit = jnp.asarray(ENDGAME_LIMITS)[category]
        return state._replace(endgame_plies=plies), (category > 0) & (plies >= limit)

    def _kings(self, state) -> jax.Array:
        """uint32 (2, 2): the history's set of this ply, and the kings of the side not to move.
        Computed once: else XLA turns the kings again in the loops over the history's slots."""
        return computed_once(rules.stretch_kings(state.position, self.layout), state.step_count)

    def _occurrences_before(self, state, kings) -> jax.Array:
        size, quiet = self.history_length, state.quiet_plies
        slot = jnp.arange(size)
        written = (slot < quiet) | (quiet >= size)
        same_side = slot % 2 == quiet % 2
        here, theirs = kings
        # Ply i is counted at slot i % H (the same side to move is two plies back or more). The
        # words compared one by one, not reduced over the pair: faster on the CPU.
        low, high = state.history[:, 0], state.history[:, 1]
        same = (low == here[0]) & (high == here[1])
        same &= (jnp.roll(low, -1) == theirs[0]) & (jnp.roll(high, -1) == theirs[1])
        return (same & written & same_side & (slot != quiet % size)).sum()

    def _record(self, state, kings) -> DraughtsState:
        here = jnp.arange(self.history_length) == state.quiet_plies % self.history_length
        history = jnp.where(here[:, None], kings[0], state.history)
        return state._replace(history=history)


def endgame_category(counts: jax.Array) -> jax.Array:
    """int32 (): 1 for a 16-move ending (a lone king against three pieces, a king among them),
    2 for a 5-move ending (a lone king against one or two pieces, a king among them), else 0;
    of the piece counts (own men, own kings, their men, their kings: `rules.piece_counts`)."""
    men, kings = counts[0::2], counts[1::2]
    pieces = men + kings
    lone = (pieces == 1) & (kings == 1)
    other_pieces, other_kings = pieces[::-1], kings[::-1]
    five = lone & (other_kings >= 1) & (other_pieces <= 2)
    sixteen = lone & (other_kings >= 1) & (other_pieces == 3)
    return jnp.where(five.any(), 2, jnp.where(sixteen.any(), 1, 0)).astype(jnp.int32)
