"""Every line of 3×3 tic-tac-toe against one agent: the agent plays its seat, the other side
tries every legal move. `lost_lines` counts the lines the agent loses, so an agent that never
loses, whoever it meets (`perfect` included), scores 0.

The positions of each ply are deduplicated (a board and its mover say everything) and the
agent is run on them in fixed-size batches, so that it compiles once.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

BATCH = 256


def _take(tree, index):
    return jax.tree.map(lambda x: x[index], tree)


@functools.cache
def _batched_step(env):
    return jax.jit(jax.vmap(env.step))


def lost_lines(env, agent, seat: int) -> tuple[int, int]:
    """(lines lost, positions where the agent chose) with `agent` in `seat` of `env` (3×3)."""
    act = jax.jit(jax.vmap(agent))
    step = _batched_step(env)
    states = _take(jax.vmap(env.reset)(jax.random.split(jax.random.key(0), 1)), np.arange(1))
    lost = decisions = 0
    while states.board.shape[0]:
        _, first = np.unique(np.asarray(states.board), axis=0, return_index=True)
        states = _take(states, np.sort(first))
        count = states.board.shape[0]
        if int(states.current_player[0]) == seat:  # every game of a ply has the same mover
            decisions += count
            actions = []
            for start in range(0, count, BATCH):
                rows = np.minimum(np.arange(start, start + BATCH), count - 1)
                keys = jax.random.split(jax.random.key(start), BATCH)
                actions.append(np.asarray(act(_take(states, rows), keys))[: count - start])
            after = step(states, jnp.asarray(np.concatenate(actions)))
        else:
            rows, squares = np.nonzero(np.asarray(states.legal_action_mask))
            after = step(_take(states, rows), jnp.asarray(squares, jnp.int32))
        lost += int((np.asarray(after.rewards)[:, seat] < 0).sum())
        states = _take(after, np.flatnonzero(~np.asarray(after.terminated)))
    return lost, decisions
