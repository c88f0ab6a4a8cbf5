"""`python -m benchmarks.device_speed` refuses sizes it cannot time in one line, before timing,
and times draughts' capture search with each number of lanes asked."""

from __future__ import annotations

import gzip
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
        (["--draughts-unroll", "0"], "--draughts-unroll: must be a positive integer"),
        (["--draughts-barriers", "none"], "--draughts-barriers: invalid choice: 'none'"),
        (["--out", "{tmp}/no/such/dir.json"], "--out: cannot write"),
        (["--profile", "{tmp}/a-file"], "--profile: {tmp}/a-file is a file, not a folder"),
    ],
)
def test_bad_sizes_are_refused_in_one_line(argv, message, capsys, tmp_path):
    out = tmp_path / "device_speed.json"
    (tmp_path / "a-file").write_text("")
    argv = [a.format(tmp=tmp_path) for a in argv]
    message = message.format(tmp=tmp_path)
    with pytest.raises(SystemExit) as stopped:
        device_speed.main(["--out", str(out), *argv])
    err = capsys.readouterr().err.strip().splitlines()
    assert stopped.value.code == 2 and message in err[-1] and "Traceback" not in "\n".join(err)
    assert not out.exists()


@pytest.mark.slow  # two compiles of draughts' rollout; the profile and barrier tests are fast
def test_draughts_lanes_and_rounds_are_timed_each_and_play_the_same_games(tmp_path):
    """Each number of lanes of the capture search is its own row, named with its rounds a check,
    and the games do not depend on them: the same seeds play games of the same mean length (only
    the search's schedule differs). Two rows, not the four of the full cross (each compiles
    draughts' step); the slow smoke test of gpu_suite.sh times all four."""
    out = tmp_path / "device_speed.json"
    argv = ["--systems", device_speed.OURS_DRAUGHTS, "--draughts-batch-sizes", "32",
            "--draughts-lanes", "own", "3", "--draughts-unroll", "3",
            "--seconds", "0.01", "--runs", "1", "--out", str(out)]
    assert device_speed.main(argv) == 0
    rows = json.loads(out.read_text())["throughput"]
    name = device_speed.OURS_DRAUGHTS
    names = [r["name"] for r in rows]
    assert names == [f"{name}, 3 rounds a check", f"{name}, 3 lanes, 3 rounds a check"]
    lengths = {r["mean_game_length"] for r in rows}
    assert len(lengths) == 1 and None not in lengths


def test_a_profile_names_each_rollouts_busiest_events(tmp_path):
    out = tmp_path / "device_speed.json"
    argv = ["--systems", device_speed.OURS_CHECKERS, "--checkers-batch-sizes", "8",
            "--seconds", "0.01", "--runs", "1", "--profile", str(tmp_path / "trace"),
            "--out", str(out)]
    # A folder profiled before: the trace of that run is left alone, this run's is read.
    earlier = tmp_path / "trace" / "jaxcheckers-checkers-batch-8" / "plugins" / "profile" / "old"
    earlier.mkdir(parents=True)
    stale = [{"ph": "X", "name": "an earlier run's event", "dur": 10**9}]
    (earlier / "perfetto_trace.json.gz").write_bytes(gzip.compress(json.dumps(stale).encode()))
    assert device_speed.main(argv) == 0
    profile = json.loads(out.read_text())["profile"]
    (events,) = profile.values()
    assert list(profile) == [f"{device_speed.OURS_CHECKERS}, batch 8"]
    assert "an earlier run's event" not in {e["name"] for e in events}
    assert events and all(e["ms"] >= 0 and e["count"] >= 1 for e in events)
    assert len(json.loads(out.read_text())["throughput"][0]["run_s"]) == 1  # the trace untimed
    assert not any(e["name"].startswith("$") for e in events)  # no Python frames
    assert [e["ms"] for e in events] == sorted((e["ms"] for e in events), reverse=True)


def test_the_barriers_come_out_of_every_module_draughts_reads_them_from_and_go_back():
    """`--draughts-barriers off` traces draughts with `core.computed_once` as the identity: the
    modules that imported it by name get the identity too (on this CPU such a step ran about a
    twentieth as fast: the barriers are there for XLA on the CPU), and all get theirs back."""
    import jax.numpy as jnp

    from jaxcheckers import core
    from jaxcheckers.agents import random
    from jaxcheckers.draughts import env, rules

    modules = (core, random, env, rules)
    value = (jnp.arange(3),)
    with device_speed.fusion_barriers(True):
        assert all(m.computed_once is core.computed_once for m in modules)
    own = core.computed_once
    with device_speed.fusion_barriers(False):
        assert all(m.computed_once(value, jnp.int32(0)) is value for m in modules)
    assert all(m.computed_once is own for m in modules)
