"""`jaxcheckers train` end to end on tic-tac-toe: the files a run leaves, resume, load_policy."""

from __future__ import annotations

import json

import jax
import pytest

from jaxcheckers.agents.policy import load_policy
from jaxcheckers.cli import main

TINY_RUN = [
    "train", "--game", "tictactoe", "--num-envs", "16", "--rollout-length", "8",
    "--hidden-sizes", "16", "--eval-every", "5", "--eval-games", "8",
    "--eval-opponents", "random", "--checkpoint-every", "5", "--no-progress",
]  # fmt: skip


@pytest.mark.slow
def test_a_run_writes_its_records_and_resumes_where_it_stopped(tmp_path):
    run_dir = tmp_path / "run"
    assert main([*TINY_RUN, "--total-steps", str(16 * 8 * 5), "--out", str(run_dir)]) == 0
    rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert [row["update"] for row in rows] == [1, 2, 3, 4, 5]
    assert "eval/random/win_rate" in rows[-1]
    assert (run_dir / "learning_curves.png").stat().st_size > 1000
    assert (run_dir / "checkpoints" / "5").is_dir()

    # Ask for more updates, as a longer run would, then resume: updates 6..10 follow on.
    config = json.loads((run_dir / "config.json").read_text())
    config["total_steps"] = 16 * 8 * 10
    (run_dir / "config.json").write_text(json.dumps(config))
    assert main(["train", "--resume", str(run_dir), "--no-progress"]) == 0
    rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert [row["update"] for row in rows] == list(range(1, 11))

    agent, env_options = load_policy(str(run_dir))
    assert env_options["name"] == "tictactoe"
    from jaxcheckers.tictactoe import TicTacToe

    env = TicTacToe()
    state = env.reset(jax.random.PRNGKey(0))
    action = agent(state, jax.random.PRNGKey(1))
    assert bool(state.legal_action_mask[action])
