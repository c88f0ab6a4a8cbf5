"""Writes BENCHMARKS.md and README.md's figures from the JSON in `benchmarks/results/`.

    .venv/bin/python -m benchmarks.throughput
    .venv/bin/python -m benchmarks.perft
    .venv/bin/python -m benchmarks.chess_speed
    .venv/bin/python -m benchmarks.report      # -> BENCHMARKS.md, README.md's tables, the plots
    .venv/bin/python -m benchmarks.report --check   # exit 1 if either file disagrees with the JSON

README.md's generated parts sit between `<!-- report:NAME -->` and `<!-- /report:NAME -->`
(NAME: speed, strength); the rest of it is written by hand. tests/benchmarks/test_report.py runs
the check.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a file: make `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import chess_speed, device_speed, perft, throughput
from benchmarks.ballots import markdown_table as ballots_table
from benchmarks.common import RESULTS_DIR, markdown_table, rate
from jaxcheckers import ladder, ratings

ROOT = Path(__file__).resolve().parent.parent


def machine_section(info: dict, heading: str) -> str:
    versions = ", ".join(f"{name} {version}" for name, version in info["versions"].items())
    load_start = ", ".join(f"{x:.1f}" for x in info["load_average_at_start"])
    load_end = ", ".join(f"{x:.1f}" for x in info.get("load_average_at_end", ()))
    # The benchmark itself loads the machine, so only the load before it started says
    # whether other work was sharing the cores.
    shared = info["load_average_at_start"][0] > 0.5
    verdict = ("other work shared the machine, so take the absolute figures as a floor"
               if shared else "the machine was otherwise idle when the run started")
    return (f"{heading}: {info['cores']}-core {info['cpu']} ({info['platform']}), "
            f"{info['device']}; Python {info['python']}, jax {info['jax']}, {versions}; "
            f"commit {info['commit']}, {info['date_utc']} UTC. Load average (1, 5, 15 min) "
            f"{load_start} at the start, {load_end} at the end: {verdict}; "
            "ratios come from runs taken in turns.")


def method_section(result: dict) -> str:
    batch_sizes = ", ".join(f"{b:,}" for b in result["batch_sizes"])
    return f"""## How it is measured

- **Work measured**: random legal play with auto-reset, the default rules (8×8, 40-move and
  repetition draws on, `max_steps=1000`). A step is one environment step: one hop of a
  multi-jump in checkers, as in OpenSpiel.
- **One harness for every JAX system** (`benchmarks/common.py`): a jitted `lax.scan` of T steps
  over a `vmap`ped batch; each step samples an action, calls the game's own `step`, resets the
  games that ended (`jnp.where` over a fresh `init`/`reset`, the same code for ours and pgx's), and
  sums every game's observation into a running total, so the observation is really computed.
  pgx games go through the same adapter (`init`, `step`, `legal_action_mask`, `observation`).
- **The same sampler for every JAX system** (`{result['sampler']}`): the project's random player,
  `jaxcheckers.agents.random.random_legal_actions`: one draw of a uniform number per game for
  the whole batch, each picking a rank among its game's legal actions, found on the mask packed
  into 32-bit words, so sampling is one pass over the mask. The usual arg-max of uniform noise
  draws a number per action and for checkers' 256 actions costs more than the step itself: see
  "What the harness costs alone". The throughput script checks the sampler (legal, uniform)
  before timing.
- **OpenSpiel checkers**: C++ through `pyspiel`, one Python process, `random.choice` over
  `state.legal_actions()`, `state.observation_tensor()` read after every step, a new game when
  one ends.
- **Timing**: batch sizes {batch_sizes}; per figure a compile, a warm-up call, then the
  median of {result['runs']} timed runs (each at least {result['min_run_s']} s, ended by
  `block_until_ready`); every figure of the run (each system at each batch size, the rule
  variants, the harness alone, OpenSpiel) is compiled first, then they all take turns run by
  run, so a busy spell of the machine costs each figure about one run and figures that are
  compared come from the same moments. Each system's best batch size is used for the ratios.
"""


def targets_section(tp: dict | None, pf: dict | None) -> str:
    rows = []
    if tp:
        for target in tp["targets"]:
            rows.append([target["target"], throughput.target_figure(target),
                         "yes" if target["met"] else "**no**"])
    if pf and pf.get("target"):
        target = pf["target"]
        again = (f" (run again: {target['speedup_again']:.2f}×)"
                 if target.get("speedup_again") else "")
        rows.append(["perft(9) ≥ 10× faster than OpenSpiel's", f"{target['speedup']:.2f}×{again}",
                     "yes" if target["met"] else "**no**"])
    return "## Targets\n\n" + markdown_table(["target", "measured", "met"], rows) + "\n"


def time_budget_section(tp: dict) -> str:
    """Nanoseconds per step of ours at the reference batch, split by the runs that leave a part
    out, next to what the two throughput targets allow. Empty if a run it needs is missing."""
    variants = {row["variant"]: row["steps_per_s"] for row in tp.get("variants", [])}
    figures = tp["headline"]
    needed = (throughput.DEFAULT_RULES, "8×8, repetition rule off", "8×8, both draw rules off",
              throughput.STEP_SKIPPED)
    if any(name not in variants for name in needed) or "openspiel" not in figures:
        return ""
    total, no_repetition, no_draws, around = (1e9 / variants[name] for name in needed)
    allowed = {"40× OpenSpiel": 1e9 / (40 * figures["openspiel"])}
    if "pgx_tic_tac_toe_best" in figures:
        allowed["0.5× pgx tic_tac_toe"] = 1e9 / (0.5 * figures["pgx_tic_tac_toe_best"])
    step = total - around
    ceiling = ""
    if "pgx_tic_tac_toe_best" in figures:
        most = 1e9 / around / figures["pgx_tic_tac_toe_best"]
        ceiling = (f" With its step skipped our game runs at {most:.2f}× pgx tic_tac_toe's "
                   "best: the most this harness allows a game that reads a 256-entry mask and "
                   "observation on this machine.")
    needs = "; ".join(
        f"{target} is met with {limit - total:.0f} ns to spare" if total <= limit
        else f"{target} needs the step {step / (limit - around):.1f}× as fast" if limit > around
        else f"{target} cannot be met through this harness, even with a step that costs nothing"
        for target, limit in allowed.items())
    rows = [
        ["the harness around the step: sampling, reading mask and observation, auto-reset",
         around],
        ["the step, draw rules off", no_draws - around],
        ["the 40-move rule", no_repetition - no_draws],
        ["the repetition rule", total - no_repetition],
        ["all (default rules)", total],
    ]
    rows += [[f"all, as {target} allows", limit] for target, limit in allowed.items()]
    rows = [[part, str(round(ns))] for part, ns in rows]  # round(), not :.0f, shows no "-0"
    table = markdown_table(["part of a step (batch " f"{tp['reference_batch']:,})", "ns"], rows)
    return f"""## Where the time goes

From the board size and draw rules runs below (batch {tp['reference_batch']:,}, timed together),
each part as the difference of two runs:

{table}

The harness row is the same code for every system (the threefry draw, packing the mask, the
observation summed as int32: XLA writes the int32 copy of every observation to memory before
summing it, 1 KiB a game for ours, 72 bytes for tic-tac-toe).{ceiling} What made the step fast,
what was tried and dropped, and how a change is timed: [docs/performance.md](docs/performance.md).
In this run, {needs}.
"""


def chess_section(chess: dict) -> str:
    """The chess speed targets and tables, from a chess.json."""
    ratios = chess["ratios"]
    perft_rows = chess["perft"]
    ours_perft = perft_rows["jaxcheckers chess"]
    depth = ours_perft["depth"]
    rows = [
        ["steps/s ≥ 2× OpenSpiel chess (aim 10×)", f"{ratios['vs_openspiel']:.2f}×",
         "yes" if ratios["vs_openspiel"] >= 2 else "**no**"],
    ]
    if "vs_pgx" in ratios:
        rows.append(["steps/s ≥ 30× pgx chess", f"{ratios['vs_pgx']:.1f}×",
                     "yes" if ratios["vs_pgx"] >= 30 else "**no**"])
    for name, p in perft_rows.items():
        rows.append([f"perft({depth}) from the start, {name}", f"{p['seconds']:.1f} s", "timed"])
    compile_s = chess["compile_vmap_step"]
    rows.append(["compile of jit(vmap(step))", f"{compile_s['total_s']:.1f} s", "written down"])
    rows.append(["state per game", f"{chess['state_bytes']['total']:,} B", "written down"])
    command = command_of("benchmarks.chess_speed", chess)
    return f"""## Chess

`{command}`: the same harness as above (random legal play, auto-reset, the observation summed
every step), ours at each batch size, pgx chess through the same adapter, and OpenSpiel's C++
chess from Python reading `observation_tensor()` every step, all taking turns run by run.
Ratios: ours at its best batch (here {ratios['ours_best_batch']:,}) against each peer at its
best.

{machine_section(chess["machine"], "Machine (chess run)")}

{markdown_table(["target", "measured", "met"], rows)}

{chess_speed.render_markdown(chess)}
"""


def command_of(module: str, result: dict) -> str:
    """The command line that wrote `result`, from the arguments it recorded (if any)."""
    def words(value) -> str:  # a list's items, each quoted where the shell needs it
        items = value if isinstance(value, list) else [value]
        return " ".join(shlex.quote(str(item)) for item in items if item is not None)

    args = result.get("command_args", {})
    return f"python -m {module}" + "".join(
        f" --{key.replace('_', '-')} {words(v)}" for key, v in args.items()
        if v not in (False, None) and words(v))


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])


def jax_pin(pyproject: Path = ROOT / "pyproject.toml") -> str:
    """The jax requirement of pyproject.toml's dependencies, as written (">=0.4.35,<0.11")."""
    return re.search(r'"jax([<>=!~][^"]*)"', pyproject.read_text()).group(1)


def within(version: str, pin: str) -> bool:
    """Whether `version` meets every `<`, `<=`, `>`, `>=`, `==` clause of `pin`."""
    checks = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
              ">=": lambda a, b: a >= b, "==": lambda a, b: a == b}
    clauses = re.findall(r"(<=|>=|==|<|>)\s*([\d.]+)", pin)
    return all(checks[op](_version(version), _version(bound)) for op, bound in clauses)


def _machine(info: dict, device_kind: str | None = None) -> str:
    where = device_kind or info["device"] if info.get("jax_backend") == "gpu" else (
        f"{info['cores']}-core CPU")
    jax = f"jax {info['jax']}"
    if not within(info["jax"], jax_pin()):  # say so where a figure comes from another jax
        jax += f" (outside this package's pin, jax{jax_pin()})"
    return f"{info['cpu']}, {where}, {jax}, {info['date_utc'][:10]}"


def _load(results_dir: Path, name: str) -> dict | None:
    path = results_dir / name
    return json.loads(path.read_text()) if path.exists() else None


def speed_table(results_dir: Path) -> str:
    """README's speed table: each game at its best batch size against each peer at its best,
    in the same run (random play with auto-reset, the observation read every step), then the
    command and machine of each run."""
    rows, runs = [], {}

    def row(game, ours, ours_batch, peer, theirs, source, result, command):
        ratio = ours / theirs
        rows.append([game, f"{rate(ours)} (batch {ours_batch:,})", peer, rate(theirs),
                     f"**{ratio:.1f}×**" if ratio >= 2 else f"{ratio:.2f}×", f"`{source}`"])
        machine = _machine(result["machine"], result.get("device_kind"))
        runs[source] = f"- `{source}`: `{command}`; {machine}"

    tp = _load(results_dir, "throughput.json")
    if tp:
        h = tp["headline"]
        for peer, key in (("OpenSpiel checkers (C++)", "openspiel"),
                          ("pgx othello (pgx has no checkers)", "pgx_othello_best")):
            if key in h:
                row("checkers 8×8", h["ours_best"], h["ours_best_batch"], peer, h[key],
                    "throughput.json", tp, "python -m benchmarks.throughput")
    chess = _load(results_dir, "chess.json")
    if chess:
        ours = chess_speed.best(chess["throughput"], "jaxcheckers chess")
        for name, peer in (("OpenSpiel chess (C++, from Python)", "OpenSpiel chess (C++)"),
                           ("pgx chess", "pgx chess")):
            theirs = chess_speed.best(chess["throughput"], name)
            if theirs:
                row("chess", ours["steps_per_s"], ours["batch_size"], peer, theirs["steps_per_s"],
                    "chess.json", chess, command_of("benchmarks.chess_speed", chess))
    gpu = _load(results_dir, "device_speed.json")
    if gpu:
        ours = chess_speed.best(gpu["throughput"], "jaxcheckers chess")
        theirs = chess_speed.best(gpu["throughput"], "pgx chess")
        if ours and theirs:
            row("chess, on a GPU", ours["steps_per_s"], ours["batch_size"], "pgx chess",
                theirs["steps_per_s"], "device_speed.json", gpu,
                command_of("benchmarks.device_speed", gpu))
    ttt = _load(results_dir, "tictactoe.json")
    if ttt:
        same = [c for c in ttt["comparison"] if c["sampler"] == "rank"]  # the harness's sampler
        ours = max((c["jaxcheckers"] for c in same), key=lambda r: r["steps_per_s"])
        theirs = max((c["pgx"] for c in same), key=lambda r: r["steps_per_s"])
        row("tic-tac-toe 3×3", ours["steps_per_s"], ours["batch_size"], "pgx tic_tac_toe",
            theirs["steps_per_s"], "tictactoe.json", ttt, "python -m benchmarks.tictactoe")
    draughts = [(path.name, json.loads(path.read_text()))
                for path in sorted(results_dir.glob("draughts_speed*.json"))]
    for read, label in ((False, "international draughts, observation not read (as dame-rs)"),
                        (True, "international draughts, observation read")):
        def ours(result, read=read):  # older runs read every observation
            return next((j for j in result["jax"] if j["name"] == "jaxcheckers draughts"
                         and j.get("observation_read", True) == read), None)

        runs_of = [(name, result) for name, result in draughts if ours(result)]
        if not runs_of:
            continue
        # The run at draughts' best batch size.
        source, result = max(runs_of, key=lambda d: ours(d[1])["steps_per_s"])
        dame = next(lib for lib in result["libraries"] if lib["name"] == "dame-rs")
        row(label, ours(result)["steps_per_s"], ours(result)["batch_size"],
            "dame-rs (Rust, one game)", dame["positions_per_s"], source, result,
            command_of("benchmarks.draughts_speed", result))
    header = ["game", "ours, steps/s", "peer", "peer, steps/s", "ours ÷ peer", "run"]
    return markdown_table(header, rows) + "\n\n" + "\n".join(runs.values())


def strength_table(results_dir: Path) -> str:
    """README's strength table: the ladder's ratings (benchmarks/results/ladder/ladder.json)."""
    report = _load(results_dir / "ladder", "ladder.json")
    if not report:
        return "(no ladder in benchmarks/results/ladder)"
    rated = [ratings.Rating(**r) for r in report["ratings"]]
    plain = report.get("ratings_without_prior")
    table = ratings.markdown_table(rated, [ratings.Rating(**r) for r in plain] if plain else None)
    command = re.sub(r"--out \S+", "--out DIR", report["command"])
    note = ratings.tiers_note(report["tiers"], report["prior_draws"])
    return (f"{table}\n\n" + (f"{note}\n\n" if note else "")
            + f"`{command}` ({ladder.games_played(report)}; {report['machine']}; "
            f"{report['wall_seconds'] / 60:.0f} min).")


def training_table(results_dir: Path) -> str:
    """The training speed: every training_speed*.json (`benchmarks.training_speed`, one
    PPO update of a preset's batch timed) and every variant of a training_ab*.json (an A/B in
    one process), its settings as it recorded them."""
    rows = []
    for path in sorted(results_dir.glob("training_speed*.json")):
        rows.append(_training_row(json.loads(path.read_text()), f"`{path.name}`"))
    for path in sorted(results_dir.glob("training_ab*.json")):
        for variant in json.loads(path.read_text())["variants"]:
            rows.append(_training_row(variant, f"`{path.name}` ({variant['variant']})"))
    header = ["PPO update of", "devices", "env steps/s", "share spent learning", "file"]
    return (markdown_table(header, rows) + "\n\nFrom `python -m benchmarks.training_speed "
            "[--preset P] [--num-envs N] [--out FILE]`: one whole update (rollout, GAE, PPO "
            "epochs) timed after compiling; an A/B's variants (`--variants gpu gpu-fast`) in "
            "one process.")


def _training_row(result: dict, source: str) -> list[str]:
    c = result["config"]
    net = (c["network"] if c["network"] == "conv"  # older files keep no conv widths
           else f"{c['network']} {'-'.join(map(str, c['hidden_sizes']))}")
    dtype = c.get("compute_dtype", "float32")
    return [f"{c['num_envs']:,} games × {c['rollout_length']} steps, {net}"
            + ("" if dtype == "float32" else f", {dtype}"),
            " ".join([*([result["device_kind"]] if "device_kind" in result else []),
                      ", ".join(result["devices"])]),
            rate(result["training_steps_per_s"]),
            f"{result['seconds']['learn'] / result['seconds']['update']:.0%}", source]


BALLOTS_INTRO = """## Strength over the three-move ballots

Checkers, every game opened with one of the ACF's 156 three-move ballots, each with both colours
(`jaxcheckers arena A B --openings ballots`; 312 games a pairing, fewer where the table says),
scored from A's side, on a shared 2-core CPU. `python -m benchmarks.ballots A B [--games N]`
plays one pairing and saves it to `benchmarks/results/ballots/A_vs_B.json` after every batch;
another `--seed` changes only alpha-beta's choices among equal moves. `ppo:pretrained-hour` is
the checkers network that shipped as `ppo:pretrained` until 2026-11-30 (the rows under that
name were played by it); what the figures mean and what was tried: docs/experiments.md.

"""


CHESS_STRENGTH_INTRO = """## Chess strength

Chess, scored from A's side, the colours alternating, every game opened with 2 random plies
(`jaxcheckers arena --game chess A B --games N --opening-plies 2 --seed 0 --json >
benchmarks/results/chess_FILE.json`, `--seed 1` for a `_seed1` file; search players also
`--batch-size 25`), on a shared 2-core CPU. `ppo:pretrained` is the shipped chess network, its
raw policy; `mcts:ppo:pretrained:SIMS` searches with it. The `chess_distilled_*` files hold the
matches of the network that shipped as `ppo:pretrained` before it and ships now as
`pretrained-distilled` (distilled from alpha-beta; the start of the PPO runs); its value head is
the one to search with. How both were trained and what was tried: docs/experiments.md.

"""


def chess_strength_table(paths: list[Path]) -> str:
    """One row per match of the chess arena results (`arena --json`)."""
    rows = [
        "| A | B | games | A: W / D / L | score [95% CI] | wall s | file |",
        "|---|---|---|---|---|---|---|",
    ]
    for path in paths:
        for m in json.loads(path.read_text())["matches"]:
            rows.append(
                f"| `{m['a']}` | `{m['b']}` | {m['games']} | {m['wins']} / {m['draws']} / "
                f"{m['losses']} | {m['score']:.3f} [{m['score_low']:.3f}, {m['score_high']:.3f}] "
                f"| {m['seconds']:.0f} | `{path.name}` |"
            )
    return "\n".join(rows) + "\n"


def ab_table(results_dir: Path) -> str:
    """This tree against an earlier commit, each game's two versions timed in turns in one
    process (`benchmarks.ab`): every ab-BASE.json."""
    rows = []
    for path in sorted(results_dir.glob("ab-*.json")):
        for r in json.loads(path.read_text())["results"]:
            spread = (f"{r['ratio_q1']:.3f}–{r['ratio_q3']:.3f}" if "ratio_q1" in r else "")
            cpu = f"{r['cpu_ratio']:.3f}" if "cpu_ratio" in r else ""
            rows.append([r["game"], f"{r['batch_size']:,}", f"`{r['base']}`", f"{r['ratio']:.3f}",
                         spread, cpu, f"`{path.name}`"])
    header = ["game", "batch", "against", "ratio new/base", "quartiles", "CPU-time ratio", "file"]
    return (markdown_table(header, rows) + "\n\nFrom `python -m benchmarks.ab --base COMMIT "
            "--games checkers chess --batch-sizes 4096 16384` (random play with auto-reset on "
            "the CPU; the ratio is the median of each round's own ratio, or, in a file without "
            "quartiles, the ratio of the two medians). Timing on a shared CPU moves a few "
            "percent: docs/experiments.md counts instructions where that matters.")


README_SECTIONS = {"speed": speed_table, "strength": strength_table}


def fill_readme(text: str, results_dir: Path) -> str:
    """`text` with each `<!-- report:NAME -->` ... `<!-- /report:NAME -->` part regenerated;
    ValueError if one of README_SECTIONS has no such markers."""
    for name, section in README_SECTIONS.items():
        pattern = re.compile(rf"(<!-- report:{name} -->\n).*?(<!-- /report:{name} -->)", re.S)
        if not pattern.search(text):
            raise ValueError(f"README.md has no <!-- report:{name} --> ... <!-- /report:{name} -->")
        table = section(results_dir)
        text = pattern.sub(lambda m, table=table: m.group(1) + table + "\n" + m.group(2), text)
    return text


def stale(results_dir: Path = RESULTS_DIR, root: Path = ROOT) -> list[str]:
    """The files (BENCHMARKS.md, README.md) whose figures differ from what the JSON gives."""
    readme = (root / "README.md").read_text()
    wanted = {"BENCHMARKS.md": build(results_dir), "README.md": fill_readme(readme, results_dir)}
    return [name for name, text in wanted.items() if (root / name).read_text() != text]


def build(results_dir: Path) -> str:
    tp_path, pf_path = results_dir / "throughput.json", results_dir / "perft.json"
    tp = json.loads(tp_path.read_text()) if tp_path.exists() else None
    pf = json.loads(pf_path.read_text()) if pf_path.exists() else None
    chess_path = results_dir / "chess.json"
    chess = json.loads(chess_path.read_text()) if chess_path.exists() else None
    parts = ["# Benchmarks\n",
             "Reproduce (the bench extra: `pip install -e .[bench]`):\n\n"
             "    python -m benchmarks.throughput   # steps/s sweep, compile, memory (~5 min)\n"
             "    python -m benchmarks.perft        # move-level perft, depths 8-10 (~5 min)\n"
             "    python -m benchmarks.chess_speed  # chess: steps/s, perft(5), compile, state\n"
             "    python -m benchmarks.device_speed # GPU: chess next to pgx, checkers, draughts\n"
             "    python -m benchmarks.report       # this file\n"]
    if tp:
        figures = tp["headline"]
        summary = [f"Best of ours: **{rate(figures['ours_best'])} steps/s** (batch "
                   f"{figures['ours_best_batch']:,})"]
        if "ratio_vs_openspiel" in figures:
            summary.append(f"**{figures['ratio_vs_openspiel']:.1f}×** OpenSpiel checkers")
        if "ratio_vs_pgx_tic_tac_toe" in figures:
            summary.append(f"**{figures['ratio_vs_pgx_tic_tac_toe']:.2f}×** pgx tic_tac_toe")
        if "ratio_vs_pgx_othello" in figures:
            summary.append(f"**{figures['ratio_vs_pgx_othello']:.2f}×** pgx othello")
        parts.append(", ".join(summary) + ".\n")
        parts.append(machine_section(tp["machine"], "Machine (throughput run)") + "\n")
    parts.append(targets_section(tp, pf))
    if tp:
        parts.append(time_budget_section(tp))
        parts.append(method_section(tp))
        parts.append("## Throughput\n\n![steps per second against batch size, log-log]"
                     "(benchmarks/results/throughput.png)\n")
        parts.append(throughput.render_markdown(tp))
    if pf:
        parts.append("## Perft\n\n" + machine_section(pf["machine"], "Machine (perft run)") + "\n")
        parts.append(perft.render_markdown(pf))
    if chess and "ratios" in chess and "perft" in chess:
        parts.append(chess_section(chess))
    device_path = results_dir / "device_speed.json"
    if device_path.exists():
        parts.append("## On a GPU\n\n" + device_speed.render_markdown(
            json.loads(device_path.read_text())))
    if any(results_dir.glob("training_speed*.json")):
        parts.append("## Training speed\n\n" + training_table(results_dir) + "\n")
    ballots = sorted((results_dir / "ballots").glob("*.json"))
    if ballots:
        parts.append(
            BALLOTS_INTRO + ballots_table([json.loads(p.read_text()) for p in ballots]) + "\n"
        )
    chess_matches = sorted(results_dir.glob("chess_*_vs_*.json"))
    if chess_matches:
        parts.append(CHESS_STRENGTH_INTRO + chess_strength_table(chess_matches))
    if any(results_dir.glob("ab-*.json")):
        parts.append("## A/B against earlier commits\n\n" + ab_table(results_dir) + "\n")
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results-dir", type=Path, default=RESULTS_DIR)
    parser.add_argument("--out", type=Path, default=ROOT / "BENCHMARKS.md")
    parser.add_argument("--readme", type=Path, default=ROOT / "README.md")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if BENCHMARKS.md or README.md is stale")
    args = parser.parse_args(argv)
    if not any(args.results_dir.glob("*.json")):  # else every table would be written empty
        parser.error(f"--results-dir: no results (*.json) in {args.results_dir}")
    if args.check:
        behind = stale(args.results_dir, ROOT)
        print(f"out of date: {', '.join(behind)} (run python -m benchmarks.report)"
              if behind else "BENCHMARKS.md and README.md agree with benchmarks/results")
        return 1 if behind else 0
    args.out.write_text(build(args.results_dir))
    args.readme.write_text(fill_readme(args.readme.read_text(), args.results_dir))
    tp_path, chess_path = args.results_dir / "throughput.json", args.results_dir / "chess.json"
    if tp_path.exists() and chess_path.exists():  # the plot gets the chess lines
        throughput.plot(json.loads(tp_path.read_text()), args.results_dir / "throughput.png",
                        json.loads(chess_path.read_text()))
    tts = sorted(args.results_dir.glob("time_to_strength_*.json"))
    if tts:  # README's training figure; imported here, as it needs the training extra
        from benchmarks.time_to_strength import plot

        plot(tts, args.results_dir / "time_to_strength.png")
    # Refresh the per-script tables too, so that they read as this version renders them.
    for name, module in (("throughput", throughput), ("perft", perft)):
        source = args.results_dir / f"{name}.json"
        if source.exists():
            markdown = module.render_markdown(json.loads(source.read_text()))
            (args.results_dir / f"{name}.md").write_text(markdown)
    print(f"written {args.out} and {args.readme}'s tables")
    return 0


if __name__ == "__main__":
    sys.exit(main())
