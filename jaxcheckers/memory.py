"""How much memory a batch of games takes, and how much is free: the CLI refuses a batch that
cannot fit in one line, before it allocates it (XLA's out-of-memory error is a long traceback).
"""

from __future__ import annotations

import math
import os

import jax
import jax.numpy as jnp

__all__ = ["state_bytes", "free_memory", "too_large", "check_batch"]


def state_bytes(env) -> int:
    """Device bytes of one game's State, with its packed legal actions and an offset."""
    state = jax.eval_shape(env.reset, jax.random.key(0))
    leaves = jax.tree_util.tree_leaves(state)
    size = sum(math.prod(x.shape) * jnp.dtype(x.dtype).itemsize for x in leaves)
    return size + 4 * (-(-env.num_actions // 32)) + 4


def free_memory() -> tuple[int, str]:
    """(bytes free, where) on the default device: its allocator's figure, or the host's RAM."""
    device = jax.devices()[0]
    stats = device.memory_stats() if device.platform != "cpu" else None
    if stats and "bytes_limit" in stats:
        return stats["bytes_limit"] - stats.get("bytes_in_use", 0), device.platform.upper()
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            fields = dict(line.split(":", 1) for line in meminfo)
        return int(fields["MemAvailable"].split()[0]) * 1024, "host"
    except (OSError, KeyError, ValueError):
        pages = os.sysconf("SC_AVPHYS_PAGES") if hasattr(os, "sysconf") else 0
        return pages * os.sysconf("SC_PAGE_SIZE") if pages else 2**62, "host"


def too_large(needed: int, what: str) -> str | None:
    """A one-line reason when `needed` bytes for `what` exceed the free memory, else None."""
    available, where = free_memory()
    if needed <= available:
        return None
    return (
        f"{what} need about {needed / 2**30:.1f} GiB, more than the "
        f"{available / 2**30:.1f} GiB free on the {where}"
    )


SMALL_BATCH = 10_000  # games at once that fit anywhere: 120 MB of chess States, four copies


def check_batch(env, games: int, batch_size: int | None) -> None:
    """ValueError, one line, when a match's batch (`batch_size`, default all `games` at once)
    cannot fit: its States, the next ones and the agents' masks and keys, four copies on the
    safe side (a search agent's own work is not counted). Run before anything is allocated."""
    at_once = min(batch_size or games, games)
    if at_once <= SMALL_BATCH:  # not worth the trace that measures a State
        return
    refused = too_large(4 * at_once * state_bytes(env), f"{at_once:,} games at once")
    if refused:
        raise ValueError(f"{refused}; give a smaller --batch-size")
