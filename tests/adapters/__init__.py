"""Tests of `jaxcheckers.adapters`: the Gymnasium and PettingZoo envs of every game."""
