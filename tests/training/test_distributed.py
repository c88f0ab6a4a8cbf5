"""The PPO trainer as several JAX processes: two processes on this machine, joined by
`jax.distributed.initialize` on localhost with gloo CPU collectives, train two updates and must
end with the same parameters as each other (exactly: both apply the same all-reduced update), and
as one process laid out over two devices with the same total batch (within float tolerance)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import jax
import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]

# One process of the run: argv = process id, process count, coordinator port, output .npz.
# With a count of 1 it stays a plain single process (the reference, over forced host devices).
WORKER = textwrap.dedent(
    """
    import sys
    import numpy as np
    import jax

    process_id, num_processes, port, out = map(str, sys.argv[1:5])
    process_id, num_processes = int(process_id), int(num_processes)
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    if num_processes > 1:
        jax.distributed.initialize(
            f"127.0.0.1:{port}", num_processes, process_id, initialization_timeout=120
        )
    from jaxcheckers.training.config import TrainConfig
    from jaxcheckers.training.ppo import make_trainer

    assert jax.process_count() == num_processes, jax.process_count()
    assert jax.device_count() == 2, jax.devices()
    assert jax.local_device_count() == 2 // num_processes, jax.local_devices()

    config = TrainConfig(env_options={"board_size": 6}, num_envs=8, rollout_length=4,
                         total_steps=8 * 4 * 2, num_minibatches=2, num_epochs=1,
                         hidden_sizes=(16,))
    trainer = make_trainer(config)  # default mesh: every device of every process
    assert trainer.mesh.devices.size == 2
    start = jax.jit(trainer.init)(jax.random.PRNGKey(0))
    first = [np.asarray(x) for x in jax.tree.leaves(start.params)]
    state, metrics = trainer.run_updates(start, 2)

    # The games are split over the two devices, each process holding only its own rows.
    games = state.env_state.current_player
    assert games.shape == (8,) and len(games.sharding.device_set) == 2
    assert len(games.addressable_shards) == 2 // num_processes
    assert all(s.data.shape == (4,) for s in games.addressable_shards)
    # Parameters and metrics come back replicated: readable on every process.
    assert all(x.is_fully_replicated for x in jax.tree.leaves((state.params, metrics)))
    assert int(state.update_step) == 2

    params = {jax.tree_util.keystr(path): np.asarray(x)
              for path, x in jax.tree_util.tree_flatten_with_path(state.params)[0]}
    assert any((a != b).any() for a, b in zip(first, params.values())), "no update applied"
    np.savez(out, loss=np.asarray(metrics["loss"]), games=np.asarray(metrics["games"]),
             **params)
    print("OK", process_id, flush=True)
    """
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(tmp_path: Path, args: list[str], **env) -> subprocess.Popen:
    environment = dict(os.environ, JAX_PLATFORMS="cpu")
    environment.pop("XLA_FLAGS", None)  # one device a process unless `env` forces more
    environment.update(env)
    with open(tmp_path / f"{Path(args[-1]).stem}.log", "w") as log:
        return subprocess.Popen(
            [sys.executable, "-c", WORKER, *args],
            cwd=REPO,
            env=environment,
            stdout=log,
            stderr=subprocess.STDOUT,
        )


def _finish(
    processes: dict[str, subprocess.Popen], tmp_path: Path, timeout: float, expect: str = "OK"
) -> None:
    try:
        for process in processes.values():
            process.wait(timeout=timeout)
    finally:
        for process in processes.values():
            if process.poll() is None:
                process.kill()
                process.wait()
    for name, process in processes.items():
        log = (tmp_path / f"{name}.log").read_text()
        assert process.returncode == 0, f"{name} failed:\n{log[-3000:]}"
        assert expect in log, log[-3000:]


@pytest.mark.slow  # the fast suite keeps test_ppo's run sharded over four forced devices
def test_two_processes_train_to_the_same_parameters_as_one_process_over_two_devices(tmp_path):
    port = str(_free_port())
    processes = {
        name: _start(tmp_path, args, **env)
        for name, args, env in [
            ("p0", ["0", "2", port, str(tmp_path / "p0.npz")], {}),
            ("p1", ["1", "2", port, str(tmp_path / "p1.npz")], {}),
            (
                "ref",
                ["0", "1", "0", str(tmp_path / "ref.npz")],
                {"XLA_FLAGS": "--xla_force_host_platform_device_count=2"},
            ),
        ]
    }
    _finish(processes, tmp_path, timeout=400)

    p0, p1, ref = (np.load(tmp_path / f"{name}.npz") for name in ("p0", "p1", "ref"))
    assert sorted(p0.files) == sorted(p1.files) == sorted(ref.files)
    assert len(p0.files) > 2  # the metrics and at least one parameter
    for name in p0.files:
        # Both processes apply the same all-reduced gradients to the same replicated parameters.
        np.testing.assert_array_equal(p0[name], p1[name], err_msg=name)
        # One process over two devices: the same program, the same key, the same batch; only the
        # collectives differ (gloo across processes, in-process across devices).
        np.testing.assert_allclose(p0[name], ref[name], rtol=1e-5, atol=1e-6, err_msg=name)
    assert p0["games"].sum() == ref["games"].sum()


@pytest.mark.slow
def test_train_cli_with_two_processes_writes_one_run_that_loads_anywhere(tmp_path):
    from jaxcheckers.training.checkpoints import load_params
    from jaxcheckers.training.records import read_metrics

    run_dir = tmp_path / "run"
    port = _free_port()
    command = [
        sys.executable,
        "-m",
        "jaxcheckers.cli",
        "train",
        "--distributed",
        "--out",
        str(run_dir),
    ]
    command += ["--board-size", "6", "--num-envs", "8", "--rollout-length", "4"]
    command += ["--total-steps", "64", "--hidden-sizes", "16", "--no-progress"]
    # Evaluated at the end, each process with its copy of the replicated parameters (a
    # device_put of the global ones to the CPU failed).
    command += ["--eval-every", "2", "--eval-games", "4", "--eval-opponents", "random"]
    processes = {}
    for process_id in (0, 1):
        environment = dict(
            os.environ, JAX_PLATFORMS="cpu", JAX_COORDINATOR_ADDRESS=f"127.0.0.1:{port}"
        )
        environment.update(JAX_NUM_PROCESSES="2", JAX_PROCESS_ID=str(process_id))
        environment.pop("XLA_FLAGS", None)
        with open(tmp_path / f"cli{process_id}.log", "w") as log:
            processes[f"cli{process_id}"] = subprocess.Popen(
                command, cwd=REPO, env=environment, stdout=log, stderr=subprocess.STDOUT
            )
    _finish(processes, tmp_path, timeout=400, expect="training checkers")

    assert "on 2 device(s)" in (tmp_path / "cli0.log").read_text()
    rows = read_metrics(run_dir)
    assert [row["update"] for row in rows] == [1, 2]  # one writer
    assert 0 <= rows[-1]["eval/random/score"] <= 1
    params, _, config = load_params(run_dir)  # saved over two processes, read by one
    assert config.num_envs == 8
    assert all(np.isfinite(np.asarray(leaf)).all() for leaf in jax.tree.leaves(params))
