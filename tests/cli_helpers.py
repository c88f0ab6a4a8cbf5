"""Running `jaxcheckers ...` in the test's own process, and what a refused invocation must look
like: a non-zero exit and one line on stderr, no traceback."""

from __future__ import annotations

import pytest

from jaxcheckers.argtypes import check_writable_folder
from jaxcheckers.cli import main


def run_cli(argv: list[str], capsys) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of `jaxcheckers ARGV`, run in this process."""
    try:
        status = main(argv)
    except SystemExit as exit_:  # argparse's way out
        status = exit_.code
    out, err = capsys.readouterr()
    return status, out, err


def assert_one_line_error(status, err: str, *words: str) -> None:
    assert status not in (0, None), err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    for word in words:
        assert word in lines[0], lines[0]


def unwritable_folder() -> str:
    """A folder this process cannot write in, root too (chmod does not stop root): sysfs's
    root, where making a file is refused to every user; skips the test where it is not."""
    try:
        check_writable_folder("/sys")
    except ValueError:
        return "/sys"
    pytest.skip("/sys is writable here")
