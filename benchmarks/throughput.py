"""Random-play throughput of jaxcheckers' checkers next to OpenSpiel's checkers and pgx's games.

    .venv/bin/python -m benchmarks.throughput            # the full sweep (a few minutes)
    .venv/bin/python -m benchmarks.throughput --quick    # batch sizes 1, 256, 8192 only

Measures, in one run, for the default rules (8×8, both draw rules on):
- steps per second of random legal play with auto-reset, observations read every step, over
  batch sizes 1 … 65536, for jaxcheckers checkers, pgx tic_tac_toe and pgx othello (all through
  `benchmarks.common`'s harness and sampler) and OpenSpiel checkers (C++ through pyspiel, one
  Python process, `random.choice` over `legal_actions()`, `observation_tensor()` read each step);
- the compile time of `jax.jit(jax.vmap(step))` and `jax.jit(jax.vmap(reset))`;
- bytes of State per game; memory at the largest batch;
- board sizes 6, 8, 10 and the draw rules on and off, at one batch size;
- what the harness and sampler cost alone.
Prints markdown tables, writes `benchmarks/results/throughput.json` and `throughput.png`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a file: make `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import jax

from benchmarks import common
from benchmarks.common import (
    RESULTS_DIR,
    JaxGame,
    TimedRollout,
    harness_only_game,
    jaxcheckers_game,
    markdown_table,
    measure_together,
    pgx_game,
    rate,
)
from jaxcheckers.argtypes import positive_float, positive_int, writable_folder

FULL_BATCH_SIZES = (1, 16, 256, 1024, 2048, 4096, 8192, 16384, 32768, 65536)
QUICK_BATCH_SIZES = (1, 256, 8192)  # 8192: the reference batch
REFERENCE_BATCH = 8192  # our best batch here: board sizes, draw rules, compile, harness alone
OURS = "jaxcheckers checkers"
OPENSPIEL = "OpenSpiel checkers"
PGX_TTT, PGX_OTHELLO = "pgx tic_tac_toe", "pgx othello"
DEFAULT_RULES, STEP_SKIPPED = "8×8, draw rules on (default)", "8×8, default rules, step skipped"
KIB = 1024


def sweep_games() -> list[JaxGame]:
    return [jaxcheckers_game("checkers", label=OURS), pgx_game("tic_tac_toe"), pgx_game("othello")]


def variant_games() -> list[tuple[str, JaxGame]]:
    """Board sizes at the default rules, then 8×8 with each draw rule switched off, then 8×8 with
    its step skipped (`common.step_skipped`): what the harness costs around our State.

    Timed together, run by run, so that the time budget taken from their differences (see
    `benchmarks.report`) does not mix a quiet moment of the machine with a busy one.
    """
    variants = [
        ("6×6, draw rules on", {"board_size": 6}),
        (DEFAULT_RULES, {}),
        ("10×10, draw rules on", {"board_size": 10}),
        ("8×8, 40-move rule off", {"forty_move_draw": False}),
        ("8×8, repetition rule off", {"repetition_draw": False}),
        ("8×8, both draw rules off", {"forty_move_draw": False, "repetition_draw": False}),
    ]
    games = [(label, jaxcheckers_game("checkers", label=label, **options))
             for label, options in variants]
    skipped = common.step_skipped(jaxcheckers_game("checkers", label="8×8, default rules"))
    assert skipped.name == STEP_SKIPPED, skipped.name
    return [*games, (STEP_SKIPPED, skipped)]


# -- the parts of the run ------------------------------------------------------------------------


def measure_compile_times(games: list[JaxGame], batch_size: int) -> dict:
    """Fresh `jit(vmap(step))` and `jit(vmap(reset))` (pgx: `init`) of each game, lowered and
    compiled for `batch_size` games. Run first, so that nothing is cached yet."""
    times = {}
    for game in games:
        keys = jax.random.split(jax.random.key(0), batch_size)
        states = jax.vmap(game.init)(keys)
        actions = jax.numpy.zeros(batch_size, jax.numpy.int32)
        times[game.name] = {
            "step": common.compile_times(jax.vmap(game.step), states, actions),
            "reset": common.compile_times(jax.vmap(game.init), keys),
        }
    return times


def sweep_rollouts(games: list[JaxGame], batch_sizes, min_run_s: float, sampler):
    """Every game at every batch size, compiled and warmed up."""
    return [TimedRollout(game, batch_size, sampler=sampler, min_run_s=min_run_s)
            for batch_size in batch_sizes for game in games]


def variant_rollouts(batch_size: int, min_run_s: float, sampler):
    """(label, game, rollout) for each of `variant_games`."""
    return [(label, game, TimedRollout(game, batch_size, sampler=sampler, min_run_s=min_run_s))
            for label, game in variant_games()]


def harness_rollouts(batch_size: int, min_run_s: float):
    """(game, sampler name, rollout): the harness with a rule-less game, the ceiling each action
    count allows, for both samplers; and our game with both samplers."""
    cases = [(harness_only_game(num_actions), name)
             for num_actions in (9, 65, 256) for name in common.SAMPLERS]
    cases += [(jaxcheckers_game("checkers", label=OURS), name) for name in common.SAMPLERS]
    return [(game, name, TimedRollout(game, batch_size, sampler=common.SAMPLERS[name],
                                      min_run_s=min_run_s))
            for game, name in cases]


class OpenSpielRun:
    """OpenSpiel checkers in this process, timed run by run like a `TimedRollout`: random legal
    moves (`random.choice` over `legal_actions()`), the observation read every step."""

    def __init__(self, seconds_per_run: float, seed: int = 0):
        import pyspiel

        self.game = pyspiel.load_game("checkers")
        self.rng = random.Random(seed)
        self.state = self.game.new_initial_state()
        self.seconds_per_run = seconds_per_run
        self.games_ended = 0
        self._play(time.perf_counter() + 0.2)  # warm-up: its games and steps are not counted
        self.games_ended = self.steps_total = 0
        self.rates: list[float] = []
        self.cpu_rates: list[float] = []

    def _play(self, deadline: float) -> int:
        steps = 0
        while time.perf_counter() < deadline:
            for _ in range(64):  # look at the clock now and then only
                if self.state.is_terminal():
                    self.state = self.game.new_initial_state()
                    self.games_ended += 1
                self.state.apply_action(self.rng.choice(self.state.legal_actions()))
                self.state.observation_tensor(max(self.state.current_player(), 0))  # 0: over
                steps += 1
        return steps

    def run(self) -> None:
        start, cpu_start = time.perf_counter(), time.process_time()
        steps = self._play(start + self.seconds_per_run)
        self.rates.append(steps / (time.perf_counter() - start))
        self.cpu_rates.append(steps / (time.process_time() - cpu_start))
        self.steps_total += steps

    def result(self) -> dict:
        ended = self.games_ended
        return {
            "name": OPENSPIEL,
            "batch_size": 1,
            "steps_per_s": statistics.median(self.rates),
            "steps_per_cpu_s": statistics.median(self.cpu_rates),
            "run_steps_per_s": self.rates,
            "mean_game_length": self.steps_total / ended if ended else None,
            "note": "one process, Python loop; random.choice over legal_actions(); "
                    "observation_tensor() of the player to move each step",
        }


def measure_all(games: list[JaxGame], batch_sizes, reference_batch: int, runs: int,
                min_run_s: float, sampler, seconds_per_openspiel_run: float | None) -> dict:
    """The sweep, the variants, the harness alone and OpenSpiel, all timed in the same turns.

    Everything is compiled first, then every figure takes its runs in turns with all the
    others: a busy spell of this shared machine then costs each figure about one of its runs,
    which the median drops, and figures that are compared (our best batch size against a
    peer's; the variants and the step-skipped run of the time budget) come from the same
    moments. Taken apart, a spell of tens of seconds took every run of the batch sizes or the
    part of the run it fell on.
    """
    sweep = sweep_rollouts(games, batch_sizes, min_run_s, sampler)
    variants = variant_rollouts(reference_batch, min_run_s, sampler)
    harness = harness_rollouts(reference_batch, min_run_s)
    spiel = [] if seconds_per_openspiel_run is None else [OpenSpielRun(seconds_per_openspiel_run)]
    rollouts = sweep + [r for *_, r in variants] + [r for *_, r in harness] + spiel
    print(f"  {len(rollouts)} compiled; timing them in turns ...", flush=True)
    results = iter(measure_together(rollouts, runs))

    measured = {"sweep": {game.name: [] for game in games}}
    for _ in sweep:
        result = next(results)
        measured["sweep"][result.name].append(result.to_json())
    measured["variants"] = [
        {"variant": label, "state_bytes": common.state_bytes(game)["total"],
         **next(results).to_json()}
        for label, game, _ in variants]
    measured["harness"] = [
        {"num_actions": game.num_actions, "sampler": name, **next(results).to_json()}
        for game, name, _ in harness]
    if spiel:
        measured["openspiel"] = next(results)
    return measured


def measure_peak_rss(batch_size: int, runs: int, min_run_s: float) -> dict:
    """The process's peak resident memory while our game runs at `batch_size`, in a fresh process
    (CPU devices report no memory statistics; the peak of this process would include the rest)."""
    command = [sys.executable, "-m", "benchmarks.throughput", "--peak-rss-worker",
               "--batch-sizes", str(batch_size), "--runs", str(runs), "--min-run-s", str(min_run_s)]
    out = subprocess.run(command, capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parent.parent)
    return json.loads(out.stdout.strip().splitlines()[-1])


def peak_rss_worker(batch_size: int, runs: int, min_run_s: float) -> None:
    """Resident memory before the batch exists, at its peak while compiling, and at its peak
    once the batch has run (the rollout's own buffers on top of what compiling left)."""
    game = jaxcheckers_game("checkers", label=OURS)
    jax.eval_shape(game.init, jax.random.key(0))
    before = _current_rss_bytes()
    rollout = common.make_rollout(game, batch_size, common.scan_length(batch_size))
    carry = common.initial_carry(game, batch_size)
    compiled = rollout.lower(*carry).compile()
    compile_peak = _peak_rss_bytes()
    for _ in range(max(1, runs)):
        carry = jax.block_until_ready(compiled(*carry))
    print(json.dumps({
        "batch_size": batch_size,
        "source": "VmRSS (before) and ru_maxrss (peaks) of a fresh process",
        "before_bytes": before,
        "compile_peak_bytes": compile_peak,
        "peak_bytes": _peak_rss_bytes(),
        "device_memory_stats": jax.devices()[0].memory_stats(),
    }))


def _peak_rss_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * KIB  # Linux reports KiB


def _current_rss_bytes() -> int:
    """Resident memory now (Linux); 0 where /proc is not there."""
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return 0
    line = next(line for line in status.splitlines() if line.startswith("VmRSS:"))
    return int(line.split()[1]) * KIB


# -- reporting -----------------------------------------------------------------------------------


def best(rows: list[dict]) -> dict:
    return max(rows, key=lambda row: row["steps_per_s"])


def longest_window(rows: list[dict]) -> dict:
    """The row whose games were each played for the most steps (warm-up included)."""
    return max(rows, key=lambda r: r["scan_length"] * (r["calls_per_run"] * len(r["run_s"]) + 1))


def headline(result: dict) -> dict:
    """Our best steps/s and the ratios to the peers (each at its own best batch size)."""
    sweep = result["sweep"]
    ours = best(sweep[OURS])
    figures = {"ours_best": ours["steps_per_s"], "ours_best_batch": ours["batch_size"]}
    for name, key in ((PGX_TTT, "pgx_tic_tac_toe"), (PGX_OTHELLO, "pgx_othello")):
        if name in sweep:
            peer = best(sweep[name])
            figures[f"{key}_best"] = peer["steps_per_s"]
            figures[f"{key}_best_batch"] = peer["batch_size"]
            figures[f"ratio_vs_{key}"] = ours["steps_per_s"] / peer["steps_per_s"]
    if result.get("openspiel"):
        figures["openspiel"] = result["openspiel"]["steps_per_s"]
        figures["ratio_vs_openspiel"] = ours["steps_per_s"] / result["openspiel"]["steps_per_s"]
    return figures


def targets(result: dict) -> list[dict]:
    """The issue's targets that this run can check."""
    figures = result["headline"]
    rows = []
    if "ratio_vs_openspiel" in figures:
        rows.append({"target": "steps/s ≥ 40× OpenSpiel checkers", "need": 40.0,
                     "got": figures["ratio_vs_openspiel"], "unit": "×"})
    if "ratio_vs_pgx_tic_tac_toe" in figures:
        rows.append({"target": "steps/s ≥ 0.5× pgx tic_tac_toe (aim 1×)", "need": 0.5,
                     "got": figures["ratio_vs_pgx_tic_tac_toe"], "unit": "×"})
    step_compile = result["compile"][OURS]["step"]
    rows.append({"target": "compile of jit(vmap(step)) < 5 s", "need": 5.0,
                 "got": step_compile["total_s"], "unit": "s", "lower_is_better": True,
                 "detail": f"wall; {step_compile['cpu_s']:.2f} s of CPU"})
    rows.append({"target": "state ≤ 1.5 KiB per game", "need": 1536,
                 "got": result["state_bytes"][OURS]["total"], "unit": "B",
                 "lower_is_better": True})
    for row in rows:
        lower = row.get("lower_is_better", False)
        row["met"] = row["got"] <= row["need"] if lower else row["got"] >= row["need"]
    return rows


def render_markdown(result: dict) -> str:
    sweep, names = result["sweep"], list(result["sweep"])
    sections = []

    header = ["batch"] + names + ([f"{OURS} / {PGX_TTT}"] if PGX_TTT in sweep else [])
    rows = []
    for index, batch_size in enumerate(result["batch_sizes"]):
        row = [f"{batch_size:,}"] + [rate(sweep[name][index]["steps_per_s"]) for name in names]
        if PGX_TTT in sweep:
            ratio = sweep[OURS][index]["steps_per_s"] / sweep[PGX_TTT][index]["steps_per_s"]
            row.append(f"{ratio:.2f}")
        rows.append(row)
    if result.get("openspiel"):
        spiel = result["openspiel"]
        rows.append([f"1 ({OPENSPIEL})"] + [rate(spiel["steps_per_s"])] + [""] * (len(header) - 2))
    sections.append("### Steps per second (median of runs; environment steps, one hop each)\n\n"
                    + markdown_table(header, rows))

    cpu_rows = [[f"{batch_size:,}"] + [rate(sweep[name][index]["steps_per_cpu_s"])
                                       for name in names]
                for index, batch_size in enumerate(result["batch_sizes"])]
    if result.get("openspiel"):
        spiel = result["openspiel"]
        cpu_rows.append([f"1 ({OPENSPIEL})", rate(spiel["steps_per_cpu_s"])]
                        + [""] * (len(names) - 1))
    sections.append("### Steps per CPU second (the same runs over this process's CPU time)\n\n"
                    "Less swayed by other work on a shared machine than wall time; where XLA "
                    "spreads a step over both cores, wall-clock steps/s can exceed it.\n\n"
                    + markdown_table(["batch"] + names, cpu_rows))

    figures = result["headline"]
    lines = [f"- ours at best: **{rate(figures['ours_best'])} steps/s** at batch "
             f"{figures['ours_best_batch']:,}"]
    if "ratio_vs_openspiel" in figures:
        lines.append(f"- OpenSpiel checkers: {rate(figures['openspiel'])} steps/s; ours "
                     f"**{figures['ratio_vs_openspiel']:.1f}×**")
    for key, label in (("pgx_tic_tac_toe", PGX_TTT), ("pgx_othello", PGX_OTHELLO)):
        if f"{key}_best" in figures:
            lines.append(f"- {label} at best: {rate(figures[f'{key}_best'])} steps/s at batch "
                         f"{figures[f'{key}_best_batch']:,}; "
                         f"ours **{figures[f'ratio_vs_{key}']:.2f}×**")
    sections.append("### Headline\n\n" + "\n".join(lines))

    target_rows = [[t["target"], target_figure(t), "yes" if t["met"] else "**no**"]
                   for t in result["targets"]]
    sections.append("### Targets this run checks\n\n"
                    + markdown_table(["target", "measured", "met"], target_rows))

    lengths = []
    for name in names:
        row = longest_window(sweep[name])
        lengths.append([name, _length(row["mean_game_length"]), f"{row['batch_size']:,}"])
    if result.get("openspiel"):
        lengths.append([OPENSPIEL, _length(result["openspiel"]["mean_game_length"]), "1"])
    sections.append("### Mean game length under random play (steps; a sanity check)\n\n"
                    "Over the games that ended while timed, at the batch size that played the "
                    "most steps per game (all games start together, so a short window favours "
                    "short games). OpenSpiel draws after 40 plies without a capture.\n\n"
                    + markdown_table(["system", "steps per game", "batch"], lengths))

    compile_rows = [[name, f"{t['step']['total_s']:.2f} s ({t['step']['trace_lower_s']:.2f} + "
                     f"{t['step']['compile_s']:.2f})", f"{t['step']['cpu_s']:.2f} s",
                     f"{t['reset']['total_s']:.2f} s", f"{t['reset']['cpu_s']:.2f} s"]
                    for name, t in result["compile"].items()]
    sections.append(f"### Compile time at batch {result['reference_batch']:,}\n\n"
                    "A fresh `jax.jit`, lowered then compiled: wall time (trace and lower + XLA "
                    "compile) and the CPU time of this process, which other work on the machine "
                    "sways less.\n\n"
                    + markdown_table(["system", "jit(vmap(step)) wall", "step CPU",
                                      "jit(vmap(reset)) wall", "reset CPU"], compile_rows))

    size_rows = []
    for name, sizes in result["state_bytes"].items():
        parts = ", ".join(f"{field} {size}" for field, size in sizes.items() if field != "total")
        size_rows.append([name, f"{sizes['total']:,} B ({sizes['total'] / KIB:.2f} KiB)", parts])
    sections.append("### State per game\n\n" + markdown_table(["system", "bytes", "fields"],
                                                                 size_rows))

    parts = list(next(iter(result["costs"].values())))
    cost_rows = [[name] + [f"{costs[part]['flops']:,.0f} / {costs[part]['bytes']:,.0f}"
                           for part in parts] + [f"{sum(c['flops'] for c in costs.values()):,.0f}"]
                 for name, costs in result["costs"].items()]
    sections.append("### Where the work is (XLA's estimate per game: flops / bytes accessed)\n\n"
                    "From `cost_analysis()` of each part compiled alone at batch 1,024; a guide "
                    "to what costs what, not a timing.\n\n"
                    + markdown_table(["system"] + parts + ["flops in all"], cost_rows))

    largest = result["batch_sizes"][-1]
    memory_rows = []
    for name in names:
        memory = sweep[name][-1]["memory"]
        if memory:
            live = (memory["argument_size_in_bytes"] + memory["output_size_in_bytes"]
                    - memory["alias_size_in_bytes"] + memory["temp_size_in_bytes"])
            memory_rows.append([name, _mib(memory["argument_size_in_bytes"]),
                                _mib(memory["temp_size_in_bytes"]), _mib(live)])
    text = (f"### Memory at batch {largest:,}\n\nXLA's account of the compiled rollout "
            "(arguments are the batch of states and the tallies; outputs alias them):\n\n"
            + markdown_table(["system", "arguments", "temporaries", "all buffers"], memory_rows))
    if result.get("peak_rss"):
        peak = result["peak_rss"]
        text += (f"\n\nResident memory of a fresh process running {OURS} at batch "
                 f"{peak['batch_size']:,} (the CPU device reports no memory statistics, so "
                 f"`VmRSS` and `ru_maxrss`): {_mib(peak['before_bytes'])} before the batch "
                 f"existed, a peak of {_mib(peak['compile_peak_bytes'])} while compiling the "
                 f"rollout, and {_mib(peak['peak_bytes'])} at the peak of the whole run.")
    sections.append(text)

    variant_rows = []
    default = next(row for row in result["variants"] if row["variant"] == DEFAULT_RULES)
    for row in result["variants"]:
        variant_rows.append([row["variant"], rate(row["steps_per_s"]),
                             f"{row['steps_per_s'] / default['steps_per_s']:.2f}",
                             f"{row['state_bytes']:,}", _length(row["mean_game_length"])])
    sections.append(f"### Board size and draw rules ({OURS}, batch {result['reference_batch']:,})"
                    "\n\nTimed together, run by run. With its step skipped (the position never "
                    "changes; each game ends every 64 steps) our game times only what the harness "
                    "does around it: reading the mask and observation, sampling and resetting.\n\n"
                    + markdown_table(["rules", "steps/s", "vs default", "state bytes",
                                      "steps per game"], variant_rows))

    def harness_game(row):
        ours = row["name"].startswith(OURS)
        return row["name"] if ours else f"no game, {row['num_actions']} actions"

    harness_rows = [[harness_game(row), row["sampler"], rate(row["steps_per_s"])]
                    for row in result["harness"]]
    sections.append(f"### What the harness costs alone (batch {result['reference_batch']:,})\n\n"
                    "A game with no rules, so only sampling, auto-reset and the observation sum "
                    "are timed: the ceiling each action count allows. `rank` is the sampler used "
                    "everywhere above (`jaxcheckers.agents.random.random_legal_actions`); "
                    "`noise-argmax` draws one uniform number per action.\n\n"
                    + markdown_table(["game", "sampler", "steps/s"], harness_rows))
    return "\n\n".join(sections) + "\n"


def target_figure(target: dict) -> str:
    figure = _figure(target["got"], target["unit"])
    return f"{figure} ({target['detail']})" if target.get("detail") else figure


def _figure(value: float, unit: str) -> str:
    if unit == "B":
        return f"{value:,.0f} B"
    if unit == "s":
        return f"{value:.2f} s"
    return f"{value:.2f}{unit}"


def _length(value) -> str:
    return "—" if value is None else f"{value:.1f}"


def _mib(size: int) -> str:
    return f"{size / KIB / KIB:,.1f} MiB"


def plot(result: dict, path: Path, chess: dict | None = None) -> None:
    """Steps/s against batch size; with `chess` (a chess.json, from another run), the chess
    lines too, dotted: their figures come from that run, not from this one's turns."""
    import matplotlib
    import matplotlib.ticker

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(10, 4.5) if chess else (7, 4.5))
    for name, rows in result["sweep"].items():
        axes.plot([r["batch_size"] for r in rows], [r["steps_per_s"] for r in rows], marker="o",
                  label=name, linewidth=2.5 if name == OURS else 1.5)
    if result.get("openspiel"):
        axes.axhline(result["openspiel"]["steps_per_s"], color="black", linestyle="--",
                     label=f"{OPENSPIEL} (one process)")
    if chess:
        _plot_chess(axes, chess)
    axes.set_xscale("log", base=2)
    axes.set_yscale("log")
    # 1k = 1,024 games: full numbers overlap once the sweep has every power of two up to 64k.
    labels = [f"{b // 1024}k" if b >= 1024 and b % 1024 == 0 else str(b)
              for b in result["batch_sizes"]]
    axes.set_xticks(result["batch_sizes"], labels)
    axes.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    axes.set_xlabel("batch size (games stepped together)")
    axes.set_ylabel("environment steps per second")
    axes.set_title(f"Random play with auto-reset, {result['machine']['cores']}-core "
                   f"{result['machine']['cpu']}", fontsize=10)
    axes.grid(True, which="both", alpha=0.3)
    if chess:  # beside the axes: inside, it would hide the chess lines
        axes.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    else:
        axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def _plot_chess(axes, chess: dict) -> None:
    date = chess["machine"]["date_utc"][:10]
    load = chess["machine"]["load_average_at_start"][0]
    lines: dict[str, list[dict]] = {}
    for row in chess["throughput"]:
        lines.setdefault(row["name"], []).append(row)
    for name, rows in lines.items():
        label = f"{name}, chess run {date} (load {load:.0f})"
        if len(rows) == 1 and rows[0]["batch_size"] == 1 and "OpenSpiel" in name:
            axes.axhline(rows[0]["steps_per_s"], color="grey", linestyle=":",
                         label=label + " (one process)")
            continue
        rows = sorted(rows, key=lambda r: r["batch_size"])
        axes.plot([r["batch_size"] for r in rows], [r["steps_per_s"] for r in rows],
                  marker="s", linestyle=":", label=label)


# -- the command ---------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help=f"batch sizes {', '.join(map(str, QUICK_BATCH_SIZES))}, fewer runs")
    parser.add_argument("--batch-sizes", type=positive_int, nargs="+", help="override the sweep")
    parser.add_argument(
        "--runs", type=positive_int, default=5, help="timed runs per figure (median)"
    )
    parser.add_argument("--min-run-s", type=positive_float, default=0.25, help="shortest timed run")
    parser.add_argument("--reference-batch", type=positive_int, default=REFERENCE_BATCH)
    parser.add_argument("--sampler", choices=sorted(common.SAMPLERS), default="rank")
    parser.add_argument("--openspiel-seconds", type=positive_float, default=1.0, help="per run")
    parser.add_argument("--no-peers", action="store_true", help="our game only")
    parser.add_argument("--out-dir", type=writable_folder, default=str(RESULTS_DIR))
    parser.add_argument("--peak-rss-worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    batch_sizes = args.batch_sizes or (QUICK_BATCH_SIZES if args.quick else FULL_BATCH_SIZES)
    batch_sizes = sorted(batch_sizes)
    runs = 3 if args.quick and args.runs == 5 else args.runs
    if args.peak_rss_worker:
        peak_rss_worker(batch_sizes[-1], runs, args.min_run_s)
        return 0

    sampler = common.SAMPLERS[args.sampler]
    common.check_sampler(sampler)
    games = sweep_games()[:1] if args.no_peers else sweep_games()
    result = {"machine": common.machine(), "batch_sizes": batch_sizes, "runs": runs,
              "reference_batch": args.reference_batch, "sampler": args.sampler,
              "min_run_s": args.min_run_s}
    started = time.perf_counter()

    print("compile times ...", flush=True)
    result["compile"] = measure_compile_times(games, args.reference_batch)
    result["state_bytes"] = {game.name: common.state_bytes(game) for game in games}
    result["costs"] = {game.name: common.cost_per_game(game, sampler=sampler) for game in games}
    print("compiling every system, batch size and variant ...", flush=True)
    result.update(measure_all(games, batch_sizes, args.reference_batch, runs, args.min_run_s,
                              sampler, None if args.no_peers else args.openspiel_seconds))
    print("peak memory ...", flush=True)
    result["peak_rss"] = measure_peak_rss(batch_sizes[-1], runs=1, min_run_s=0.0)

    result["headline"] = headline(result)
    result["targets"] = targets(result)
    result["wall_s"] = time.perf_counter() - started
    result["machine"]["load_average_at_end"] = os.getloadavg()

    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "throughput.json").write_text(json.dumps(result, indent=1) + "\n")
    chess_json = args.out_dir / "chess.json"
    chess = json.loads(chess_json.read_text()) if chess_json.exists() else None
    plot(result, args.out_dir / "throughput.png", chess)
    markdown = render_markdown(result)
    (args.out_dir / "throughput.md").write_text(markdown)
    print()
    print(markdown)
    print(f"written {args.out_dir / 'throughput.json'}, throughput.png, throughput.md "
          f"({result['wall_s']:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
