"""`jaxcheckers train --algo alphazero`: the PPO CLI's run directories, records, checkpoints and
resume rules for the search trainer, its flags refused where they do not apply, and `mcts:RUN`
playing from the run it leaves."""

from __future__ import annotations

import json

import jax
import pytest

import jaxcheckers
from jaxcheckers.agents import make_agent
from jaxcheckers.cli import main
from tests.cli_helpers import assert_one_line_error, run_cli
from tests.training.test_cli import metric_updates

TINY_RUN = [
    "train", "--algo", "alphazero", "--game", "tictactoe", "--num-envs", "8",
    "--rollout-length", "4", "--num-simulations", "4", "--hidden-sizes", "16",
    "--eval-every", "2", "--eval-games", "4", "--eval-opponents", "random",
    "--checkpoint-every", "2", "--no-progress",
]  # fmt: skip
TINY_STEPS = 8 * 4  # self-play moves of one update

BAD = {
    "ppo flag": (["--opponents", "random"], "--opponents is no setting of the alphazero"),
    "ppo preset": (["--preset", "gpu"], "'gpu'"),
    "simulations 0": (["--num-simulations", "0"], "--num-simulations"),
    "opening plies -1": (["--opening-plies", "-1"], "--opening-plies"),
    "num-envs 6": (["--num-envs", "6"], "num_minibatches"),
}


@pytest.mark.parametrize("flags, word", BAD.values(), ids=BAD.keys())
def test_a_bad_alphazero_invocation_is_one_line(flags, word, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, _, err = run_cli([*TINY_RUN, *flags], capsys)
    assert_one_line_error(status, err, word)
    assert not (tmp_path / "runs").exists()


def test_a_search_flag_is_refused_for_ppo(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, _, err = run_cli(["train", "--num-simulations", "8"], capsys)
    assert_one_line_error(status, err, "--num-simulations is no setting of the ppo")


def test_the_config_file_names_the_trainer_and_reads_back(tmp_path):
    from jaxcheckers.training.checkpoints import read_config, write_config
    from jaxcheckers.training.config import AlphaZeroConfig, TrainConfig

    for config in (AlphaZeroConfig(game="tictactoe", num_simulations=8), TrainConfig()):
        write_config(tmp_path, config)
        assert read_config(tmp_path) == config
    algo = json.loads((tmp_path / "config.json").read_text()).pop("algo")
    assert algo == "ppo"
    (tmp_path / "config.json").write_text('{"algo": "dqn"}')
    with pytest.raises(ValueError, match="unknown algo 'dqn'"):
        read_config(tmp_path)


@pytest.mark.slow
def test_an_alphazero_run_resumes_and_its_search_agent_plays(tmp_path, capsys):
    run_dir = tmp_path / "run"
    assert main([*TINY_RUN, "--total-steps", str(2 * TINY_STEPS), "--out", str(run_dir)]) == 0
    assert metric_updates(run_dir) == [1, 2]
    rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert "eval/random/win_rate" in rows[-1] and "value_loss" in rows[-1]
    assert json.loads((run_dir / "config.json").read_text())["algo"] == "alphazero"

    # The trainer comes from config.json; --algo ppo would be refused, not obeyed.
    status, _, err = run_cli(["train", "--resume", str(run_dir), "--algo", "ppo"], capsys)
    assert_one_line_error(status, err, "--algo ppo (the run has alphazero)")
    total = str(4 * TINY_STEPS)
    assert main(["train", "--resume", str(run_dir), "--total-steps", total, "--no-progress"]) == 0
    assert metric_updates(run_dir) == [1, 2, 3, 4]
    assert (run_dir / "checkpoints" / "4" / "checksums.json").is_file()

    env = jaxcheckers.make("tictactoe")
    agent = make_agent(f"mcts:{run_dir}:8", env)
    state = env.step(env.reset(jax.random.key(0)), 4)
    action = jax.jit(agent)(state, jax.random.key(1))
    assert bool(state.legal_action_mask[action])
