"""What the PettingZoo and Gymnasium adapters need to know of each game, one entry per game.

The adapters are written once over the State contract (`jaxcheckers.core`); what differs between
games (how an env is built from options, the observation as either player sees it, the text and
RGB pictures, what `reset(options={"start": ...})` takes) is here, as a `GameAdapter` per game.
Each entry imports its game only when used, so listing them loads no game.

    adapter = games.adapter("chess")
    env = adapter.make_env(history=True)
    adapter.observe(state, 1)        # jittable: black's (8, 8, 111) view, whoever is to move
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxcheckers.core import Env

__all__ = ["GameAdapter", "adapter", "ADAPTED_GAMES"]


@dataclasses.dataclass(frozen=True)
class GameAdapter:
    """One game as the adapters see it."""

    name: str  # the name `jaxcheckers.make` takes
    pettingzoo_name: str  # the PettingZoo env whose interface the AEC adapter keeps
    pettingzoo_defaults: dict[str, Any]  # env options that make the JAX env behave as that one
    make_env: Callable[..., Env]  # keyword options -> the JAX env (shared per set of options)
    observe: Callable[[Any, jax.Array], jax.Array]  # (state, player) -> player's view; jittable
    observation_dtype: type  # of PettingZoo's observation Box
    text: Callable[[Any], str]  # one unbatched state as text
    rgb: Callable[[Any], np.ndarray] | None  # uint8 (H, W, 3) of a state; None: not drawn yet
    start: Callable[[Any, Env], Any]  # options["start"] (None: the opening) -> host State
    global_state: Callable[[Any], np.ndarray] | None = None  # PettingZoo's `state()`, if any
    global_state_shape: Callable[[Env], tuple[int, ...]] | None = None

    @property
    def render_modes(self) -> list[str]:
        return ["human", "ansi"] + (["rgb_array"] if self.rgb is not None else [])


# -- checkers ---------------------------------------------------------------------------------


def _checkers_env(**options) -> Env:
    from jaxcheckers.adapters.game import _env_from_options

    return _env_from_options(**options)


def _checkers_observe(state, player: jax.Array) -> jax.Array:
    """bool (n, n, 4): own men, own kings, opponent men, opponent kings, in `player`'s frame."""
    from jaxcheckers.checkers import rules

    board = jnp.where(state.current_player == player, state.board, rules.flip(state.board))
    return rules.observation(board)


def _checkers_text(state) -> str:
    from jaxcheckers.checkers import render

    return render.render_text(state)


def _checkers_rgb(state) -> np.ndarray:
    from jaxcheckers.adapters.rgb import checkers_rgb
    from jaxcheckers.checkers.positions import absolute_board

    return checkers_rgb(absolute_board(state))


def _checkers_start(start, env):
    """The opening, a `Game` of the same rules, or an unbatched `CheckersState` of this env."""
    from jaxcheckers.adapters.game import Game, opening
    from jaxcheckers.checkers import CheckersState

    if start is None:
        return opening(env)
    if isinstance(start, Game):
        if repr(start.env) != repr(env):
            raise ValueError(f"options['start'] is a game of {start.env!r}, not {env!r}")
        return start.state
    if not isinstance(start, CheckersState) or np.shape(start.board) != (env.board_size**2,):
        raise ValueError(
            "options['start'] must be a Game or an unbatched CheckersState of this env"
        )
    return start


def _checkers_global_state(state) -> np.ndarray:
    """int8 (n, n, 5), absolute frame (black at the top): black men, black kings, white men,
    white kings, and a plane of ones when white is to move."""
    from jaxcheckers.checkers.positions import absolute_board

    board = absolute_board(state)
    to_move = np.full(board.shape, int(state.current_player), dtype=bool)
    planes = [board == 1, board == 2, board == -1, board == -2, to_move]
    return np.stack(planes, axis=-1).astype(np.int8)


# -- chess ------------------------------------------------------------------------------------


def _chess_env(**options) -> Env:
    return _cached_chess(tuple(sorted(options.items())))


@functools.cache
def _cached_chess(options: tuple) -> Env:
    """One Chess per set of options: building one compiles its start position."""
    import jaxcheckers

    return jaxcheckers.make("chess", **dict(options))


def _chess_order(planes: int) -> np.ndarray:
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


def _chess_observe(state, player: jax.Array) -> jax.Array:
    """bool (8, 8, 20 or 111): `chess_utils.get_observation(board, player)`'s planes (20), or
    chess_v6's `observe` (111), as `player` sees them, from the mover's observation.

    The other side's view is the mover's turned: rows mirrored, own and opponent planes swapped,
    the colour plane inverted. Two planes follow PettingZoo's code rather than symmetry: in the
    20-plane view the clock square is not mirrored, and the repetition plane is set for white
    only (`board.mirror()` drops the move stack that `is_repetition` reads).
    """
    seen = state.observation
    planes = seen.shape[-1]
    turned = jnp.flip(seen[..., _chess_order(planes)], axis=-3)
    turned = turned.at[..., 4].set(~seen[..., 4])
    if planes == 20:
        repeated = (player == 0) & (state.repetitions >= 2)
        turned = turned.at[..., 5].set(seen[..., 5])
        turned = turned.at[..., 19].set(jnp.broadcast_to(repeated, seen.shape[:-1]))
    return jnp.where(state.current_player == player, seen, turned)


def _chess_text(state) -> str:
    from jaxcheckers.chess.render import render

    return render(state)


def _chess_rgb(state) -> np.ndarray:
    from jaxcheckers.chess.pictures import position_rgb

    return position_rgb(state)  # drawn by matplotlib (its font has the chess glyphs)


def _chess_start(start, env):
    """The opening, a FEN string, or an unbatched ChessState of this env."""
    from jaxcheckers.adapters.game import opening
    from jaxcheckers.chess import state_from_fen

    if start is None:
        return opening(env)
    if isinstance(start, str):
        options = {
            name: getattr(env, name)
            for name in (
                "max_steps",
                "insufficient_material",
                "threefold_repetition",
                "fifty_move_rule",
                "history",
            )
        }
        return jax.device_get(state_from_fen(start, **options))
    if not isinstance(start, env.state_type) or np.shape(start.current_player) != ():
        raise ValueError(
            "options['start'] must be a FEN string or an unbatched ChessState of this env"
        )
    return start


# -- the table --------------------------------------------------------------------------------

_ADAPTERS = {
    "checkers": GameAdapter(
        name="checkers",
        pettingzoo_name="checkers_v3",
        pettingzoo_defaults={},
        make_env=_checkers_env,
        observe=_checkers_observe,
        observation_dtype=np.int8,
        text=_checkers_text,
        rgb=_checkers_rgb,
        start=_checkers_start,
        global_state=_checkers_global_state,
        global_state_shape=lambda env: (env.board_size, env.board_size, 5),
    ),
    # chess_v6 observes the (8, 8, 111) stack and never truncates (its games end by the draw
    # rules, the fifty-move rule bounding their length); its observation Box is bool.
    "chess": GameAdapter(
        name="chess",
        pettingzoo_name="chess_v6",
        pettingzoo_defaults={"history": True, "max_steps": None},
        make_env=_chess_env,
        observe=_chess_observe,
        observation_dtype=np.bool_,
        text=_chess_text,
        rgb=_chess_rgb,
        start=_chess_start,
    ),
}
ADAPTED_GAMES = tuple(_ADAPTERS)


def adapter(game: str) -> GameAdapter:
    """The adapter entry of `game` ("checkers" or "chess"); ValueError for any other."""
    if game not in _ADAPTERS:
        raise ValueError(f"game must be one of {list(ADAPTED_GAMES)}, got {game!r}")
    return _ADAPTERS[game]
