"""Run directories as `jaxcheckers train` writes them, read with their integrity checked: the
run's settings, its checkpoints, the checksum saved beside each one, and the newest good
checkpoint when the latest is damaged.

    run_dir/config.json                      the run's settings (game, env options, network)
    run_dir/checkpoints/<step>/params        orbax; beside it checksums.json

The trainer writes them (`jaxcheckers.training.checkpoints`); the agents that load a trained
policy read them here. Reading params needs orbax-checkpoint (the `training` extra).
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jax
import numpy as np

from jaxcheckers.extras import needed_for

__all__ = [
    "find_run_dir",
    "read_settings",
    "restore_params",
    "tree_digest",
    "write_checksums",
    "verify_checkpoint",
    "restore_newest_good",
    "CONFIG_FILE",
    "CHECKSUM_FILE",
    "CHECKPOINT_DIR",
]

CONFIG_FILE = "config.json"
CHECKPOINT_DIR = "checkpoints"


def read_settings(run_dir: Path) -> dict:
    """The run's config.json as a dict; ValueError (naming the file) if it is not readable."""
    path = Path(run_dir) / CONFIG_FILE
    try:
        settings = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path} cannot be read: {error}") from None
    if not isinstance(settings, dict) or not isinstance(settings.get("game"), str):
        raise ValueError(f"{path} is not a run's config: it names no game")
    if not isinstance(settings.get("env_options", {}), dict):
        raise ValueError(f"{path}: env_options must be an object")
    return settings


def find_run_dir(path: str | Path) -> tuple[Path, int | None]:
    """(run directory, checkpoint step or None for the latest) for a run or checkpoint path."""
    path = Path(path).resolve()
    if (path / CONFIG_FILE).exists():
        return path, None
    if path.parent.name == CHECKPOINT_DIR and (path.parent.parent / CONFIG_FILE).exists():
        return path.parent.parent, int(path.name)
    raise FileNotFoundError(
        f"{path} is neither a training run directory nor one of its checkpoints"
    )


def restore_params(directory: Path, template: Any, step: int | None) -> Any:
    """The params of checkpoint `step` (None: the newest good one) under `directory`, laid out
    as `template`; checked against their checksum."""
    with needed_for("loading a training run"):
        import orbax.checkpoint as ocp

    # Onto this process's first device, whatever devices (or processes) the trainer saved from:
    # without a sharding, orbax refuses a checkpoint saved over another topology.
    device = jax.sharding.SingleDeviceSharding(jax.local_devices()[0])
    template = jax.tree.map(
        lambda leaf: jax.ShapeDtypeStruct(leaf.shape, leaf.dtype, sharding=device), template
    )
    with ocp.CheckpointManager(directory) as manager:
        steps = manager.all_steps() if step is None else [step]
        if not steps:
            raise FileNotFoundError(f"no checkpoint in {directory.parent}")

        def restore(at: int):
            restored = manager.restore(
                at, args=ocp.args.Composite(params=ocp.args.StandardRestore(template))
            )
            return restored["params"]

        _, params = restore_newest_good(directory, steps, restore, "params")
    return params


# -- checkpoint checksums: written by the trainer beside each checkpoint, checked by every reader

CHECKSUM_FILE = "checksums.json"  # in checkpoints/<step>/: {"params": sha256, "state": sha256}


def tree_digest(tree: Any) -> str:
    """sha256 (hex) of a pytree's leaves: each one's dtype, shape and bytes, in tree order."""
    digest = hashlib.sha256()
    for leaf in jax.tree_util.tree_leaves(tree):
        if jax.dtypes.issubdtype(getattr(leaf, "dtype", None), jax.dtypes.prng_key):
            leaf = jax.random.key_data(leaf)
        value = np.ascontiguousarray(jax.device_get(leaf))
        digest.update(f"{value.dtype.str}{value.shape};".encode())
        digest.update(value.tobytes())
    return digest.hexdigest()


def write_checksums(step_dir: Path, **trees: Any) -> None:
    """Saves `tree_digest` of each tree, by name, in `step_dir`/checksums.json."""
    path = Path(step_dir) / CHECKSUM_FILE
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps({k: tree_digest(v) for k, v in trees.items()}) + "\n")
    temporary.replace(path)


def verify_checkpoint(step_dir: Path, item: str, restored: Any) -> None:
    """ValueError unless `restored` (the checkpoint's `item`) is what was saved: its digest
    matches the checksum saved beside it, and its floats are finite. A checkpoint saved before
    checksums existed is only checked for finite values."""
    path = Path(step_dir) / CHECKSUM_FILE
    if path.exists():
        try:
            expected = json.loads(path.read_text())[item]
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise ValueError(f"its checksum file is damaged ({error!r})") from None
        if tree_digest(restored) != expected:
            raise ValueError(f"its {item} do not match the checksum saved with them")
    for leaf in jax.tree_util.tree_leaves(restored):
        value = np.asarray(jax.device_get(leaf)) if hasattr(leaf, "dtype") else None
        if value is not None and value.dtype.kind == "f" and not np.isfinite(value).all():
            raise ValueError(f"its {item} hold non-finite numbers (a diverged run)")


def restore_newest_good(
    directory: Path, steps: list[int], restore: Callable[[int], Any], item: str
) -> tuple[int, Any]:
    """(step, value): the newest of `steps` that `restore(step)` reads and `verify_checkpoint`
    accepts. Each damaged one is named on stderr; ValueError if none is good.
    """
    damaged = False
    for step in sorted(steps, reverse=True):
        try:
            value = restore(step)
            verify_checkpoint(Path(directory) / str(step), item, value)
        except Exception as error:  # noqa: BLE001 - orbax raises many kinds on damaged files
            _quiet_orphaned_reads()
            reason = " ".join(str(error).split())[:200] or type(error).__name__
            damaged = True
            print(f"checkpoint {step} in {directory} is damaged: {reason}", file=sys.stderr)
            continue
        if damaged:
            print(f"using checkpoint {step}, the newest good one", file=sys.stderr)
        return step, value
    raise ValueError(f"no usable checkpoint in {directory}: every one is damaged (see above)")


def _quiet_orphaned_reads() -> None:
    """After a failed orbax restore, the reads still in flight finish on an event loop that
    orbax has closed, and each prints a "RuntimeError: Event loop is closed" traceback (through
    sys.unraisablehook, up to exit). Drop those, and only those."""
    previous = sys.unraisablehook
    if getattr(previous, "_quiets_orphaned_reads", False):
        return

    def hook(unraisable):
        value = unraisable.exc_value
        if isinstance(value, RuntimeError) and str(value) == "Event loop is closed":
            return
        previous(unraisable)

    hook._quiets_orphaned_reads = True
    sys.unraisablehook = hook
