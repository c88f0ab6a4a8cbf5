"""Checkpoints are checked when read: a checksum saved beside each one, the newest good one used
(and named) when the latest is damaged, one line when none is good."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, NamedTuple

import jax.numpy as jnp
import numpy as np
import pytest

from jaxcheckers import checkpoints as integrity
from jaxcheckers.agents import policy

ocp = pytest.importorskip("orbax.checkpoint")


class State(NamedTuple):  # the shape RunCheckpoints needs: a NamedTuple with .params
    params: Any
    update_step: Any


def _state(value: float, step: int | None = None) -> State:
    params = {"w": jnp.full((4, 8), value, jnp.float32), "b": jnp.arange(8, dtype=jnp.float32)}
    return State(params, jnp.int32(value if step is None else step))


def _saved_run(tmp_path, steps=(1, 2)):
    from jaxcheckers.training.checkpoints import RunCheckpoints

    checkpoints = RunCheckpoints(tmp_path)
    for step in steps:
        checkpoints.save(step, _state(float(step)))
    return checkpoints


def _flip_bits(directory: Path, seed: int, count: int = 8) -> None:
    """Flips `count` random bits in the array data of a checkpoint item."""
    rng = random.Random(seed)
    files = sorted(p for p in directory.rglob("*") if p.is_file() and "/d/" in p.as_posix())
    for _ in range(count):
        path = rng.choice(files)
        data = bytearray(path.read_bytes())
        data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        path.write_bytes(bytes(data))


def test_the_digest_sees_every_bit_and_the_layout():
    tree = _state(1.0)
    same = _state(1.0)
    assert integrity.tree_digest(tree) == integrity.tree_digest(same)
    one_bit = tree.params["w"].at[3, 7].set(np.nextafter(np.float32(1), np.float32(2)))
    changed = tree._replace(params={**tree.params, "w": one_bit})
    assert integrity.tree_digest(tree) != integrity.tree_digest(changed)
    reshaped = {**tree.params, "w": tree.params["w"].reshape(8, 4)}
    assert integrity.tree_digest(tree) != integrity.tree_digest(tree._replace(params=reshaped))


def test_restore_verifies_and_falls_back_to_the_newest_good_checkpoint(tmp_path, capsys):
    checkpoints = _saved_run(tmp_path)
    assert (checkpoints.directory / "2" / integrity.CHECKSUM_FILE).is_file()
    assert int(checkpoints.restore_state(_state(0.0)).update_step) == 2
    capsys.readouterr()

    # Damage checkpoint 2's state until the damage shows (a flip can land in unused bytes).
    for seed in range(20):
        _flip_bits(checkpoints.directory / "2" / "state", seed)
        try:
            restored = checkpoints.restore_state(_state(0.0))
        except ValueError:
            continue
        if int(restored.update_step) == 1:
            break
    else:
        pytest.fail("the damage was never noticed")
    assert float(restored.params["w"][0, 0]) == 1.0
    err = capsys.readouterr().err
    assert "checkpoint 2" in err and "damaged" in err and "using checkpoint 1" in err
    assert "Traceback" not in err and "Event loop" not in err
    # The damaged one is set aside, so the resumed run saves its step again, and the next
    # resume finds nothing damaged.
    assert "checkpoint 2 set aside as damaged-2" in err
    assert (checkpoints.directory / "damaged-2").is_dir() and checkpoints.latest_step() == 1
    checkpoints.save(2, _state(3.0, step=2))
    assert int(checkpoints.restore_state(_state(0.0)).update_step) == 2
    assert "damaged" not in capsys.readouterr().err
    checkpoints.close()


def test_a_run_with_only_damaged_checkpoints_is_refused(tmp_path, capsys):
    checkpoints = _saved_run(tmp_path)
    for step in (1, 2):
        (checkpoints.directory / str(step) / "state" / "manifest.ocdbt").write_text("garbage")
    with pytest.raises(ValueError, match="no usable checkpoint"):
        checkpoints.restore_state(_state(0.0))
    checkpoints.close()


def test_non_finite_params_are_refused_even_with_a_good_checksum(tmp_path):
    from jaxcheckers.training.checkpoints import RunCheckpoints

    checkpoints = RunCheckpoints(tmp_path)
    checkpoints.save(1, _state(1.0))
    checkpoints.save(2, _state(float("nan"), step=2))
    restored = checkpoints.restore_params(_state(0.0).params)
    assert float(restored["w"][0, 0]) == 1.0
    checkpoints.close()


def test_a_checksum_mismatch_is_named(tmp_path):
    step_dir = tmp_path / "3"
    step_dir.mkdir()
    integrity.write_checksums(step_dir, params=_state(1.0).params)
    integrity.verify_checkpoint(step_dir, "params", _state(1.0).params)
    with pytest.raises(ValueError, match="do not match the checksum"):
        integrity.verify_checkpoint(step_dir, "params", _state(2.0).params)
    (step_dir / integrity.CHECKSUM_FILE).write_text("{")
    with pytest.raises(ValueError, match="checksum file is damaged"):
        integrity.verify_checkpoint(step_dir, "params", _state(1.0).params)


def _tictactoe_run(run_dir, **network_settings):
    """A tic-tac-toe run's config.json in `run_dir`; (network, fresh params, a zero observation)."""
    import jax
    from jaxcheckers.training.checkpoints import write_config
    from jaxcheckers.training.config import TrainConfig

    import jaxcheckers
    from jaxcheckers.agents.networks import make_network

    write_config(run_dir, TrainConfig(game="tictactoe", hidden_sizes=(16,), **network_settings))
    env = jaxcheckers.make("tictactoe")
    shape = tuple(env.observation_shape)
    network = make_network(env.num_actions, shape, hidden_sizes=(16,), **network_settings)
    observation = jnp.zeros((1, *shape))
    return network, network.init(jax.random.PRNGKey(0), observation), observation


def test_loading_a_policy_checks_its_params_too(tmp_path, capsys):
    """The reader side (agents.policy, what `ppo:RUN` and `play` use) verifies like resume."""
    import jax
    from jaxcheckers.training.checkpoints import RunCheckpoints

    _, params, _ = _tictactoe_run(tmp_path)
    checkpoints = RunCheckpoints(tmp_path)
    checkpoints.save(1, State(params, jnp.int32(1)))
    doubled = jax.tree.map(lambda x: 2 * x, params)
    checkpoints.save(2, State(doubled, jnp.int32(2)))
    checkpoints.close()
    loaded, _, _ = policy.load_params(tmp_path)
    assert integrity.tree_digest(loaded) == integrity.tree_digest(doubled)

    (tmp_path / "checkpoints" / "2" / "params" / "manifest.ocdbt").write_text("garbage")
    loaded, _, _ = policy.load_params(tmp_path)
    assert integrity.tree_digest(loaded) == integrity.tree_digest(params)
    assert "using checkpoint 1" in capsys.readouterr().err
    with pytest.raises(ValueError, match="no usable checkpoint"):  # asked for that one: no other
        policy.load_params(tmp_path / "checkpoints" / "2")


def test_a_split_network_run_loads_as_the_split_network(tmp_path):
    from jaxcheckers.training.checkpoints import RunCheckpoints

    network, params, observation = _tictactoe_run(tmp_path, network="mlp-split")
    checkpoints = RunCheckpoints(tmp_path)
    checkpoints.save(1, State(params, jnp.int32(1)))
    checkpoints.close()
    loaded, loaded_network, settings = policy.load_params(tmp_path)
    assert settings["network"] == "mlp-split" and loaded_network.split
    assert integrity.tree_digest(loaded) == integrity.tree_digest(params)
    np.testing.assert_array_equal(
        loaded_network.apply(loaded, observation)[1], network.apply(params, observation)[1]
    )


class StateWithLeague(NamedTuple):  # State as a later version laid it out, one field added
    params: Any
    update_step: Any
    league: Any


def test_a_checkpoint_saved_before_a_field_was_added_resumes_with_the_fresh_value(tmp_path, capsys):
    checkpoints = _saved_run(tmp_path)  # saved as State: no league
    fresh_league = jnp.full(3, 0.5, jnp.float32)
    template = StateWithLeague(_state(0.0).params, jnp.int32(0), fresh_league)
    restored = checkpoints.restore_state(template)
    assert isinstance(restored, StateWithLeague)
    assert int(restored.update_step) == 2 and float(restored.params["w"][0, 0]) == 2.0
    np.testing.assert_array_equal(restored.league, fresh_league)
    err = capsys.readouterr().err
    assert "checkpoint 2 has no league" in err and "damaged" not in err
    checkpoints.close()


def test_a_checkpoint_lacking_a_field_no_older_version_lacked_is_refused(tmp_path, capsys):
    class Later(NamedTuple):
        params: Any
        update_step: Any
        moves: Any  # not one of the fields older versions are known to lack

    checkpoints = _saved_run(tmp_path)
    with pytest.raises(ValueError, match="no usable checkpoint"):
        checkpoints.restore_state(Later(_state(0.0).params, jnp.int32(0), jnp.zeros(2)))
    assert "does not match this trainer's (fields moves)" in capsys.readouterr().err
    checkpoints.close()


def test_an_exported_network_loads_as_the_run_it_came_from(tmp_path):
    from jaxcheckers.training.checkpoints import RunCheckpoints, export_network

    from jaxcheckers.agents import pretrained

    run_dir, shipped = tmp_path / "run", tmp_path / "shipped"
    run_dir.mkdir()
    network, params, observation = _tictactoe_run(run_dir)
    checkpoints = RunCheckpoints(run_dir)
    checkpoints.save(1, State(params, jnp.int32(1)))
    checkpoints.close()
    assert export_network(run_dir, pretrained.NAME, shipped) == shipped
    files = sorted(path.name for path in shipped.iterdir())
    # Named after the run's game, with their digests recorded beside them.
    assert files == ["checksums.json", "tictactoe.json", "tictactoe.msgpack"]
    assert pretrained.games(pretrained.NAME, shipped) == ["tictactoe"]
    loaded, loaded_network, settings = pretrained.load(pretrained.NAME, shipped, game="tictactoe")
    assert settings["game"] == "tictactoe"
    np.testing.assert_array_equal(
        loaded_network.apply(loaded, observation)[0], network.apply(params, observation)[0]
    )
