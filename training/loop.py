"""The training loop of `jaxcheckers train`: chunks of jitted updates, their metrics written,
evaluations and checkpoints on schedule, a stop on a loss that is no longer finite, and Ctrl-C
saved."""

from __future__ import annotations

import contextlib
import math
import signal
import sys
import threading
import time
from pathlib import Path

import jax
import numpy as np
from jaxcheckers.training.evaluation import evaluate
from jaxcheckers.training.records import MetricsLog, plot_learning_curves
from tqdm import tqdm

__all__ = ["train_loop", "TrainingDiverged", "Terminated", "sigterm_raises", "signals_held"]


class TrainingDiverged(ValueError):
    """The loss or the parameters stopped being finite numbers."""


class Terminated(KeyboardInterrupt):
    """SIGTERM (what a cluster scheduler sends before it preempts a job) was received: stop as
    Ctrl-C does, saving first."""


@contextlib.contextmanager
def sigterm_raises():
    """SIGTERM raises `Terminated` within (main thread only), so that what holds the run (its
    lock) is let go as on Ctrl-C; SIGTERM's default would end the process at once. The loop
    notes it instead while it trains, and stops where the state is whole."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame) -> None:
        raise Terminated

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class _Sigterm:
    """Notes a SIGTERM in the main thread; the loop stops at the end of the chunk in flight,
    where the state is whole (an exception raised inside an update would leave its donated
    buffers deleted)."""

    def __init__(self):
        self.received = False
        self.previous = None
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGTERM, self._note)

    def _note(self, signum, frame) -> None:
        self.received = True

    def restore(self) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGTERM, self.previous)


def train_loop(trainer, state, checkpoints, run_dir: Path, args, evaluators: dict) -> int:
    """Runs the updates left; 0 when done, 130 after Ctrl-C and 143 after SIGTERM (the state
    saved first, either way).

    TrainingDiverged (a ValueError: one line from the CLI) as soon as a loss or a parameter is
    not finite: the rows that show it are written, but nothing from then on is saved or
    evaluated.
    """

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
    sigterm = _Sigterm()
    try:  # SIGTERM is noted until the run's last line
        try:
            while done < config.num_updates:
                chunk = min(config.log_every, config.num_updates - done)
                # The call donates `state` and returns at once (the chunk runs on): a signal in
                # between would leave neither state, so it is delivered once both are swapped.
                # Not in the first call, whose tracing a Ctrl-C may stop: nothing is lost there.
                with signals_held(deliver=True) if done > first else contextlib.nullcontext():
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
                    with signals_held(deliver=True):
                        checkpoints.save(done, state)

                summary = _summary(rows[-1], latest_eval)
                progress.set_postfix(summary, refresh=False)
                progress.update((done - previous) * config.steps_per_update)
                if args.no_progress and primary:
                    text = " ".join(f"{k}={v}" for k, v in summary.items())
                    print(f"update {done}/{config.num_updates} {text}", flush=True)
                if sigterm.received and done < config.num_updates:
                    raise Terminated
        except KeyboardInterrupt as stop:
            progress.close()
            with signals_held(deliver=False):  # a second signal while saving would lose the save
                status = _save_on_interrupt(log, metrics, state, checkpoints, run_dir, started)
            return 143 if isinstance(stop, Terminated) and status == 130 else status
        finally:
            progress.close()
            log.close()
        # The run is complete and saved: a signal now (or in its last chunk) lets the curves be
        # drawn first, so that no complete run is left without them.
        with signals_held(deliver=False) as received:
            if primary:
                _report(run_dir, started, (done - first) * config.steps_per_update, latest_eval)
    finally:
        sigterm.restore()
    if sigterm.received:
        received.insert(0, signal.SIGTERM)
    if not received:
        return 0
    print(
        f"{signal.Signals(received[0]).name} received as the run ended: the run is complete "
        f"(update {done}), saved, and its curves are drawn",
        file=sys.stderr,
    )
    return 143 if received[0] == signal.SIGTERM else 130


def _report(run_dir: Path, started: float, steps: int, latest_eval: dict) -> None:
    """The curves drawn, and the run's last lines."""
    png = plot_learning_curves(run_dir)
    elapsed = time.time() - started
    print(
        f"done in {elapsed:.0f} s ({steps / max(elapsed, 1e-9):,.0f} env steps/s incl. eval); "
        f"curves: {png}; policy: {run_dir}"
    )
    for name, value in sorted(latest_eval.items()):
        print(f"  {name} = {value:.3f}")


class _NoLog:
    """The metrics log of a process that does not write one (not the first of several)."""

    dropped = 0

    def __init__(self, last_update: int):
        self.last_update = last_update

    def write(self, row: dict) -> None:
        self.last_update = max(self.last_update, int(row.get("update", 0)))

    def close(self) -> None:
        pass


@contextlib.contextmanager
def signals_held(deliver: bool):
    """SIGINT and SIGTERM held off within (main thread only), so that a save runs to its end;
    after it the first one received is delivered to the handler it would have reached
    (`deliver`), or dropped; yields the list of those received. A KeyboardInterrupt inside
    orbax's write left its threads waiting on each other and the process hung."""
    if threading.current_thread() is not threading.main_thread():
        yield []
        return
    received: list[int] = []

    def note(signum, frame) -> None:
        received.append(signum)

    previous = {sig: signal.signal(sig, note) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield received
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if deliver and received:
        signal.raise_signal(received[0])


def _new_rows(metrics, logged: int, started: float) -> list[dict]:
    """One row per update of `metrics` (a chunk's, stacked) after update `logged`."""

    metrics = jax.device_get(metrics)
    count = len(metrics["update"])
    rows = [{name: _plain(values[i]) for name, values in metrics.items()} for i in range(count)]
    rows[-1]["time_s"] = round(time.time() - started, 2)
    return [row for row in rows if row["update"] > logged]


def _check_finite(rows: list[dict], state, log, checkpoints) -> None:
    """TrainingDiverged, after writing `rows`, unless every loss and parameter is finite."""

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
        # "-" where no game ended in the update (draughts' games outlast a short rollout): its
        # mean length is not 0.
        "len": f"{last['game_length']:.0f}" if last.get("games", 1) else "-",
    }
    # The score (a draw counts half), the figure the READMEs and the arena report.
    for key, value in latest_eval.items():
        if key.endswith("/score"):
            spec = key.removeprefix("eval/").removesuffix("/score")  # a spec may hold a "/"
            summary[f"score/{spec}"] = f"{value:.2f}"
    return summary


def _crossed(previous: int, now: int, every: int) -> bool:
    """Whether a multiple of `every` lies in (previous, now]."""
    return bool(every) and now // every > previous // every


def _plain(value):
    """A JSON-ready Python number from a numpy scalar."""
    return value.item() if hasattr(value, "item") else value
