"""Every benchmark script refuses a bad count or an output it cannot write in one argparse line,
before it times anything, and leaves the results it would have replaced as they were."""

from __future__ import annotations

import importlib
import sys

import pytest

from benchmarks.common import RESULTS_DIR

REFUSED = [
    ("throughput", ["--batch-sizes", "0"], "--batch-sizes: must be a positive integer"),
    ("throughput", ["--runs", "0"], "--runs: must be a positive integer"),
    ("throughput", ["--out-dir", "/proc/none"], "--out-dir: cannot write in /proc/none"),
    ("chess_speed", ["--batch-sizes", "-5"], "--batch-sizes: must be a positive integer"),
    ("chess_speed", ["--seconds", "0"], "--seconds: must be a positive number"),
    ("perft", ["--max-seconds", "0"], "--max-seconds: must be a positive number"),
    ("gym_vector", ["--num-envs", "0"], "--num-envs: must be a positive integer"),
    ("gym_vector", ["--out", "/proc/none/x.json"], "--out: cannot write /proc/none/x.json"),
    ("agent_batching", ["--batch", "0"], "--batch: must be a positive integer"),
    ("tictactoe_training", ["--total-steps", "0"], "--total-steps: must be a positive integer"),
    ("tictactoe_training", ["--opponent-fraction", "2"], "--opponent-fraction: must lie in"),
    ("tictactoe", ["--batch-sizes", "0"], "--batch-sizes: must be a positive integer"),
    ("chess_profile", ["--batch", "0"], "--batch: must be a positive integer"),
    ("chess_alphabeta", ["--depths", "9"], "--depths: must be at most 4"),
    ("report", ["--results-dir", "/proc/none"], "--results-dir: no results"),
    ("instructions", ["--base", "HEAD", "--calls", "0"], "--calls: must be a positive integer"),
    ("instructions", ["--base", "no-such-commit"], "--base: 'no-such-commit' is not a commit"),
    ("chess_ab", ["--base", "HEAD", "--rounds", "0"], "--rounds: must be a positive integer"),
    ("chess_ab", ["--base", "HEAD", "--game", "draughts", "--batch", "0"], "--batch: must be"),
    ("ab", ["--base", "HEAD", "--out-dir", "/proc/none"], "--out-dir: cannot write in"),
]


@pytest.mark.parametrize(
    "script, argv, message", REFUSED, ids=lambda x: " ".join(x) if isinstance(x, list) else x
)
def test_a_bad_argument_is_refused_in_one_line_before_any_work(
    script, argv, message, monkeypatch, capsys
):
    results = {path: path.stat().st_mtime_ns for path in RESULTS_DIR.iterdir()}
    module = importlib.import_module(f"benchmarks.{script}")
    monkeypatch.setattr(sys, "argv", [f"{script}.py", *argv])
    with pytest.raises(SystemExit) as stopped:
        module.main()  # the scripts that take argv read sys.argv when given none
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err, err
    assert {path: path.stat().st_mtime_ns for path in RESULTS_DIR.iterdir()} == results
