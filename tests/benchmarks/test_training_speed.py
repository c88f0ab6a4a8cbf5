"""benchmarks.training_speed's pieces: the learner's FLOP count against a hand count, the
chips' peaks, and the A/B's variant names."""

from __future__ import annotations

import argparse
import json

import jax
import pytest
from jaxcheckers.training.config import TrainConfig
from jaxcheckers.training.ppo import make_trainer

from benchmarks import training_speed


def test_the_forward_flops_per_position_match_a_hand_count():
    config = TrainConfig(game="tictactoe", num_envs=8, num_minibatches=2, hidden_sizes=(16,))
    trainer = make_trainer(config)
    state = jax.jit(trainer.init)(jax.random.PRNGKey(0))
    # tic-tac-toe's (3, 3, 2) board flattened to 18 inputs -> 16 -> 9 logits and 1 value:
    # 2 FLOPs a multiply-add, 2 * (18*16 + 16*9 + 16*1) = 896, plus a few per bias and ReLU.
    flops = training_speed.forward_flops(trainer, state)
    assert 896 <= flops <= 896 * 1.25


def test_the_convolutions_count_in_the_forward_flops():
    """The count is taken as compiled for the CPU (a GPU's cuDNN convolutions count as 0)."""
    config = TrainConfig(num_envs=8, network="conv", conv_channels=8, conv_blocks=1)
    trainer = make_trainer(config)
    state = jax.jit(trainer.init)(jax.random.PRNGKey(0))
    height, width, planes = state.env_state.observation.shape[1:]
    # 3x3 convolutions over the board: the stem (planes -> 8) and the block's two (8 -> 8).
    convolutions = 2 * 9 * height * width * 8 * (planes + 8 + 8)
    assert training_speed.forward_flops(trainer, state) >= convolutions


def test_the_peaks_know_the_hopper_chips_and_nothing_else():
    assert training_speed.peak_flops("NVIDIA H200", "bfloat16") == 989.5e12
    assert training_speed.peak_flops("NVIDIA H100 80GB HBM3", "float32") == 494.7e12
    assert training_speed.peak_flops("NVIDIA H100 PCIe", "bfloat16") == 756e12
    assert training_speed.peak_flops("cpu", "float32") is None


def test_a_variant_is_a_preset_with_an_optional_compute_dtype():
    assert training_speed.parse_variant("gpu") == ("gpu", {})
    assert training_speed.parse_variant("gpu@bfloat16") == ("gpu", {"compute_dtype": "bfloat16"})
    for bad, word in [("gpux", "unknown preset"), ("gpu@float16", "unknown compute dtype")]:
        with pytest.raises(argparse.ArgumentTypeError, match=word):
            training_speed.parse_variant(bad)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--num-envs", "0"], "--num-envs: must be a positive integer"),
        (["--runs", "-1"], "--runs: must be a positive integer"),
        (["--out", "{tmp}/no/such/dir.json"], "--out: cannot write"),
    ],
)
def test_bad_arguments_are_refused_in_one_line_before_timing(argv, message, capsys, tmp_path):
    with pytest.raises(SystemExit) as stopped:
        training_speed.main([a.format(tmp=tmp_path) for a in argv])
    err = capsys.readouterr().err.strip().splitlines()
    assert stopped.value.code == 2 and message in err[-1] and "Traceback" not in "\n".join(err)


def test_an_ab_writes_each_variant_as_it_is_measured(tmp_path, monkeypatch):
    """A time box that runs out during the second variant keeps the first."""
    out = tmp_path / "ab.json"
    seen = []

    def fake_measure(config, runs, pieces):
        if seen:  # the second variant: the first is on disk already
            (first,) = json.loads(out.read_text())["variants"]
            assert first["variant"] == "quick" and first["speedup_over_first"] == 1.0
        seen.append(config.compute_dtype)
        return {"training_steps_per_s": 100.0 * len(seen), "seconds": {"learn": 1.0, "update": 1.0},
                "config": {}, "env_steps_per_update": 1, "learner_flops_per_s": None,
                "learner_share_of_peak": None}

    monkeypatch.setattr(training_speed, "measure", fake_measure)
    training_speed.main(["--variants", "quick", "quick@bfloat16", "--out", str(out)])
    variants = json.loads(out.read_text())["variants"]
    assert [v["speedup_over_first"] for v in variants] == [1.0, 2.0] and len(seen) == 2
