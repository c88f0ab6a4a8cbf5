"""What the PettingZoo and Gymnasium adapters share: the checks of `reset(seed=..., options=...)`
(each refusal one line), and pickling an env as its settings."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from jaxcheckers.argtypes import MAX_SEED

__all__ = ["checked_seed", "reset_options", "PickledAsSettings"]


def checked_seed(seed: Any) -> int | None:
    """`seed` as None or an int in [0, MAX_SEED], the seeds the CLI takes; ValueError for any
    other (a larger seed would wrap around to a smaller one's game in a 32-bit key)."""
    if seed is None:
        return None
    is_int = isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_))
    if not (is_int and 0 <= seed <= MAX_SEED):
        raise ValueError(f"seed must be None or an int in [0, {MAX_SEED}], got {seed!r}")
    return int(seed)


def reset_options(options: Any, known: Iterable[str], *, refuse_unknown: bool = True) -> dict:
    """`reset`'s `options` as a dict ({} for None); ValueError for anything but a mapping, or
    (`refuse_unknown`) for a key outside `known`: a misspelt option would otherwise be ignored
    without a word. PettingZoo's `api_test` passes a key of its own, so its envs ignore them."""
    if options is None:
        return {}
    known = tuple(known)
    if not isinstance(options, Mapping):
        raise ValueError(
            f"options must be a dict (keys: {', '.join(known) or 'none'}) or None, "
            f"got {type(options).__name__}"
        )
    unknown = [key for key in options if key not in known]
    if unknown and refuse_unknown:
        raise ValueError(
            f"unknown reset option(s) {', '.join(map(repr, unknown))}; "
            f"this env takes: {', '.join(known) or 'none'}"
        )
    return dict(options)


class PickledAsSettings:
    """Pickles an env without its compiled parts (jitted functions cannot be pickled): the
    attributes named in `REBUILT` are left out and `_attach()` rebuilds them on loading, from
    the settings the env keeps (its game's name and options). The game in progress, the spaces
    and their generators travel as they are."""

    REBUILT: tuple[str, ...] = ()

    def _attach(self) -> None:
        raise NotImplementedError

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k not in self.REBUILT}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._attach()


def checked_action(action: Any, num_actions: int) -> int:
    """`action` as an int in [0, num_actions); ValueError for anything else (bools included)."""
    if isinstance(action, np.ndarray) and action.shape in ((), (1,)):
        action = action.reshape(()).item()
    is_integer = isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_))
    if not is_integer or not 0 <= int(action) < num_actions:
        raise ValueError(f"an action is an int in [0, {num_actions}), got {action!r}")
    return int(action)
