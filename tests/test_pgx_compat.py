"""pgx's names on our envs: `init`, `id`, `version`, `step(state, action, key)`, `State.replace`,
and pgx's own `auto_reset` wrapper driving our games in a jitted, vmapped loop."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxcheckers

pgx_wrappers = pytest.importorskip("pgx.experimental.wrappers")

GAMES = [("tictactoe", {}), ("checkers", {"board_size": 6})]
BATCH, STEPS = 32, 60


@pytest.mark.parametrize("name, options", GAMES)
def test_pgx_names(name, options):
    env = jaxcheckers.make(name, **options)
    assert env.id == name and repr(jaxcheckers.make(env.id, **options)) == repr(env)
    assert env.version == "v0"
    key = jax.random.key(0)
    start = env.init(key)
    np.testing.assert_array_equal(start.observation, env.reset(key).observation)
    action = jnp.argmax(start.legal_action_mask)
    # The key is accepted and ignored: every step is deterministic.
    with_keys = [env.step(start, action, jax.random.key(k)) for k in (1, 2)]
    for state in with_keys:
        jax.tree.map(np.testing.assert_array_equal, state, env.step(start, action))
    flagged = start.replace(terminated=jnp.bool_(True))
    assert type(flagged) is type(start) and bool(flagged.terminated)
    assert flagged.step_count is start.step_count


def test_pgx_names_on_chess():
    """Chess's State keeps pgx's `replace` too (stepping chess is checked elsewhere: compiling
    its step here again would cost most of a minute)."""
    env = jaxcheckers.make("chess")
    assert env.id == "chess" and env.version == "v0"
    start = env.init(jax.random.key(0))
    flagged = start.replace(terminated=jnp.bool_(True))
    assert type(flagged) is type(start) and bool(flagged.terminated)
    # The mask reads the stored moves alone (a step clears them when a game ends), so a fresh
    # game that a wrapper marks finished still offers its moves.
    assert bool(flagged.legal_action_mask.any())
    assert flagged.step_count is start.step_count


def _play_with_pgx_auto_reset(name: str, options: dict):
    """pgx's AlphaZero/baseline loop shape: vmap(auto_reset(env.step, env.init)) under jit,
    actions sampled from `state.legal_action_mask`. Returns per-step terminated and rewards."""
    env = jaxcheckers.make(name, **options)
    step = jax.vmap(pgx_wrappers.auto_reset(env.step, env.init))

    @jax.jit
    def rollout(key):
        state = jax.vmap(env.init)(jax.random.split(key, BATCH))

        def body(state, key):
            act_key, step_key = jax.random.split(key)
            logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
            action = jax.random.categorical(act_key, logits, axis=-1)
            had_a_move = state.legal_action_mask.any(-1)
            state = step(state, action, jax.random.split(step_key, BATCH))
            return state, (had_a_move, state.terminated, state.rewards)

        return jax.lax.scan(body, state, jax.random.split(key, STEPS))[1]

    return jax.device_get(rollout(jax.random.key(0)))


def _check_auto_reset(name: str, options: dict):
    had_a_move, terminated, rewards = _play_with_pgx_auto_reset(name, options)
    assert terminated.sum() > BATCH  # games ended and new ones went on
    # Every state the agent acted on (the fresh game after an end included) offered a move, so
    # no game ended by a forfeit: a forfeit gives -1 to one player and 0 to the other.
    assert had_a_move.all()
    forfeit = terminated & (rewards.min(-1) == -1) & (rewards.max(-1) == 0)
    assert not forfeit.any()


def test_pgx_auto_reset_runs_tictactoe():
    _check_auto_reset("tictactoe", {})


def test_pgx_auto_reset_runs_checkers():
    _check_auto_reset("checkers", {"board_size": 6})


@pytest.mark.slow  # compiles chess's step once more; checkers and tic-tac-toe run in the fast suite
def test_pgx_auto_reset_runs_chess():
    """Chess cut at 20 plies under pgx's wrapper: it hands back a fresh game still marked as
    finished, whose moves must be offered all the same (the mask reads the stored moves alone).
    After 60 random plies every game is new again, and none forfeited on the way."""
    env = jaxcheckers.make("chess", max_steps=20)
    step = jax.jit(jax.vmap(pgx_wrappers.auto_reset(env.step, env.init)))
    state = jax.vmap(env.init)(jax.random.split(jax.random.key(0), 4))
    cuts = 0
    for key in jax.random.split(jax.random.key(1), 60):
        act_key, step_key = jax.random.split(key)
        assert bool(state.legal_action_mask.any(-1).all())
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        action = jax.random.categorical(act_key, logits, axis=-1)
        state = step(state, action, jax.random.split(step_key, 4))
        cuts += int(state.truncated.sum())
        assert not bool((state.rewards.min(-1) == -1).any())
    assert cuts == 4 * 3  # each game cut at plies 20, 40 and 60
    np.testing.assert_array_equal(state.step_count, 0)
