"""`jaxcheckers train` end to end on tic-tac-toe: the files a run leaves, resume, load_policy,
and the bad invocations and faults it must answer in one line (no traceback, nothing lost)."""

from __future__ import annotations

import argparse
import json
import re
import shutil
import socket
import time

import jax
import pytest

from jaxcheckers.agents.policy import load_policy
from jaxcheckers.cli import main
from tests.cli_helpers import assert_one_line_error, run_cli

TINY_RUN = [
    "train", "--game", "tictactoe", "--num-envs", "16", "--rollout-length", "8",
    "--hidden-sizes", "16", "--eval-every", "5", "--eval-games", "8",
    "--eval-opponents", "random", "--checkpoint-every", "5", "--no-progress",
]  # fmt: skip
TINY_STEPS = 16 * 8  # env steps of one update


def metric_updates(run_dir) -> list[int]:
    lines = (run_dir / "metrics.jsonl").read_text().splitlines()
    return [json.loads(line)["update"] for line in lines]


# -- bad invocations: refused before anything is written ------------------------------------------

BAD = {
    "num-envs 0": (["--num-envs", "0"], "--num-envs"),
    "num-envs 6": (["--num-envs", "6"], "num_minibatches"),
    "board-size 7": (["--game", "checkers", "--board-size", "7"], "board_size"),
    "tictactoe board-size 2": (["--board-size", "2"], "size"),
    "opponents bogus": (["--opponents", "bogus"], "bogus"),
    "opponents empty": (["--opponents", "random,"], "--opponents"),
    "eval-opponents bogus": (["--eval-opponents", "random,bogus"], "bogus"),
    "hidden-sizes 0": (["--hidden-sizes", "0"], "--hidden-sizes"),
    "eval-games -2": (["--eval-games", "-2"], "--eval-games"),
    "eval-games 0": (["--eval-games", "0"], "--eval-games"),
    "checkpoint-every -1": (["--checkpoint-every", "-1"], "--checkpoint-every"),
    "eval-every -1": (["--eval-every", "-1"], "--eval-every"),
    "num-epochs 0": (["--num-epochs", "0"], "--num-epochs"),
    "num-minibatches 3": (["--num-minibatches", "3"], "num_minibatches (3) must divide"),
    "learning-rate nan": (["--learning-rate", "nan"], "--learning-rate"),
    "learning-rate -1": (["--learning-rate", "-1"], "--learning-rate"),
    "entropy-coef -0.5": (["--entropy-coef", "-0.5"], "--entropy-coef"),
    "entropy-coef nan": (["--entropy-coef", "nan"], "--entropy-coef"),
    "opponent-fraction 2": (["--opponent-fraction", "2"], "--opponent-fraction"),
    "gamma 1.5": (["--gamma", "1.5"], "--gamma"),
    "gae-lambda -0.1": (["--gae-lambda", "-0.1"], "--gae-lambda"),
    "gamma for alphazero": (["--algo", "alphazero", "--gamma", "1"], "--gamma"),
    "huge seed": (["--seed", "9" * 20], "--seed"),
    "out in /proc": (["--out", "/proc/jaxcheckers-run"], "/proc/jaxcheckers-run"),
    "resume nothing": (["--resume", "/nonexistent/run"], "/nonexistent/run"),
    "resume empty": (["--resume", ""], "--resume needs the run directory"),
    "out empty": (["--out", " "], "--out needs a directory"),
    "option unknown": (["--option", "colour=red"], "colour"),
    "option bad value": (["--game", "draughts", "--option", "variant=klingon"], "klingon"),
    "option twice": (["--board-size", "3", "--option", "board_size=3"], "twice"),
}


@pytest.mark.parametrize("flags, word", BAD.values(), ids=BAD.keys())
def test_a_bad_train_invocation_is_one_line(flags, word, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, _, err = run_cli([*TINY_RUN, *flags], capsys)
    assert_one_line_error(status, err, word)
    assert not (tmp_path / "runs").exists()  # no run directory left behind


@pytest.mark.skipif(jax.default_backend() != "cpu", reason="the refusal is for CPU machines")
@pytest.mark.parametrize("name", ["gpu", "gpu-fast"])
def test_a_gpu_preset_on_a_cpu_is_refused_in_one_line_before_any_file(
    name, capsys, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    status, _, err = run_cli([*TINY_RUN, "--preset", name], capsys)
    assert_one_line_error(status, err, f"the {name} preset needs an accelerator", "--force-device")
    assert not (tmp_path / "runs").exists()


def test_preset_auto_picks_by_the_backend_and_gpu_presets_need_force_device_on_a_cpu():
    from jaxcheckers.training.cli import recipe_from_args

    name, config = recipe_from_args(_args(["--preset", "auto"]), "cpu")
    assert name == "quick" and config.num_envs == 256 and config.network == "mlp"
    name, config = recipe_from_args(_args(["--preset", "auto"]), "gpu")
    assert name == "gpu" and config.network == "conv"
    # A few minutes' worth of the gpu preset: 61 updates at its ~53 k steps/s is about 5 min.
    assert 4 * 60 <= config.total_steps / 53_000 <= 6 * 60
    _, config = recipe_from_args(_args(["--preset", "auto", "--total-steps", "524288"]), "gpu")
    assert config.num_updates == 2  # the command line's own steps win
    name, config = recipe_from_args(_args(["--preset", "gpu", "--force-device"]), "cpu")
    assert name == "gpu" and config.num_envs == 4096
    with pytest.raises(ValueError, match="needs an accelerator"):
        recipe_from_args(_args(["--preset", "gpu-fast"]), "cpu")
    assert recipe_from_args(_args(["--algo", "alphazero", "--preset", "auto"]), "gpu")[0] == "quick"


def test_the_plan_line_names_the_device_the_recipe_and_the_time_where_measured():
    from jaxcheckers.training.cli import plan_line
    from jaxcheckers.training.config import preset

    # 2,498,560 steps (305 updates of 8,192) at the 13,950 to 41,000 steps/s measured on
    # this CPU's slow and fast days: 179 s to 61 s.
    line = plan_line(preset("quick"), "quick", "cpu", "TFRT_CPU_0")
    assert line.startswith("on TFRT_CPU_0 (cpu): ppo preset quick, 2,498,560 env steps")
    assert "about 1–3 min at the 13,950–41,000 steps/s measured" in line
    # One rate measured: 12,124,160 steps at 8,600 steps/s, 1,410 s.
    line = plan_line(preset("hour"), "hour", "cpu", "cpu:0")
    assert "12,124,160 env steps, about 23 min at the ~8,600 steps/s measured" in line
    line = plan_line(preset("gpu-fast"), "gpu-fast", "gpu", "cuda:0")
    assert "no measured rate" in line and "about" not in line
    assert "the run's own settings" in plan_line(preset("quick"), None, "cpu", "cpu:0")
    # Fewer steps (4 updates of 8,192) keep the measured rate; another batch voids it.
    line = plan_line(preset("quick", total_steps=40_000), "quick", "cpu", "cpu:0")
    assert "32,768 env steps, under a minute at the 13,950–41,000 steps/s measured" in line
    line = plan_line(preset("quick", num_envs=16), "quick", "cpu", "cpu:0")
    assert "no estimate" in line and "about" not in line


@pytest.mark.parametrize(
    ("shortest", "longest", "said"),
    [
        (61, 179, "about 1–3 min"),
        (10, 50, "under a minute"),
        (30, 170, "under a minute to about 3 min"),
        (3000, 9000, "about 50 min to about 2.5 h"),
        (1410, 1410, "about 24 min"),
        (6000, 9000, "about 1.7–2.5 h"),
    ],
)
def test_a_span_of_durations_reads_as_one_phrase(shortest, longest, said):
    from jaxcheckers.training.cli import _duration_span

    assert _duration_span(shortest, longest) == said


def test_the_start_line_names_the_game_its_options_and_the_trainer():
    from jaxcheckers.training.cli import start_line
    from jaxcheckers.training.config import preset

    line = start_line(preset("quick", game="draughts"), 1, "runs/x")
    assert line.startswith("training draughts with ppo on 1 device(s): ")  # one space, no options
    line = start_line(preset("quick", env_options={"board_size": 6}), 2, "runs/x")
    assert line.startswith("training checkers {'board_size': 6} with ppo on 2 device(s): ")


def test_options_and_the_board_size_become_the_runs_env_options():
    from jaxcheckers.training.cli import config_from_args

    config = config_from_args(_args(["--game", "draughts", "--option", "variant=russian"]))
    assert config.game == "draughts" and config.env_options == {"variant": "russian"}
    config = config_from_args(_args(["--board-size", "6", "--option", "max_steps=300"]))
    assert config.game == "checkers" and config.env_options == {"max_steps": 300, "board_size": 6}


def test_out_refuses_an_earlier_runs_directory(capsys, tmp_path):
    earlier = tmp_path / "run"
    earlier.mkdir()
    (earlier / "config.json").write_text("{}")
    status, _, err = run_cli([*TINY_RUN, "--out", str(earlier)], capsys)
    assert_one_line_error(status, err, "not an empty directory", "--resume")
    assert (earlier / "config.json").read_text() == "{}"


def test_runs_started_in_the_same_second_get_their_own_directories(tmp_path, monkeypatch):
    from jaxcheckers.training.checkpoints import new_run_dir

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(time, "strftime", lambda _: "20260101-120000")
    first, second = new_run_dir(None), new_run_dir(None)
    assert first != second and first.is_dir() and second.is_dir()
    assert second.name == "20260101-120000-2"
    empty = tmp_path / "empty"
    empty.mkdir()
    assert new_run_dir(str(empty)) == empty  # an empty directory is fine


def _config_dir(tmp_path, **changes):
    from jaxcheckers.training.checkpoints import write_config
    from jaxcheckers.training.config import TrainConfig

    run_dir = tmp_path / "run"
    config = TrainConfig(
        game="tictactoe", num_envs=16, rollout_length=8, total_steps=5 * TINY_STEPS,
        num_minibatches=2, hidden_sizes=(16,), eval_opponents=("random",), eval_games=8,
    ).replace(**changes)  # fmt: skip
    write_config(run_dir, config)
    return run_dir, config


def test_resume_of_a_run_without_a_checkpoint_is_one_line(capsys, tmp_path):
    run_dir, _ = _config_dir(tmp_path)  # killed before its first checkpoint
    status, _, err = run_cli(["train", "--resume", str(run_dir)], capsys)
    assert_one_line_error(status, err, "no checkpoint to resume from")


@pytest.mark.parametrize(
    "text, word",
    [
        ('{"num_envs": 16, "learning_rat": 0.1}', "learning_rat"),
        ("{not json", "not valid JSON"),
        ('{"num_envs": "16"}', "num_envs"),
        ('{"learning_rate": NaN}', "learning_rate"),
    ],
)
def test_resume_refuses_a_bad_config_file_in_one_line(text, word, capsys, tmp_path):
    run_dir, _ = _config_dir(tmp_path)
    (run_dir / "config.json").write_text(text)
    status, _, err = run_cli(["train", "--resume", str(run_dir)], capsys)
    assert_one_line_error(status, err, "config.json", word)


def test_config_from_json_refuses_unknown_keys_and_wrong_types():
    from jaxcheckers.training.config import TrainConfig, config_from_json, config_to_json

    text = config_to_json(TrainConfig())
    assert config_from_json(text) == TrainConfig()
    with pytest.raises(ValueError, match="unknown setting.*'hiden_sizes'"):
        config_from_json(text[:-1] + ', "hiden_sizes": [8]}')
    with pytest.raises(ValueError, match="eval_games"):
        config_from_json('{"eval_games": 1.5}')
    with pytest.raises(ValueError, match="JSON object"):
        config_from_json("[]")


def _args(argv: list[str]) -> argparse.Namespace:
    from jaxcheckers.training.cli import add_arguments

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(argv)


def test_the_update_flags_set_the_presets_fields():
    from jaxcheckers.training.cli import config_from_args

    flags = ["--preset", "hour", "--num-epochs", "2", "--num-minibatches", "8"]
    more = ["--entropy-coef", "0.005", "--gamma", "1", "--gae-lambda", "0.9"]
    config = config_from_args(_args([*flags, *more]))
    assert (config.num_epochs, config.num_minibatches) == (2, 8)
    assert config.entropy_coef == 0.005
    assert (config.gamma, config.gae_lambda) == (1.0, 0.9)
    assert config.hidden_sizes == (512, 512)  # the rest is the preset's


def test_the_progress_line_shows_each_evaluations_score_not_its_win_rate():
    from jaxcheckers.training.loop import _summary

    last = {"loss": 0.5, "entropy": 1.25, "game_length": 9.0}
    latest_eval = {
        "eval/random/score": 0.75, "eval/random/win_rate": 0.5, "eval/ppo:runs/a/score": 0.25,
    }  # fmt: skip
    assert _summary(last, latest_eval) == {
        "loss": "0.500", "ent": "1.25", "len": "9", "score/random": "0.75",
        "score/ppo:runs/a": "0.25",
    }  # fmt: skip
    none_ended = {"loss": 0.5, "entropy": 1.25, "game_length": 0.0, "games": 0}
    assert _summary(none_ended, {})["len"] == "-"  # it printed len=0


def test_resume_applies_the_flags_it_may_and_refuses_the_others(tmp_path):
    from jaxcheckers.training.cli import resumed_config

    _, stored = _config_dir(tmp_path)
    config, lines = resumed_config(
        stored, _args(["--resume", "r", "--total-steps", "1280", "--eval-every", "2"])
    )
    assert config.total_steps == 1280 and config.eval_every == 2
    assert lines == ["total_steps: 640 -> 1280", "eval_every: 25 -> 2"]
    # The run's own values given again change nothing and are fine.
    same, lines = resumed_config(stored, _args(["--resume", "r", "--num-envs", "16"]))
    assert same == stored and lines == []
    for flags, word in [
        (["--num-envs", "32"], "--num-envs 32 (the run has 16)"),
        (["--learning-rate", "0.1"], "--learning-rate"),
        (["--hidden-sizes", "8,8"], "--hidden-sizes 8,8"),
        (["--game", "checkers"], "--game"),
        (["--board-size", "4"], "--board-size 4 (the run has 3)"),
        (["--option", "k=2"], "the env options {'k': 2} (the run has {})"),
        (["--preset", "gpu"], "--preset"),
        (["--out", "elsewhere"], "--out"),
    ]:
        with pytest.raises(ValueError, match=word.replace("(", r"\(").replace(")", r"\)")):
            resumed_config(stored, _args(["--resume", "r", *flags]))


def test_metrics_past_the_checkpoint_are_dropped_on_resume(tmp_path):
    from jaxcheckers.training.records import MetricsLog

    (tmp_path / "metrics.jsonl").write_text(
        "".join(json.dumps({"update": u, "loss": 0.5}) + "\n" for u in range(1, 8))
        + '{"update": 8, "lo'  # a line cut short by a kill
    )
    log = MetricsLog(tmp_path, keep_through=5)
    assert log.dropped == 3 and log.last_update == 5
    log.write({"update": 6, "loss": 0.25})
    log.close()
    assert metric_updates(tmp_path) == [1, 2, 3, 4, 5, 6]


# -- whole runs ------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_run_writes_its_records_and_resumes_where_it_stopped(tmp_path):
    run_dir = tmp_path / "run"
    assert main([*TINY_RUN, "--total-steps", str(5 * TINY_STEPS), "--out", str(run_dir)]) == 0
    assert metric_updates(run_dir) == [1, 2, 3, 4, 5]
    rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert "eval/random/win_rate" in rows[-1]
    assert (run_dir / "learning_curves.png").stat().st_size > 1000
    assert (run_dir / "checkpoints" / "5" / "checksums.json").is_file()

    # Ask for more updates from the command line: updates 6..10 follow on.
    total = str(10 * TINY_STEPS)
    assert main(["train", "--resume", str(run_dir), "--total-steps", total, "--no-progress"]) == 0
    assert metric_updates(run_dir) == list(range(1, 11))
    assert json.loads((run_dir / "config.json").read_text())["total_steps"] == 10 * TINY_STEPS

    agent, env_options = load_policy(str(run_dir))
    assert env_options["name"] == "tictactoe"
    from jaxcheckers.tictactoe import TicTacToe

    env = TicTacToe()
    state = env.reset(jax.random.PRNGKey(0))
    action = agent(state, jax.random.PRNGKey(1))
    assert bool(state.legal_action_mask[action])


def _trainer_with(monkeypatch, on_chunk):
    """PPO's make_trainer, as `train` finds it (`trainer.TRAINERS`), with run_updates going
    through `on_chunk(call, run_updates, state, n)`."""
    from jaxcheckers.training import trainer as trainers

    real = trainers.TRAINERS["ppo"]
    calls = []

    def make_trainer(*args, **kwargs):
        trainer = real(*args, **kwargs)

        def run_updates(state, n):
            calls.append(n)
            return on_chunk(len(calls), trainer.run_updates, state, n)

        return trainer._replace(run_updates=run_updates)

    # The registry holds the function itself: patching `ppo.make_trainer` changed nothing.
    monkeypatch.setitem(trainers.TRAINERS, "ppo", make_trainer)


@pytest.mark.slow  # three runs; --init-params from a run is tested fast in test_ppo
def test_a_run_started_from_another_resumes_after_that_one_is_gone(tmp_path):
    """--init-params starts a run from another run's network; once the run has checkpoints of
    its own, resuming it needs only them, not the run it started from."""
    source, run_dir = tmp_path / "source", tmp_path / "run"
    assert main([*TINY_RUN, "--total-steps", str(TINY_STEPS), "--out", str(source)]) == 0
    started = [*TINY_RUN, "--init-params", str(source), "--total-steps", str(TINY_STEPS)]
    assert main([*started, "--out", str(run_dir)]) == 0
    assert json.loads((run_dir / "config.json").read_text())["init_params"] == str(source)
    shutil.rmtree(source)
    more = str(2 * TINY_STEPS)
    assert main(["train", "--resume", str(run_dir), "--total-steps", more, "--no-progress"]) == 0
    assert metric_updates(run_dir) == [1, 2]


@pytest.mark.slow
def test_ctrl_c_saves_the_run_and_resume_does_not_repeat_rows(tmp_path, capsys, monkeypatch):
    def interrupt_second(call, run_updates, state, n):
        if call == 2:
            raise KeyboardInterrupt
        return run_updates(state, n)

    _trainer_with(monkeypatch, interrupt_second)
    run_dir = tmp_path / "run"
    flags = [
        "--total-steps",
        str(10 * TINY_STEPS),
        "--checkpoint-every",
        "0",
        "--out",
        str(run_dir),
    ]
    status, _, err = run_cli([*TINY_RUN, *flags], capsys)
    assert status == 130 and "Traceback" not in err
    assert "interrupted at update 5, saved" in err and f"--resume {run_dir}" in err
    assert (run_dir / "checkpoints" / "5" / "checksums.json").is_file()
    monkeypatch.undo()

    # As if a kill had come after two more updates were logged but before their checkpoint.
    with (run_dir / "metrics.jsonl").open("a") as metrics:
        for update in (6, 7):
            metrics.write(json.dumps({"update": update, "loss": 0.0}) + "\n")
    status, out, err = run_cli(["train", "--resume", str(run_dir), "--no-progress"], capsys)
    assert status == 0, err
    assert "resumed" in out and "dropped 2 rows" in out
    assert metric_updates(run_dir) == list(range(1, 11))


@pytest.mark.slow
def test_a_diverged_run_stops_saves_nothing_and_reports_no_score(tmp_path, capsys, monkeypatch):
    import jax.numpy as jnp

    def poison_second(call, run_updates, state, n):
        state, metrics = run_updates(state, n)
        if call == 2:
            nan = jax.tree.map(lambda x: x * jnp.nan, state.params)
            state, metrics = (
                state._replace(params=nan),
                {**metrics, "loss": metrics["loss"] * jnp.nan},
            )
        return state, metrics

    _trainer_with(monkeypatch, poison_second)
    run_dir = tmp_path / "run"
    status, out, err = run_cli(
        [*TINY_RUN, "--total-steps", str(10 * TINY_STEPS), "--out", str(run_dir)], capsys
    )
    assert_one_line_error(status, err, "training diverged", "update 6", "update 5")
    assert sorted(p.name for p in (run_dir / "checkpoints").iterdir()) == ["5"]
    assert "win_rate =" not in out  # no score from NaN parameters
    assert metric_updates(run_dir) == list(range(1, 11))  # the rows that show it are kept


@pytest.mark.slow
@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGKILL"])
def test_a_stopped_run_resumes_to_where_an_uninterrupted_run_ends(signal_name, tmp_path, capsys):
    """Ctrl-C (SIGINT) saves and says so; a kill (SIGKILL) leaves the last checkpoint and rows
    logged past it. Either way the resumed run lists each update once and ends with parameters
    bit for bit those of a run never stopped (compared by their checksums)."""
    import signal
    import subprocess
    import sys

    flags = [*TINY_RUN, "--total-steps", str(40 * TINY_STEPS), "--eval-every", "0"]
    flags += ["--checkpoint-every", "0" if signal_name == "SIGINT" else "10"]
    straight, stopped = tmp_path / "straight", tmp_path / "stopped"
    assert main([*flags, "--out", str(straight)]) == 0

    command = [sys.executable, "-m", "jaxcheckers.cli", *flags, "--out", str(stopped)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for line in process.stdout:
        if line.startswith("update 5/" if signal_name == "SIGINT" else "update 15/"):
            process.send_signal(getattr(signal, signal_name))
            break
    _, err = process.communicate(timeout=600)
    if signal_name == "SIGINT":
        assert process.returncode == 130, err
        assert "Traceback" not in err and "interrupted at update" in err
    else:
        assert process.returncode == -signal.SIGKILL
        assert 15 in metric_updates(stopped)  # logged after checkpoint 10: to be dropped
    capsys.readouterr()
    assert main(["train", "--resume", str(stopped), "--no-progress"]) == 0
    assert metric_updates(stopped) == list(range(1, 41))

    def final_digest(run_dir):
        return json.loads((run_dir / "checkpoints" / "40" / "checksums.json").read_text())

    assert final_digest(stopped) == final_digest(straight)


SLOW_WRITES = """
import sys, time
from jaxcheckers.cli import main
from jaxcheckers.training import checkpoints

write = checkpoints.write_checksums


def slowly(*args, **kwargs):  # a save long enough to be interrupted in its middle
    print("writing", flush=True)
    time.sleep(1.5)
    return write(*args, **kwargs)


checkpoints.write_checksums = slowly
sys.exit(main(sys.argv[1:]))
"""


def test_ctrl_c_during_a_checkpoint_write_lets_it_finish_then_stops(tmp_path, capsys):
    """A real SIGINT in the middle of a save (after orbax's write, before the checksums): the
    save ends whole, then the run stops as Ctrl-C stops it. (Raised inside the save, it left a
    checkpoint without its checksums, or hung in orbax's threads with a *-tmp folder left.)"""
    import signal
    import subprocess
    import sys

    flags = [*TINY_RUN, "--total-steps", str(1000 * TINY_STEPS), "--eval-every", "0"]
    run_dir = tmp_path / "run"
    command = [sys.executable, "-c", SLOW_WRITES, *flags, "--checkpoint-every", "1"]
    command += ["--out", str(run_dir)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for line in process.stdout:
        if line.startswith("writing"):  # the first checkpoint is being saved
            time.sleep(0.5)
            process.send_signal(signal.SIGINT)
            break
    try:
        _, err = process.communicate(timeout=120)
    finally:
        process.kill()
    assert process.returncode == 130, err
    saved = re.search(r"interrupted at update (\d+), saved", err)
    assert saved and "Traceback" not in err, err
    checkpoints = run_dir / "checkpoints"
    assert not [p.name for p in checkpoints.iterdir() if "tmp" in p.name]
    assert [p.name for p in checkpoints.iterdir() if p.name.isdigit()] == [saved[1]]
    assert (checkpoints / saved[1] / "checksums.json").is_file()
    capsys.readouterr()
    more = str((int(saved[1]) + 1) * TINY_STEPS)
    status, out, err = run_cli(["train", "--resume", str(run_dir), "--total-steps", more], capsys)
    assert status == 0 and "resumed" in out, err

    # Fewer updates than done: refused, config.json left as it was (it printed "6 of 1 updates").
    config = (run_dir / "config.json").read_text()
    status, _, err = run_cli(["train", "--resume", str(run_dir), "--total-steps", "128"], capsys)
    assert_one_line_error(status, err, "--total-steps 128 makes 1 updates, fewer than the")
    assert (run_dir / "config.json").read_text() == config
    # config.json edited (another network size, as another game would be): named as such, not
    # as a damaged checkpoint with orbax's dump.
    edited = json.loads(config) | {"hidden_sizes": [8]}
    (run_dir / "config.json").write_text(json.dumps(edited))
    status, _, err = run_cli(["train", "--resume", str(run_dir)], capsys)
    assert_one_line_error(status, err, "does not fit the run's config.json", "edited")
    assert "damaged" not in err and not list(checkpoints.glob("damaged*"))


def test_sigterm_saves_the_run_and_a_run_directory_is_locked_while_it_trains(tmp_path, capsys):
    """A cluster's SIGTERM (before preemption) stops the run as Ctrl-C does: saved first. While
    it trains, a second process is refused the directory; a lock left by a killed process is
    recognised as stale."""
    import signal
    import subprocess
    import sys

    flags = [*TINY_RUN, "--total-steps", str(100_000 * TINY_STEPS), "--eval-every", "0"]
    flags += ["--checkpoint-every", "0"]
    run_dir = tmp_path / "run"
    command = [sys.executable, "-m", "jaxcheckers.cli", *flags, "--out", str(run_dir)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for line in process.stdout:
        if line.startswith("update 5/"):
            second = run_cli(["train", "--resume", str(run_dir), "--no-progress"], capsys)
            process.send_signal(signal.SIGTERM)
            break
    _, err = process.communicate(timeout=300)
    assert_one_line_error(second[0], second[2], "is in use: process", str(process.pid))
    assert process.returncode == 143, err
    assert "Traceback" not in err and "interrupted at update" in err
    assert f"jaxcheckers train --resume {run_dir}" in err
    saved = [int(p.name) for p in (run_dir / "checkpoints").iterdir() if p.name.isdigit()]
    assert saved and min(saved) >= 5
    assert not (run_dir / "train.lock").exists()  # released

    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    (run_dir / "train.lock").write_text(f"{socket.gethostname()} {gone.stdout.strip()}\n")
    done_steps = max(saved) * TINY_STEPS
    status, out, err = run_cli(
        ["train", "--resume", str(run_dir), "--total-steps", str(done_steps)], capsys
    )
    assert status == 0, err
    assert "replaced the stale lock of process" in err and "the run is complete" in out


# The run made to wait where it draws its curves, after its last update line, until the test
# has sent its signal: the last second of a short run, every time.
AT_THE_CURVES = """
import os, sys, time
from pathlib import Path
from jaxcheckers.cli import main
from jaxcheckers.training import loop

draw = loop.plot_learning_curves


def when_signalled(*args, **kwargs):
    Path(os.environ["AT_THE_CURVES"]).touch()
    while not Path(os.environ["SIGNAL_SENT"]).exists():
        time.sleep(0.01)
    return draw(*args, **kwargs)


loop.plot_learning_curves = when_signalled
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.slow
@pytest.mark.parametrize("signal_name, status", [("SIGTERM", 143), ("SIGINT", 130)])
def test_a_signal_in_the_last_second_of_a_run_draws_its_curves_and_lets_it_go(
    signal_name, status, tmp_path, capsys
):
    """A real SIGTERM (SIGINT) after the last update line: the run, already saved, is finished
    (its curves drawn, its lock released) and exits 143 (130) saying so. It was killed there
    (-15), the lock left and no curves, which a later --resume never drew."""
    import os
    import signal
    import subprocess
    import sys

    run_dir, ready, sent = tmp_path / "run", tmp_path / "ready", tmp_path / "sent"
    flags = [*TINY_RUN, "--total-steps", str(2 * TINY_STEPS), "--eval-every", "0"]
    command = [sys.executable, "-c", AT_THE_CURVES, *flags, "--out", str(run_dir)]
    environment = os.environ | {"AT_THE_CURVES": str(ready), "SIGNAL_SENT": str(sent)}
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, env=environment)
    try:
        while not ready.exists() and process.poll() is None:
            time.sleep(0.01)
        process.send_signal(getattr(signal, signal_name))
        sent.touch()
        _, err = process.communicate(timeout=120)
    finally:
        process.kill()
    assert process.returncode == status, err
    assert "Traceback" not in err and "the run is complete" in err, err
    assert (run_dir / "learning_curves.png").is_file()
    assert not (run_dir / "train.lock").exists()

    # A complete run whose curves are missing (a run killed there before this fix): --resume
    # draws them.
    (run_dir / "learning_curves.png").unlink()
    status, out, err = run_cli(["train", "--resume", str(run_dir), "--no-progress"], capsys)
    assert status == 0 and "the run is complete" in out, err
    assert (run_dir / "learning_curves.png").is_file()


@pytest.fixture
def sigterm_fails_the_test():
    """A SIGTERM that no handler of the run's catches fails the test, where SIGTERM's default
    would end the whole test process."""
    import signal

    def fail(signum, frame):
        raise RuntimeError("SIGTERM reached the test's own handler")

    previous = signal.signal(signal.SIGTERM, fail)
    yield
    signal.signal(signal.SIGTERM, previous)


@pytest.mark.usefixtures("sigterm_fails_the_test")
def test_a_sigterm_outside_the_loop_lets_the_run_directory_go(tmp_path, capsys, monkeypatch):
    """A real SIGTERM while the run directory is held but no update runs (here: as training
    would start): the lock is released and the exit is 143 with one line, where SIGTERM's
    default ended the process with the lock left."""
    import signal

    from jaxcheckers.training import cli as train_cli

    def terminated(trainer, run_dir, *rest):
        assert (run_dir / "train.lock").exists()
        signal.raise_signal(signal.SIGTERM)
        raise AssertionError("SIGTERM did not stop the run")

    monkeypatch.setattr(train_cli, "_train", terminated)
    before = signal.getsignal(signal.SIGTERM)
    run_dir = tmp_path / "run"
    status, _, err = run_cli([*TINY_RUN, "--out", str(run_dir)], capsys)
    assert status == 143 and "terminated (SIGTERM)" in err and str(run_dir) in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (run_dir / "train.lock").exists()
    assert signal.getsignal(signal.SIGTERM) is before  # handed back as it was


@pytest.mark.usefixtures("sigterm_fails_the_test")
# SIGINT is held by the same code as SIGTERM: its sample is slow.
@pytest.mark.parametrize(
    "signal_name, status",
    [("SIGTERM", 143), pytest.param("SIGINT", 130, marks=pytest.mark.slow)],
)
def test_a_signal_as_the_curves_are_drawn_is_held_until_they_are(
    signal_name, status, tmp_path, capsys, monkeypatch
):
    """The fast sample of the test above, in this process: the signal, real, raised as the
    curves start to be drawn."""
    import signal

    from jaxcheckers.training import loop

    from jaxcheckers import cli

    draw = loop.plot_learning_curves

    def signalled(run_dir):
        signal.raise_signal(getattr(signal, signal_name))
        return draw(run_dir)

    monkeypatch.setattr(loop, "plot_learning_curves", signalled)
    # A Ctrl-C that reached the CLI's handler ends the process at once: the test's, here.
    monkeypatch.setattr(cli, "_exit_at_once", lambda status: pytest.fail("Ctrl-C reached the CLI"))
    run_dir = tmp_path / "run"
    flags = [*TINY_RUN, "--total-steps", str(TINY_STEPS), "--eval-every", "0"]
    status_, _, err = run_cli([*flags, "--out", str(run_dir)], capsys)
    assert status_ == status and "Traceback" not in err
    assert f"{signal_name} received as the run ended: the run is complete (update 1)" in err
    assert (run_dir / "learning_curves.png").is_file()
    assert not (run_dir / "train.lock").exists()
    if signal_name == "SIGTERM":  # once is enough: a complete run's missing curves, drawn
        (run_dir / "learning_curves.png").unlink()
        status_, out, err = run_cli(["train", "--resume", str(run_dir)], capsys)
        assert status_ == 0 and "the run is complete" in out, err
        assert (run_dir / "learning_curves.png").is_file()
