"""The chess environment: wires the pure rules into `reset` / `step` and keeps the draw rules.

The game ends as PettingZoo's chess_v6 ends it (python-chess underneath): checkmate, stalemate,
insufficient material, and the draws the player to move could claim: threefold repetition
(including a repetition one legal move away) and the fifty-move rule (including a fiftieth move
one legal move away). The 75-move and fivefold rules never come into play there, since a claim
ends the game first; they are not kept.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxcheckers import bits, svg
from jaxcheckers.chess import bitboard as bb
from jaxcheckers.chess import rules, tables
from jaxcheckers.chess.fen import parse_fen
from jaxcheckers.chess.pictures import position_svg
from jaxcheckers.chess.render import render
from jaxcheckers.chess.rules import Position
from jaxcheckers.core import (
    Env,
    checked_max_steps,
    checked_player,
    compiled_method,
    legal_actions_cleared,
    outside_traces,
    pgx_step_count,
    replace_fields,
)


def _jax_version() -> tuple[int, int]:
    return tuple(int(part) for part in jax.__version__.split(".")[:2])


DEFAULT_MAX_STEPS = 1000  # plies; far above real games (the longest on record: 538 plies)
HISTORY_WITH_FIFTY = 100  # the 50-move rule ends a game before 100 reversible plies pass
HISTORY_WITHOUT_FIFTY = 128  # without it, repetitions are looked for in the last 128 plies
STACKED = 8  # positions in the AlphaZero observation (history=True)
WORDS = tables.NUM_PLANES * 2  # 146 words of legal moves
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


class ChessState(NamedTuple):
    """One game (or a batch, with a leading axis on every field).

    `observation` and `legal_action_mask` are derived on reading from the bitboards and the
    packed legal moves: a step writes a few hundred bytes, and a caller that never reads the
    observation never pays for it.
    """

    current_player: jax.Array  # int32 ()  0 white (moves first), 1 black
    rewards: jax.Array  # float32 (2,)  of the last step, indexed by player
    terminated: jax.Array  # bool ()
    truncated: jax.Array  # bool ()
    step_count: jax.Array  # int32 ()  plies played
    position: Position  # the board in the mover's frame (see `rules.Position`)
    legal_action_bits: (
        jax.Array
    )  # uint32 (146,)  legal moves, action a as bit a % 32 of word a // 32
    in_check: jax.Array  # bool ()  the side to move is in check
    ep_legal: jax.Array  # bool ()  an en-passant capture is legal (FEN prints the square then)
    halfmove_clock: jax.Array  # int32 ()  plies since the last capture or pawn move
    fullmove_number: jax.Array  # int32 ()  as in FEN: 1 at the start, +1 after black moves
    placement: jax.Array  # uint32 (2,)  Zobrist hash of the pieces (absolute squares)
    window: jax.Array  # int32 ()  positions since the last irreversible move, this one included
    repetitions: jax.Array  # int32 ()  occurrences of this position in that window (1: first)
    history: jax.Array  # uint32 (2, H/2, 4)  earlier positions: occupancy (2 words), placement
    #   hash; the position of ply q in [q % 2, q // 2 % (H/2)]; (1, 1, 4), unused, without the
    #   repetition rule
    history_count: jax.Array  # uint8 (2, H/2)  each slot's `repetitions`
    boards: jax.Array  # uint32 (8, 13, 2)  the last 8 positions' 13 planes in white's frame,
    #   newest first, as PettingZoo stacks them ((1, 13, 2), unused, without history=True)

    stacked = False  # a class attribute, static: the observation is (8, 8, 111)
    env_id = "chess"  # pgx's State.env_id: the name `jaxcheckers.make` takes
    replace = replace_fields  # pgx's name for `_replace`
    _step_count = pgx_step_count
    to_svg, save_svg = svg.state_methods(lambda state: position_svg(state))

    @property
    def observation(self) -> jax.Array:
        """bool (…, 8, 8, 20), or (…, 8, 8, 111) with history=True: PettingZoo's planes."""
        return _observation(self, self.stacked)

    @property
    def legal_action_mask(self) -> jax.Array:
        """bool (…, 4672): PettingZoo's action layout; all False once the game is over
        (`Chess.step` clears the bits of a finished game, so the mask reads them alone and a
        fresh game that a wrapper marks finished, as pgx's auto_reset does, offers its moves)."""
        return _legal_action_mask(self.legal_action_bits)


class StackedChessState(ChessState):
    __slots__ = ()
    stacked = True


class Chess(Env):
    """Chess with PettingZoo chess_v6's actions (Discrete(4672)) and observations.

    Options (keyword-only):
        max_steps: plies before `truncated` is set; None never truncates (default 1000).
        insufficient_material, threefold_repetition, fifty_move_rule: each draw rule of
            PettingZoo's chess, on by default; switched off, it never ends a game. Without the
            fifty-move rule, repetitions are looked for in the last 128 plies only.
        history: observe PettingZoo's (8, 8, 111) stack of the last 8 positions instead of the
            (8, 8, 20) planes of `chess_utils.get_observation` (default False).
    """

    # The rules switch 64-bit types on inside (`bitboard.wide`): jax 0.7.2 fails to lower them
    # jitted inside another program ('stablehlo.multiply' of i64 and i32); 0.10.2 and 0.12 can.
    jit_rules = _jax_version() >= (0, 10)

    num_actions = tables.NUM_ACTIONS

    def __init__(
        self,
        *,
        max_steps: int | None = DEFAULT_MAX_STEPS,
        insufficient_material: bool = True,
        threefold_repetition: bool = True,
        fifty_move_rule: bool = True,
        history: bool = False,
    ):
        for name, flag in (
            ("insufficient_material", insufficient_material),
            ("threefold_repetition", threefold_repetition),
            ("fifty_move_rule", fifty_move_rule),
            ("history", history),
        ):
            if not isinstance(flag, (bool, np.bool_)):
                raise ValueError(f"{name} must be True or False, got {flag!r}")
        self.max_steps = checked_max_steps(max_steps)
        self.insufficient_material = bool(insufficient_material)
        self.threefold_repetition = bool(threefold_repetition)
        self.fifty_move_rule = bool(fifty_move_rule)
        self.history = bool(history)
        self.observation_shape = (8, 8, 111 if history else 20)
        self.history_length = (
            1
            if not threefold_repetition
            else HISTORY_WITH_FIFTY
            if fifty_move_rule
            else HISTORY_WITHOUT_FIFTY
        )
        self.state_type = StackedChessState if history else ChessState

    @functools.cached_property
    def _opening_state(self) -> ChessState:
        """The opening position, built at the first reset (making an env stays cheap)."""
        return outside_traces(lambda: compiled_method(self, "start")(*parse_fen(START)))

    def __repr__(self) -> str:
        return (
            f"Chess(max_steps={self.max_steps}, "
            f"insufficient_material={self.insufficient_material}, "
            f"threefold_repetition={self.threefold_repetition}, "
            f"fifty_move_rule={self.fifty_move_rule}, history={self.history})"
        )

    def __hash__(self) -> int:
        return hash(repr(self))

    def __eq__(self, other) -> bool:
        return isinstance(other, Chess) and repr(self) == repr(other)

    def observe(self, state: ChessState, player: jax.Array) -> jax.Array:
        """bool (8, 8, 20 or 111): what `player` sees, as PettingZoo's chess shows it."""
        return _observe(state, checked_player(player))

    def render(self, state) -> str:
        """A text board of one (unbatched) state (`jaxcheckers.chess.render`)."""
        return render(state)

    # -- entry points ----------------------------------------------------------------------------

    def _init(self, key: jax.Array) -> ChessState:
        del key  # the opening is fixed
        return jax.tree.map(jnp.asarray, self._opening_state)

    def start(self, position: Position, player, halfmove_clock, fullmove_number) -> ChessState:
        """A game from `position` (mover's frame), `player` to move. Unvalidated; users go
        through `state_from_fen`."""
        position = jax.tree.map(jnp.asarray, position)
        player = jnp.int32(player)
        moves = rules.legal_moves(position)
        state = self.state_type(
            current_player=player,
            rewards=jnp.zeros(2, jnp.float32),
            terminated=jnp.bool_(False),
            truncated=jnp.bool_(False),
            step_count=jnp.int32(0),
            position=position,
            legal_action_bits=rules.action_order(moves.bits),
            in_check=moves.in_check,
            ep_legal=moves.ep_legal,
            halfmove_clock=jnp.int32(halfmove_clock),
            fullmove_number=jnp.int32(fullmove_number),
            placement=rules.placement_hash(position, player),
            window=jnp.int32(1),
            repetitions=jnp.int32(1),
            history=jnp.zeros((*self._history_slots(), 4), jnp.uint32),
            history_count=jnp.zeros(self._history_slots(), jnp.uint8),
            boards=jnp.zeros((STACKED if self.history else 1, 13, 2), jnp.uint32),
        )
        state = self._judge(state, moves, jnp.int32(0), mover=None)
        return legal_actions_cleared(state)

    def _history_slots(self) -> tuple[int, int]:
        """(parities, slots per parity) of the history."""
        h = self.history_length
        return (2, h // 2) if h > 1 else (1, 1)

    def _is_legal(self, state: ChessState, action: jax.Array) -> jax.Array:
        over = state.terminated | state.truncated
        return bits.bit_at(state.legal_action_bits, action) & ~over

    def _step(self, state: ChessState, action: jax.Array) -> ChessState:
        mover = state.current_player
        with bb.runtime_one(state.step_count):
            # Each has several readers (the move generator, the judge's loops over the history
            # slots, the end of the game, the State): computed once, not in each reader's loop.
            played = bb.once(rules.play(state.position, action, mover))
            moves = rules.legal_moves(played.position)
            legal_action_bits = bb.once(rules.action_order(moves.bits))
        irreversible = played.zeroing | played.castling_changed | state.ep_legal
        next_state = state._replace(
            current_player=1 - mover,
            position=played.position,
            legal_action_bits=legal_action_bits,
            in_check=moves.in_check,
            ep_legal=moves.ep_legal,
            halfmove_clock=jnp.where(played.zeroing, 0, state.halfmove_clock + 1),
            fullmove_number=state.fullmove_number + mover,
            placement=state.placement ^ played.hash_change,
            window=jnp.where(irreversible, 1, state.window + 1),
        )
        return self._judge(next_state, moves, state.step_count + 1, mover=mover)

    # -- the end of the game ---------------------------------------------------------------------

    def _judge(self, state: ChessState, moves: rules.Moves, ply: jax.Array, mover) -> ChessState:
        """Records the position (repetitions, stacked boards) and decides whether the game ended."""
        has_move = (state.legal_action_bits != 0).any()
        occupied = _occupancy(state.position, state.current_player)
        entry = jnp.concatenate([occupied, state.placement])
        drawn = jnp.bool_(False)
        repetitions = jnp.int32(1)
        if self.threefold_repetition:
            # A repetition is an even number of plies back, a position one move away an odd
            # number: each is looked for in the half of the history of its parity.
            half = self.history_length // 2
            parity, slot = ply % 2, (ply // 2) % half
            with bb.runtime_one(ply):  # per game, read in the loops over the slots: once
                occupied, entry, parity, slot, window = bb.once(
                    (occupied, entry, parity, slot, state.window)
                )
            odd_first = parity == 1
            same_parity = jnp.where(odd_first, state.history[1], state.history[0])
            other_parity = jnp.where(odd_first, state.history[0], state.history[1])
            other_count = jnp.where(odd_first, state.history_count[0], state.history_count[1])
            back = (slot - 1 - jnp.arange(half)) % half  # slots back from the newest
            even_distance = 2 + 2 * back  # 2 … H; the slot this ply will take is H back
            odd_distance = 1 + 2 * ((((ply - 1) // 2) - jnp.arange(half)) % half)
            same = (same_parity == entry).all(axis=-1)
            in_window = even_distance < window
            repetitions = 1 + (same & in_window).sum(dtype=jnp.int32)
            with bb.runtime_one(ply):
                reachable = self._repetition_one_move_away(
                    state, occupied, other_parity, other_count, odd_distance < window
                )
            drawn = drawn | (repetitions >= 3) | reachable
            here = (jnp.arange(2)[:, None] == parity) & (jnp.arange(half) == slot)
            state = state._replace(
                history=jnp.where(here[..., None], entry, state.history),
                history_count=jnp.where(
                    here, jnp.minimum(repetitions, 255).astype(jnp.uint8), state.history_count
                ),
            )
        if self.fifty_move_rule:
            clock = state.halfmove_clock
            drawn = drawn | (has_move & (clock >= 100)) | ((clock == 99) & moves.quiet)
        if self.insufficient_material:
            drawn = drawn | rules.insufficient_material(state.position)
        if self.history:
            boards = _white_planes(state, repetitions)
            state = state._replace(
                boards=jnp.concatenate([boards[None], state.boards[:-1]])
                if mover is not None
                else state.boards
            )
        mated = ~has_move & state.in_check
        if mover is None:  # a start position already mated: the side to move has lost
            lost = jnp.where(jnp.arange(2) == state.current_player, -1.0, 1.0)
            rewards = jnp.where(mated, lost, 0.0).astype(jnp.float32)
        else:
            won = jnp.where(jnp.arange(2) == mover, 1.0, -1.0)
            rewards = jnp.where(mated, won, 0.0).astype(jnp.float32)
        return state._replace(
            repetitions=repetitions, rewards=rewards, terminated=~has_move | drawn
        )

    @staticmethod
    @bb.wide
    def _repetition_one_move_away(
        state: ChessState,
        occupied: jax.Array,
        earlier: jax.Array,
        count: jax.Array,
        candidates: jax.Array,
    ) -> jax.Array:
        """bool: a legal move reaches a position already seen twice in the window (python-chess's
        `can_claim_threefold_repetition`, second part).

        Such a move is reversible (no capture, pawn or castling-right change), so the position it
        reaches differs from this one by one own piece moved from f to t: the occupancies differ
        in exactly f and t, and the placement hash by that piece's keys on f and t.
        """
        player = state.current_player
        own = bb.of(state.position.own)
        mine = [board & own for board in rules.piece_boards(state.position)]
        flip = jnp.where(player == 1, jnp.int32(56), jnp.int32(0))
        # Per game, read in the loops over the slots: computed once.
        occupied, mine, flip = bb.once((bb.of(occupied), mine, flip))
        diff = bb.of(earlier[:, :2]) ^ occupied
        frm, to = diff & occupied, diff & ~occupied
        single = (bb.popcount(frm) == 1) & (bb.popcount(to) == 1)  # so the two differ in two
        f_abs, t_abs = bb.lowest(frm), bb.lowest(to)
        f, t = f_abs ^ flip, t_abs ^ flip
        kind = sum(jnp.int32(i) * bb.has(mine[i], f) for i in range(6))
        f_abs, t_abs, f, t, kind = bb.once((f_abs, t_abs, f, t, kind))
        child = (
            state.placement
            ^ rules.zobrist(kind, player, f_abs)
            ^ rules.zobrist(kind, player, t_abs)
        )
        same = (earlier[:, 2] == child[..., 0]) & (earlier[:, 3] == child[..., 1])
        seen_twice = count >= 2
        found = candidates & seen_twice & single & same
        delta = jnp.clip((t // 8 - f // 8 + 7) * 15 + t % 8 - f % 8 + 7, 0, 224)
        # The arithmetic above in vectorised loops, computed once; the lookups below apart.
        found, delta, f = bb.once((found.astype(jnp.int32), delta, f))
        plane = jnp.asarray(tables.DELTA_PLANE)[delta]
        f = f & 63
        square = (f & 7) * 8 + (f >> 3)  # file·8 + rank, as actions number squares
        index = square * tables.NUM_PLANES + jnp.clip(plane, 0, tables.NUM_PLANES - 1)
        word = state.legal_action_bits[index >> 5]
        legal = (plane >= 0) & (((word >> (index & 31).astype(jnp.uint32)) & 1) != 0)
        return ((found != 0) & legal).any()


def state_from_fen(fen: str, **env_options) -> ChessState:
    """A game from `fen`, with `env_options` as for `jaxcheckers.make("chess", ...)`;
    ValueError, with the reason, for a malformed or impossible position."""
    position, player, halfmove, fullmove = parse_fen(fen)
    env = _env_of(tuple(sorted(env_options.items())))
    return compiled_method(env, "start")(position, player, halfmove, fullmove)


@functools.lru_cache(maxsize=16)
def _env_of(options: tuple) -> Chess:
    return Chess(**dict(options))


@bb.wide
def _occupancy(position: Position, player: jax.Array) -> jax.Array:
    """uint32 (2,): the occupied squares in white's frame."""
    p = rules.piece_boards(position)
    occupied = p[0] | p[1] | p[2] | p[3] | p[4] | p[5]
    return bb.where(player == 1, bb.flip(occupied), occupied).stack()


@bb.wide
def _white_planes(state: ChessState, repetitions: jax.Array) -> jax.Array:
    """uint32 (13, 2): `chess_utils.get_observation(board, 0)[..., 7:]` as bitboards."""
    p, white = rules.absolute(state.position, state.current_player)
    black = ~white
    planes = [p[i] & white for i in range(6)] + [p[i] & black for i in range(6)]
    ep = jnp.where(state.current_player == 1, state.position.ep ^ 56, state.position.ep)
    has_ep = state.position.ep >= 0
    white_pushed = has_ep & (ep < 32)
    black_pushed = has_ep & (ep >= 32)
    planes[0] = planes[0] ^ bb.where(white_pushed, bb.square(ep + 8) ^ bb.square(ep % 8), bb.zero())
    planes[6] = planes[6] ^ bb.where(
        black_pushed, bb.square(ep - 8) ^ bb.square(56 + ep % 8), bb.zero()
    )
    ones = jnp.where(repetitions >= 2, jnp.uint32(0xFFFFFFFF), jnp.uint32(0))
    return jnp.stack([b.stack() for b in planes] + [jnp.stack([ones, ones])])


def _unpack_planes(words: jax.Array) -> jax.Array:
    """bool (…, 8, 8, P) from uint32 (…, P, 2): row 0 is rank 8, column 0 file a."""
    shifts = jnp.arange(32, dtype=jnp.uint32)
    squares = ((words[..., None] >> shifts) & 1).astype(bool)  # (…, P, 2, 32)
    squares = squares.reshape(*words.shape[:-1], 8, 8)  # (…, P, rank, file)
    squares = jnp.flip(squares, axis=-2)
    return jnp.moveaxis(squares, -3, -1)


def _aux_words(state: ChessState) -> jax.Array:
    """uint32 (…, 7, 2): the castling, colour, clock and all-ones planes."""
    ones = jnp.uint32(0xFFFFFFFF)

    def full(flag):
        word = jnp.where(flag, ones, jnp.uint32(0))
        return jnp.stack([word, word], axis=-1)

    castling = state.position.castling
    clock = bb.square(state.halfmove_clock // 2)  # one square, as PettingZoo marks it
    planes = [full(castling[..., i]) for i in range(4)]
    planes += [
        full(state.current_player == 1),
        clock.stack(),
        full(jnp.ones_like(castling[..., 0])),
    ]
    return jnp.stack(planes, axis=-2)


@jax.jit
def _legal_action_mask(legal_action_bits: jax.Array) -> jax.Array:
    """The packed legal moves unpacked: one compiled call where host code reads a state's
    mask, not an eager operation for each of its steps."""
    return bits.unpack_mask(legal_action_bits, tables.NUM_ACTIONS)


@functools.partial(jax.jit, static_argnums=1)
@bb.wide
def _observation(state: ChessState, stacked: bool) -> jax.Array:
    aux = _aux_words(state)
    if not stacked:
        planes = _piece_words(state.position)
        repeated = (state.repetitions >= 2) & (state.current_player == 0)
        word = jnp.where(repeated, jnp.uint32(0xFFFFFFFF), jnp.uint32(0))
        rep = jnp.stack([word, word], axis=-1)[..., None, :]
        return _unpack_planes(jnp.concatenate([aux, planes, rep], axis=-2))
    boards = state.boards.reshape(*state.boards.shape[:-3], STACKED * 13, 2)
    words = jnp.concatenate([aux, boards], axis=-2)
    black = (state.current_player == 1)[..., None, None]
    swapped = words.reshape(*words.shape[:-2], -1, 2)
    index = np.arange(7 + STACKED * 13)
    for block in range(STACKED):
        base = 7 + 13 * block
        index[base : base + 6], index[base + 6 : base + 12] = (
            np.arange(base + 6, base + 12),
            np.arange(base, base + 6),
        )
    flipped = jnp.stack([bb.bswap32(swapped[..., 1]), bb.bswap32(swapped[..., 0])], axis=-1)
    flipped = flipped[..., index, :]
    return _unpack_planes(jnp.where(black, flipped, words))


def _piece_words(position: Position) -> jax.Array:
    """uint32 (…, 12, 2): the 12 piece planes of the mover's observation."""
    batch = position.own.shape[:-1]
    flat = jax.tree.map(lambda x: x.reshape(-1, *x.shape[len(batch) :]), position)
    planes = jax.vmap(lambda pos: jnp.stack([b.stack() for b in rules.observation_pieces(pos)]))(
        flat
    )
    return planes.reshape(*batch, 12, 2)


@jax.jit
def moves_of_the_position(state: ChessState) -> jax.Array:
    """bool (4672,): the moves the rules give the side to move in `state`'s position, even once
    the game has ended (PettingZoo's chess_v6 shows them to the agents after a drawn end)."""
    moves = rules.legal_moves(state.position)
    return bits.unpack_mask(rules.action_order(moves.bits), tables.NUM_ACTIONS)


def _order(planes: int) -> np.ndarray:
    """The plane each plane of the other player's view is taken from: castling rights swap
    (own king/queen side <-> the opponent's), and in each 13-plane board the 6 own piece planes
    swap with the 6 opponent ones."""
    order = np.arange(planes)
    order[:4] = [2, 3, 0, 1]
    for base in range(7, planes - 1, 13):
        own = order[base : base + 6].copy()
        order[base : base + 6] = order[base + 6 : base + 12]
        order[base + 6 : base + 12] = own
    return order


def _observe(state: ChessState, player: jax.Array) -> jax.Array:
    """bool (8, 8, 20 or 111): `chess_utils.get_observation(board, player)`'s planes (20), or
    chess_v6's `observe` (111), as `player` sees them, from the mover's observation.

    The other side's view is the mover's turned: rows mirrored, own and opponent planes swapped,
    the colour plane inverted. Two planes follow PettingZoo's code rather than symmetry: in the
    20-plane view the clock square is not mirrored, and the repetition plane is set for white
    only (`board.mirror()` drops the move stack that `is_repetition` reads).
    """
    seen = state.observation
    planes = seen.shape[-1]
    turned = jnp.flip(seen[..., _order(planes)], axis=-3)
    turned = turned.at[..., 4].set(~seen[..., 4])
    if planes == 20:
        repeated = (player == 0) & (state.repetitions >= 2)
        turned = turned.at[..., 5].set(seen[..., 5])
        turned = turned.at[..., 19].set(jnp.broadcast_to(repeated, seen.shape[:-1]))
    return jnp.where(state.current_player == player, seen, turned)
