"""The perfect tic-tac-toe player moved to `jaxcheckers.tictactoe.perfect` (one game, one folder);
this old path serves its names, with a DeprecationWarning, until the next release."""

from jaxcheckers.deprecation import moved_module
from jaxcheckers.tictactoe import perfect as _home

__getattr__ = moved_module(__name__, _home)
