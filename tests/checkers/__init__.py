"""Tests of `jaxcheckers.checkers`: its rules, env, notation, pictures and agents, with the
plain-Python reference (`reference.py`) they are checked against."""
