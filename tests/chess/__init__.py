"""Tests of `jaxcheckers.chess`, checked against python-chess and PettingZoo (`helpers.py`)."""
