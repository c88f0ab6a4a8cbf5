"""Generalised advantage estimation for two-player, zero-sum self-play with multi-hop turns.

One network plays both seats and every quantity is in the frame of the player who moved at that
step (the *mover*). For step t of one game stream (the env auto-resets, so a stream holds several
games back to back):

    v_t   the value of the state at t, from the mover's point of view
    r_t   the reward the mover got from its move: rewards[current_player at t]
    u_t   the value of the state after the move, from the point of view of ITS mover (the next
          step's v_{t+1}; at the end of the rollout the bootstrap value; at a truncation the value
          of the truncated game's last state)
    s_t   +1 when that next state has the same mover as step t (a multi-jump continues),
          -1 when the turn passed to the opponent
    d_t   1 when the game ended by its rules at step t (nothing to bootstrap from)
    e_t   1 when the game ended at step t by rules or truncation (the trace stops here)

    delta_t = r_t + gamma * s_t * u_t * (1 - d_t) - v_t
    A_t     = delta_t + gamma * lambda * s_t * (1 - e_t) * A_{t+1}
    G_t     = A_t + v_t            (the value target)

Why the terminal reward reaches both players' last moves: the game ends on the winner's move,
where r_t = +1 for the winner. The loser's last move was an earlier step t' whose next state
belonged to the winner, so s_t' = -1, and (with lambda = 1) G_t' = r_t' - gamma * G_{t'+1}:
every hop the winner made after the loser's last move passes the +1 on with s = +1, and the
turn change turns it into -gamma^k for the loser. For lambda < 1 the same happens through the
learned values, which are trained on exactly these targets. This relies on the game being
zero-sum at the end (+1/-1 or 0/0, as the State contract's rules give); the forfeit of an
illegal action (-1/0) cannot happen with the masked policy.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

__all__ = ["self_play_gae"]


def self_play_gae(
    values: jax.Array,
    rewards: jax.Array,
    next_values: jax.Array,
    same_mover_next: jax.Array,
    terminated: jax.Array,
    episode_end: jax.Array,
    *,
    gamma: float,
    gae_lambda: float,
) -> tuple[jax.Array, jax.Array]:
    """Advantages and value targets, both [T, ...], for the scheme in the module docstring.

    Args (all [T, ...], time first, any batch shape after it):
        values: v_t.  rewards: r_t.  next_values: u_t.
        same_mover_next: bool, the next state's mover is step t's mover (s_t = +1).
        terminated: bool, d_t.  episode_end: bool, e_t (terminated or truncated).
    """
    sign = jnp.where(same_mover_next, 1.0, -1.0)
    bootstrap = (1.0 - terminated.astype(jnp.float32)) * sign
    trace = gamma * gae_lambda * (1.0 - episode_end.astype(jnp.float32)) * sign
    deltas = rewards + gamma * bootstrap * next_values - values

    def backward(next_advantage, step):
        delta, trace_t = step
        advantage = delta + trace_t * next_advantage
        return advantage, advantage

    _, advantages = jax.lax.scan(backward, jnp.zeros_like(values[0]), (deltas, trace), reverse=True)
    return advantages, advantages + values
