"""Checkpoints with orbax: the whole TrainState (to resume exactly) and the params (to play).

A run directory holds `config.json` (the trainer's config, PPO's or AlphaZero's) and
`checkpoints/<update>/` with two items: "state" (params, optimizer state, games in progress,
PRNG key, update count, and what else the trainer's TrainState holds) and
"params" (the network parameters alone, what `load_policy` reads).
"""

from __future__ import annotations

import collections
import json
import sys
import time
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import orbax.checkpoint as ocp
from flax import serialization
from jax.experimental import multihost_utils
from jaxcheckers.training.config import config_from_json, config_to_json

from jaxcheckers import files
from jaxcheckers.agents import policy, pretrained
from jaxcheckers.checkpoints import (
    CHECKPOINT_DIR,
    CONFIG_FILE,
    find_run_dir,
    restore_newest_good,
    write_checksums,
)

__all__ = [
    "RunCheckpoints",
    "write_config",
    "read_config",
    "find_run_dir",
    "load_params",
    "initial_params",
    "run_lock",
    "new_run_dir",
    "check_out",
    "export_network",
]

# TrainState fields added after runs were already saved, each with what restoring a run saved
# before it leaves that field at (the template's fresh value) and why that resumes the same run.
ADDED_FIELDS = {
    # Runs saved before the league existed sampled their opponents in fixed groups, where the
    # league's assignment is the fresh one and its scores are reported, never used for play.
    "league": "the running scores against the opponents start again at 0.5",
}


def write_config(run_dir: str | Path, config: Any) -> None:
    path = Path(run_dir)
    path.mkdir(parents=True, exist_ok=True)
    temporary = path / (CONFIG_FILE + ".tmp")
    temporary.write_text(config_to_json(config) + "\n")
    temporary.replace(path / CONFIG_FILE)


def read_config(run_dir: str | Path) -> Any:
    """The run's config (TrainConfig or AlphaZeroConfig, as its "algo" says); ValueError saying
    what is wrong with the directory or the file."""
    path = Path(run_dir) / CONFIG_FILE
    if not Path(run_dir).is_dir():
        raise ValueError(f"no run directory {run_dir}")
    if not path.exists():
        raise ValueError(f"{run_dir} is not a training run: it has no {CONFIG_FILE}")
    try:
        return config_from_json(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise ValueError(f"{path}: {error}") from None


class RunCheckpoints:
    """Saves and restores the checkpoints of one run directory.

    Beside each checkpoint goes checksums.json, the sha256 of the state and of the params as
    saved; a restore is checked against it and, if damaged, the next older checkpoint is used.
    """

    def __init__(self, run_dir: str | Path, max_to_keep: int = 3):
        self.directory = Path(run_dir).resolve() / CHECKPOINT_DIR
        self.manager = ocp.CheckpointManager(
            self.directory,
            options=ocp.CheckpointManagerOptions(max_to_keep=max_to_keep, create=True),
            item_handlers={
                "state": ocp.StandardCheckpointHandler(),
                "params": ocp.StandardCheckpointHandler(),
            },
        )

    def save(self, step: int, train_state: Any) -> None:
        self.manager.save(
            int(step),
            args=ocp.args.Composite(
                state=ocp.args.StandardSave(train_state),
                params=ocp.args.StandardSave(train_state.params),
            ),
            force=True,
        )
        self.manager.wait_until_finished()
        # With several processes the games are spread over them: every process takes part in
        # gathering them, and the first one writes the checksums.
        state = _gathered(train_state)
        if jax.process_index() == 0:
            write_checksums(self.directory / str(int(step)), state=state, params=state.params)

    def latest_step(self) -> int | None:
        return self.manager.latest_step()

    def restore_state(self, template: Any, step: int | None = None) -> Any:
        """The TrainState saved at `step` (default: the newest good one), laid out like
        `template`. ValueError when there is none."""
        steps = self.manager.all_steps() if step is None else [step]
        if not steps:
            raise ValueError(
                f"{self.directory.parent} has no checkpoint to resume from (stopped before its "
                "first one?): start it again without --resume"
            )

        def restore(at: int):
            part = _saved_part(template, self._saved_fields(at))
            restored = self.manager.restore(
                at, args=ocp.args.Composite(state=ocp.args.StandardRestore(part))
            )
            return type(part)(*restored["state"])

        misfit = self._misfit(template, max(steps))
        if misfit:  # whole files of another shape: the config changed, not the checkpoint
            raise ValueError(
                f"checkpoint {max(steps)} does not fit the run's config.json ({misfit}): was "
                "config.json edited? Put it back, or start a new run"
            )
        step, state = restore_newest_good(self.directory, steps, restore, "state")
        self._set_aside([at for at in steps if at > step])
        missing = [name for name in template._fields if name not in state._fields]
        for name in missing:
            print(
                f"checkpoint {step} has no {name} (saved by an older version): "
                f"{ADDED_FIELDS[name]}",
                file=sys.stderr,
            )
        return template._replace(**state._asdict())

    def _set_aside(self, damaged: list[int]) -> None:
        """Renames each damaged checkpoint <step> to damaged-<step> (kept for a look, no longer a
        checkpoint), so that the run resumed from an older one can save those steps again."""
        if not damaged or jax.process_index() != 0:
            return
        for step in damaged:
            source = self.directory / str(step)
            target = self.directory / f"damaged-{step}"
            suffix = 1
            while target.exists():
                suffix += 1
                target = self.directory / f"damaged-{step}-{suffix}"
            source.rename(target)
            print(f"checkpoint {step} set aside as {target.name}", file=sys.stderr)
        self.manager.reload()

    def _misfit(self, template: Any, step: int) -> str | None:
        """The first array whose saved shape differs from `template`'s, as 'name: saved shape
        (the config makes shape)'; None when all fit or the metadata cannot be read."""
        try:
            metadata = self.manager.item_metadata(step)["state"]
            saved = dict(_shapes_by_name(getattr(metadata, "tree", metadata)))
        except Exception:  # noqa: BLE001 - unreadable metadata: the damage check reports it
            return None
        for name, shape in _shapes_by_name(template):
            if name in saved and tuple(saved[name]) != tuple(shape):
                return f"{name}: {tuple(saved[name])} saved, the config makes {tuple(shape)}"
        return None

    def _saved_fields(self, step: int) -> list[str]:
        """The names of the TrainState fields that checkpoint `step` holds."""
        metadata = self.manager.item_metadata(step)["state"]
        return list(getattr(metadata, "tree", metadata) or [])

    def restore_params(self, template: Any, step: int | None = None) -> Any:
        steps = self.manager.all_steps() if step is None else [step]
        if not steps:
            raise ValueError(f"{self.directory.parent} has no checkpoint")

        def restore(at: int):
            restored = self.manager.restore(
                at, args=ocp.args.Composite(params=ocp.args.StandardRestore(template))
            )
            return restored["params"]

        return restore_newest_good(self.directory, steps, restore, "params")[1]

    def close(self) -> None:
        self.manager.close()


def _shapes_by_name(tree: Any):
    """(name, shape) of each array of `tree`, named by its path ("params.Dense_0.kernel")."""
    for path, leaf in jax.tree_util.tree_leaves_with_path(tree):
        if hasattr(leaf, "shape"):
            names = (getattr(k, "key", getattr(k, "name", getattr(k, "idx", k))) for k in path)
            yield ".".join(map(str, names)), leaf.shape


def _saved_part(template: Any, saved: list[str]) -> Any:
    """The fields of `template` (a TrainState) that a checkpoint holding the fields `saved` has,
    in the template's order: the layout it was saved in, so its checksum applies. ValueError
    when it lacks a field that no older version lacked, or holds one this trainer doesn't know.
    """
    fields = [name for name in template._fields if name in saved]
    unknown = [n for n in template._fields if n not in saved and n not in ADDED_FIELDS]
    unknown += [n for n in saved if n not in template._fields]
    if unknown:
        raise ValueError(f"its state does not match this trainer's (fields {', '.join(unknown)})")
    if len(fields) == len(template._fields):
        return template
    layout = collections.namedtuple("SavedTrainState", fields)
    return layout(*(getattr(template, name) for name in fields))


def _gathered(tree: Any) -> Any:
    """`tree` with every array readable on this process: arrays spread over several processes
    are gathered whole (a collective: every process must call it)."""
    if all(
        getattr(leaf, "is_fully_addressable", True) or leaf.is_fully_replicated
        for leaf in jax.tree.leaves(tree)
    ):
        return tree
    return multihost_utils.process_allgather(tree, tiled=True)


def load_params(path: str | Path):
    """(params, network, config) of the checkpoint at `path` (a run dir or a checkpoint dir)."""
    params, network, _ = policy.load_params(path)
    run_dir, _ = find_run_dir(path)
    return params, network, read_config(run_dir)


def initial_params(config: Any, network: Any, env: Any) -> Any:
    """The parameters `config.init_params` names (a run directory, a checkpoint, or a network
    shipped for `config.game`) to start a run from, or None for ""; ValueError unless they are
    this run's network, trained on the same game."""
    if not config.init_params:
        return None
    params, _, settings = policy.load_params(config.init_params, game=config.game)
    dummy = jnp.zeros((1, *env.observation_shape), jnp.float32)
    shapes = jax.eval_shape(network.init, jax.random.key(0), dummy)
    same = jax.tree.structure(shapes) == jax.tree.structure(params) and all(
        a.shape == b.shape
        for a, b in zip(jax.tree.leaves(shapes), jax.tree.leaves(params), strict=True)
    )
    if settings.get("game") != env.id or not same:
        raise ValueError(
            f"init_params {config.init_params} holds another network ({settings.get('game')}, "
            f"{settings.get('network')} {settings.get('hidden_sizes')}) than this run's"
        )
    return params


# -- run directories ---------------------------------------------------------------------


def check_out(path: Path, flag: str = "--out") -> None:
    """ValueError unless `path` (given as `flag`) can be a new run's directory: new or empty."""
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise ValueError(
            f"{flag} {path} is not an empty directory (an earlier run?): continue that run "
            f"with --resume {path}, or choose another {flag}"
        )


def new_run_dir(out: str | None) -> Path:
    """The directory of a new run: `out` if it is new or empty, else a fresh runs/<timestamp>.

    Never an earlier run's directory: its config, checkpoints and metrics would be overwritten
    or mixed with this run's. Two runs started in the same second get runs/<stamp> and
    runs/<stamp>-2 (the directory is claimed with an exclusive mkdir).
    """
    if out is not None:
        path = Path(out)
        check_out(path)
        _mkdir(path, exist_ok=True)
        return path
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for attempt in range(1, 1000):
        path = Path("runs") / (stamp if attempt == 1 else f"{stamp}-{attempt}")
        if _mkdir(path, exist_ok=False):
            return path
    raise ValueError(f"could not find a free run directory runs/{stamp}-N")


def _mkdir(path: Path, exist_ok: bool) -> bool:
    """Whether `path` was made (False: it existed and `exist_ok` is False); ValueError if it
    cannot be made."""
    try:
        path.mkdir(parents=True, exist_ok=exist_ok)
    except FileExistsError:
        if exist_ok:
            raise ValueError(f"cannot create the run directory {path}: a file is there") from None
        return False
    except OSError as error:
        raise ValueError(
            f"cannot create the run directory {path}: {error.strerror or error}"
        ) from None
    return True


# -- the lock of a run directory ------------------------------------------------------------

LOCK_FILE = "train.lock"  # in the run directory: "HOST PID" of the process training in it


def run_lock(run_dir: str | Path):
    """Holds the run directory for this process while it trains: ValueError if another live
    process holds it; a lock left by a process that is gone (killed) is replaced, with a word."""
    return files.lock(Path(run_dir) / LOCK_FILE, run_dir, "training in it")


# -- the networks that ship with the package ------------------------------------------------


def export_network(
    run_dir: str | Path, name: str = pretrained.NAME, directory: Path = pretrained.DIRECTORY
) -> Path:
    """Writes the latest (verified) params of `run_dir` as the shipped network `name`
    (`jaxcheckers.agents.pretrained`, by default into the package), its digests recorded in
    the folder's checksums.json; returns the folder."""
    params, _, settings = policy.load_params(run_dir)
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    stem = pretrained.stem(name, settings["game"])
    (directory / f"{stem}.msgpack").write_bytes(serialization.to_bytes(params))
    keep = ("algo", "game", "env_options", "network", "hidden_sizes", "conv_channels")
    keep += ("conv_blocks",)
    shipped = {key: settings[key] for key in keep if key in settings}
    (directory / f"{stem}.json").write_text(json.dumps(shipped, indent=2, sort_keys=True) + "\n")
    pretrained.record_checksums(directory, stem)
    return directory
