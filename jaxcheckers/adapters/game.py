"""Once the home of checkers' plain Python game: `play_game`, `Game`, `Move`, `RULE_SETS` and
`opening` now live in the game's folder (`jaxcheckers.checkers.game`) and the registry, and are
served from here for one more release, with a DeprecationWarning.

    from jaxcheckers.checkers.game import play_game
    game = play_game(["alphabeta:3", "random"])   # a finished Game; game.moves, game.result
"""

from __future__ import annotations

from jaxcheckers.adapters.common import checked_action
from jaxcheckers.deprecation import moved_names

__all__ = ["checked_action"]

__getattr__ = moved_names(
    __name__,
    {
        "Game": "jaxcheckers.checkers.game:Game",
        "Move": "jaxcheckers.checkers.game:Move",
        "RULE_SETS": "jaxcheckers.checkers.env:RULE_SETS",
        "opening": "jaxcheckers.games:opening",
        "play_game": "jaxcheckers.checkers.game:play_game",
    },
)
