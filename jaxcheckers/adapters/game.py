"""Whole checkers games between agents, over `jaxcheckers.checkers.game.Game` (one game of
checkers as a plain Python object, which lives in the game's folder; `Game`, `Move`,
`RULE_SETS` and `opening` are served from here for one more release, with a DeprecationWarning).

    game = play_game(["alphabeta:3", "random"])   # a finished Game; game.moves, game.result
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax

from jaxcheckers.adapters.common import checked_action
from jaxcheckers.agents import make_agent
from jaxcheckers.checkers import game as checkers_game
from jaxcheckers.checkers.env import Checkers
from jaxcheckers.deprecation import moved_names

__all__ = ["play_game", "checked_action"]

__getattr__ = moved_names(
    __name__,
    {
        "Game": "jaxcheckers.checkers.game:Game",
        "Move": "jaxcheckers.checkers.game:Move",
        "RULE_SETS": "jaxcheckers.checkers.env:RULE_SETS",
        "opening": "jaxcheckers.games:opening",
    },
)

_AGENTS: dict[tuple[Any, str], Callable] = {}


def _compiled_agent(agent: str | Callable, env: Checkers) -> Callable:
    """A jitted `act(state, key)` for `agent` (a spec such as "random", or an act function)."""
    cache_key = (agent, repr(env))
    if cache_key not in _AGENTS:
        act = make_agent(agent, env) if isinstance(agent, str) else agent
        if not callable(act):
            raise ValueError(
                f"an agent is a spec string or an act(state, key) function, got {agent!r}"
            )
        _AGENTS[cache_key] = jax.jit(act)
    return _AGENTS[cache_key]


# -- a whole game -----------------------------------------------------------------------------


def play_game(
    agents: Sequence[str | Callable],
    start: checkers_game.Game | str | None = None,
    *,
    key: jax.Array | None = None,
) -> checkers_game.Game:
    """Plays a game to its end and returns the finished Game (its moves are `game.moves`).

    `agents[p]` plays player p: a spec for `jaxcheckers.agents.make_agent` ("random", ...) or an
    `act(state, key) -> action` function. `start` is a Game or a FEN string (8×8), by default
    the opening. `key` (default `jax.random.key(0)`) is split once per hop. An agent that picks
    an illegal action raises ValueError. The game ends by the rules or at the env's `max_steps`.
    """
    if len(agents) != 2:
        raise ValueError(f"play_game needs two agents (player 0, player 1), got {len(agents)}")
    if start is None:
        game = checkers_game.Game.new()
    elif isinstance(start, str):
        game = checkers_game.Game.from_fen(start)
    elif isinstance(start, checkers_game.Game):
        game = start
    else:
        raise ValueError(f"start must be a Game, a FEN string or None, got {type(start).__name__}")
    key = jax.random.key(0) if key is None else key
    acts = [_compiled_agent(agent, game.env) for agent in agents]
    while not game.is_over:
        key, subkey = jax.random.split(key)
        action = int(acts[game.current_player](game.state, subkey))
        game = game.play(action)
    return game
