"""jaxcheckers.files: the lock of a results folder or file, and the checks of a saved file's
numbers (the commands' own tests run them with real processes: test_ladder,
checkers/test_ballots)."""

from __future__ import annotations

import contextlib
import math
import os
import socket
import subprocess
from unittest import mock

import pytest

from jaxcheckers import files


@pytest.mark.parametrize("hard_links", [True, False])
def test_a_lock_refuses_a_live_holder_replaces_a_dead_ones_and_is_released(
    tmp_path, capsys, hard_links
):
    path = tmp_path / "x.lock"
    no_links = mock.patch("os.link", side_effect=PermissionError(1, "no hard links here"))
    with contextlib.nullcontext() if hard_links else no_links:
        with files.lock(path, tmp_path, "testing"):
            assert path.read_text() == f"{socket.gethostname()} {os.getpid()}\n"
            with pytest.raises(ValueError, match=f"is in use: process {os.getpid()} is testing"):
                with files.lock(path, tmp_path, "testing"):
                    pass
        assert not path.exists() and not list(tmp_path.iterdir())  # nothing left behind

        gone = subprocess.run(["sh", "-c", "echo $$"], capture_output=True, text=True)
        path.write_text(f"{socket.gethostname()} {gone.stdout.strip()}\n")  # a killed holder
        with files.lock(path, tmp_path, "testing"):
            assert path.read_text().split()[1] == str(os.getpid())
        assert "replaced the stale lock of process" in capsys.readouterr().err


def test_a_lock_of_another_host_is_left_to_its_owner(tmp_path):
    path = tmp_path / "x.lock"
    path.write_text("elsewhere 12\n")
    with pytest.raises(ValueError, match="locked by process 12 on elsewhere; if it has ended"):
        with files.lock(path, tmp_path, "testing"):
            pass
    assert path.read_text() == "elsewhere 12\n"


def test_a_finished_result_is_refused_by_name(tmp_path):
    files.refuse_finished([tmp_path / "a.json"], "a finished thing", "--out")  # none: fine
    (tmp_path / "b.md").write_text("")
    with pytest.raises(ValueError, match="b.md holds a finished thing.*give another --out"):
        files.refuse_finished([tmp_path / "a.json", tmp_path / "b.md"], "a finished thing", "--out")


@pytest.mark.parametrize("value", ["1", 1.0, True, -1, 11, 10**400, None])
def test_a_saved_count_is_an_integer_in_range(value):
    with pytest.raises(ValueError, match="wins must be an integer from 0 to 10"):
        files.saved_count(value, "wins", 10)


@pytest.mark.parametrize("value", [None, "3", -1.0, math.nan, math.inf, 10**400])
def test_saved_seconds_are_a_finite_number(value):
    with pytest.raises(ValueError, match="wall_seconds must be a number of seconds"):
        files.saved_seconds(value, "wall_seconds")


def test_good_saved_numbers_pass():
    assert files.saved_count(0, "wins", 10) == 0 and files.saved_count(10, "wins", 10) == 10
    assert files.saved_seconds(0, "s") == 0.0 and files.saved_seconds(12.5, "s") == 12.5
