"""`jaxcheckers train`: PPO self-play with a progress bar, metrics, evaluations and checkpoints.

    jaxcheckers train                          # the quick CPU preset, into runs/<timestamp>
    jaxcheckers train --preset gpu --num-envs 8192
    jaxcheckers train --resume runs/20260101-120000

The run directory gets config.json, metrics.jsonl (one line per update, evaluations merged in),
checkpoints/<update>/ (orbax), and learning_curves.png at the end.

Several hosts: start the same command on every host with --distributed; it calls
`jax.distributed.initialize()` (coordinator, process count and id from the cluster's environment,
e.g. SLURM or TPU pods, or JAX_COORDINATOR_ADDRESS, JAX_NUM_PROCESSES, JAX_PROCESS_ID), and the
game batch is then laid out over every device of every host (num_envs must divide by their
number).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from jaxcheckers.training.config import PRESETS

__all__ = ["add_arguments", "run", "REQUIRES"]

# What a run imports beyond jax (the `training` extra), checked by `jaxcheckers` before it starts.
REQUIRES = ("flax", "optax", "orbax.checkpoint", "chex", "tqdm", "matplotlib")

# CLI flag -> TrainConfig field, for the overrides a user is most likely to want.
OVERRIDES = {
    "num_envs": int,
    "rollout_length": int,
    "total_steps": int,
    "learning_rate": float,
    "seed": int,
    "eval_every": int,
    "eval_games": int,
    "checkpoint_every": int,
    "opponent_fraction": float,
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--preset",
        choices=sorted(PRESETS),
        default="quick",
        help="a named configuration (default: quick, a few minutes on a CPU)",
    )
    parser.add_argument(
        "--game",
        choices=("checkers", "tictactoe"),
        default=None,
        help="the game to train on (default: the preset's, checkers)",
    )
    parser.add_argument("--board-size", type=int, default=None, help="checkers: n of the n×n board")
    for name, kind in OVERRIDES.items():
        parser.add_argument("--" + name.replace("_", "-"), type=kind, default=None)
    parser.add_argument(
        "--hidden-sizes",
        type=lambda text: tuple(int(w) for w in text.split(",")),
        default=None,
        help="MLP widths, e.g. 256,256",
    )
    parser.add_argument("--network", choices=("mlp", "conv"), default=None)
    parser.add_argument(
        "--opponents",
        type=lambda text: tuple(text.split(",")),
        default=None,
        help="opponent specs for the opponent share, e.g. snapshot,random",
    )
    parser.add_argument(
        "--eval-opponents",
        type=lambda text: tuple(text.split(",")),
        default=None,
        help="agent specs to evaluate against, e.g. random,alphabeta:2",
    )
    parser.add_argument("--out", default=None, help="run directory (default: runs/<timestamp>)")
    parser.add_argument(
        "--resume",
        metavar="RUN_DIR",
        default=None,
        help="continue the run in RUN_DIR from its latest checkpoint",
    )
    parser.add_argument("--tensorboard", action="store_true", help="also write TensorBoard events")
    parser.add_argument("--no-progress", action="store_true", help="print lines, no progress bar")
    parser.add_argument(
        "--distributed",
        action="store_true",
        help="call jax.distributed.initialize() first (multi-host runs)",
    )


def config_from_args(args: argparse.Namespace):
    from jaxcheckers.training.config import preset

    changes = {name: getattr(args, name) for name in OVERRIDES if getattr(args, name) is not None}
    for name in ("hidden_sizes", "network", "opponents", "eval_opponents"):
        if getattr(args, name) is not None:
            changes[name] = getattr(args, name)
    if args.game is not None:
        changes["game"] = args.game
    if args.board_size is not None:
        changes["env_options"] = {"board_size": args.board_size}
    return preset(args.preset, **changes)


def run(args: argparse.Namespace) -> int:
    import jax

    if args.distributed:
        jax.distributed.initialize()

    from jaxcheckers.training.checkpoints import RunCheckpoints, read_config, write_config
    from jaxcheckers.training.ppo import data_mesh, make_trainer

    if args.resume:
        run_dir = Path(args.resume)
        config = read_config(run_dir)
    else:
        config = config_from_args(args)
        run_dir = Path(args.out or Path("runs") / time.strftime("%Y%m%d-%H%M%S"))
        write_config(run_dir, config)

    mesh = data_mesh(jax.devices())
    trainer = make_trainer(config, mesh=mesh)
    checkpoints = RunCheckpoints(run_dir)
    state = jax.jit(trainer.init)(jax.random.PRNGKey(config.seed))
    if args.resume:
        state = checkpoints.restore_state(state)
        print(f"resumed {run_dir} at update {int(state.update_step)}")
    print(
        f"training {config.game} {config.env_options or ''} on {mesh.devices.size} device(s): "
        f"{config.num_updates} updates of {config.num_envs} games x {config.rollout_length} steps "
        f"-> {run_dir}"
    )
    try:
        train_loop(trainer, state, checkpoints, run_dir, args)
    finally:
        checkpoints.close()
    return 0


def train_loop(trainer, state, checkpoints, run_dir: Path, args) -> None:
    import jax
    import numpy as np
    from jaxcheckers.training.records import MetricsLog, plot_learning_curves
    from tqdm import tqdm

    config = trainer.config
    evaluators = make_evaluators(trainer)
    log = MetricsLog(run_dir, tensorboard=args.tensorboard)
    done = int(state.update_step)
    progress = tqdm(
        total=config.num_updates * config.steps_per_update,
        initial=done * config.steps_per_update,
        unit="step",
        unit_scale=True,
        disable=args.no_progress,
        dynamic_ncols=True,
    )
    started = time.time()
    latest_eval: dict[str, float] = {}
    while done < config.num_updates:
        chunk = min(config.log_every, config.num_updates - done)
        state, metrics = trainer.run_updates(state, chunk)
        metrics = jax.device_get(metrics)
        previous, done = done, int(state.update_step)
        rows = [{name: _plain(values[i]) for name, values in metrics.items()} for i in range(chunk)]
        rows[-1]["time_s"] = round(time.time() - started, 2)

        if _crossed(previous, done, config.eval_every) or done == config.num_updates:
            latest_eval = evaluate(evaluators, state.params, done)
            rows[-1].update(latest_eval)
        for row in rows:
            log.write(row)
        if _crossed(previous, done, config.checkpoint_every) or done == config.num_updates:
            checkpoints.save(done, state)

        last = rows[-1]
        summary = {
            "loss": f"{last['loss']:.3f}",
            "ent": f"{last['entropy']:.2f}",
            "len": f"{last['game_length']:.0f}",
        }
        summary.update(
            {k.split("/")[1]: f"{v:.2f}" for k, v in latest_eval.items() if k.endswith("win_rate")}
        )
        progress.set_postfix(summary, refresh=False)
        progress.update(chunk * config.steps_per_update)
        if args.no_progress:
            print(
                f"update {done}/{config.num_updates} "
                + " ".join(f"{k}={v}" for k, v in summary.items()),
                flush=True,
            )
    progress.close()
    log.close()
    png = plot_learning_curves(run_dir)
    elapsed = time.time() - started
    steps = np.int64(config.num_updates) * config.steps_per_update
    print(
        f"done in {elapsed:.0f} s ({steps / max(elapsed, 1e-9):,.0f} env steps/s incl. eval); "
        f"curves: {png}; policy: {run_dir}"
    )
    for name, value in sorted(latest_eval.items()):
        print(f"  {name} = {value:.3f}")


def make_evaluators(trainer) -> dict:
    """One jitted evaluator per evaluation opponent that exists; a message for the others."""
    from jaxcheckers.training.evaluation import make_policy_evaluator

    from jaxcheckers.agents import make_agent

    config = trainer.config
    if not config.eval_every:
        return {}
    evaluators = {}
    for spec in config.eval_opponents:
        try:
            opponent = make_agent(spec, trainer.env)
        except (ValueError, ImportError, AttributeError, NotImplementedError) as error:
            # e.g. an agent written for checkers only, asked to play another game
            print(f"evaluation against {spec!r} skipped: {error}")
            continue
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
