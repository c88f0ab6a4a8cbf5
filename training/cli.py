"""`jaxcheckers train`: self-play with a progress bar, metrics, evaluations and checkpoints.

    jaxcheckers train                          # PPO, the quick CPU preset, into runs/<timestamp>
    jaxcheckers train --preset gpu --num-envs 8192
    jaxcheckers train --algo alphazero --game tictactoe    # search-guided self-play (mctx)
    jaxcheckers train --resume runs/<timestamp>

`--algo` picks the trainer: `ppo` (training/ppo.py) or `alphazero` (training/alphazero.py), each
with its presets (training/config.py; `jaxcheckers train --help` lists them); both go through the
same run directories, progress, records, evaluations of the raw policy, checkpoints and resume
rules. A flag that the
chosen trainer has no setting for (--opponents with alphazero, --num-simulations with ppo) is
refused. config.json names the trainer ("algo"), so --resume needs no --algo.

The run directory gets config.json, metrics.jsonl (one line per update, evaluations merged in),
checkpoints/<update>/ (orbax, with checksums.json), and learning_curves.png at the end. A new run
never reuses a directory: --out must be new or empty, and runs/<timestamp> gets a -2, -3, ...
suffix when taken. --resume takes the run's own settings; of the flags, only --total-steps,
--eval-every, --eval-games, --eval-opponents and --checkpoint-every may change them (said on
the screen), any other that differs is refused. Ctrl-C saves a checkpoint and says how to
resume; a loss or parameter that is no longer finite stops the run before it is saved or scored.

Several hosts: start the same command on every host with --distributed; it calls
`jax.distributed.initialize()` (coordinator, process count and id from the cluster's environment,
e.g. SLURM or TPU pods, or JAX_COORDINATOR_ADDRESS, JAX_NUM_PROCESSES, JAX_PROCESS_ID), and the
game batch is then laid out over every device of every host (num_envs must divide by their
number). With several processes --out is required (one directory all of them reach), the first
process writes the records, and --resume is refused for now (training/README.md).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import sys
from pathlib import Path

import jax
from jax.experimental import multihost_utils
from jaxcheckers.training import REQUIRES  # checked by `jaxcheckers` before a run starts
from jaxcheckers.training.checkpoints import (
    RunCheckpoints,
    check_out,
    new_run_dir,
    read_config,
    run_lock,
    write_config,
)
from jaxcheckers.training.config import (
    ACCELERATOR_PRESETS,
    ALGORITHMS,
    MEASURED_RATES,
    algorithm_of,
    auto_preset,
    preset,
)
from jaxcheckers.training.evaluation import check_opponents, make_evaluators
from jaxcheckers.training.loop import Terminated, signals_held, sigterm_raises, train_loop
from jaxcheckers.training.records import CURVES_FILE, plot_learning_curves
from jaxcheckers.training.sharding import data_mesh
from jaxcheckers.training.trainer import make_trainer

from jaxcheckers.agents.networks import NETWORKS
from jaxcheckers.argtypes import (
    add_option_argument,
    checked_make,
    fraction,
    game_options,
    non_negative_float,
    non_negative_float_list,
    non_negative_int,
    positive_float,
    positive_int,
    positive_int_list,
    seed,
)
from jaxcheckers.games import names as game_names
from jaxcheckers.games import spec as game_spec

__all__ = ["add_arguments", "run", "REQUIRES"]

NO_LOCK = contextlib.nullcontext()  # the processes after the first: they write no records


# CLI flag -> (the config field's parser), for the overrides a user is most likely to want; a
# flag is refused where the chosen trainer's config has no such field.
OVERRIDES = {
    "num_envs": positive_int,
    "rollout_length": positive_int,
    "total_steps": positive_int,
    "learning_rate": positive_float,
    "entropy_coef": non_negative_float,
    "gamma": fraction,
    "gae_lambda": fraction,
    "num_epochs": positive_int,
    "num_minibatches": positive_int,
    "seed": seed,
    "eval_every": non_negative_int,
    "eval_games": positive_int,
    "checkpoint_every": non_negative_int,
    "opponent_fraction": fraction,
    "num_simulations": positive_int,
    "opening_plies": non_negative_int,
    "openings": str,  # checked by the trainer against the game's decks
    "conv_channels": positive_int,
    "conv_blocks": positive_int,
    "teacher": str,
    "init_params": str,
    "value_scale": positive_float,
    "random_move_prob": fraction,
    "player_weights": non_negative_float_list,
    "buffer_size": positive_int,
    "batch_size": positive_int,
    "gradient_steps": positive_int,
    "compute_dtype": str,  # checked by the config (training/precision.py)
}
# What `--resume` may change: how long the run goes on and what it records. Everything else
# shapes the run (its batch, network, optimizer, opponents): to change those, start a new run.
RESUME_MAY_CHANGE = (
    "total_steps",
    "eval_every",
    "eval_games",
    "eval_opponents",
    "checkpoint_every",
)


def agent_specs(text: str) -> tuple[str, ...]:
    specs = tuple(part.strip() for part in text.split(","))
    if not all(specs):
        raise argparse.ArgumentTypeError(f"expected agent specs separated by commas, got {text!r}")
    return specs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--algo",
        choices=sorted(ALGORITHMS),
        default=None,
        help="the trainer: ppo (default), alphazero (Gumbel MuZero search with mctx) or distill "
        "(a network learns a search's best moves, --teacher alphabeta:2)",
    )
    presets = sorted({name for _, named in ALGORITHMS.values() for name in named} | {"auto"})
    each = "; ".join(f"{algo}: {', '.join(named)}" for algo, (_, named) in ALGORITHMS.items())
    parser.add_argument(
        "--preset",
        choices=presets,
        default=None,
        help=f"a named configuration of the trainer ({each}; auto: the gpu preset for about "
        "five minutes where jax sees an accelerator, else quick; default: quick, a short CPU run)",
    )
    parser.add_argument(
        "--force-device",
        action="store_true",
        help=f"run a preset written for an accelerator ({', '.join(ACCELERATOR_PRESETS)}) on "
        "a CPU anyway",
    )
    parser.add_argument(
        "--game",
        choices=game_names(),
        default=None,
        help="the game to train on (default: the preset's, checkers)",
    )
    parser.add_argument("--board-size", type=positive_int, default=None, help="n of the n×n board")
    add_option_argument(parser)
    for name, kind in OVERRIDES.items():
        parser.add_argument("--" + name.replace("_", "-"), type=kind, default=None)
    parser.add_argument(
        "--hidden-sizes", type=positive_int_list, default=None, help="MLP widths, e.g. 256,256"
    )
    parser.add_argument("--network", choices=NETWORKS, default=None)
    parser.add_argument(
        "--opponent-sampling",
        choices=("groups", "league"),
        default=None,
        help="groups: a fixed share of the opponent games per opponent (default); league: "
        "each game's opponent drawn by the learner's running score against it",
    )
    parser.add_argument(
        "--opponents",
        type=agent_specs,
        default=None,
        help="opponent specs for the opponent share, e.g. snapshot,random",
    )
    parser.add_argument(
        "--eval-opponents",
        type=agent_specs,
        default=None,
        help="agent specs to evaluate against, e.g. random,alphabeta:2",
    )
    parser.add_argument(
        "--out", default=None, help="run directory, new or empty (default: runs/<timestamp>)"
    )
    parser.add_argument(
        "--resume",
        metavar="RUN_DIR",
        default=None,
        help="continue the run in RUN_DIR from its latest good checkpoint (--total-steps, "
        "--eval-* and --checkpoint-every may change; other settings are the run's own)",
    )
    parser.add_argument("--tensorboard", action="store_true", help="also write TensorBoard events")
    parser.add_argument("--no-progress", action="store_true", help="print lines, no progress bar")
    parser.add_argument(
        "--distributed",
        action="store_true",
        help="call jax.distributed.initialize() first (multi-host runs)",
    )


def _changes_from_args(args: argparse.Namespace, algo: str, game: str | None = None) -> dict:
    """The config fields the command line sets, by name, for the trainer `algo` (`game`: the
    run's, if known). ValueError for a flag that trainer has no setting for."""
    changes = {name: getattr(args, name) for name in OVERRIDES if getattr(args, name) is not None}
    chosen = ("hidden_sizes", "network", "opponent_sampling", "opponents", "eval_opponents")
    for name in chosen + ("game",):
        if getattr(args, name) is not None:
            changes[name] = getattr(args, name)
    kind, presets = ALGORITHMS[algo]
    fields = {spec.name for spec in dataclasses.fields(kind)}
    for name in changes:
        if name not in fields:
            raise ValueError(f"--{name.replace('_', '-')} is no setting of the {algo} trainer")
    if args.board_size is not None or args.option:
        name = args.preset or "quick"
        game = args.game or game or (presets[name].game if name in presets else "checkers")
        changes["env_options"] = game_options(args, game)
    return changes


def config_from_args(args: argparse.Namespace):
    """The config of a new run: the trainer's preset with the command line's changes."""
    return recipe_from_args(args, jax.default_backend())[1]


def recipe_from_args(args: argparse.Namespace, backend: str) -> tuple[str, object]:
    """(the preset's name, the config) of a new run on a device of `backend` ("cpu", "gpu",
    ...): `--preset auto` picks by the backend; ValueError for a preset written for an
    accelerator on a CPU without --force-device."""
    algo = args.algo or "ppo"
    name, defaults = args.preset or "quick", {}
    if name == "auto":
        name, defaults = auto_preset(algo, backend)
    config = preset(name, algo, **{**defaults, **_changes_from_args(args, algo)})
    if name in ACCELERATOR_PRESETS and backend == "cpu" and not args.force_device:
        raise ValueError(
            f"the {name} preset needs an accelerator and jax sees only a CPU: use --preset "
            "quick (or auto), or --force-device to run it here anyway"
        )
    return name, config


def start_line(config, devices: int, run_dir) -> str:
    """The line a run starts with: the game (and its options), the trainer, the batch."""
    game = " ".join([config.game, *([str(config.env_options)] if config.env_options else [])])
    return (
        f"training {game} with {algorithm_of(config)} on {devices} device(s): "
        f"{config.num_updates} updates of {config.num_envs} games x {config.rollout_length} "
        f"steps -> {run_dir}"
    )


def plan_line(config, recipe: str | None, backend: str, device: str) -> str:
    """One line: the device, the recipe and about how long the run's steps take there, from
    MEASURED_RATES (whole runs: compiles and evaluations in), where this recipe was measured."""
    algo = algorithm_of(config)
    steps = config.num_updates * config.steps_per_update
    where = f"on {device} ({backend})"
    if recipe is None:
        return f"{where}: the run's own settings, {steps:,} env steps in all"
    text = f"{where}: {algo} preset {recipe}, {steps:,} env steps"
    rates = MEASURED_RATES.get((algo, recipe, backend))
    # The rates were measured on the preset's own shapes: flags that change them void them.
    base = preset(recipe, algo)
    if config.replace(**{name: getattr(base, name) for name in RESUME_MAY_CHANGE}) != base:
        return f"{text}; its flags change what was timed: no estimate (the progress bar gives one)"
    if rates is None:
        return f"{text}; no measured rate for it on a {backend} yet (the progress bar shows one)"
    slowest, fastest = rates
    measured = f"~{slowest:,.0f}" if slowest == fastest else f"{slowest:,.0f}–{fastest:,.0f}"
    took = _duration_span(steps / fastest, steps / slowest)
    return f"{text}, {took} at the {measured} steps/s measured"


def _amount(seconds: float) -> tuple[str, str]:
    """A minute or more as (number, unit): minutes up to an hour and a half, then hours."""
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f}", "min"
    return f"{seconds / 3600:.1f}", "h"


def _duration(seconds: float) -> str:
    if seconds < 60:
        return "under a minute"
    number, unit = _amount(seconds)
    return f"about {number} {unit}"


def _duration_span(shortest: float, longest: float) -> str:
    """"about 1–3 min" for 61 and 179 seconds; one duration where both read alike."""
    low, high = _duration(shortest), _duration(longest)
    if low == high:
        return low
    if shortest >= 60:
        (a, unit), (b, other_unit) = _amount(shortest), _amount(longest)
        if unit == other_unit:
            return f"about {a}–{b} {unit}"
    return f"{low} to {high}"


def resumed_config(stored, args: argparse.Namespace) -> tuple[object, list[str]]:
    """The run's config with the command line's allowed changes, and a line for each change.

    ValueError for a flag that would change the shape of the run (say which and why), so that
    no flag is ever dropped without a word.
    """
    if args.out is not None:
        raise ValueError(f"--resume continues {args.resume} in place: --out cannot go with it")
    if args.preset is not None:
        raise ValueError("--resume continues the run's own settings: --preset cannot go with it")
    algo = algorithm_of(stored)
    if args.algo is not None and args.algo != algo:
        raise ValueError(f"--resume cannot change --algo {args.algo} (the run has {algo})")
    changes = _changes_from_args(args, algo, game=stored.game)
    if "env_options" in changes:
        changes["env_options"] = {**stored.env_options, **changes["env_options"]}
    refused = [
        _change_shown(name, value, getattr(stored, name), stored.game)
        for name, value in changes.items()
        if name not in RESUME_MAY_CHANGE and value != getattr(stored, name)
    ]
    if refused:
        raise ValueError(
            f"--resume cannot change {'; '.join(refused)}: only "
            + ", ".join("--" + n.replace("_", "-") for n in RESUME_MAY_CHANGE)
            + " may; start a new run to change the others"
        )
    applied = {
        k: v for k, v in changes.items() if k in RESUME_MAY_CHANGE and v != getattr(stored, k)
    }
    lines = [f"{k}: {_shown(getattr(stored, k))} -> {_shown(v)}" for k, v in applied.items()]
    return stored.replace(**applied), lines


def _shown(value) -> str:
    return ",".join(map(str, value)) if isinstance(value, tuple) else str(value)


def _change_shown(name: str, value, stored, game: str) -> str:
    """'--flag value (the run has stored)'; the env's options as the board size they set."""
    if name != "env_options":
        return f"--{name.replace('_', '-')} {_shown(value)} (the run has {_shown(stored)})"
    option = game_spec(game).size_option
    if option is None or set(value) != {option}:
        return f"the env options {value} (the run has {stored})"
    stored_size = getattr(game_spec(game).make(**stored), option)  # the default, if not set
    return f"--board-size {value.get(option)} (the run has {stored_size})"


def initialize_distributed() -> None:
    """`jax.distributed.initialize`, from JAX_COORDINATOR_ADDRESS, JAX_NUM_PROCESSES and
    JAX_PROCESS_ID when set (jax itself reads only the first), else from the cluster (SLURM,
    Open MPI, Kubernetes, TPU pods)."""

    def number(name: str) -> int | None:
        text = os.environ.get(name)
        if text is None:
            return None
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"{name} must be a whole number, got {text!r}") from None

    jax.distributed.initialize(
        num_processes=number("JAX_NUM_PROCESSES"), process_id=number("JAX_PROCESS_ID")
    )


def run(args: argparse.Namespace) -> int:
    if args.resume is not None and not args.resume.strip():
        raise ValueError("--resume needs the run directory to continue, got an empty path")
    if args.out is not None and not args.out.strip():
        raise ValueError("--out needs a directory, got an empty path")
    if args.distributed:
        initialize_distributed()

    several = jax.process_count() > 1
    if several and args.resume:
        raise ValueError("--resume is not supported with several processes yet")
    if several and args.out is None:
        raise ValueError(
            "several processes need --out: one run directory that every process can reach"
        )
    changes: list[str] = []
    backend, recipe = jax.default_backend(), None
    if args.resume:
        run_dir = Path(args.resume)
        config, changes = resumed_config(read_config(run_dir), args)
    else:
        recipe, config = recipe_from_args(args, backend)
        run_dir = None
        if args.out is not None:
            check_out(Path(args.out))

    # Everything that can refuse the settings runs before any file is written.
    checked_make(config.game, **config.env_options)  # an option the game lacks: one line
    mesh = data_mesh(jax.devices())
    # A resumed run's parameters come from its checkpoint: the network it started from
    # (--init-params) is not read again, and may be gone.
    trainer = make_trainer(config.replace(init_params="") if args.resume else config, mesh=mesh)
    check_opponents(trainer, args)
    evaluators = make_evaluators(trainer)
    if run_dir is None:
        if several:  # every process checked --out before the first one fills it
            multihost_utils.sync_global_devices("jaxcheckers train: --out checked")
        if jax.process_index() == 0:
            run_dir = new_run_dir(args.out)
            write_config(run_dir, config)
        else:
            run_dir = Path(args.out)

    # The first process holds the run directory while it trains (the others write no records).
    try:
        with sigterm_raises(), run_lock(run_dir) if jax.process_index() == 0 else NO_LOCK:
            print(plan_line(config, recipe, backend, str(jax.devices()[0])))
            return _train(trainer, run_dir, args, config, changes, mesh, evaluators)
    except Terminated:  # outside the loop, which says more: before it starts, or once it ended
        print(f"jaxcheckers train: terminated (SIGTERM); {run_dir} is let go", file=sys.stderr)
        return 143


def _train(trainer, run_dir: Path, args, config, changes: list[str], mesh, evaluators) -> int:
    """Restores the run (with --resume) and trains it to its end."""
    checkpoints = RunCheckpoints(run_dir)
    try:
        if args.resume and checkpoints.latest_step() is None:
            raise ValueError(
                f"{run_dir} has no checkpoint to resume from (stopped before its first one?): "
                "start it again without --resume"
            )
        state = jax.jit(trainer.init)(jax.random.PRNGKey(config.seed))
        if args.resume:
            state = checkpoints.restore_state(state)
            done = int(state.update_step)
            if done > config.num_updates:  # refused before config.json is rewritten
                raise ValueError(
                    f"--total-steps {config.total_steps} makes {config.num_updates} updates, "
                    f"fewer than the {done} {run_dir} has done: give more to train on"
                )
            print(f"resumed {run_dir} at update {done}")
            for line in changes:
                print(f"  changed from the command line: {line}")
            if changes:
                write_config(run_dir, config)
            if done >= config.num_updates:
                print(
                    f"the run is complete ({done} of {config.num_updates} updates); "
                    "--total-steps makes it longer"
                )
                if not (run_dir / CURVES_FILE).exists():  # stopped as it was drawing them
                    print(f"curves: {plot_learning_curves(run_dir)}")
                return 0
        print(start_line(config, mesh.devices.size, run_dir))
        return train_loop(trainer, state, checkpoints, run_dir, args, evaluators)
    finally:
        with signals_held(deliver=True):  # orbax's threads, interrupted, would hang
            checkpoints.close()
