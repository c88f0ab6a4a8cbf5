"""One JAX compilation cache for the whole test run, shared by the xdist workers and the
subprocesses the tests start; and XLA's backend optimisations turned down for the run.

Many tests build the same computation anew (an env, a trainer, a match) in fresh closures, which
`jit`'s in-memory cache cannot see as the same; the persistent cache keys on the compiled program
itself, so each one is compiled once per run. The directory is new for every run and removed at
its end, so that a run never reads what an earlier one compiled (CI starts from nothing too).

The suite compiles far more than it runs (some 3,000 programs, most run for a few steps), so LLVM's
optimisation passes on the CPU cost more than the faster code they make saves, and XLA's older loop
emitters (up to jaxlib 0.10) compile a fusion faster than its newer MLIR fusion emitters do. Each
program's machine code is made in one piece, not split into parts compiled on threads: the two
workers already keep both cores busy, and splitting costs more than it saves (measured in
docs/experiments.md). The flags change how a program is compiled, never what it computes; a user's
own XLA_FLAGS are kept, and the benchmarks, which time programs, never see them.
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import tempfile

CACHE_VARIABLE = "JAX_COMPILATION_CACHE_DIR"  # a user's own cache, if set, is used as it is
MIN_TIME_VARIABLE = "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"
_OWNER = "JAXCHECKERS_TEST_CACHE_OWNER"  # the process that made the directory removes it
# The older loop emitters are gone from jaxlib 0.11 on, whose XLA aborts the process on the flag
# that asks for them (before pytest prints anything).
LAST_JAXLIB_WITH_LOOP_EMITTERS = (0, 10)


def quick_compile_flags(jaxlib_version: str) -> str:
    """XLA_FLAGS for the suite on the installed jaxlib: only flags its XLA knows."""
    flags = ["--xla_backend_optimization_level=0", "--xla_cpu_parallel_codegen_split_count=1"]
    major_minor = tuple(int(part) for part in jaxlib_version.split(".")[:2])
    if major_minor <= LAST_JAXLIB_WITH_LOOP_EMITTERS:
        flags.append("--xla_cpu_use_fusion_emitters=false")
    return " ".join(flags)


def pytest_configure(config):
    if "XLA_FLAGS" not in os.environ:  # before jax starts its backend; subprocesses inherit it
        os.environ["XLA_FLAGS"] = quick_compile_flags(importlib.metadata.version("jaxlib"))
    if CACHE_VARIABLE not in os.environ:  # the controller (or a lone process): make it
        os.environ[CACHE_VARIABLE] = tempfile.mkdtemp(prefix="jaxcheckers-jit-")
        os.environ[_OWNER] = str(os.getpid())
        # Worth a file from 50 ms of compiling (jax's default is one second): with the quick
        # compile flags most programs take less than a third of a second, and the subprocesses
        # the tests start compile many of the programs the tests compiled before them.
        os.environ.setdefault(MIN_TIME_VARIABLE, "0.05")
    import jax

    jax.config.update("jax_compilation_cache_dir", os.environ[CACHE_VARIABLE])
    if MIN_TIME_VARIABLE in os.environ:
        seconds = float(os.environ[MIN_TIME_VARIABLE])
        jax.config.update("jax_persistent_cache_min_compile_time_secs", seconds)


def pytest_unconfigure(config):
    if os.environ.get(_OWNER) == str(os.getpid()):
        shutil.rmtree(os.environ.pop(CACHE_VARIABLE), ignore_errors=True)
