"""`jaxcheckers train`: self-play with a progress bar, metrics, evaluations and checkpoints.

    jaxcheckers train                          # PPO, the quick CPU preset, into runs/<timestamp>
    jaxcheckers train --preset gpu --num-envs 8192
    jaxcheckers train --algo alphazero --game tictactoe    # search-guided self-play (mctx)
    jaxcheckers train --resume runs/20260101-120000

`--algo` picks the trainer: `ppo` (training/ppo.py, presets quick, long, hour, gpu) or `alphazero`
(training/alphazero.py, presets quick, long); both go through the same run directories,
progress, records, evaluations of the raw policy, checkpoints and resume rules. A flag that the
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
import math
import sys
import time
from pathlib import Path

from jaxcheckers.training.config import ALGORITHMS, algorithm_of

from jaxcheckers.agents.networks import NETWORKS
from jaxcheckers.argtypes import (
    fraction,
    non_negative_float,
    non_negative_int,
    positive_float,
    positive_int,
    positive_int_list,
    seed,
)
from jaxcheckers.games import names as game_names

__all__ = ["add_arguments", "run", "REQUIRES"]

# What a run imports beyond jax (the `training` extra), checked by `jaxcheckers` before it starts.
REQUIRES = ("flax", "optax", "orbax.checkpoint", "chex", "tqdm", "matplotlib")

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
    "conv_channels": positive_int,
    "conv_blocks": positive_int,
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


def _specs(text: str) -> tuple[str, ...]:
    specs = tuple(part.strip() for part in text.split(","))
    if not all(specs):
        raise argparse.ArgumentTypeError(f"expected agent specs separated by commas, got {text!r}")
    return specs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--algo",
        choices=sorted(ALGORITHMS),
        default=None,
        help="the trainer: ppo (default) or alphazero (Gumbel MuZero search with mctx)",
    )
    presets = sorted({name for _, named in ALGORITHMS.values() for name in named})
    parser.add_argument(
        "--preset",
        choices=presets,
        default=None,
        help="a named configuration of the trainer (default: quick, a few minutes on a CPU)",
    )
    parser.add_argument(
        "--game",
        choices=game_names(),
        default=None,
        help="the game to train on (default: the preset's, checkers)",
    )
    parser.add_argument("--board-size", type=positive_int, default=None, help="n of the n×n board")
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
        type=_specs,
        default=None,
        help="opponent specs for the opponent share, e.g. snapshot,random",
    )
    parser.add_argument(
        "--eval-opponents",
        type=_specs,
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
    import dataclasses

    from jaxcheckers.argtypes import size_options

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
    if args.board_size is not None:
        name = args.preset or "quick"
        game = args.game or game or (presets[name].game if name in presets else "checkers")
        changes["env_options"] = size_options(game, args.board_size)
    return changes


def config_from_args(args: argparse.Namespace):
    """The config of a new run: the trainer's preset with the command line's changes."""
    from jaxcheckers.training.config import preset

    algo = args.algo or "ppo"
    return preset(args.preset or "quick", algo, **_changes_from_args(args, algo))


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
    flags = {"env_options": "board-size"}
    refused = [
        f"--{flags.get(name, name.replace('_', '-'))} {_shown(value)} "
        f"(the run has {_shown(getattr(stored, name))})"
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


def _check_out(path: Path) -> None:
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise ValueError(
            f"--out {path} is not an empty directory (an earlier run?): continue that run "
            f"with --resume {path}, or choose another --out"
        )


def new_run_dir(out: str | None) -> Path:
    """The directory of a new run: `out` if it is new or empty, else a fresh runs/<timestamp>.

    Never an earlier run's directory: its config, checkpoints and metrics would be overwritten
    or mixed with this run's. Two runs started in the same second get runs/<stamp> and
    runs/<stamp>-2 (the directory is claimed with an exclusive mkdir).
    """
    if out is not None:
        path = Path(out)
        _check_out(path)
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


class TrainingDiverged(ValueError):
    """The loss or the parameters stopped being finite numbers."""


def initialize_distributed() -> None:
    """`jax.distributed.initialize`, from JAX_COORDINATOR_ADDRESS, JAX_NUM_PROCESSES and
    JAX_PROCESS_ID when set (jax itself reads only the first), else from the cluster (SLURM,
    Open MPI, Kubernetes, TPU pods)."""
    import os

    import jax

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
    import jax

    if args.distributed:
        initialize_distributed()

    import importlib

    from jaxcheckers.training.checkpoints import RunCheckpoints, read_config, write_config
    from jaxcheckers.training.sharding import data_mesh

    several = jax.process_count() > 1
    if several and args.resume:
        raise ValueError("--resume is not supported with several processes yet")
    if several and args.out is None:
        raise ValueError(
            "several processes need --out: one run directory that every process can reach"
        )
    changes: list[str] = []
    if args.resume:
        run_dir = Path(args.resume)
        config, changes = resumed_config(read_config(run_dir), args)
    else:
        config = config_from_args(args)
        run_dir = None
        if args.out is not None:
            _check_out(Path(args.out))

    # Everything that can refuse the settings runs before any file is written.
    mesh = data_mesh(jax.devices())
    trainer_module = importlib.import_module(f"jaxcheckers.training.{algorithm_of(config)}")
    trainer = trainer_module.make_trainer(config, mesh=mesh)
    check_opponents(trainer, args)
    evaluators = make_evaluators(trainer)
    if run_dir is None:
        if several:  # every process checked --out before the first one fills it
            from jax.experimental import multihost_utils

            multihost_utils.sync_global_devices("jaxcheckers train: --out checked")
        if jax.process_index() == 0:
            run_dir = new_run_dir(args.out)
            write_config(run_dir, config)
        else:
            run_dir = Path(args.out)

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
                return 0
        print(
            f"training {config.game} {config.env_options or ''} with {algorithm_of(config)} on "
            f"{mesh.devices.size} "
            f"device(s): {config.num_updates} updates of {config.num_envs} games x "
            f"{config.rollout_length} steps -> {run_dir}"
        )
        return train_loop(trainer, state, checkpoints, run_dir, args, evaluators)
    finally:
        checkpoints.close()


def train_loop(trainer, state, checkpoints, run_dir: Path, args, evaluators: dict) -> int:
    """Runs the updates left; 0 when done, 130 after Ctrl-C (the state saved first).

    TrainingDiverged (a ValueError: one line from the CLI) as soon as a loss or a parameter is
    not finite: the rows that show it are written, but nothing from then on is saved or
    evaluated.
    """
    import jax
    from jaxcheckers.training.records import MetricsLog, plot_learning_curves
    from tqdm import tqdm

    config = trainer.config
    first = done = int(state.update_step)
    # With several processes, the first one writes the records and shows the progress.
    primary = jax.process_index() == 0
    if primary:
        log = MetricsLog(run_dir, tensorboard=args.tensorboard, keep_through=done)
    else:
        log = _NoLog(done)
    if log.dropped:
        print(f"metrics.jsonl: dropped {log.dropped} rows after update {done}, the checkpoint's")
    progress = tqdm(
        total=config.num_updates * config.steps_per_update,
        initial=done * config.steps_per_update,
        unit="step",
        unit_scale=True,
        disable=args.no_progress or not primary,
        dynamic_ncols=True,
    )
    started = time.time()
    latest_eval: dict[str, float] = {}
    metrics = None  # of the chunk in flight, until its rows are written
    try:
        while done < config.num_updates:
            chunk = min(config.log_every, config.num_updates - done)
            state, metrics = trainer.run_updates(state, chunk)
            rows = _new_rows(metrics, log.last_update, started)
            previous, done = done, rows[-1]["update"]
            _check_finite(rows, state, log, checkpoints)
            if _crossed(previous, done, config.eval_every) or done == config.num_updates:
                latest_eval = evaluate(evaluators, state.params, done)
                rows[-1].update(latest_eval)
            for row in rows:
                log.write(row)
            metrics = None
            if _crossed(previous, done, config.checkpoint_every) or done == config.num_updates:
                checkpoints.save(done, state)

            summary = _summary(rows[-1], latest_eval)
            progress.set_postfix(summary, refresh=False)
            progress.update((done - previous) * config.steps_per_update)
            if args.no_progress and primary:
                text = " ".join(f"{k}={v}" for k, v in summary.items())
                print(f"update {done}/{config.num_updates} {text}", flush=True)
    except KeyboardInterrupt:
        progress.close()
        return _save_on_interrupt(log, metrics, state, checkpoints, run_dir, started)
    finally:
        progress.close()
        log.close()
    if not primary:
        return 0
    png = plot_learning_curves(run_dir)
    elapsed = time.time() - started
    steps = (done - first) * config.steps_per_update
    print(
        f"done in {elapsed:.0f} s ({steps / max(elapsed, 1e-9):,.0f} env steps/s incl. eval); "
        f"curves: {png}; policy: {run_dir}"
    )
    for name, value in sorted(latest_eval.items()):
        print(f"  {name} = {value:.3f}")
    return 0


class _NoLog:
    """The metrics log of a process that does not write one (not the first of several)."""

    dropped = 0

    def __init__(self, last_update: int):
        self.last_update = last_update

    def write(self, row: dict) -> None:
        self.last_update = max(self.last_update, int(row.get("update", 0)))

    def close(self) -> None:
        pass


def _new_rows(metrics, logged: int, started: float) -> list[dict]:
    """One row per update of `metrics` (a chunk's, stacked) after update `logged`."""
    import jax

    metrics = jax.device_get(metrics)
    count = len(metrics["update"])
    rows = [{name: _plain(values[i]) for name, values in metrics.items()} for i in range(count)]
    rows[-1]["time_s"] = round(time.time() - started, 2)
    return [row for row in rows if row["update"] > logged]


def _check_finite(rows: list[dict], state, log, checkpoints) -> None:
    """TrainingDiverged, after writing `rows`, unless every loss and parameter is finite."""
    import jax
    import numpy as np

    bad = [row for row in rows if not all(map(math.isfinite, _losses(row)))]
    params_ok = all(bool(np.isfinite(leaf).all()) for leaf in jax.tree.leaves(state.params))
    if not bad and params_ok:
        return
    for row in rows:
        log.write(row)
    where = (
        f"the loss is {bad[0]['loss']} at update {bad[0]['update']}"
        if bad
        else f"the parameters are not finite after update {rows[-1]['update']}"
    )
    good = checkpoints.latest_step()
    raise TrainingDiverged(
        f"training diverged: {where}; stopped without saving or evaluating those parameters "
        f"(last checkpoint: {'none' if good is None else f'update {good}'}); try a lower "
        "--learning-rate"
    )


def _losses(row: dict) -> list[float]:
    return [value for name, value in row.items() if "loss" in name]


def _save_on_interrupt(log, metrics, state, checkpoints, run_dir, started) -> int:
    """Ctrl-C: record the chunk in flight (the device finishes it anyway), save the state, and
    say how to go on."""
    try:
        if metrics is not None:
            rows = _new_rows(metrics, log.last_update, started)
            _check_finite(rows, state, log, checkpoints)
            for row in rows:
                log.write(row)
        done = int(state.update_step)
        if checkpoints.latest_step() != done:
            checkpoints.save(done, state)
    except TrainingDiverged:
        raise
    except Exception as error:  # e.g. the state's buffers went to the update Ctrl-C stopped
        good = checkpoints.latest_step()
        print(
            f"interrupted; the latest state could not be saved ({type(error).__name__}): "
            f"continue from update {good} with: jaxcheckers train --resume {run_dir}",
            file=sys.stderr,
        )
        return 130
    print(
        f"interrupted at update {done}, saved: continue with: jaxcheckers train --resume {run_dir}",
        file=sys.stderr,
    )
    return 130


def _summary(last: dict, latest_eval: dict) -> dict:
    summary = {
        "loss": f"{last['loss']:.3f}",
        "ent": f"{last['entropy']:.2f}",
        "len": f"{last['game_length']:.0f}",
    }
    # The score (a draw counts half), the figure the READMEs and the arena report.
    for key, value in latest_eval.items():
        if key.endswith("/score"):
            spec = key.removeprefix("eval/").removesuffix("/score")  # a spec may hold a "/"
            summary[f"score/{spec}"] = f"{value:.2f}"
    return summary


def check_opponents(trainer, args) -> None:
    """ValueError for an opponent spec that names no agent, used or not; a note when unused."""
    from jaxcheckers.agents import make_agent

    config = trainer.config
    for spec in getattr(config, "opponents", ()):  # the search trainer has none
        if spec != "snapshot":
            try:
                make_agent(spec, trainer.env)
            except (ValueError, AttributeError, NotImplementedError) as error:
                raise ValueError(f"opponent {spec!r}: {error}") from None
    if getattr(args, "opponents", None) is not None and not getattr(config, "num_opponent_envs", 0):
        print("note: --opponents plays no game while --opponent-fraction is 0")


def make_evaluators(trainer) -> dict:
    """One jitted evaluator per evaluation opponent; ValueError naming a spec that cannot play."""
    from jaxcheckers.training.evaluation import make_policy_evaluator

    from jaxcheckers.agents import make_agent

    config = trainer.config
    if not config.eval_every:
        return {}
    evaluators = {}
    for spec in config.eval_opponents:
        try:
            opponent = make_agent(spec, trainer.env)
        except (ValueError, AttributeError, NotImplementedError) as error:
            # e.g. a typo, or an agent written for checkers only, asked to play another game
            raise ValueError(
                f"evaluation opponent {spec!r}: {error} (choose others with --eval-opponents)"
            ) from None
        evaluators[spec] = make_policy_evaluator(
            trainer.env,
            trainer.network.apply,
            opponent,
            config.eval_games,
            opening_plies=config.eval_opening_plies,
        )
    return evaluators


def evaluate(evaluators: dict, params, update: int) -> dict[str, float]:
    import jax
    from jaxcheckers.training.evaluation import summarize

    results = {}
    for spec, evaluator in evaluators.items():
        key = jax.random.fold_in(jax.random.PRNGKey(12345), update)
        outcome = summarize(evaluator(params, key))
        games = max(outcome.games, 1)
        results[f"eval/{spec}/win_rate"] = outcome.wins / games
        results[f"eval/{spec}/draw_rate"] = outcome.draws / games
        results[f"eval/{spec}/loss_rate"] = outcome.losses / games
        results[f"eval/{spec}/score"] = outcome.score
    return results


def _crossed(previous: int, now: int, every: int) -> bool:
    """Whether a multiple of `every` lies in (previous, now]."""
    return bool(every) and now // every > previous // every


def _plain(value):
    """A JSON-ready Python number from a numpy scalar."""
    return value.item() if hasattr(value, "item") else value
