"""Chess's alpha-beta moved to `jaxcheckers.chess.alphabeta` (one game, one folder);
this old path serves its names, with a DeprecationWarning, until the next release."""

from jaxcheckers.chess import alphabeta as _home
from jaxcheckers.deprecation import moved_module

__getattr__ = moved_module(__name__, _home)
