"""`python -m benchmarks.draughts_speed` refuses what it cannot run or write in one line, before
anything is timed."""

from __future__ import annotations

import pytest

from benchmarks import draughts_speed


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--batch", "0"], "--batch: must be a positive integer"),
        (["--seconds", "-1"], "--seconds:"),
        (["--out", "/nonexistent-folder/speed.json"], "--out: cannot write"),
        (["--out", ""], "--out: an empty file name"),
    ],
)
def test_bad_arguments_are_refused_in_one_line_before_timing(argv, message, capsys):
    with pytest.raises(SystemExit) as stopped:
        draughts_speed.main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert stopped.value.code == 2 and message in err[-1] and "Traceback" not in "\n".join(err)
