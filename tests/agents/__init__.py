"""Tests of `jaxcheckers.agents`: the shared agents, search, and the shipped networks."""
