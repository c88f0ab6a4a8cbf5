"""Checkers' SARSA player moved to `jaxcheckers.checkers.sarsa` (one game, one folder);
this old path serves its names, with a DeprecationWarning, until the next release."""

from jaxcheckers.checkers import sarsa as _home
from jaxcheckers.deprecation import moved_module

__getattr__ = moved_module(__name__, _home)
