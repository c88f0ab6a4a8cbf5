"""A/B by instructions: what this tree's harness rollout executes against a base commit's, counted.

    .venv/bin/python -m benchmarks.instructions --base f9a19e8 --batch-sizes 4096 16384

On a shared machine a timed A/B (`benchmarks.ab`) wanders by ±10 % with the load; this one
does not. Each version runs in its own process under valgrind's callgrind, with instrumentation
switched on only around `--calls` calls of the compiled rollout (a small C shim issues the
client requests; needs gcc and valgrind's headers), and the instructions executed in XLA's
generated code are summed (the thread pool's idle spinning, which varies run to run, is left
out). The same seed plays the same games in both versions, so the counts compare equal work
and repeat to the instruction. XLA is held to AVX2 (valgrind decodes no AVX-512) and to one
thread. A count is not a time (memory traffic is not in it), but it is exact.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

SHIM = """#include <valgrind/callgrind.h>
void start(void) { CALLGRIND_ZERO_STATS; CALLGRIND_START_INSTRUMENTATION; }
void stop(void) { CALLGRIND_STOP_INSTRUMENTATION; CALLGRIND_DUMP_STATS_AT("calls"); }
"""
XLA_FLAGS = "--xla_cpu_max_isa=AVX2 --xla_cpu_multi_thread_eigen=false"
JIT_LINE = re.compile(r"^\s*([\d,]+) .*\?\?\?:0x[0-9a-f]+ \[\?\?\?\]$")  # code without a file


def child(revision: str, game_name: str, batch: int, calls: int, shim: str) -> None:
    """Runs under valgrind: compile, warm up, then `calls` calls with instrumentation on."""
    import ctypes

    import jax

    from benchmarks.ab import game, load_base
    from benchmarks.common import initial_carry, make_rollout, scan_length

    if revision == "tree":
        import jaxcheckers as package
    else:
        package = load_base(revision, Path(tempfile.mkdtemp()))
    played = game(package, game_name, revision)
    carry = initial_carry(played, batch)
    compiled = make_rollout(played, batch, scan_length(batch)).lower(*carry).compile()
    carry = jax.block_until_ready(compiled(*carry))
    callgrind = ctypes.CDLL(shim)
    callgrind.start()
    for _ in range(calls):
        carry = compiled(*carry)
    jax.block_until_ready(carry)
    callgrind.stop()
    print(f"games ended: {int(carry[2].games_ended)}")


def count(revision: str, game_name: str, batch: int, calls: int, folder: Path) -> tuple[int, str]:
    """Instructions executed in generated code over `calls` calls, and the games-ended line."""
    out = folder / f"callgrind.{revision}.{batch}"
    command = ["valgrind", "--tool=callgrind", "--instr-atstart=no",
               f"--callgrind-out-file={out}", sys.executable, "-m", "benchmarks.instructions",
               "--child", revision, game_name, str(batch), str(calls), str(folder / "shim.so")]
    run = subprocess.run(command, capture_output=True, text=True,
                         env={**os.environ, "XLA_FLAGS": XLA_FLAGS})
    ended = [line for line in run.stdout.splitlines() if line.startswith("games ended")]
    if run.returncode or not ended:
        raise RuntimeError(f"valgrind run failed ({revision}, {batch}):\n{run.stderr[-2000:]}")
    annotated = subprocess.run(["callgrind_annotate", "--threshold=100", f"{out}.1"],
                               capture_output=True, text=True, check=True).stdout
    total = sum(int(m[1].replace(",", "")) for m in map(JIT_LINE.match, annotated.splitlines())
                if m)
    return total, ended[0]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        revision, game_name, batch, calls, shim = argv[1:]
        child(revision, game_name, int(batch), int(calls), shim)
        return 0
    from benchmarks.ab import check_base_and_games
    from jaxcheckers.argtypes import positive_int

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the commit to compare with")
    parser.add_argument("--games", nargs="+", default=["checkers"])
    parser.add_argument("--batch-sizes", type=positive_int, nargs="+", default=[4096])
    parser.add_argument("--calls", type=positive_int, default=4, help="rollout calls counted")
    args = parser.parse_args(argv)
    check_base_and_games(parser, args.base, args.games)

    from benchmarks.common import markdown_table, scan_length

    rows = []
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        (folder / "shim.c").write_text(SHIM)
        subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", str(folder / "shim.so"),
                        str(folder / "shim.c")], check=True)
        for game_name in args.games:
            for batch in args.batch_sizes:
                steps = batch * scan_length(batch) * args.calls
                new, new_ended = count("tree", game_name, batch, args.calls, folder)
                old, old_ended = count(args.base, game_name, batch, args.calls, folder)
                same = "yes" if new_ended == old_ended else f"no: {new_ended} / {old_ended}"
                rows.append([game_name, str(batch), f"{new / steps:.1f}", f"{old / steps:.1f}",
                             f"{new / old:.4f}", same])
    print(f"Instructions in generated code per game step, {args.calls} rollout calls counted "
          "(valgrind callgrind, XLA held to AVX2 and one thread):\n")
    print(markdown_table(["game", "batch", "this tree", args.base, "ratio", "same games"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
