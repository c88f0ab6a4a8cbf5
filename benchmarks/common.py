"""The harness every benchmarked JAX game goes through, and what the scripts share.

A game enters through a tiny adapter (`JaxGame`: `init(key)`, `step(state, action)`, the number of
actions), so jaxcheckers' envs (`reset`/`step`) and pgx's (`init`/`step`) are driven by exactly the
same code: a jitted `lax.scan` of T steps over a vmapped batch, where each step

1. draws one uniformly random legal action per game with `sample_legal_actions`, the same sampler
   for every system, from the legal actions as the State keeps them: a pgx State's mask is
   packed into words first, a jaxcheckers State's `legal_action_bits` are those words already
   (`core.packed_legal_actions`);
2. plays it with the game's own `step`;
3. resets the games that ended (terminated or truncated) from a fresh `init`, with `jnp.where`;
4. folds the observation of every game into a running sum, so that it is really computed.

Timings are the median of several runs after a compiling run and a warm-up run, each ended by
`block_until_ready`.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import math
import os
import platform
import statistics
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from jaxcheckers.agents import make_agent
from jaxcheckers.core import packed_legal_actions, tree_where

RESULTS_DIR = Path(__file__).resolve().parent / "results"

# The first leaf of `scan`'s carry is the batch of games; donating it lets XLA update it in place.
DONATE_STATE = (0,)


# -- the sampler ------------------------------------------------------------------------------


def sample_legal_actions(key: jax.Array, legal: jax.Array) -> jax.Array:
    """int32 (B,): one uniformly random legal action per game (0 where none is legal).

    legal: bool (B, A) masks, or the masks packed (uint32 (B, ⌈A/32⌉), a State's
    `legal_action_bits`). This is `jaxcheckers.agents.random.random_legal_actions`, the
    project's batched random player: one draw of B uniform numbers, each picking a rank among
    its game's legal actions, found on the mask packed into 32-bit words, so the cost is one pass
    over the mask. Every JAX system here is sampled with it.
    """
    from jaxcheckers.agents.random import random_legal_actions

    return random_legal_actions(key, legal)


sample_legal_actions.reads_packed = True  # see `legal_actions`


def legal_actions(states: Any, sampler) -> jax.Array:
    """What `sampler` reads of a batch of States: a sampler marked `reads_packed` (as
    `sample_legal_actions`) the packed legal actions (`core.packed_legal_actions`: a mask is
    packed as the sampler would pack it), any other sampler the bool mask."""
    if getattr(sampler, "reads_packed", False):
        return packed_legal_actions(states)
    return states.legal_action_mask


def noise_argmax_actions(key: jax.Array, legal_action_mask: jax.Array) -> jax.Array:
    """int32 (B,): the arg-max of uniform noise over each game's legal actions.

    The usual way to draw a uniform legal action, kept to show its cost: one threefry draw per
    action, which for checkers' 256 actions costs more than the game's step.
    """
    noise = jax.random.uniform(key, legal_action_mask.shape)
    return jnp.argmax(jnp.where(legal_action_mask, noise, -1.0), axis=-1).astype(jnp.int32)


SAMPLERS: dict[str, Callable[[jax.Array, jax.Array], jax.Array]] = {
    "rank": sample_legal_actions,
    "noise-argmax": noise_argmax_actions,
}


def check_sampler(sampler=None, draws: int = 20_000) -> None:
    """Fails unless `sampler` picks only legal actions (0 with none) and each about equally often.

    Cheap (two small compiles); the throughput script runs it before it measures anything.
    """
    import numpy as np

    sampler = sampler or sample_legal_actions
    for num_actions in (9, 65, 256):
        masks = jax.random.bernoulli(jax.random.key(num_actions), 0.05, (64, num_actions))
        masks = masks.at[0].set(False).at[1].set(True)
        actions, masks = np.asarray(sampler(jax.random.key(1), masks)), np.asarray(masks)
        legal = masks[np.arange(len(actions)), actions]
        none_legal = ~masks.any(axis=1)
        ok = np.where(none_legal, actions == 0, legal)
        assert ok.all(), f"illegal action drawn ({num_actions} actions)"

        row = jnp.zeros(num_actions, bool).at[jnp.array([0, 3, num_actions - 1])].set(True)
        keys = jax.random.split(jax.random.key(2), draws)
        picks = np.asarray(jax.vmap(lambda key, row=row: sampler(key, row[None])[0])(keys))
        counts = np.bincount(picks, minlength=num_actions)[[0, 3, num_actions - 1]]
        assert counts.sum() == draws and (abs(counts / draws - 1 / 3) < 0.02).all(), counts


# -- the games ---------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class JaxGame:
    """What the harness needs of a game: pure single-game `init` and `step`, and its actions."""

    name: str
    init: Callable[[jax.Array], Any]  # key -> State (one game; pgx names: legal_action_mask, ...)
    step: Callable[[Any, jax.Array], Any]  # (State, int32 action) -> State
    num_actions: int


def jaxcheckers_game(game: str = "checkers", *, label: str | None = None, **options) -> JaxGame:
    import jaxcheckers

    env = jaxcheckers.make(game, **options)
    return JaxGame(label or f"jaxcheckers {game}", env.reset, env.step, env.num_actions)


def pgx_game(env_id: str) -> JaxGame:
    import pgx  # the `bench` extra

    env = pgx.make(env_id)
    return JaxGame(f"pgx {env_id}", env.init, lambda state, action: env.step(state, action),
                   env.num_actions)


def harness_only_game(num_actions: int) -> JaxGame:
    """A game with no rules (the position is a step counter): times the harness and sampler alone.

    Its legal actions change every step (a fixed stride of them) so that nothing is constant-folded.
    """
    class Counter(NamedTuple):
        legal_action_mask: jax.Array  # bool (A,)
        observation: jax.Array  # bool (A,)
        terminated: jax.Array  # bool ()
        truncated: jax.Array  # bool ()
        step_count: jax.Array  # int32 ()

    actions = jnp.arange(num_actions)

    def position(count: jax.Array) -> Counter:
        legal = (actions + count) & 7 == 0  # bit operations: the rule-less game costs ~nothing
        return Counter(legal, legal, count & 127 == 127, jnp.bool_(False), count)

    def init(key: jax.Array) -> Counter:
        del key
        return position(jnp.int32(0))

    def step(state: Counter, action: jax.Array) -> Counter:
        return position(state.step_count + 1 + action % 2)

    return JaxGame(f"harness only ({num_actions} actions)", init, step, num_actions)


def step_skipped(game: JaxGame) -> JaxGame:
    """`game` with its step replaced by a counter: the position never changes, and each game ends
    every 64 steps (about a checkers game's length) so that auto-reset runs as often. Timed
    through the harness, it is what reading the game's mask and observation, sampling and
    resetting cost around the step: the most the harness allows that game's State."""

    def step(state, action):
        del action
        count = state.step_count + 1
        return state._replace(step_count=count, terminated=count % 64 == 0)

    return JaxGame(f"{game.name}, step skipped", game.init, step, game.num_actions)


# -- the rollout -------------------------------------------------------------------------------


class Tally(NamedTuple):
    """What the rollout keeps besides the games, so that their results are really computed."""

    observation_sum: jax.Array  # int32 (*observation_shape)  every observation, summed over games
    steps_in_game: jax.Array  # int32 (B,)  steps since each game's reset
    games_ended: jax.Array  # int32 ()  games that ended (terminated or truncated)
    ended_game_steps: jax.Array  # int32 ()  their lengths in steps, summed (for the mean length)


def make_rollout(game: JaxGame, batch_size: int, num_steps: int, sampler=sample_legal_actions,
                 *, read_observation: bool = True):
    """A jitted `(states, key, tally) -> (states, key, tally)`, `num_steps` steps later.

    states: the game's State batched over `batch_size` (donated: updated in place).
    The observation is summed over the batch axis, a reduction that vectorises, so reading it
    costs little next to computing it. With `read_observation=False` it is not read: random
    play as a library that makes no observation plays it (the legal moves every step, the
    moves played); where the game computes its observation on reading, it is not computed.
    """
    batched_step = jax.vmap(game.step)
    batched_init = jax.vmap(game.init)
    batched_where = jax.vmap(tree_where)

    def one_step(carry, _):
        states, key, tally = carry
        key, action_key, reset_key = jax.random.split(key, 3)
        actions = sampler(action_key, legal_actions(states, sampler))
        played = batched_step(states, actions)
        ended = played.terminated | played.truncated
        fresh = batched_init(jax.random.split(reset_key, batch_size))
        states = batched_where(ended, fresh, played)
        steps_in_game = tally.steps_in_game + 1
        observation_sum = tally.observation_sum
        if read_observation:
            observation_sum += played.observation.sum(axis=0, dtype=jnp.int32)
        tally = Tally(
            observation_sum=observation_sum,
            steps_in_game=jnp.where(ended, 0, steps_in_game),
            games_ended=tally.games_ended + ended.sum(dtype=jnp.int32),
            ended_game_steps=tally.ended_game_steps + jnp.where(ended, steps_in_game, 0).sum(),
        )
        return (states, key, tally), None

    def rollout(states, key, tally):
        return jax.lax.scan(one_step, (states, key, tally), None, length=num_steps)[0]

    return jax.jit(rollout, donate_argnums=DONATE_STATE)


def initial_carry(game: JaxGame, batch_size: int, seed: int = 0):
    key, init_key = jax.random.split(jax.random.key(seed))
    states = jax.vmap(game.init)(jax.random.split(init_key, batch_size))
    # The observation may be a property computed from other fields: ask for it inside the trace.
    observation_shape = jax.eval_shape(lambda key: game.init(key).observation, init_key).shape
    zero = jnp.int32(0)
    tally = Tally(jnp.zeros(observation_shape, jnp.int32), jnp.zeros(batch_size, jnp.int32),
                  zero, zero)
    return states, key, tally


@dataclasses.dataclass
class Throughput:
    name: str
    batch_size: int
    scan_length: int  # T, environment steps per game per call
    calls_per_run: int  # calls between two clock readings (so that a run lasts long enough)
    compile_s: float
    run_s: list[float]  # each timed run
    run_cpu_s: list[float]  # CPU time of this process in each run (all its threads)
    steps_per_s: float  # batch_size × T × calls_per_run / median run
    steps_per_cpu_s: float  # the same over the median CPU time: less swayed by other work
    mean_game_length: float | None  # steps per game, over the games that ended (None: none did)
    memory: dict[str, int]  # XLA's own account of the rollout's buffers, bytes
    observation_read: bool = True  # False: the games' observations were not read (`make_rollout`)

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


def scan_length(batch_size: int) -> int:
    """T: about 65k game steps per call, between 4 and 512 steps."""
    return max(4, min(512, (1 << 16) // batch_size))


class TimedRollout:
    """One game at one batch size, compiled and warmed up, ready to be timed run by run.

    Each run continues the games of the previous one, so games are in every phase, not all at
    the opening. A run is as many calls as make it last `min_run_s` (judged from the warm-up).
    """

    def __init__(self, game: JaxGame, batch_size: int, *, sampler=sample_legal_actions,
                 min_run_s: float = 0.25, num_steps: int | None = None,
                 read_observation: bool = True):
        self.game, self.batch_size = game, batch_size
        self.read_observation = read_observation
        self.num_steps = num_steps or scan_length(batch_size)
        rollout = make_rollout(game, batch_size, self.num_steps, sampler,
                               read_observation=read_observation)
        carry = initial_carry(game, batch_size)

        start = time.perf_counter()
        self.compiled = rollout.lower(*carry).compile()
        self.compile_s = time.perf_counter() - start

        start = time.perf_counter()
        self.carry = jax.block_until_ready(self.compiled(*carry))  # warm-up
        self.calls = max(1, math.ceil(min_run_s / (time.perf_counter() - start)))
        self.run_s: list[float] = []
        self.run_cpu_s: list[float] = []

    def run(self) -> None:
        start, cpu_start = time.perf_counter(), time.process_time()
        for _ in range(self.calls):
            self.carry = self.compiled(*self.carry)
        jax.block_until_ready(self.carry)
        self.run_s.append(time.perf_counter() - start)
        self.run_cpu_s.append(time.process_time() - cpu_start)

    def result(self) -> Throughput:
        tally = self.carry[2]
        ended = int(tally.games_ended)
        steps_per_run = self.batch_size * self.num_steps * self.calls
        return Throughput(
            name=self.game.name,
            batch_size=self.batch_size,
            scan_length=self.num_steps,
            calls_per_run=self.calls,
            compile_s=self.compile_s,
            run_s=self.run_s,
            run_cpu_s=self.run_cpu_s,
            steps_per_s=steps_per_run / statistics.median(self.run_s),
            steps_per_cpu_s=steps_per_run / statistics.median(self.run_cpu_s),
            mean_game_length=int(tally.ended_game_steps) / ended if ended else None,
            memory=_memory_analysis(self.compiled),
            observation_read=self.read_observation,
        )


def measure_together(rollouts: list[TimedRollout], runs: int = 5) -> list[Throughput]:
    """Median of `runs` runs of each rollout, the rollouts taking turns run by run, so that a
    change in the machine's load falls on all of them alike; every other round in reverse
    order, so that none always runs first."""
    for round_index in range(runs):
        for rollout in rollouts if round_index % 2 == 0 else rollouts[::-1]:
            rollout.run()
    results = [rollout.result() for rollout in rollouts]
    for rollout in rollouts:
        rollout.carry = rollout.compiled = None  # free the batch before the next size
    return results


def measure_throughput(game: JaxGame, batch_size: int, *, sampler=sample_legal_actions,
                       runs: int = 5, min_run_s: float = 0.25) -> Throughput:
    """Steps per second of random play: median of `runs` runs after compiling and a warm-up."""
    rollout = TimedRollout(game, batch_size, sampler=sampler, min_run_s=min_run_s)
    return measure_together([rollout], runs)[0]


def _memory_analysis(compiled) -> dict[str, int]:
    stats = compiled.memory_analysis()
    if stats is None:
        return {}
    fields = ("argument_size_in_bytes", "output_size_in_bytes", "temp_size_in_bytes",
              "alias_size_in_bytes", "generated_code_size_in_bytes")
    return {name: int(getattr(stats, name)) for name in fields if hasattr(stats, name)}


# -- compile time and size ----------------------------------------------------------------------


def compile_times(function: Callable, *example_args) -> dict[str, float]:
    """Seconds to trace and lower `jax.jit(function)` and to compile it, for a fresh jit; and the
    CPU seconds this process spent on both (less swayed than wall time by other work)."""
    jitted = jax.jit(function)
    start, cpu_start = time.perf_counter(), time.process_time()
    lowered = jitted.lower(*example_args)
    lowered_at = time.perf_counter()
    lowered.compile()
    done, cpu_done = time.perf_counter(), time.process_time()
    return {"trace_lower_s": lowered_at - start, "compile_s": done - lowered_at,
            "total_s": done - start, "cpu_s": cpu_done - cpu_start}


def cost_per_game(game: JaxGame, batch_size: int = 1024, sampler=sample_legal_actions) -> dict:
    """XLA's own estimate of the work in each part of one harness step, per game: flops and bytes
    accessed of the game's `step`, of reading `legal_action_mask` and `observation` (properties
    computed on reading, for some games), of the sampler, and of the auto-reset select."""
    states = jax.vmap(game.init)(jax.random.split(jax.random.key(0), batch_size))
    actions = jnp.zeros(batch_size, jnp.int32)
    masks = states.legal_action_mask
    ended = jnp.zeros(batch_size, bool)
    parts = {
        "step": (jax.vmap(game.step), states, actions),
        "read legal_action_mask": (lambda s: s.legal_action_mask, states),
        "read observation": (lambda s: s.observation, states),
        "sample an action": (sampler, jax.random.key(0), masks),
        "auto-reset select": (jax.vmap(tree_where), ended, states, states),
    }
    costs = {}
    for part, (function, *args) in parts.items():
        analysis = jax.jit(function).lower(*args).compile().cost_analysis()
        analysis = analysis[0] if isinstance(analysis, list) else (analysis or {})
        costs[part] = {"flops": analysis.get("flops", 0.0) / batch_size,
                       "bytes": analysis.get("bytes accessed", 0.0) / batch_size}
    return costs


def state_bytes(game: JaxGame) -> dict[str, int]:
    """Bytes of one game's State, leaf by leaf (from shapes only: nothing is computed)."""
    state = jax.eval_shape(game.init, jax.random.key(0))
    leaves = jax.tree_util.tree_leaves_with_path(state)
    sizes = {jax.tree_util.keystr(path).lstrip("."): leaf.size * leaf.dtype.itemsize
             for path, leaf in leaves}
    return {"total": sum(sizes.values()), **sizes}


# -- where and when ----------------------------------------------------------------------------


def machine() -> dict[str, Any]:
    """The machine and software the figures were taken on."""
    return {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "jax": jax.__version__,
        "jax_backend": jax.default_backend(),
        "device": str(jax.devices()[0]),
        "date_utc": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M"),
        "load_average_at_start": os.getloadavg(),
        "versions": _versions(("pgx", "open_spiel", "numpy", "jaxlib")),
        "commit": _git_commit(),
    }


def _cpu_model() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return platform.processor() or "unknown"
    for line in out.splitlines():
        if line.startswith("Model name:"):
            return line.split(":", 1)[1].strip()
    return "unknown"


def _versions(packages) -> dict[str, str]:
    from importlib import metadata

    found = {}
    for name in packages:
        try:
            found[name] = metadata.version(name.replace("_", "-"))
        except metadata.PackageNotFoundError:
            found[name] = "not installed"
    return found


def _git_commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, check=True, cwd=Path(__file__).resolve().parent)
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def markdown_table(header: list[str], rows: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def rate(steps_per_s: float) -> str:
    """1.23 M, 456 k: steps per second for a table."""
    if steps_per_s >= 1e6:
        return f"{steps_per_s / 1e6:.2f} M"
    if steps_per_s >= 1e3:
        return f"{steps_per_s / 1e3:.0f} k"
    return f"{steps_per_s:.0f}"


def agent_or_exit(parser: argparse.ArgumentParser, spec: str, env):
    """The agent `spec` names for `env`; a refused spec ends the script with one argparse line."""
    try:
        return make_agent(spec, env)
    except (ValueError, OSError) as error:
        parser.error(str(error))
