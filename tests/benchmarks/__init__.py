"""Tests of the scripts under `benchmarks/` that the project's figures come from."""
