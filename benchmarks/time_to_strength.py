"""Time to strength: a trainer's raw policy scored against fixed agents at marks of wall-clock.

    .venv/bin/python -m benchmarks.time_to_strength --preset quick --minutes 5 --marks 60 120 180
    .venv/bin/python -m benchmarks.time_to_strength --algo alphazero --preset quick --minutes 3
    .venv/bin/python -m benchmarks.time_to_strength --plot     # the figure, from the JSON alone

Trains the preset on the default device (a GPU where jax sees one) in chunks of jitted updates.
After the first chunk that ends past a mark, the greedy raw policy plays `--eval-games` games
against each agent of `--against` (half in each seat, `--eval-opening-plies` random plies
first, the same openings at every mark), through the arena's match runner.

The clock: `wall_s` counts from the start of the process (interpreter, imports and every compile
included) with the evaluations' time taken out, so a mark is training time alone; the time
spent evaluating (their compiles included) is recorded beside it as `eval_s`, and `elapsed_s`
is the plain wall-clock. Training stops at `--minutes` of that clock or at the preset's last
update, whichever comes first, and is scored once more there. Where the clock goes before the
first update ends is recorded as `startup`: that moment's clock, and the seconds JAX spent
tracing, lowering and compiling each program until then (`CompileLog`).

Results go to benchmarks/results/time_to_strength_<device>.json, one entry per label (by default
the algorithm and preset, with any overrides), merged into what the file already holds and
written at every point; a label the file holds already is refused before training unless the
run is resumed or `--replace` is given. `--plot` (and `python -m benchmarks.report`) draws every
entry of every such file as score against minutes into time_to_strength.png. `--run-dir` also
leaves a run directory (config.json, metrics.jsonl, the points, the last checkpoint) that
`--resume` goes on with (a SIGTERM or a first Ctrl-C stops the run after the chunk in flight
and still saves it),
as does `jaxcheckers train --resume`; `ppo:DIR` plays its network.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import os
import re
import shlex
import signal
import sys
import time
from pathlib import Path
from signal import SIGINT, SIGTERM

import jax
from jaxcheckers.training.checkpoints import check_out, read_config
from jaxcheckers.training.cli import OVERRIDES, agent_specs
from jaxcheckers.training.config import ALGORITHMS, algorithm_of, config_to_json, preset
from jaxcheckers.training.evaluation import make_policy_evaluator, play_on
from jaxcheckers.training.trainer import make_trainer

from benchmarks.common import RESULTS_DIR, machine
from jaxcheckers import games
from jaxcheckers.agents import make_agent
from jaxcheckers.argtypes import (
    check_writable,
    check_writable_folder,
    non_negative_int,
    positive_float,
    positive_int,
    positive_int_list,
)
from jaxcheckers.ratings import summarize

PLOT = RESULTS_DIR / "time_to_strength.png"
# Overrides that only change what the run records, not what it trains: kept out of the label.
_NOT_TRAINING = ("eval_every", "eval_games", "checkpoint_every")
# Config fields passed through beside the train CLI's OVERRIDES.
_MORE = ("game", "network", "hidden_sizes", "opponents")


def process_started() -> float:
    """The wall-clock time (time.time()) this process started, from /proc where there is one;
    else now (then the interpreter's start and the imports are not counted)."""
    try:
        ticks = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
        uptime = float(Path("/proc/uptime").read_text().split()[0])
        return time.time() - uptime + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return time.time()


# JAX's events (jax.monitoring) for the three stages of making a program, and their names here.
_COMPILE_EVENTS = {
    "/jax/core/compile/jaxpr_trace_duration": "trace_s",
    "/jax/core/compile/jaxpr_to_mlir_module_duration": "lower_s",
    "/jax/core/compile/backend_compile_duration": "compile_s",  # a persistent-cache hit too
}


class CompileLog:
    """While `on`, the seconds JAX spends tracing, lowering and compiling, by program name. It
    listens for the process's life (jax.monitoring cannot drop a listener): `compile_log()`."""

    def __init__(self):
        self.on = False
        self.seconds: dict[str, dict[str, float]] = {}
        jax.monitoring.register_event_duration_secs_listener(self._heard)

    def _heard(self, event: str, seconds: float, **metadata) -> None:
        stage = _COMPILE_EVENTS.get(event)
        if self.on and stage is not None:
            name = re.sub(r"^jit[(_]|\)$", "", str(metadata.get("fun_name", "?")))
            by_stage = self.seconds.setdefault(name, {})
            by_stage[stage] = by_stage.get(stage, 0.0) + seconds

    def largest(self, at_least: float = 0.1) -> dict[str, dict[str, float]]:
        """The programs that took `at_least` seconds in all, largest first, rounded."""
        total = {name: sum(stages.values()) for name, stages in self.seconds.items()}
        names = sorted((n for n in total if total[n] >= at_least), key=total.get, reverse=True)
        return {n: {k: round(v, 2) for k, v in self.seconds[n].items()} for n in names}


@functools.cache
def compile_log() -> CompileLog:
    return CompileLog()


def device_name() -> str:
    """The default device's kind as a file-name part: "cpu", "nvidia_h200", ..."""
    kind = jax.devices()[0].device_kind
    return re.sub(r"[^a-z0-9]+", "_", kind.lower()).strip("_") or "unknown"


def results_path(device: str) -> Path:
    return RESULTS_DIR / f"time_to_strength_{device}.json"


def make_scorers(trainer, against, games: int, opening_plies: int) -> dict:
    """One jitted `(params, key) -> scores [games]` per agent spec; ValueError naming a spec that
    cannot play this game."""
    scorers = {}
    for spec in against:
        try:
            opponent = make_agent(spec, trainer.env)
        except (ValueError, AttributeError, NotImplementedError) as error:
            raise ValueError(f"--against {spec!r}: {error}") from None
        scorers[spec] = make_policy_evaluator(
            trainer.env, trainer.network.apply, opponent, games, opening_plies=opening_plies
        )
    return scorers


def score(scorers: dict, params, seed: int, device=None) -> dict[str, dict]:
    """Each agent's summary against the params' greedy policy: score, wins, draws, losses; the
    games played on `device` (None: the default one)."""
    key = jax.random.PRNGKey(seed)  # the same openings at every mark
    results = {}
    for spec, scores in play_on(device, scorers, params, key).items():
        s = summarize(scores)
        results[spec] = {
            "score": round(s.score, 4),
            "low": round(s.score_low, 4),
            "high": round(s.score_high, 4),
            "wins": s.wins,
            "draws": s.draws,
            "losses": s.losses,
        }
    return results


def run(
    config,
    *,
    minutes: float,
    marks,
    against,
    eval_games: int,
    opening_plies: int,
    chunk: int,
    started: float,
    eval_device=None,
    run_dir: Path | None = None,
    resume: Path | None = None,
    on_point=lambda points: None,
    stop=lambda: False,
    say=print,
    about: dict | None = None,
) -> dict:
    """Trains `config` for `minutes` more of training clock and returns the entry's points (see the
    module's docstring for the clock). The games of the evaluations are played on `eval_device`
    (None: the default device). `resume`: a run directory this function left, continued
    from its checkpoint, its points and its clock. `on_point(points)` after each point; `stop()`
    ends the run after the chunk in flight (the run directory still saved, no last point);
    `about` (its label and preset, and a resumed run's `startup`) is kept with the run
    directory's points."""
    compiles = compile_log()
    compiles.seconds.clear()
    compiles.on = True
    trainer = make_trainer(config)
    scorers = make_scorers(trainer, against, eval_games, opening_plies)
    state = jax.jit(trainer.init)(jax.random.PRNGKey(config.seed))
    points: list[dict] = []
    offset = 0.0  # the training clock of earlier calls (a resumed run)
    if resume is not None:
        state, points = restore_run(resume, state)
        offset = points[-1]["wall_s"] if points else 0.0
    budget = offset + 60.0 * minutes
    marks = sorted(m for m in marks if offset < m < budget)
    eval_s = 0.0
    rows: list[dict] = []

    def clock() -> float:
        return offset + time.time() - started - eval_s

    def record(state) -> None:
        nonlocal eval_s
        wall = clock()
        began = time.time()
        scores = score(scorers, state.params, config.seed, eval_device)
        eval_s += time.time() - began
        updates = int(state.update_step)
        point = {
            "wall_s": round(wall, 2),
            "env_steps": updates * config.steps_per_update,
            "updates": updates,
            "scores": {spec: r["score"] for spec, r in scores.items()},
            "results": scores,
            "eval_s": round(eval_s, 2),
            "elapsed_s": round(time.time() - started, 2),
        }
        points.append(point)
        on_point(points)
        shown = ", ".join(f"{spec} {r['score']:.3f}" for spec, r in scores.items())
        say(f"{wall:7.1f} s  update {updates:5d}  {point['env_steps']:>12,} steps  {shown}")

    next_mark = 0
    startup = (about or {}).get("startup")  # a resumed run keeps its first call's
    timing_startup = resume is None
    while int(state.update_step) < config.num_updates and clock() < budget and not stop():
        n = min(chunk, config.num_updates - int(state.update_step))
        state, metrics = trainer.run_updates(state, n)
        metrics = jax.device_get(metrics)  # waits for the chunk: the clock sees its end
        rows += [{k: v[i].item() for k, v in metrics.items()} for i in range(n)]
        if timing_startup:
            timing_startup = compiles.on = False
            startup = startup_of(clock(), n, compiles)
            made = ", ".join(f"{p} {sum(s.values()):.1f} s" for p, s in startup["programs"].items())
            say(f"startup: the first {n} update(s) ended at {clock():.1f} s; made: {made}")
        crossed = next_mark < len(marks) and clock() >= marks[next_mark]
        while next_mark < len(marks) and clock() >= marks[next_mark]:
            next_mark += 1
        if crossed and int(state.update_step) < config.num_updates and clock() < budget:
            record(state)
    compiles.on = False
    if not stop():
        record(state)
    kept = {} if startup is None else {"startup": startup}
    if run_dir is not None or resume is not None:
        saved = {**(about or {}), **kept, "points": points}
        save_run(resume or run_dir, config, state, rows, saved, fresh=resume is None)
        say(f"run directory: {resume or run_dir}")
    return {"points": points, "marks_s": marks, "minutes": minutes, **kept}


def startup_of(first_chunk_s: float, updates: int, compiles: CompileLog) -> dict:
    """The clock when the first chunk of `updates` ended, and the programs made until then."""
    return {"first_chunk_s": round(first_chunk_s, 2), "updates": updates,
            "programs": compiles.largest()}  # fmt: skip


_POINTS = "time_to_strength.json"  # a run directory's own points, for --resume


def save_run(run_dir: Path, config, state, rows, saved: dict, fresh: bool = True) -> None:
    """A run directory `jaxcheckers train --resume` (and this script's --resume) continues: its
    config, metrics, points (`saved`, with its label and preset) and the last state as a
    checkpoint."""
    from jaxcheckers.training.checkpoints import RunCheckpoints, new_run_dir, write_config

    if fresh:
        run_dir = new_run_dir(str(run_dir))
        write_config(run_dir, config)
    with open(run_dir / "metrics.jsonl", "a") as file:
        for row in rows:
            file.write(json.dumps(row) + "\n")
    (run_dir / _POINTS).write_text(json.dumps(saved, indent=2) + "\n")
    checkpoints = RunCheckpoints(run_dir)
    try:
        if checkpoints.latest_step() != int(state.update_step):
            checkpoints.save(int(state.update_step), state)
    finally:
        checkpoints.close()


def restore_run(run_dir: Path, state) -> tuple[object, list[dict]]:
    """(the state of the run directory's latest checkpoint, its points so far)."""
    points = saved_points(run_dir)["points"]
    from jaxcheckers.training.checkpoints import RunCheckpoints

    checkpoints = RunCheckpoints(run_dir)
    try:
        if checkpoints.latest_step() is None:
            raise ValueError(f"{run_dir} has no checkpoint to resume from")
        state = checkpoints.restore_state(state)
    finally:
        checkpoints.close()
    return state, points


def saved_points(run_dir: Path) -> dict:
    """What a run directory keeps of its time to strength: label, preset, points."""
    try:
        saved = json.loads((run_dir / _POINTS).read_text())
        saved["points"]
    except (OSError, ValueError, KeyError, TypeError):
        raise ValueError(f"{run_dir} holds no {_POINTS}: not a time_to_strength run") from None
    return saved


def saved_results(path: Path) -> dict:
    """The results file at `path` ({"runs": {}} where there is none yet); ValueError for a file
    that is not one."""
    if not path.exists():
        return {"runs": {}}
    try:
        results = json.loads(path.read_text())
    except json.JSONDecodeError as error:
        raise ValueError(f"{path} is not valid JSON ({error}): move it away first") from None
    if not isinstance(results, dict) or not isinstance(results.get("runs"), dict):
        raise ValueError(f"{path} holds no 'runs' object: not a time_to_strength file")
    return results


def merge(path: Path, label: str, entry: dict) -> dict:
    """The results file at `path` with `entry` under `label` (an entry already there under that
    label is replaced; every other one is kept)."""
    results = saved_results(path)
    results["runs"][label] = entry
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=2) + "\n")
    return results


def plot(paths, out: Path) -> Path:
    """Score against minutes of training clock, one line per run (label x device) and agent."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = []
    for path in paths:
        for label, entry in json.loads(Path(path).read_text())["runs"].items():
            runs.append((f"{label} on {entry['device']}", entry))
    if not runs:
        raise ValueError("no time_to_strength results to plot: run the benchmark first")
    agents = sorted({a for _, e in runs for p in e["points"] for a in p["scores"]})
    styles = ["-", "--", ":", "-."]
    figure, axis = plt.subplots(figsize=(8, 4.8))
    for index, (name, entry) in enumerate(runs):
        colour = f"C{index % 10}"
        for agent in agents:
            points = [p for p in entry["points"] if agent in p["scores"]]
            if points:
                axis.plot(
                    [p["wall_s"] / 60 for p in points],
                    [p["scores"][agent] for p in points],
                    styles[agents.index(agent) % len(styles)],
                    marker="o",
                    markersize=3,
                    color=colour,
                    label=f"{name} vs {agent}",
                )
    axis.set_xlabel("minutes of training (from the command's start, compiles included)")
    axis.set_ylabel("raw policy's score (draw = 1/2)")
    axis.set_ylim(0, 1)
    axis.set_xlim(left=0)
    axis.grid(alpha=0.3)
    # Below the axes: inside, it hides some curve whatever the corner.
    axis.legend(fontsize=7, handlelength=3, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.12))
    axis.set_title("Time to strength")
    figure.tight_layout()
    figure.savefig(out, dpi=120)
    plt.close(figure)
    return out


def _passed(overrides: dict) -> dict:
    """The train CLI's overrides this script passes through: all but what it records."""
    return {k: v for k, v in overrides.items() if k not in _NOT_TRAINING}


def _label(algo: str, name: str, changes: dict) -> str:
    shown = [
        f"{k}={','.join(map(str, v)) if isinstance(v, tuple) else v}" for k, v in changes.items()
    ]
    return " ".join([f"{algo}:{name}", *shown])


def check_results_file(path: Path, label: str, *, replace: bool) -> None:
    """ValueError, before any training, unless the run's points can go to `path`: a writable
    time_to_strength file without an entry of `label` (unless `replace`: a resumed run, or
    --replace), so that a trial run never replaces a published figure."""
    check_writable(path)
    if not replace and label in saved_results(path)["runs"]:
        raise ValueError(
            f"{path} already holds the entry {label!r}: --replace replaces it, --label NAME "
            "adds another, --out FILE writes elsewhere"
        )


def main(argv: list[str] | None = None) -> int:
    started = process_started()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algo", choices=sorted(ALGORITHMS), default="ppo")
    parser.add_argument("--preset", default="quick", help="a preset of the trainer")
    parser.add_argument(
        "--minutes",
        type=positive_float,
        default=5.0,
        help="training clock budget (evaluations not counted)",
    )
    parser.add_argument(
        "--marks",
        type=positive_float,
        nargs="+",
        default=None,
        help="seconds of training clock to score at (default: every minute)",
    )
    parser.add_argument(
        "--against",
        nargs="+",
        default=None,
        help="agents to score against (default: the game's own, GameSpec.defaults.scored_against; "
        "checkers: random alphabeta:3 alphabeta:5)",
    )
    parser.add_argument("--eval-games", type=positive_int, default=64, help="per agent")
    parser.add_argument(
        "--eval-device",
        choices=("cpu", "default"),
        default="cpu",
        help="where the scored games are played (default: cpu, whatever trains: played move "
        "by move, they leave a GPU mostly idle)",
    )
    parser.add_argument(
        "--eval-opening-plies",
        type=non_negative_int,
        default=2,
        help="random plies opening each scored game",
    )
    parser.add_argument(
        "--chunk",
        type=positive_int,
        default=None,
        help="updates per jitted call (default: the preset's log_every)",
    )
    parser.add_argument("--label", default=None, help="the entry's name in the results file")
    parser.add_argument("--out", default=None, help="results file (default: by device)")
    parser.add_argument("--run-dir", default=None, help="also leave a run directory here")
    parser.add_argument(
        "--replace",
        action="store_true",
        help="replace the results file's entry of the same label (refused without it)",
    )
    parser.add_argument(
        "--resume",
        metavar="RUN_DIR",
        default=None,
        help="continue a run directory --run-dir left, its clock and points, for --minutes more",
    )
    parser.add_argument(
        "--plot",
        action="store_true",
        help="only draw the figure from the results files, train nothing",
    )
    for name, kind in _passed(OVERRIDES).items():
        parser.add_argument(
            "--" + name.replace("_", "-"), type=kind, default=None, help=argparse.SUPPRESS
        )
    parser.add_argument("--game", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--network", default=None, help=argparse.SUPPRESS)
    parser.add_argument(
        "--hidden-sizes", type=positive_int_list, default=None, help=argparse.SUPPRESS
    )
    parser.add_argument("--opponents", type=agent_specs, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.plot:
        paths = sorted(RESULTS_DIR.glob("time_to_strength_*.json"))
        print(f"wrote {plot(paths, PLOT)}")
        return 0
    changes = {}
    fields = {f.name for f in dataclasses.fields(ALGORITHMS[args.algo][0])}
    for name in [*_passed(OVERRIDES), *_MORE]:
        value = getattr(args, name)
        if value is not None:
            if name not in fields:
                parser.error(f"--{name.replace('_', '-')} is no setting of the {args.algo} trainer")
            changes[name] = value
    if args.resume and (changes or args.run_dir):
        parser.error("--resume continues the run's own settings: no train flags, no --run-dir")
    name, kept = args.preset, {}
    try:
        if args.resume:
            config = read_config(Path(args.resume))
            saved = saved_points(Path(args.resume))
            name, label = saved.get("preset", name), saved.get("label")
            kept = {"startup": saved["startup"]} if "startup" in saved else {}
        else:
            config = preset(args.preset, args.algo, **changes)
            label = None
    except ValueError as error:
        parser.error(str(error))
    algo = algorithm_of(config)
    against = args.against or list(games.spec(config.game).defaults.scored_against)
    device = device_name()
    label = args.label or label or _label(algo, name, changes)
    minutes = args.minutes
    marks = args.marks or [60.0 * (i + 1) for i in range(int(minutes) + 600)]  # a resume's too
    print(
        f"{label} on {device} ({jax.devices()[0]}): {minutes:g} min more, marks from "
        f"{min(marks):g} s, scored against {', '.join(against)} over {args.eval_games} "
        "games each"
    )
    entry = {
        "label": label,
        "algo": algo,
        "preset": name,
        "device": device,
        "device_str": str(jax.devices()[0]),
        "command": "python -m benchmarks.time_to_strength "
        + shlex.join(sys.argv[1:] if argv is None else argv),
        "clock": "wall_s: from the process's start, compiles included, evaluations excluded "
        "(their time is eval_s); a resumed run's clock goes on from its last point",
        "eval": {
            "games": args.eval_games,
            "opening_plies": args.eval_opening_plies,
            "against": against,
            "greedy": True,
            "device": args.eval_device,
        },
        "config": json.loads(config_to_json(config)),
        "machine": machine(),
    }
    path = Path(args.out) if args.out else results_path(device)
    try:
        check_results_file(path, label, replace=bool(args.resume or args.replace))
        if args.run_dir:
            check_out(Path(args.run_dir), "--run-dir")
            check_writable_folder(args.run_dir)
    except ValueError as error:
        parser.error(str(error))
    # SIGTERM (a time box's `timeout`) and a first Ctrl-C end the run after the chunk in flight,
    # still saved; a second Ctrl-C quits at once.
    stopped = []

    def stop_after_the_chunk(signum, frame):
        if signum == SIGINT:
            if stopped:
                raise KeyboardInterrupt
            print("stopping after the chunk in flight, saved (Ctrl-C again: at once, unsaved)",
                  file=sys.stderr, flush=True)  # fmt: skip
        stopped.append(signum)

    previous = {sig: signal.signal(sig, stop_after_the_chunk) for sig in (SIGTERM, SIGINT)}
    try:
        result = run(
            config,
            minutes=minutes,
            marks=marks,
            against=against,
            eval_games=args.eval_games,
            opening_plies=args.eval_opening_plies,
            chunk=args.chunk or config.log_every,
            started=started,
            eval_device=jax.devices("cpu")[0] if args.eval_device == "cpu" else None,
            run_dir=Path(args.run_dir) if args.run_dir else None,
            resume=Path(args.resume) if args.resume else None,
            on_point=lambda points: merge(path, label, {**entry, "points": points}),
            stop=lambda: bool(stopped),
            about={"label": label, "preset": name, **kept},
        )
        merge(path, label, {**entry, **result})
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"interrupted: {path} holds the points scored so far", file=sys.stderr)
        return 130
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    print(f"wrote {path} (entry {label!r})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
