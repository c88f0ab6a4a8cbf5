"""The trainer's settings: one typed, frozen dataclass, and the named presets.

Every field has a default that trains checkers on a small CPU; `PRESETS` holds the variants the
CLI offers: `quick` (the README's main job), `long` (an hour on a CPU, with alpha-beta opponents)
and `gpu` (a larger network over more games).
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass, field
from typing import Any

__all__ = ["TrainConfig", "PRESETS", "preset", "config_to_json", "config_from_json"]


@dataclass(frozen=True)
class TrainConfig:
    # -- the game ---------------------------------------------------------------------------------
    game: str = "checkers"  # a name for jaxcheckers.make
    env_options: dict[str, Any] = field(default_factory=dict)  # keyword options for make()

    # -- rollouts ---------------------------------------------------------------------------------
    num_envs: int = 256  # games played in parallel (the batch sharded over devices)
    rollout_length: int = 32  # environment steps per game between two updates
    total_steps: int = 4_000_000  # environment steps in all (over every game)

    # -- PPO --------------------------------------------------------------------------------------
    gamma: float = 0.99  # per environment step (a hop of a multi-jump is a step too)
    gae_lambda: float = 0.95
    num_epochs: int = 4  # passes over each rollout
    num_minibatches: int = 4  # per epoch; divides num_envs
    clip_epsilon: float = 0.2  # of the probability ratio
    value_coef: float = 0.5
    entropy_coef: float = 0.01  # entropy over the legal actions only
    max_grad_norm: float = 0.5
    learning_rate: float = 1e-3
    lr_schedule: str = "linear"  # "linear" (to 0 at the end), "cosine" or "constant"
    normalize_advantages: bool = True  # per minibatch

    # -- the network ------------------------------------------------------------------------------
    # The CPU default is an MLP: on two cores a 256-wide MLP costs ~0.1 MFLOP a position, so the
    # network keeps pace with the environment; a convolution over the board pays off on a GPU.
    network: str = "mlp"  # "mlp" or "conv"
    hidden_sizes: tuple[int, ...] = (256, 256)  # mlp: widths of the shared torso
    conv_channels: int = 64  # conv: channels of each 3x3 residual block
    conv_blocks: int = 4  # conv: residual blocks

    # -- opponents --------------------------------------------------------------------------------
    # Pure self-play by default. With opponent_fraction > 0 that share of the games has one seat
    # (chosen at random each game) played by an opponent drawn from `opponents`: agent specs such
    # as "random" or "alphabeta:2", or "snapshot" (the learner's parameters from the last
    # snapshot, refreshed every `snapshot_every` updates). Their moves are not trained on.
    opponent_fraction: float = 0.0
    opponents: tuple[str, ...] = ("snapshot", "random")
    snapshot_every: int = 20  # updates

    # -- evaluation, records and checkpoints (host side, between jitted chunks) -------------------
    eval_every: int = 25  # updates; 0 turns evaluation during training off
    eval_games: int = 64  # per opponent, half in each seat
    eval_opponents: tuple[str, ...] = ("random", "alphabeta:2")
    # Random plies (both sides) opening every evaluation game, so that a greedy policy meets a
    # deterministic opponent in different positions.
    eval_opening_plies: int = 2
    checkpoint_every: int = 50  # updates; a checkpoint is also written at the end
    log_every: int = 5  # updates per jitted chunk: the progress bar moves this often
    seed: int = 0

    def __post_init__(self):
        _check_types(self)
        positive = ("num_envs", "rollout_length", "total_steps", "num_epochs", "num_minibatches")
        positive += ("snapshot_every", "eval_games", "log_every", "conv_channels", "conv_blocks")
        for name in positive:
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        for name in ("eval_every", "checkpoint_every", "eval_opening_plies"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be 0 or more, got {getattr(self, name)}")
        if not self.hidden_sizes or min(self.hidden_sizes) < 1:
            raise ValueError(f"hidden_sizes must be positive widths, got {self.hidden_sizes}")
        if self.num_envs % self.num_minibatches:
            raise ValueError(
                f"num_minibatches ({self.num_minibatches}) must divide num_envs ({self.num_envs})"
            )
        for name, low, high in _FLOAT_RANGES:
            value = getattr(self, name)
            if not (math.isfinite(value) and low <= value <= high):
                raise ValueError(f"{name} must be a finite number in [{low}, {high}], got {value}")
        for name in ("learning_rate", "clip_epsilon", "max_grad_norm"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        if self.lr_schedule not in ("linear", "cosine", "constant"):
            raise ValueError(
                f"lr_schedule must be linear, cosine or constant, not {self.lr_schedule!r}"
            )
        if self.network not in ("mlp", "conv"):
            raise ValueError(f"network must be mlp or conv, not {self.network!r}")
        if not 0 <= self.seed < 2**32:
            raise ValueError(f"seed must lie in [0, 2**32), got {self.seed}")
        for name in ("opponents", "eval_opponents"):
            if any(not spec for spec in getattr(self, name)):
                raise ValueError(f"{name} holds an empty agent spec: {getattr(self, name)}")

    @property
    def steps_per_update(self) -> int:
        return self.num_envs * self.rollout_length

    @property
    def num_updates(self) -> int:
        """Updates in the whole run (at least one)."""
        return max(1, self.total_steps // self.steps_per_update)

    @property
    def num_opponent_envs(self) -> int:
        """Games with a fixed opponent in one seat; the rest are pure self-play."""
        return int(round(self.opponent_fraction * self.num_envs))

    def replace(self, **changes: Any) -> TrainConfig:
        return dataclasses.replace(self, **changes)


# (field, lowest, highest) of the float settings; every one must also be finite.
_FLOAT_RANGES = (
    ("gamma", 0.0, 1.0),
    ("gae_lambda", 0.0, 1.0),
    ("clip_epsilon", 0.0, math.inf),
    ("value_coef", 0.0, math.inf),
    ("entropy_coef", 0.0, math.inf),
    ("max_grad_norm", 0.0, math.inf),
    ("learning_rate", 0.0, math.inf),
    ("opponent_fraction", 0.0, 1.0),
)


def _check_types(config: TrainConfig) -> None:
    """ValueError unless every field has its declared type (a JSON file can say anything)."""
    for spec in dataclasses.fields(config):
        value = getattr(config, spec.name)
        kind = spec.type if isinstance(spec.type, str) else spec.type.__name__
        if kind == "int":
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif kind == "float":
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        elif kind == "bool":
            ok = isinstance(value, bool)
        elif kind == "str":
            ok = isinstance(value, str)
        elif kind.startswith("dict"):
            ok = isinstance(value, dict)
        elif kind == "tuple[int, ...]":
            ok = isinstance(value, tuple) and all(
                isinstance(v, int) and not isinstance(v, bool) for v in value
            )
        elif kind == "tuple[str, ...]":
            ok = isinstance(value, tuple) and all(isinstance(v, str) for v in value)
        else:  # a field of a kind added later: checked where it is used
            ok = True
        if not ok:
            raise ValueError(f"{spec.name} must be {kind}, got {value!r}")


PRESETS: dict[str, TrainConfig] = {
    # ~5 minutes on a 2-core CPU; beats the random player (see README for the measured figures).
    "quick": TrainConfig(
        num_envs=256,
        rollout_length=32,
        total_steps=2_500_000,
        hidden_sizes=(256, 256),
        eval_every=25,
        eval_games=64,
        eval_opponents=("random",),
    ),
    # A longer CPU run aimed at alpha-beta strength (under an hour on 2 cores): twice the games,
    # 3 epochs (the update dominates an update's time on a CPU), a lower learning rate with a
    # larger entropy bonus (at 1e-3 / 0.01 the entropy collapsed within 2 M steps), and half of
    # the games against fixed opponents: a snapshot of the learner and the alpha-beta players of
    # depth 1 and 2, which punish the blunders that pure self-play of a weak policy leaves alone.
    # (Pure self-play with 25 % snapshot games, 40 M steps in 28 min, scored 34.9 % against
    # alphabeta:3 over 400 games; see training/README.md.)
    "long": TrainConfig(
        num_envs=512,
        rollout_length=32,
        total_steps=40_000_000,
        num_epochs=3,
        learning_rate=5e-4,
        entropy_coef=0.02,
        hidden_sizes=(256, 256),
        opponent_fraction=0.5,
        opponents=("snapshot", "alphabeta:1", "alphabeta:2"),
        snapshot_every=50,
        eval_every=250,
        eval_games=64,
        eval_opponents=("random", "alphabeta:3"),
        eval_opening_plies=4,
        checkpoint_every=100,
        log_every=10,
    ),
    # A GPU-sized run: thousands of games, a residual convolutional network.
    "gpu": TrainConfig(
        num_envs=4096,
        rollout_length=64,
        total_steps=500_000_000,
        num_minibatches=8,
        network="conv",
        conv_channels=128,
        conv_blocks=6,
        learning_rate=3e-4,
        opponent_fraction=0.2,
        eval_every=50,
        eval_games=256,
        checkpoint_every=100,
        log_every=10,
    ),
}


def preset(name: str, **overrides: Any) -> TrainConfig:
    """The preset called `name` with some fields replaced."""
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r}; available: {', '.join(PRESETS)}")
    return PRESETS[name].replace(**overrides)


def config_to_json(config: TrainConfig) -> str:
    return json.dumps(dataclasses.asdict(config), indent=2, sort_keys=True)


def config_from_json(text: str) -> TrainConfig:
    """The inverse of `config_to_json` (lists come back as tuples where the field is a tuple).

    ValueError for text that is not a JSON object, for a key TrainConfig does not have (a typo,
    or a file from another version: dropping it would silently train something else), and for
    a value of the wrong type or out of range.
    """
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"not valid JSON ({error})") from None
    if not isinstance(raw, dict):
        raise ValueError(f"expected a JSON object of settings, got {type(raw).__name__}")
    known = {f.name for f in dataclasses.fields(TrainConfig)}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise ValueError(
            f"unknown setting(s) {', '.join(map(repr, unknown))}; TrainConfig has: "
            + ", ".join(sorted(known))
        )
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in raw.items()}
    try:
        return TrainConfig(**values)
    except TypeError as error:  # e.g. an unhashable value where a number belongs
        raise ValueError(str(error)) from None
