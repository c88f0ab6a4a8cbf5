"""benchmarks/gpu_suite.sh: its refusals (one line, nothing written), its time boxes within the
9 minutes, and (slow) the whole suite in --smoke mode on the CPU."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SUITE = REPO / "benchmarks" / "gpu_suite.sh"


def _suite(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHON": sys.executable}
    return subprocess.run(
        ["bash", str(SUITE), *args], capture_output=True, text=True, env=env, timeout=timeout
    )


def test_the_time_boxes_and_their_margin_fit_in_nine_minutes():
    text = SUITE.read_text()
    boxes = {
        name: int(re.search(rf"^{name}_BOX=\$\{{{name}_BOX:-(\d+)\}}$", text, re.M).group(1))
        for name in ("TTS", "AB", "ENV")
    }
    kill_after = int(re.search(r"timeout -k (\d+)", text).group(1))
    # time_to_strength may overrun its box by the kill's grace (it saves its run on SIGTERM;
    # the others end at once); a minute is left for the install and the tarball.
    assert sum(boxes.values()) + kill_after + 60 <= 9 * 60, boxes


@pytest.mark.parametrize(
    "args, words",
    [
        ([], "usage: benchmarks/gpu_suite.sh OUTDIR"),
        (["--smoke"], "usage:"),
        (["{out}", "--fast"], "unknown option --fast"),
        (["{out}", "--resume", "/nonexistent.tar.gz"], "--resume needs a run tarball"),
        (["{full}"], "OUTDIR must be a new or empty folder"),
    ],
)
def test_a_bad_invocation_is_one_line_and_writes_nothing(tmp_path, args, words):
    full = tmp_path / "full"
    full.mkdir()
    (full / "earlier.json").write_text("{}")
    out = tmp_path / "out"
    args = [a.format(out=out, full=full) for a in args]
    result = _suite(*args)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], result.stderr
    assert not out.exists() or not any(out.iterdir())
    assert [p.name for p in full.iterdir()] == ["earlier.json"]


@pytest.mark.slow
def test_the_smoke_suite_runs_every_stage_on_a_cpu_into_at_most_eight_files(tmp_path):
    out = tmp_path / "out"
    knobs = {"DRAUGHTS_LANES": "3", "DRAUGHTS_UNROLL": "2", "DRAUGHTS_BARRIERS": "off",
             "PROFILE": "1"}  # fmt: skip
    os.environ.update(knobs)
    try:
        result = _suite(str(out), "--smoke", timeout=600)
    finally:
        for name in knobs:
            del os.environ[name]
    assert result.returncode == 0, result.stderr
    summary = json.loads((out / "suite.json").read_text())
    assert {name: s["result"] for name, s in summary["stages"].items()} == {
        "tts": "ok", "ab": "ok", "env": "ok",
    }  # fmt: skip
    files = sorted(p.name for p in out.iterdir())
    assert files == [
        "device_speed.json", "network.tar", "run.tar.gz", "suite.json", "suite.log",
        "time_to_strength.json", "training_ab.json",
    ]  # fmt: skip
    assert summary["left_out"] == {}
    (entry,) = json.loads((out / "time_to_strength.json").read_text())["runs"].values()
    assert entry["points"] and entry["points"][-1]["env_steps"] > 0
    variants = json.loads((out / "training_ab.json").read_text())["variants"]
    assert [v["variant"] for v in variants] == ["quick", "quick@bfloat16"]
    speed = json.loads((out / "device_speed.json").read_text())
    timed = [r["name"] for r in speed["throughput"]]
    assert timed[-5:] == [
        "jaxcheckers draughts", "jaxcheckers draughts, 2 rounds a check",
        "jaxcheckers draughts, 3 lanes", "jaxcheckers draughts, 3 lanes, 2 rounds a check",
        "jaxcheckers draughts, no barriers",
    ]  # fmt: skip
    assert len(speed["profile"]) == len(timed)  # each rollout's busiest events

    # A second call goes on with the run the first one left, and adds the AlphaZero trainer's
    # stage. With parts of 6,000 bytes its network (a 10 kB tar) comes back in two parts, and
    # its run, in too many, is left out.
    again = tmp_path / "again"
    os.environ.update(PART_BYTES="6000", STAGES="tts az")
    try:
        result = _suite(str(again), "--smoke", "--resume", str(out / "run.tar.gz"), timeout=600)
    finally:
        del os.environ["PART_BYTES"], os.environ["STAGES"]
    assert result.returncode == 0, result.stderr
    names = {p.name for p in again.iterdir()}
    assert {"network.tar.part0", "network.tar.part1"} <= names and len(names) <= 8
    assert "run.tar.gz" not in names and not any(n.startswith("run.tar.gz.") for n in names)
    left_out = json.loads((again / "suite.json").read_text())["left_out"]
    assert list(left_out) == ["run.tar.gz"] and left_out["run.tar.gz"] > 6000 * 6
    joined = b"".join((again / f"network.tar.part{i}").read_bytes() for i in range(2))
    names = sorted(tarfile.open(fileobj=io.BytesIO(joined)).getnames())
    assert names[-2:] == ["./tictactoe.json", "./tictactoe.msgpack"]
    runs = json.loads((again / "time_to_strength.json").read_text())["runs"]
    resumed = runs[entry["label"]]
    (az,) = [run for run in runs.values() if run["algo"] == "alphazero"]
    assert az["points"][-1]["updates"] > 0
    assert resumed["points"][: len(entry["points"])] == entry["points"]
    assert resumed["points"][-1]["updates"] > entry["points"][-1]["updates"]
