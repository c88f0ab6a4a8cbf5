"""`python -m benchmarks.device_speed` refuses sizes it cannot time in one line, before timing,
and times draughts' capture search with each number of lanes asked."""

from __future__ import annotations

import json

import pytest

from benchmarks import device_speed


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--draughts-batch-sizes", "0"], "--draughts-batch-sizes: must be a positive integer"),
        (["--checkers-batch-sizes", "-3"], "--checkers-batch-sizes: must be a positive integer"),
        (["--chess-batch-sizes", "1024", "0"], "--chess-batch-sizes: must be a positive integer"),
        (["--runs", "0"], "--runs: must be a positive integer"),
        (["--seconds", "nan"], "--seconds: expected a finite number"),
        (["--draughts-lanes", "0"], "--draughts-lanes: must be a positive integer"),
    ],
)
def test_bad_sizes_are_refused_in_one_line(argv, message, capsys, tmp_path):
    out = tmp_path / "device_speed.json"
    with pytest.raises(SystemExit) as stopped:
        device_speed.main([*argv, "--out", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert stopped.value.code == 2 and message in err[-1] and "Traceback" not in "\n".join(err)
    assert not out.exists()


def test_draughts_lanes_are_timed_each_and_play_the_same_games(tmp_path):
    """Each number of lanes of the capture search is its own row, and the games do not depend on
    it: the same seeds play games of the same mean length (only the search's schedule differs)."""
    out = tmp_path / "device_speed.json"
    argv = ["--systems", device_speed.OURS_DRAUGHTS, "--draughts-batch-sizes", "32",
            "--draughts-lanes", "own", "3", "32", "--seconds", "0.01", "--runs", "1",
            "--out", str(out)]
    assert device_speed.main(argv) == 0
    rows = json.loads(out.read_text())["throughput"]
    assert [r["name"] for r in rows] == [
        device_speed.OURS_DRAUGHTS,
        f"{device_speed.OURS_DRAUGHTS}, 3 lanes",
        f"{device_speed.OURS_DRAUGHTS}, 32 lanes",
    ]
    lengths = {r["mean_game_length"] for r in rows}
    assert len(lengths) == 1 and None not in lengths
