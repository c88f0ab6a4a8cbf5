"""The jaxcheckers test suite.

A package, so that `tests.reference` never resolves to a stray `tests` in site-packages.
"""
