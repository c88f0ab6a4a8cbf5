"""Tic-tac-toe's Gymnasium env moved to `jaxcheckers.tictactoe.gym` (one game, one folder);
this old path serves its names, with a DeprecationWarning, until the next release. Importing it
still registers the Gymnasium ids."""

from jaxcheckers.deprecation import moved_module
from jaxcheckers.tictactoe import gym as _home

__getattr__ = moved_module(__name__, _home)
