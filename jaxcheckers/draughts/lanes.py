"""A `lax.while_loop` over each element of a batch, for loops whose length differs from element
to element (draughts' capture search): under vmap only the elements that loop are run, in lanes.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxcheckers.core import in_x64


def while_each(searching, step, consts, carry, scratch):
    """`lax.while_loop` of `carry, scratch = step(consts, carry, scratch)` while
    `searching(carry)`, for `step`s that leave a finished carry as it is; the final carry.
    `scratch` is working memory that `step` writes before it reads (a search's stack below its
    pointer): it starts as given, is not returned, and under vmap an element may find another's
    leftovers in it.

    Under vmap it runs without selecting, each time round, between every element's old and new
    carry (the stack of a search is large; the select cost more than the step), and a large
    batch searches only its elements that search, in a few lanes that take them up one after
    another (`_run_queued`), with scratch for those lanes only."""

    searching, step = in_x64(searching), in_x64(step)

    @jax.custom_batching.custom_vmap
    @in_x64
    def run(consts, carry, scratch):
        def body(both):
            return step(consts, *both)

        return jax.lax.while_loop(lambda both: searching(both[0]), body, (carry, scratch))[0]

    @run.def_vmap
    @in_x64
    def run_batched(axis_size, in_batched, consts, carry, scratch):
        consts, carry = jax.tree.map(
            lambda x, batched: x if batched else jnp.broadcast_to(x, (axis_size, *jnp.shape(x))),
            (consts, carry),
            tuple(in_batched[:2]),
        )
        width = compacted_width(axis_size)
        if width == axis_size:
            lanes = jnp.arange(axis_size, dtype=jnp.int32)
            scratch = _scratch(scratch, in_batched[2], lanes)
            out = _run_all(searching, step, consts, carry, scratch)
        else:
            out = _run_queued(searching, step, consts, carry, scratch, in_batched[2], width)
        return out, jax.tree.map(lambda _: True, out)

    return run(consts, carry, scratch)


def _scratch(scratch, batched, lanes):
    """The scratch of the elements `lanes`: theirs where it is batched, else a copy each."""
    return jax.tree.map(
        lambda x, b: x[lanes] if b else jnp.broadcast_to(x, (*lanes.shape, *jnp.shape(x))),
        scratch,
        batched,
    )


def compacted_width(batch: int) -> int:
    """Elements searched at once under vmap: on a CPU a sixteenth of a batch of 256 or more, at
    most 64 (a round costs a CPU in proportion to its width; since only positions where two first
    hops go on search, 0.4 % in random play, 8 to 32 lanes ran within 3 % of this); elsewhere the
    whole batch (a GPU's round costs about the same whatever its width, and queueing costs it
    more than the idle lanes: docs/performance.md has the figures)."""
    if batch < 256 or jax.default_backend() != "cpu":
        return batch
    return min(batch // 16, 64)


def rounds_a_check(batch: int) -> int:
    """Rounds of a whole batch's search between two checks of whether any element still
    searches. A check costs a GPU a wait for its host, and a finished element's extra rounds
    change nothing; 1 until a GPU has timed more (benchmarks.device_speed --draughts-unroll)."""
    del batch
    return 1


def _run_all(searching, step, consts, carry, scratch):
    """Every element's search in one loop, which runs until the batch's last search ends."""
    each_step = jax.vmap(step)
    rounds = rounds_a_check(jax.tree.leaves(carry)[0].shape[0])

    def body(both):
        for _ in range(rounds):
            both = each_step(consts, *both)
        return both

    return jax.lax.while_loop(
        lambda both: jax.vmap(searching)(both[0]).any(), body, (carry, scratch)
    )[0]


def _run_queued(searching, step, consts, carry, scratch, scratch_batched, width: int):
    """The elements that search, `width` at a time in lanes. When they are `width` or fewer (in
    random play nearly always), each has a lane from the start and the loop runs on the lanes
    alone (`_all_held`); else through a queue (`_through_queue`)."""
    searches = jax.vmap(searching)(carry)
    count = searches.sum(dtype=jnp.int32)
    order = _searching_first(searches, count)
    held = order[:width]  # the element each lane holds first
    lanes = (jax.tree.map(lambda x: x[held], carry), _scratch(scratch, scratch_batched, held))
    each_step = jax.vmap(step, in_axes=(0, 0, 0))
    return jax.lax.cond(
        count <= width,
        lambda: _all_held(searching, each_step, consts, carry, held, lanes),
        lambda: _through_queue(searching, each_step, consts, carry, scratch, scratch_batched,
                               order, count, held, lanes),
    )


def _all_held(searching, each_step, consts, carry, held, lanes):
    """Every element that searches in a lane of its own: the loop steps the lanes, and the
    finished carries go back once it ends. Each round of a loop costs a CPU about as many of its
    runtime's calls as it has operations, whatever its width: with no queue to serve, a round
    has a third fewer (docs/performance.md)."""
    lane_consts = jax.tree.map(lambda x: x[held], consts)
    lane_carry, _ = jax.lax.while_loop(
        lambda both: jax.vmap(searching)(both[0]).any(),
        lambda both: each_step(lane_consts, *both),
        lanes,
    )
    return jax.tree.map(lambda o, x: o.at[held].set(x, unique_indices=True), carry, lane_carry)


def _through_queue(searching, each_step, consts, carry, scratch, scratch_batched, order, count,
                   held, lanes):
    """Lanes that each take the next waiting element as soon as theirs is searched. A loop under
    vmap runs until its largest search ends, and most searches are short (in random play the
    largest runs several times the median's rounds: docs/performance.md): in chunks, each chunk
    ran as long as its largest search with most lanes idle; queued, the loop runs about as long
    as the largest search or the searches' rounds over the lanes, whichever is more. A finished
    carry is left as it is by `step`, so a lane with nothing left to search idles harmlessly.
    `order`: the elements, the `count` that search first."""
    batch, width = order.shape[0], held.shape[0]

    def busy(state):
        _, _, (lane_carry, _), _ = state
        return jax.vmap(searching)(lane_carry).any()

    def body(state):
        held, waiting, (lane_carry, lane_scratch), out = state
        lane_consts = jax.tree.map(lambda x: x[held], consts)
        lane_carry, lane_scratch = each_step(lane_consts, lane_carry, lane_scratch)
        done = ~jax.vmap(searching)(lane_carry)
        # Put the finished lanes' carries back (a lane idle since it finished writes the same).
        into = jnp.where(done, held, batch)
        out = jax.tree.map(lambda o, x: o.at[into].set(x, mode="drop"), out, lane_carry)
        # Hand the waiting elements to the finished lanes, in order.
        place = waiting + jnp.cumsum(done, dtype=jnp.int32) - 1
        refill = done & (place < count)
        taken = order[jnp.minimum(place, batch - 1)]
        held = jnp.where(refill, taken, held)
        lane_carry = jax.tree.map(
            lambda lane, whole: jnp.where(_lanes_like(refill, lane), whole[held], lane),
            lane_carry,
            carry,
        )
        if any(jax.tree.leaves(scratch_batched)):
            fresh = _scratch(scratch, scratch_batched, held)
            lane_scratch = jax.tree.map(
                lambda lane, new: jnp.where(_lanes_like(refill, lane), new, lane),
                lane_scratch,
                fresh,
            )
        waiting = waiting + refill.sum(dtype=jnp.int32)
        return held, waiting, (lane_carry, lane_scratch), out

    start = (held, jnp.minimum(count, width).astype(jnp.int32), lanes, carry)
    *_, out = jax.lax.while_loop(busy, body, start)
    return out


def _lanes_like(flags: jax.Array, x: jax.Array) -> jax.Array:
    """bool (width, 1, …): one flag a lane, against a field of shape (width, …)."""
    return flags.reshape(flags.shape + (1,) * (x.ndim - 1))


def _searching_first(searches: jax.Array, count: jax.Array) -> jax.Array:
    """int32 (B,): the elements' indices, those that search first, each group in order (a
    stable sort of `~searches`, by counting: XLA's sort on the CPU cost more than the rest)."""
    lanes = jnp.arange(searches.shape[0], dtype=jnp.int32)
    before = jnp.cumsum(searches, dtype=jnp.int32)  # searching elements up to each, itself in
    place = jnp.where(searches, before - 1, count + lanes - before)
    return jnp.zeros_like(lanes).at[place].set(lanes, unique_indices=True)
