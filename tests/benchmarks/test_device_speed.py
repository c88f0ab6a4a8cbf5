"""`python -m benchmarks.device_speed` refuses sizes it cannot time in one line, before timing."""

from __future__ import annotations

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
    ],
)
def test_bad_sizes_are_refused_in_one_line(argv, message, capsys, tmp_path):
    out = tmp_path / "device_speed.json"
    with pytest.raises(SystemExit) as stopped:
        device_speed.main([*argv, "--out", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert stopped.value.code == 2 and message in err[-1] and "Traceback" not in "\n".join(err)
    assert not out.exists()
