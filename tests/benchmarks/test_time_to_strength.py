"""benchmarks.time_to_strength: a tiny tic-tac-toe run scored at a mark and at its end, the
results merged by label, the run directory it leaves, and the figure drawn from the JSON."""

from __future__ import annotations

import json
import signal
import time

import pytest
from jaxcheckers.training.checkpoints import RunCheckpoints, read_config
from jaxcheckers.training.config import preset

from benchmarks import time_to_strength as tts

TINY = [
    "--game", "tictactoe", "--num-envs", "16", "--rollout-length", "8", "--hidden-sizes", "16",
    "--num-minibatches", "2", "--total-steps", str(3 * 16 * 8), "--chunk", "1",
    "--against", "random", "--eval-games", "8", "--minutes", "600", "--marks", "0.5",
]  # fmt: skip


def test_a_tiny_run_is_scored_at_its_mark_and_end_and_merged_by_label(tmp_path, capsys):
    out = tmp_path / "tts.json"
    out.write_text(json.dumps({"runs": {"other": {"device": "h200", "points": []}}}))
    run_dir = tmp_path / "run"
    at = TINY.index("--against")
    without_against = TINY[:at] + TINY[at + 2 :]  # the game's own: tic-tac-toe's random, perfect
    assert tts.main([*without_against, "--out", str(out), "--run-dir", str(run_dir)]) == 0

    runs = json.loads(out.read_text())["runs"]
    assert runs["other"] == {"device": "h200", "points": []}  # another entry is kept
    label = "ppo:quick num_envs=16 rollout_length=8 total_steps=384 num_minibatches=2 " + (
        "game=tictactoe hidden_sizes=16"
    )
    entry = runs[label]
    assert entry["device"] == "cpu" and entry["preset"] == "quick" and entry["algo"] == "ppo"
    assert entry["command"].startswith("python -m benchmarks.time_to_strength --game tictactoe")
    assert entry["config"]["game"] == "tictactoe" and entry["eval"]["games"] == 8
    assert entry["eval"]["against"] == ["random", "perfect"]
    assert entry["eval"]["device"] == "cpu"  # the default, whatever trains
    points = entry["points"]
    # The process started before the first chunk ended, so the 0.5 s mark is passed after
    # update 1; the end of the run (update 3) is scored too.
    assert [p["updates"] for p in points] == [1, 3]
    assert [p["env_steps"] for p in points] == [128, 384]
    assert points[0]["wall_s"] <= points[1]["wall_s"]
    for p in points:
        assert set(p["scores"]) == {"random", "perfect"}
        assert 0 <= p["scores"]["perfect"] <= 0.5  # nothing beats the perfect player
        assert 0 <= p["scores"]["random"] <= 1
        result = p["results"]["random"]
        assert result["wins"] + result["draws"] + result["losses"] == 8
        assert p["scores"]["random"] == pytest.approx((result["wins"] + result["draws"] / 2) / 8)
    # Where the clock went until the first chunk ended: the trainer's two programs made.
    startup = entry["startup"]
    assert startup["updates"] == 1 and 0 < startup["first_chunk_s"] <= points[0]["wall_s"]
    assert {"init", "run_updates"} <= set(startup["programs"])
    made = startup["programs"]["run_updates"]
    assert set(made) == {"trace_s", "lower_s", "compile_s"} and made["compile_s"] > 0
    # Evaluations are off the training clock: wall_s + eval_s is the plain wall-clock.
    assert points[1]["eval_s"] >= points[0]["eval_s"] > 0
    last = points[1]
    assert last["wall_s"] + points[0]["eval_s"] <= last["elapsed_s"] + 0.05

    # The run directory resumes: its config and a verified checkpoint of update 3.
    assert read_config(run_dir).total_steps == 384
    checkpoints = RunCheckpoints(run_dir)
    try:
        assert checkpoints.latest_step() == 3
    finally:
        checkpoints.close()
    assert len((run_dir / "metrics.jsonl").read_text().splitlines()) == 3

    png = tts.plot([out], tmp_path / "tts.png")
    assert png.stat().st_size > 1000


def test_merging_replaces_only_the_same_label_and_refuses_a_foreign_file(tmp_path):
    path = tmp_path / "results.json"
    tts.merge(path, "ppo:gpu", {"points": [1]})
    tts.merge(path, "ppo:quick", {"points": [2]})
    tts.merge(path, "ppo:gpu", {"points": [3]})
    assert json.loads(path.read_text())["runs"] == {
        "ppo:gpu": {"points": [3]},
        "ppo:quick": {"points": [2]},
    }
    path.write_text("[1, 2]")
    with pytest.raises(ValueError, match="not a time_to_strength file"):
        tts.merge(path, "ppo:gpu", {})
    path.write_text("{")
    with pytest.raises(ValueError, match="not valid JSON"):
        tts.merge(path, "ppo:gpu", {})


def test_a_bad_option_is_refused_before_training(capsys):
    with pytest.raises(SystemExit):
        tts.main(["--algo", "alphazero", "--gamma", "0.9"])
    assert "--gamma is no setting of the alphazero trainer" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        tts.main(["--opponents", "snapshot,,random"])
    assert "expected agent specs separated by commas" in capsys.readouterr().err


def test_a_published_entry_a_bad_out_or_an_earlier_run_dir_is_refused_before_training(
    tmp_path, capsys, monkeypatch
):
    label = "ppo:quick num_envs=16 rollout_length=8 total_steps=384 num_minibatches=2 " + (
        "game=tictactoe hidden_sizes=16"
    )
    out = tmp_path / "tts.json"
    published = json.dumps({"runs": {label: {"points": [1]}}})
    out.write_text(published)
    monkeypatch.setattr(tts, "run", lambda *args, **kwargs: pytest.fail("it trained"))
    earlier_run = tmp_path / "earlier"
    earlier_run.mkdir()
    (earlier_run / "config.json").write_text("{}")
    for extra, message in [
        ([], f"already holds the entry {label!r}: --replace replaces it"),
        (["--label", "x", "--out", str(tmp_path / "no" / "such" / "dir.json")], "cannot write"),
        (["--label", "x", "--run-dir", str(earlier_run)], "is not an empty directory"),
    ]:
        with pytest.raises(SystemExit):
            tts.main([*TINY, "--out", str(out), *extra])
        assert message in capsys.readouterr().err
    assert out.read_text() == published


def test_a_first_ctrl_c_stops_after_the_chunk_and_saves_a_second_quits(
    tmp_path, capsys, monkeypatch
):
    out = tmp_path / "tts.json"

    def run(config, *, stop, on_point, **kwargs):
        assert not stop()
        signal.raise_signal(signal.SIGINT)  # as Ctrl-C: the run goes on to its chunk's end
        assert stop()
        on_point([{"updates": 1}])
        return {"points": [{"updates": 1}]}

    monkeypatch.setattr(tts, "run", run)
    assert tts.main([*TINY, "--out", str(out)]) == 0
    assert "stopping after the chunk in flight, saved" in capsys.readouterr().err
    (entry,) = json.loads(out.read_text())["runs"].values()
    assert entry["points"] == [{"updates": 1}]

    def run_twice_stopped(config, *, stop, on_point, **kwargs):
        on_point([{"updates": 1}])
        signal.raise_signal(signal.SIGINT)
        signal.raise_signal(signal.SIGINT)  # the second quits at once
        pytest.fail("a second Ctrl-C did not stop the run")

    monkeypatch.setattr(tts, "run", run_twice_stopped)
    assert tts.main([*TINY, "--out", str(out), "--label", "twice"]) == 130
    assert "interrupted" in capsys.readouterr().err
    assert json.loads(out.read_text())["runs"]["twice"]["points"] == [{"updates": 1}]


@pytest.mark.slow
def test_a_stopped_run_resumes_with_its_clock_and_points(tmp_path):
    config = preset(
        "quick", game="tictactoe", num_envs=16, rollout_length=8, hidden_sizes=(16,),
        num_minibatches=2, total_steps=5 * 16 * 8,
    )  # fmt: skip
    calls = []

    def stop_after_two_chunks() -> bool:  # asked before each chunk and once after the loop
        calls.append(1)
        return len(calls) > 2

    started = time.time()
    first = tts.run(
        config, minutes=600, marks=[0.01], against=["random"], eval_games=8, opening_plies=2,
        chunk=1, started=started, run_dir=tmp_path / "run", stop=stop_after_two_chunks,
        about={"label": "tiny", "preset": "quick"},
    )  # fmt: skip
    assert [p["updates"] for p in first["points"]] == [1]  # the mark; no last point when stopped
    assert first["startup"]["updates"] == 1
    out = tmp_path / "tts.json"
    # A mark far off: this test's process started long before the run (its clock goes on from
    # the last point plus the process's age).
    argv = ["--resume", str(tmp_path / "run"), "--minutes", "600", "--marks", "1e6"]
    argv += ["--against", "random", "--eval-games", "8", "--chunk", "1", "--out", str(out)]
    assert tts.main(argv) == 0
    (entry,) = json.loads(out.read_text())["runs"].values()
    assert entry["label"] == "tiny" and entry["preset"] == "quick"
    assert entry["startup"] == first["startup"]  # the first call's, not the resumed one's
    points = entry["points"]
    assert [p["updates"] for p in points] == [1, 5]  # on from update 2 to the run's end
    assert points[1]["wall_s"] > points[0]["wall_s"]
    assert len((tmp_path / "run" / "metrics.jsonl").read_text().splitlines()) == 5
