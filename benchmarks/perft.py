"""Move-level perft from the 8×8 opening: jaxcheckers' batched perft next to OpenSpiel's.

    .venv/bin/python -m benchmarks.perft                  # depths 8, 9, 10 (time-boxed)
    .venv/bin/python -m benchmarks.perft --depths 8 --max-seconds 60

Move level: a whole capture sequence is one move (Aart Bik's published counts). Both systems are
first checked at depths 1–7 against those counts, then timed at each asked depth:
- ours: `jaxcheckers.perft.perft(env, depth, move_level=True)`, after a call that compiles it,
  timed twice per depth (nothing compiles after that first call, but the first call at a depth
  is the first to touch that much memory: the allocator grows, the pages fault in). The
  env has the draw rules off: neither can apply within 10 plies of the opening (the 40-move rule
  needs 80 quiet plies, a repetition needs kings and 8 quiet plies), so the counts are the same,
  and the states perft carries shrink from 774 to 63 bytes;
- OpenSpiel: `pyspiel` checkers, recursing with `state.child(action)`. In OpenSpiel a multi-jump
  is several actions by the same player, so the depth goes down only when the player to move
  changes (or the game ends).
A depth whose time, extrapolated from the depth before it, would pass `--max-seconds` is skipped
and marked so. Prints a markdown table, writes `benchmarks/results/perft.json` and `perft.md`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

if __package__ in (None, ""):  # run as a file: make `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import common
from benchmarks.common import RESULTS_DIR, markdown_table
from jaxcheckers.argtypes import positive_float, writable_folder

# Move-level perft of 8×8 American checkers from the opening (published by Aart Bik).
EXPECTED = {1: 7, 2: 49, 3: 302, 4: 1469, 5: 7361, 6: 36768, 7: 179740, 8: 845931,
            9: 3963680, 10: 18391564}
CHECKED_DEPTHS = range(1, 8)
WARM_UP_DEPTH = 4  # our first call compiles `step`; this one is timed apart
OURS, OPENSPIEL = "jaxcheckers", "OpenSpiel (pyspiel, child())"


def ours_counter() -> tuple[Callable[[int], int], float]:
    """Our move-level perft, and the seconds its first (compiling) call took."""
    import jaxcheckers
    from jaxcheckers.perft import perft

    env = jaxcheckers.make("checkers", forty_move_draw=False, repetition_draw=False)
    start = time.perf_counter()
    perft(env, WARM_UP_DEPTH, move_level=True)  # compiles
    return (lambda depth: perft(env, depth, move_level=True)), time.perf_counter() - start


def openspiel_counter() -> tuple[Callable[[int], int], float]:
    import pyspiel

    game = pyspiel.load_game("checkers")
    return (lambda depth: openspiel_perft(game.new_initial_state(), depth)), 0.0


def openspiel_perft(state, depth: int) -> int:
    """Positions `depth` moves on; the hops of one capture sequence are one move."""
    if depth == 0:
        return 1
    mover, total = state.current_player(), 0
    for action in state.legal_actions():
        child = state.child(action)
        if child.is_terminal():
            total += depth == 1
        elif child.current_player() == mover:  # the capture goes on: still the same move
            total += openspiel_perft(child, depth)
        else:
            total += openspiel_perft(child, depth - 1)
    return total


def measure(name: str, count: Callable[[int], int], first_call_s: float, depths: list[int],
            max_seconds: float, again: bool = False) -> dict:
    """Check depths 1–7, then time each of `depths`, skipping one whose time, extrapolated from
    the depth before it by the growth of the count, would pass `max_seconds`. With `again`, each
    timed depth is run a second time too (a first call at a depth touches new memory)."""
    rows, last_time, last_depth = [], None, None
    for depth in sorted(set(CHECKED_DEPTHS) | set(depths)):
        timed = depth in depths
        if timed and last_time is not None:
            estimate = last_time * EXPECTED[depth] / EXPECTED[last_depth]
            if estimate > max_seconds:
                rows.append({"depth": depth, "count": None, "seconds": None, "timed": True,
                             "skipped": f"expected about {estimate:.0f} s > {max_seconds:.0f} s"})
                print(f"  {name} depth {depth}: skipped (about {estimate:.0f} s)", flush=True)
                last_time, last_depth = estimate, depth
                continue
        start = time.perf_counter()
        found = count(depth)
        seconds = time.perf_counter() - start
        if found != EXPECTED[depth]:
            raise AssertionError(f"{name} perft({depth}) = {found}, expected {EXPECTED[depth]}")
        row = {"depth": depth, "count": found, "seconds": seconds, "timed": timed}
        print(f"  {name} depth {depth}: {found:,} in {seconds:.2f} s", flush=True)
        if timed and again:
            start = time.perf_counter()
            count(depth)
            row["seconds_again"] = time.perf_counter() - start
            print(f"  {name} depth {depth} again: {row['seconds_again']:.2f} s", flush=True)
        rows.append(row)
        last_time, last_depth = seconds, depth
    return {"name": name, "first_call_s": first_call_s, "rows": rows}


def compare(results: list[dict], depths: list[int]) -> list[dict]:
    """Per depth: each system's seconds and OpenSpiel's time over ours."""
    by_name = {result["name"]: {row["depth"]: row for row in result["rows"]} for result in results}
    table = []
    for depth in depths:
        entry = {"depth": depth, "count": EXPECTED[depth]}
        for name, rows in by_name.items():
            entry[name] = rows.get(depth, {}).get("seconds")
            if rows.get(depth, {}).get("seconds_again") is not None:
                entry[f"{name} again"] = rows[depth]["seconds_again"]
        if entry.get(OURS) and entry.get(OPENSPIEL):
            entry["speedup"] = entry[OPENSPIEL] / entry[OURS]
        if entry.get(f"{OURS} again") and entry.get(OPENSPIEL):
            entry["speedup_again"] = entry[OPENSPIEL] / entry[f"{OURS} again"]
        table.append(entry)
    return table


def render_markdown(result: dict) -> str:
    names = [system["name"] for system in result["systems"]]
    skipped = {system["name"]: {row["depth"]: row["skipped"] for row in system["rows"]
                                if row.get("skipped")} for system in result["systems"]}
    rows = []
    for entry in result["table"]:
        cells = [str(entry["depth"]), f"{entry['count']:,}"]
        for name in names:
            seconds, again = entry.get(name), entry.get(f"{name} again")
            cell = (f"{seconds:.2f} s" if seconds is not None
                    else f"skipped ({skipped[name].get(entry['depth'], 'not run')})")
            cells.append(cell + (f" (again: {again:.2f} s)" if again is not None else ""))
        speedup = f"{entry['speedup']:.2f}×" if "speedup" in entry else "—"
        if "speedup_again" in entry:
            speedup += f" (again: {entry['speedup_again']:.2f}×)"
        cells.append(speedup)
        rows.append(cells)
    header = ["depth", "positions"] + names + [f"{OPENSPIEL} time / {OURS} time"]
    notes = [f"- {system['name']}: a first call (perft({WARM_UP_DEPTH}), compiling) took "
             f"{system['first_call_s']:.1f} s, not counted above"
             for system in result["systems"] if system["first_call_s"]]
    notes.append("- Depths 1–7 were checked against the published counts before timing; every "
                 "timed count matched too.")
    if any("speedup_again" in entry for entry in result["table"]):
        notes.append(f"- \"again\": {OURS} run a second time at the same depth; the first call "
                     "at a depth also pays for the memory it is the first to touch.")
    target = result.get("target")
    if target:
        verdict = "met" if target["met"] else "**not met**"
        again = (f" (run again: {target['speedup_again']:.2f}×)"
                 if target.get("speedup_again") else "")
        notes.append(f"- Target: perft(9) at least 10× faster than OpenSpiel's: "
                     f"{target['speedup']:.2f}× on the first call{again}, {verdict}.")
    return ("### Move-level perft from the 8×8 opening (wall time per depth)\n\n"
            + markdown_table(header, rows) + "\n\n" + "\n".join(notes) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depths", type=int, nargs="+", default=[8, 9, 10],
                        choices=sorted(EXPECTED))
    parser.add_argument("--max-seconds", type=positive_float, default=180.0,
                        help="skip a depth expected to take longer (default 180)")
    parser.add_argument("--systems", nargs="+", choices=("ours", "openspiel"),
                        default=["ours", "openspiel"])
    parser.add_argument("--once", action="store_true",
                        help="time our perft once per depth (default: twice)")
    parser.add_argument("--out-dir", type=writable_folder, default=str(RESULTS_DIR))
    args = parser.parse_args(argv)

    depths = sorted(args.depths)
    result = {"machine": common.machine(), "depths": depths, "max_seconds": args.max_seconds,
              "systems": []}
    counters = {"ours": (OURS, ours_counter), "openspiel": (OPENSPIEL, openspiel_counter)}
    for system in args.systems:
        name, make_counter = counters[system]
        count, first_call_s = make_counter()
        again = system == "ours" and not args.once  # OpenSpiel compiles nothing
        result["systems"].append(measure(name, count, first_call_s, depths, args.max_seconds,
                                         again=again))
    result["table"] = compare(result["systems"], depths)
    nine = next((entry for entry in result["table"] if entry["depth"] == 9), None)
    if nine and "speedup" in nine:
        result["target"] = {"depth": 9, "need": 10.0, "speedup": nine["speedup"],
                            "speedup_again": nine.get("speedup_again"),
                            "met": nine["speedup"] >= 10.0}
    result["machine"]["load_average_at_end"] = os.getloadavg()

    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "perft.json").write_text(json.dumps(result, indent=1) + "\n")
    markdown = render_markdown(result)
    (args.out_dir / "perft.md").write_text(markdown)
    print()
    print(markdown)
    print(f"written {args.out_dir / 'perft.json'}, perft.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
