"""American checkers (English draughts) and its variants."""

from jaxcheckers.checkers.env import Checkers, CheckersState

__all__ = ["Checkers", "CheckersState"]
