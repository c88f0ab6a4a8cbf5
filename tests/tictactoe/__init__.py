"""Tests of `jaxcheckers.tictactoe`: the env, the Gymnasium env and the perfect player."""
