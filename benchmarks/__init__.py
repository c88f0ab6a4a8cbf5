"""Benchmark scripts: one per question, each printing tables and writing JSON to results/."""
