"""The trainers' settings: typed, frozen dataclasses, and the named presets.

`TrainConfig` (PPO) has a default for every field that trains checkers on a small CPU; `PRESETS`
holds the named variants the CLI offers (`--preset`; `jaxcheckers train --help` lists them), each
with a comment on what it is for. `AlphaZeroConfig` and `ALPHAZERO_PRESETS` are the same for the
search trainer (`training/alphazero.py`). `ALGORITHMS` maps each trainer's name (`--algo`, and
"algo" in a run's config.json) to its config class and presets. What each preset reaches, and
the recipes tried before them: docs/experiments.md.
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass, field
from typing import Any

from jaxcheckers.training.precision import check_compute_dtype

from jaxcheckers.agents.networks import NETWORKS

__all__ = [
    "TrainConfig",
    "AlphaZeroConfig",
    "DistillConfig",
    "PRESETS",
    "ACCELERATOR_PRESETS",
    "MEASURED_RATES",
    "auto_preset",
    "ALPHAZERO_PRESETS",
    "DISTILL_PRESETS",
    "ALGORITHMS",
    "algorithm_of",
    "preset",
    "config_to_json",
    "config_from_json",
]


class _RunLength:
    """What both trainers' configs derive from num_envs, rollout_length and total_steps."""

    num_envs: int
    rollout_length: int
    total_steps: int

    @property
    def steps_per_update(self) -> int:
        return self.num_envs * self.rollout_length

    @property
    def num_updates(self) -> int:
        """Updates in the whole run (at least one)."""
        return max(1, self.total_steps // self.steps_per_update)

    def replace(self, **changes: Any):
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True)
class TrainConfig(_RunLength):
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
    # The CPU default is an MLP, cheap enough a position to keep pace with the environment on a
    # CPU; a convolution over the board pays off on a GPU.
    network: str = "mlp"  # one of networks.NETWORKS (what each is: agents/inference.py)
    hidden_sizes: tuple[int, ...] = (256, 256)  # mlp: widths of the shared torso
    conv_channels: int = 64  # conv: channels of each 3x3 residual block
    conv_blocks: int = 4  # conv: residual blocks
    # What the network computes in: "float32", or "bfloat16" (params, optimizer state and loss
    # stay float32; training/precision.py).
    compute_dtype: str = "float32"
    # A run directory, checkpoint or shipped network name (for this game) whose parameters, of
    # the same network, start the run; "" starts from random ones.
    init_params: str = ""

    # -- opponents --------------------------------------------------------------------------------
    # Pure self-play by default. With opponent_fraction > 0 that share of the games has one seat
    # (chosen at random each game) played by an opponent drawn from `opponents`: agent specs such
    # as "random" or "alphabeta:2", or "snapshot" (the learner's parameters from the last
    # snapshot, refreshed every `snapshot_every` updates). Their moves are not trained on.
    opponent_fraction: float = 0.0
    opponents: tuple[str, ...] = ("snapshot", "random")
    snapshot_every: int = 20  # updates
    # "groups": an equal, fixed share of the opponent games per spec; "league": each game's
    # opponent drawn as it starts, the more often the worse the learner's running score against
    # it (training/opponents.py).
    opponent_sampling: str = "groups"
    # Every training game (self-play and against opponents) starts after uniformly random moves
    # for 0..opening_plies whole turns, not trained on (training/openings.py): the positions a
    # match's random openings lead to, which a learner that always starts from the initial
    # position meets too rarely.
    opening_plies: int = 0
    # An opening deck of the game (`GameSpec.openings`: checkers' "ballots") that every training
    # game starts from, one opening drawn at random, before its random turns; "" for none.
    openings: str = ""

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
        positive = ("num_envs", "rollout_length", "total_steps", "num_epochs", "num_minibatches")
        positive += ("snapshot_every", "eval_games", "log_every", "conv_channels", "conv_blocks")
        _check_settings(
            self,
            positive=positive,
            non_negative=("eval_every", "checkpoint_every", "eval_opening_plies", "opening_plies"),
            float_ranges=_FLOAT_RANGES,
            positive_floats=("learning_rate", "clip_epsilon", "max_grad_norm"),
            spec_lists=("opponents", "eval_opponents"),
        )
        if self.opponent_sampling not in ("groups", "league"):
            raise ValueError(
                f"opponent_sampling must be groups or league, not {self.opponent_sampling!r}"
            )
        if self.lr_schedule not in ("linear", "cosine", "constant"):
            raise ValueError(
                f"lr_schedule must be linear, cosine or constant, not {self.lr_schedule!r}"
            )

    @property
    def num_opponent_envs(self) -> int:
        """Games with a fixed opponent in one seat; the rest are pure self-play."""
        return int(round(self.opponent_fraction * self.num_envs))


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


def _check_settings(
    config: Any,
    *,
    positive: tuple[str, ...],
    non_negative: tuple[str, ...],
    float_ranges: tuple[tuple[str, float, float], ...],
    positive_floats: tuple[str, ...],
    spec_lists: tuple[str, ...],
) -> None:
    """ValueError, naming the field, for the first setting of `config` out of its range (the
    checks every trainer's config shares)."""
    _check_types(config)
    check_compute_dtype(config.compute_dtype)
    for name in positive:
        if getattr(config, name) < 1:
            raise ValueError(f"{name} must be positive, got {getattr(config, name)}")
    for name in non_negative:
        if getattr(config, name) < 0:
            raise ValueError(f"{name} must be 0 or more, got {getattr(config, name)}")
    if not config.hidden_sizes or min(config.hidden_sizes) < 1:
        raise ValueError(f"hidden_sizes must be positive widths, got {config.hidden_sizes}")
    if config.num_envs % getattr(config, "num_minibatches", 1):
        raise ValueError(
            f"num_minibatches ({config.num_minibatches}) must divide num_envs ({config.num_envs})"
        )
    for name, low, high in float_ranges:
        value = getattr(config, name)
        if not (math.isfinite(value) and low <= value <= high):
            raise ValueError(f"{name} must be a finite number in [{low}, {high}], got {value}")
    for name in positive_floats:
        if not getattr(config, name) > 0:
            raise ValueError(f"{name} must be positive, got {getattr(config, name)}")
    if config.network not in NETWORKS:
        raise ValueError(f"network must be one of {', '.join(NETWORKS)}, not {config.network!r}")
    if not 0 <= config.seed < 2**32:
        raise ValueError(f"seed must lie in [0, 2**32), got {config.seed}")
    for name in spec_lists:
        if any(not spec for spec in getattr(config, name)):
            raise ValueError(f"{name} holds an empty agent spec: {getattr(config, name)}")


def _check_types(config: Any) -> None:
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


# A longer CPU run aimed at alpha-beta strength: twice the games, 3 epochs (on a CPU the update
# dominates an update's time), a lower learning rate with a larger entropy bonus (so that the
# policy's entropy does not collapse early), and half of the games against fixed opponents: a
# snapshot of the learner and the alpha-beta players of depth 1 and 2, which punish the blunders
# that pure self-play of a weak policy leaves alone (docs/experiments.md).
_LONG = TrainConfig(
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
)

PRESETS: dict[str, TrainConfig] = {
    # The main job: a short CPU run whose policy beats the random player.
    "quick": TrainConfig(
        num_envs=256,
        rollout_length=32,
        total_steps=2_500_000,
        hidden_sizes=(256, 256),
        eval_every=25,
        eval_games=64,
        eval_opponents=("random",),
    ),
    "long": _LONG,
    # The shipped ppo:pretrained's recipe: the long preset with the tactical MLP 512-512 (it
    # reads checkers' attack maps: which pieces and squares a capture threatens,
    # `checkers.features`), `alphabeta:3` in place of `alphabeta:1` among the opponents, eight
    # minibatches, a learning rate of 1e-3 and fewer steps. Checkers only: the network reads
    # checkers boards.
    "hour": _LONG.replace(
        network="mlp-tactical",
        hidden_sizes=(512, 512),
        learning_rate=1e-3,
        num_minibatches=8,
        opponents=("snapshot", "alphabeta:2", "alphabeta:3"),
        total_steps=12_124_160,
        eval_every=370,
        eval_opponents=("alphabeta:3",),
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
# The GPU recipe that benchmarks/gpu_suite.sh measures against "gpu": the same network and
# opponents, computed in bfloat16 (training/precision.py), four times the games an update and
# half the epochs over minibatches four times larger, so that each env step costs fewer
# gradient steps. UNTUNED until measured on a GPU: its sizes are a first guess, to be chosen by
# measured time to strength (benchmarks/time_to_strength.py), not by steps.
PRESETS["gpu-fast"] = PRESETS["gpu"].replace(
    num_envs=16_384,
    rollout_length=32,
    num_epochs=2,
    num_minibatches=4,
    compute_dtype="bfloat16",
    eval_every=25,
    checkpoint_every=50,
    log_every=5,
)
# The shipped network's recipe (`hour`) at a GPU's batch. The conv network costs about 198 M
# FLOPs a position, the tactical MLP 1.1 M, and the conv learner already runs near half an H200's
# peak (docs/experiments.md, "The first GPU suite run"): only a network this small leaves the
# trainer near the env's speed, and it is the one that beat alphabeta:3 on a CPU. Opponents are
# past snapshots and the random player, since a batch of vmapped alpha-beta replies waits for its
# slowest search; at 512 games on a CPU they level off near 0.6 against alphabeta:3, where
# hour's alpha-beta opponents reach 0.86 (docs/experiments.md). UNTUNED until measured on a GPU
# (benchmarks/gpu_suite.sh times it first).
PRESETS["gpu-mlp"] = PRESETS["hour"].replace(
    num_envs=8_192,
    total_steps=2_000_000_000,
    opponents=("snapshot", "random"),
    opponent_fraction=0.2,
    snapshot_every=20,
    eval_every=100,
    eval_games=256,
    eval_opponents=("random", "alphabeta:3"),
    checkpoint_every=200,
    log_every=10,
)
# Presets written for an accelerator: `jaxcheckers train` refuses them on a CPU unless told to
# (--force-device), since an update takes minutes there.
ACCELERATOR_PRESETS = ("gpu", "gpu-fast", "gpu-mlp")

# Env steps per second of whole runs (compiles, evaluations and checkpoints included), for the
# time `jaxcheckers train` announces: (algo, preset, jax backend) -> (slowest, fastest) measured.
# The same 2-core CPU runs batched JAX work at different speeds from day to day, so a CPU
# preset announces the span its runs have covered.
MEASURED_RATES: dict[tuple[str, str, str], tuple[float, float]] = {
    # `make train`: 2.5 M steps in 61 s (the command 63 s) on a quiet 2-core AMD EPYC,
    # 2026-11-30; in 179 s on the same machine's slow day, 2026-12-01 (docs/experiments.md)
    ("ppo", "quick", "cpu"): (13_950, 41_000),
    # 40 M steps in 34.4 min on the same CPU (docs/experiments.md)
    ("ppo", "long", "cpu"): (19_400, 19_400),
    # the time-to-strength run of the hour preset: 12.1 M steps in 1,407 s, evaluations in, on
    # the same quiet CPU, 2026-11-30 (docs/training.md); ppo:pretrained's first run took an hour
    ("ppo", "hour", "cpu"): (8_600, 8_600),
    # 18.4 M steps in about 346 s on one H200, two compiles and the evaluations in (issue 52)
    ("ppo", "gpu", "gpu"): (53_000, 53_000),
}


def auto_preset(algo: str, backend: str) -> tuple[str, dict[str, Any]]:
    """`--preset auto`: the preset that fits the device jax uses (`jax.default_backend()`), and
    the fields it changes. A CPU gets the quick preset; an accelerator the gpu preset cut to
    about five minutes at its slowest measured rate (MEASURED_RATES). The search trainer has one
    recipe for both."""
    if algo != "ppo" or backend == "cpu":
        return "quick", {}
    steps_per_update = PRESETS["gpu"].steps_per_update
    slowest, _ = MEASURED_RATES["ppo", "gpu", "gpu"]
    updates = round(5 * 60 * slowest / steps_per_update)
    return "gpu", {"total_steps": updates * steps_per_update}


@dataclass(frozen=True)
class AlphaZeroConfig(_RunLength):
    """The search trainer's settings (`training/alphazero.py`): Gumbel MuZero self-play."""

    # -- the game ---------------------------------------------------------------------------------
    game: str = "checkers"  # a name for jaxcheckers.make
    env_options: dict[str, Any] = field(default_factory=dict)

    # -- self-play --------------------------------------------------------------------------------
    num_envs: int = 64  # games played in parallel, one search tree each
    rollout_length: int = 32  # self-play moves per game between two updates
    total_steps: int = 1_000_000  # self-play moves in all (over every game)
    num_simulations: int = 32  # search simulations per move
    max_num_considered_actions: int = 16  # Gumbel MuZero's root candidates
    # Each game opens with a number of uniformly random moves, drawn from 0..opening_plies when
    # it starts; they are trained on for the policy but not for the value (their outcome is not
    # the policy's). Without them self-play settles on a few openings, and the network never
    # learns the positions another player steers to (tic-tac-toe: losses to `perfect` as O).
    opening_plies: int = 4

    # -- learning ---------------------------------------------------------------------------------
    num_epochs: int = 2  # passes over each update's self-play moves
    num_minibatches: int = 4  # per epoch; divides num_envs
    learning_rate: float = 1e-3
    value_coef: float = 1.0
    max_grad_norm: float = 1.0

    # -- the network (as TrainConfig) -------------------------------------------------------------
    network: str = "mlp"
    hidden_sizes: tuple[int, ...] = (256, 256)
    conv_channels: int = 64
    conv_blocks: int = 4
    compute_dtype: str = "float32"  # as TrainConfig's
    init_params: str = ""  # as TrainConfig's

    # -- evaluation (the raw policy, greedy), records and checkpoints (as TrainConfig) ------------
    eval_every: int = 25
    eval_games: int = 64
    eval_opponents: tuple[str, ...] = ("random",)
    eval_opening_plies: int = 2
    checkpoint_every: int = 50
    log_every: int = 5
    seed: int = 0

    def __post_init__(self):
        _check_settings(
            self,
            positive=(
                "num_envs",
                "rollout_length",
                "total_steps",
                "num_simulations",
                "max_num_considered_actions",
                "num_epochs",
                "num_minibatches",
                "eval_games",
                "log_every",
                "conv_channels",
                "conv_blocks",
            ),
            non_negative=("opening_plies", "eval_every", "checkpoint_every", "eval_opening_plies"),
            float_ranges=(
                ("learning_rate", 0.0, math.inf),
                ("value_coef", 0.0, math.inf),
                ("max_grad_norm", 0.0, math.inf),
            ),
            positive_floats=("learning_rate", "max_grad_norm"),
            spec_lists=("eval_opponents",),
        )


ALPHAZERO_PRESETS: dict[str, AlphaZeroConfig] = {
    # A short CPU run: enough for tic-tac-toe (--game tictactoe) to lose no line of the game,
    # and for a checkers policy that beats the random player.
    "quick": AlphaZeroConfig(
        num_envs=64,
        rollout_length=16,
        total_steps=64 * 16 * 60,
        num_simulations=32,
        eval_every=20,
        eval_games=64,
        eval_opponents=("random",),
        checkpoint_every=20,
    ),
    # A longer checkers run; the network it trained ships as pretrained-alphazero.
    "long": AlphaZeroConfig(
        num_envs=128,
        rollout_length=32,
        total_steps=128 * 32 * 75,
        num_simulations=32,
        eval_every=25,
        eval_games=64,
        eval_opponents=("random", "alphabeta:2"),
        eval_opening_plies=2,
        checkpoint_every=25,
    ),
}

@dataclass(frozen=True)
class DistillConfig(_RunLength):
    """The distillation trainer's settings (`training/distill.py`): a network learns the moves a
    search rates best, in the positions of games played by the search, itself and random."""

    # -- the game and the teacher -----------------------------------------------------------------
    game: str = "chess"  # a name for jaxcheckers.make
    env_options: dict[str, Any] = field(default_factory=dict)
    teacher: str = "alphabeta:2"  # a search agent that scores every move (agents.make_move_values)
    value_scale: float = 3.0  # value target tanh(teacher's best score / value_scale)
    # A run directory or checkpoint whose parameters start the student (the same network);
    # "" starts from random ones.
    init_params: str = ""

    # -- the games that give the positions --------------------------------------------------------
    num_envs: int = 64  # games played at once
    rollout_length: int = 16  # moves of each game per update
    total_steps: int = 250_000  # positions labelled in all (over every game)
    # Who plays each seat, drawn when a game starts: teacher, student, random (PLAYERS' order).
    player_weights: tuple[float, ...] = (0.45, 0.35, 0.2)
    random_move_prob: float = 0.1  # the teacher's and the student's seats play a random move
    opening_plies: int = 4  # every game opens with 0..opening_plies random turns

    # -- learning ---------------------------------------------------------------------------------
    buffer_size: int = 65_536  # labelled positions kept; a multiple of num_envs x rollout_length
    batch_size: int = 256
    gradient_steps: int = 16  # minibatches from the buffer per update
    learning_rate: float = 5e-4
    value_coef: float = 0.5
    max_grad_norm: float = 1.0

    # -- the network (as TrainConfig) -------------------------------------------------------------
    network: str = "mlp-tactical"
    hidden_sizes: tuple[int, ...] = (512, 512)
    conv_channels: int = 64
    conv_blocks: int = 4
    compute_dtype: str = "float32"  # as TrainConfig's

    # -- evaluation (the raw policy, greedy), records and checkpoints (as TrainConfig) ------------
    eval_every: int = 25
    eval_games: int = 64
    eval_opponents: tuple[str, ...] = ("random", "alphabeta:1")
    eval_opening_plies: int = 2
    checkpoint_every: int = 25
    log_every: int = 5
    seed: int = 0

    def __post_init__(self):
        _check_settings(
            self,
            positive=(
                "num_envs",
                "rollout_length",
                "total_steps",
                "buffer_size",
                "batch_size",
                "gradient_steps",
                "eval_games",
                "log_every",
                "conv_channels",
                "conv_blocks",
            ),
            non_negative=("opening_plies", "eval_every", "checkpoint_every", "eval_opening_plies"),
            float_ranges=(
                ("learning_rate", 0.0, math.inf),
                ("value_coef", 0.0, math.inf),
                ("max_grad_norm", 0.0, math.inf),
                ("random_move_prob", 0.0, 1.0),
                ("value_scale", 0.0, math.inf),
            ),
            positive_floats=("learning_rate", "max_grad_norm", "value_scale"),
            spec_lists=("eval_opponents",),
        )
        weights = self.player_weights
        if len(weights) != 3 or not all(
            isinstance(w, (int, float)) and math.isfinite(w) and w >= 0 for w in weights
        ) or not sum(weights) > 0:
            raise ValueError(
                "player_weights must be 3 numbers >= 0 (teacher, student, random), not all 0, "
                f"got {weights}"
            )
        if not self.teacher:
            raise ValueError("teacher must be an agent spec, e.g. alphabeta:2")


DISTILL_PRESETS: dict[str, DistillConfig] = {
    # A few minutes on a CPU: the defaults, shortened.
    "quick": DistillConfig(total_steps=64 * 16 * 20, eval_every=10, checkpoint_every=10),
}

# --algo NAME -> (config class, its presets). PPO's config.json files carry no "algo" key.
ALGORITHMS: dict[str, tuple[type, dict]] = {
    "ppo": (TrainConfig, PRESETS),
    "alphazero": (AlphaZeroConfig, ALPHAZERO_PRESETS),
    "distill": (DistillConfig, DISTILL_PRESETS),
}


def algorithm_of(config: Any) -> str:
    """The name of the trainer that `config` (an instance of one of ALGORITHMS' classes) is for."""
    return next(name for name, (kind, _) in ALGORITHMS.items() if isinstance(config, kind))


def preset(name: str, algo: str = "ppo", **overrides: Any) -> Any:
    """The preset called `name` of the trainer `algo`, with some fields replaced."""
    presets = ALGORITHMS[algo][1]
    if name not in presets:
        raise ValueError(f"unknown {algo} preset {name!r}; available: {', '.join(presets)}")
    return presets[name].replace(**overrides)


def config_to_json(config: Any) -> str:
    """The settings as JSON, with the trainer named under "algo"."""
    values = {"algo": algorithm_of(config), **dataclasses.asdict(config)}
    return json.dumps(values, indent=2, sort_keys=True)


def config_from_json(text: str) -> Any:
    """The inverse of `config_to_json` (lists come back as tuples where the field is a tuple);
    the config class is the one "algo" names (PPO's TrainConfig without it).

    ValueError for text that is not a JSON object, for an unknown trainer, for a key the config
    does not have (a typo, or a file from another version: dropping it would silently train
    something else), and for a value of the wrong type or out of range.
    """
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"not valid JSON ({error})") from None
    if not isinstance(raw, dict):
        raise ValueError(f"expected a JSON object of settings, got {type(raw).__name__}")
    algo = raw.pop("algo", "ppo")
    if not isinstance(algo, str) or algo not in ALGORITHMS:
        raise ValueError(f"unknown algo {algo!r}; known: {', '.join(ALGORITHMS)}")
    kind = ALGORITHMS[algo][0]
    known = {f.name for f in dataclasses.fields(kind)}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise ValueError(
            f"unknown setting(s) {', '.join(map(repr, unknown))}; {kind.__name__} has: "
            + ", ".join(sorted(known))
        )
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in raw.items()}
    try:
        return kind(**values)
    except TypeError as error:  # e.g. an unhashable value where a number belongs
        raise ValueError(str(error)) from None
