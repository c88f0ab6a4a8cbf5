"""`python -m benchmarks.ab` refuses what it cannot run in one line, before anything is timed."""

from __future__ import annotations

import pytest

from benchmarks import ab


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--base", "no-such-commit"], "--base: 'no-such-commit' is not a commit"),
        (["--base", "HEAD", "--games", "go"], "--games: unknown go; available:"),
        (["--base", "HEAD", "--runs", "0"], "--runs: must be a positive integer"),
        (["--base", "HEAD", "--batch-sizes", "-4"], "--batch-sizes: must be a positive integer"),
    ],
)
def test_bad_arguments_are_refused_in_one_line_before_timing(argv, message, capsys):
    with pytest.raises(SystemExit) as stopped:
        ab.main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert stopped.value.code == 2 and message in err[-1] and "Traceback" not in "\n".join(err)
