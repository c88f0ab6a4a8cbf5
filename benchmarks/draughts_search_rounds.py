"""How many rounds draughts' capture search loop runs in random play, and how many it would run
searched in other ways.

    python -m benchmarks.draughts_search_rounds [--batch 4096] [--steps 60]

Under vmap the search's loop (`draughts.lanes`) runs as long as the largest search of the batch,
one node of its tree a round, so a step costs its rounds times a round's cost, however few
positions search. For each step of random play from the start (the positions before it), it
counts, over the positions where the rules search (two first hops or more go on), the rounds of
the batch's largest search: as the rules search (`whole`), with each direction of the first hops
searched apart (`by direction`: the largest of the four), with each first hop searched apart
(`by first hop`), and the rounds that go down a level (`descents`: the rules' search costs no
round for a node whose captures all stop after one more hop, so it runs about these and the
rounds that back up). Nothing is timed: the counts are the same on every device.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

import jaxcheckers
from benchmarks.common import RESULTS_DIR, machine, markdown_table
from jaxcheckers.agents.random import random_legal_actions
from jaxcheckers.argtypes import check_writable, positive_int, seed
from jaxcheckers.core import in_x64
from jaxcheckers.draughts import bitboard as bb
from jaxcheckers.draughts import lanes, rules

WAYS = ("whole", "by direction", "by first hop", "descents")


@contextlib.contextmanager
def counted_rounds():
    """`rules.longest_captures` traced with a plain loop that counts its rounds, handed back as
    `Longest.taken` (the rounds, then the rounds that went down a level, packed as
    rounds·1024 + descents): the carry's fourth field is the pieces taken."""

    def counting(searching, step, consts, carry, scratch):
        def body(state):
            (carry, scratch), rounds, descents = state
            after, scratch = step(consts, carry, scratch)
            return (after, scratch), rounds + 1, descents + (after[0] > carry[0])

        start = ((carry, scratch), jnp.int32(0), jnp.int32(0))
        (carry, _), rounds, descents = jax.lax.while_loop(
            lambda state: searching(state[0][0]), body, start
        )
        return (*carry[:3], rounds * 1024 + descents, carry[4])

    own = lanes.while_each
    lanes.while_each = in_x64(counting)
    try:
        yield
    finally:
        lanes.while_each = own


def going_on(words, jumper, lay: rules.Layout):
    """A position's sets, and per direction the landings of the first hops from which its
    captures go on, as the rules find them (it searches when they are two or more)."""
    position = rules._sides_of(rules._of_words(words), jumper, lay)
    sets = rules.hop_sets(position, lay)
    ends = rules.landings(sets.captures, lay)
    return position, rules._going_on(position, sets.captures, ends, lay)[1]


@in_x64
def searches(words, jumper, lay: rules.Layout) -> jax.Array:
    """bool (): the rules search this position's captures (two first hops or more go on)."""
    return jax.lax.population_count(going_on(words, jumper, lay)[1].x).sum() > 1


def rounds_of_one(lay: rules.Layout):
    """A position's words and jumper -> its rounds in the order of `WAYS`."""

    @in_x64
    def one(words, jumper):
        position, going = going_on(words, jumper, lay)

        def rounds(firsts):
            packed = rules.longest_captures(position, firsts, lay).taken
            return packed // 1024, packed % 1024

        def only(direction, bits):
            return bb.Bits(jnp.where(jnp.arange(4) == direction, going.x & bits, jnp.uint64(0)))

        every = ~jnp.uint64(0)

        whole, descents = rounds(going)
        by_direction = jax.vmap(lambda d: rounds(only(d, every))[0])(jnp.arange(4))
        d, b = (x.reshape(-1) for x in jnp.meshgrid(jnp.arange(4), jnp.arange(64), indexing="ij"))
        by_hop = jax.vmap(lambda d, b: rounds(only(d, jnp.uint64(1) << b.astype(jnp.uint64)))[0])(
            d, b
        )
        return jnp.stack([whole, by_direction.max(), by_hop.max(), descents])

    return one


CHUNK = 64  # searching positions counted at once (one compile)


def count(batch: int, steps: int, key_seed: int) -> dict:
    """Per step: the positions that search, and the rounds of the batch's largest search."""
    env = jaxcheckers.make("draughts")
    lay = env.layout
    shapes = (jax.ShapeDtypeStruct((CHUNK, 5, 2), jnp.uint32),
              jax.ShapeDtypeStruct((CHUNK,), jnp.int32))  # fmt: skip
    with counted_rounds():  # only this program's search counts its rounds
        measure = jax.jit(jax.vmap(rounds_of_one(lay))).lower(*shapes).compile()

    @jax.jit
    def play(key, state):
        key, pick = jax.random.split(key)
        actions = random_legal_actions(pick, state.legal_action_mask)
        return key, jax.vmap(env.step)(state, actions)

    searches_of = jax.jit(jax.vmap(functools.partial(searches, lay=lay)))
    state = jax.vmap(env.reset)(jax.random.split(jax.random.key(key_seed), batch))
    key = jax.random.key(key_seed + 1)
    searching, largest = [], []
    for _ in range(steps):
        words, jumper = np.asarray(state.position), np.asarray(state.jumper)
        found = np.flatnonzero(np.asarray(searches_of(words, jumper)))
        searching.append(len(found))
        rounds = []
        for start in range(0, len(found), CHUNK):
            chunk = np.resize(found[start : start + CHUNK], CHUNK)  # repeats fill the chunk
            rounds.append(np.asarray(measure(words[chunk], jumper[chunk])))
        if rounds:
            largest.append(np.concatenate(rounds).max(axis=0))
        key, state = play(key, state)
    largest = np.array(largest).reshape(-1, len(WAYS))

    def summary(column: np.ndarray) -> dict:
        if not len(column):
            return {"mean": 0.0, "p90": 0.0, "max": 0}
        return {"mean": float(column.mean()), "p90": float(np.percentile(column, 90)),
                "max": int(column.max())}  # fmt: skip

    return {
        "steps": steps,
        "steps_that_search": len(largest),
        "searching_a_step": float(np.mean(searching)),
        "rounds_a_step": {way: summary(largest[:, i]) for i, way in enumerate(WAYS)},
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=positive_int, default=4096)
    parser.add_argument("--steps", type=positive_int, default=60)
    parser.add_argument("--seed", type=seed, default=0)
    parser.add_argument("--out", default=str(RESULTS_DIR / "draughts_search_rounds.json"))
    args = parser.parse_args(argv)
    try:
        check_writable(args.out)
    except ValueError as error:
        parser.error(f"--out: {error}")
    result = count(args.batch, args.steps, args.seed)
    print(
        f"batch {args.batch}, {args.steps} steps of random play from the start: "
        f"{result['searching_a_step']:.1f} positions search a step, in "
        f"{result['steps_that_search']} of the steps"
    )
    rows = [
        [way, f"{r['mean']:.1f}", f"{r['p90']:.0f}", r["max"]]
        for way, r in result["rounds_a_step"].items()
    ]
    print(markdown_table(["the batch's largest search", "mean rounds", "p90", "max"], rows))
    out = {"machine": machine(), "command_args": vars(args), **result}
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
