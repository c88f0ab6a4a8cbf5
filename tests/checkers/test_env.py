"""The env as users drive it: batched under jit/vmap, auto-reset, no retracing, perft."""

from __future__ import annotations

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxcheckers
from jaxcheckers.agents.random import random_legal_action, random_play_step
from jaxcheckers.checkers import Checkers, bitboard, render, rules
from jaxcheckers.checkers.game import Game
from jaxcheckers.perft import perft

BATCH = 1024


@pytest.fixture(scope="module")
def env():
    return jaxcheckers.make("checkers")


def play_random(env, batch: int, plies: int, key):
    """`plies` steps of random play over `batch` games with auto-reset, in one jitted scan."""

    def one_step(carry, _):
        state, key = carry
        key, now = jax.random.split(key)
        out = random_play_step(env, state, now)
        finished = out.final.terminated | out.final.truncated
        return (out.state, key), (finished, out.state.rewards, out.final.rewards)

    state = jax.vmap(env.reset)(jax.random.split(key, batch))
    return jax.lax.scan(one_step, (state, key), None, length=plies)


def test_batched_random_play_under_jit(env):
    (state, _), (finished, rewards, final_rewards) = jax.jit(play_random, static_argnums=(0, 1, 2))(
        env, BATCH, 120, jax.random.PRNGKey(0)
    )
    chex.assert_shape(state.legal_action_mask, (BATCH, env.num_actions))
    chex.assert_shape(state.observation, (BATCH, 8, 8, 4))
    finished, rewards, final_rewards = map(np.asarray, (finished, rewards, final_rewards))
    assert finished.sum() > BATCH // 2, "random games of 120 plies mostly finish"
    # Auto-reset keeps the rewards of the finished game on the fresh state.
    np.testing.assert_array_equal(rewards, final_rewards)
    decisive = finished & (np.abs(final_rewards).sum(-1) > 0)
    np.testing.assert_array_equal(final_rewards[decisive].sum(-1), 0.0)  # zero-sum
    assert (np.abs(rewards[~finished]) == 0).all(), "rewards only on the step that ends a game"
    # Every live game in the batch has a legal move, and the fresh games start at the opening.
    assert np.asarray(state.legal_action_mask).any(-1).all()


def test_auto_reset_exposes_the_final_observation(env):
    near_end = jaxcheckers.checkers.positions.from_board(
        env,
        ["." * 8] * 4 + [".b......", "..b.....", ".b......", "w......."],
        player=0,
    )
    action = {text: a for a, text in render.legal_moves(near_end)}["17-21"]
    step = jax.jit(jaxcheckers.step_autoreset, static_argnums=0)
    out = step(env, near_end, action, jax.random.PRNGKey(0))
    assert bool(out.final.terminated)
    assert np.asarray(out.state.rewards).tolist() == [1.0, -1.0]
    opening = env.reset(jax.random.PRNGKey(1))
    np.testing.assert_array_equal(out.state.board, opening.board)
    assert not bool(out.state.terminated)
    # The final observation is white's view of the lost position: one man, three black men.
    assert np.asarray(out.final.observation)[..., 0].sum() == 1
    assert np.asarray(out.final.observation)[..., 2].sum() == 3


def test_step_does_not_retrace(env):
    @jax.jit
    @chex.assert_max_traces(n=1)
    def batched_step(state, action):
        return jax.vmap(env.step)(state, action)

    state = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), 64))
    for i in range(5):
        keys = jax.random.split(jax.random.PRNGKey(i), 64)
        action = jax.vmap(random_legal_action)(keys, state.legal_action_mask)
        state = batched_step(state, action)
    assert int(state.step_count[0]) == 5


def test_state_dtypes_and_size(env):
    state = env.reset(jax.random.PRNGKey(0))
    assert state.current_player.dtype == jnp.int32
    assert state.legal_action_mask.dtype == jnp.bool_
    assert state.rewards.dtype == jnp.float32 and state.rewards.shape == (2,)
    assert state.terminated.dtype == jnp.bool_ and state.truncated.dtype == jnp.bool_
    assert state.observation.dtype == jnp.bool_
    size = sum(leaf.nbytes for leaf in jax.tree.leaves(state))
    assert size <= 1536, f"{size} bytes of state per 8×8 game; the budget is 1.5 KiB"


@pytest.mark.parametrize("n,moves", [(6, 5), (8, 7), (10, 9)])
def test_other_board_sizes_open_with_n_minus_one_moves(n, moves):
    env = jaxcheckers.make("checkers", board_size=n)
    state = env.reset(jax.random.PRNGKey(0))
    assert int(state.legal_action_mask.sum()) == moves
    assert state.observation.shape == (n, n, 4)
    assert int(state.observation[..., 0].sum()) == (n // 2 - 1) * (n // 2)


HOP_PERFT = [7, 49, 302, 1469, 7361, 36768, 179255]
MOVE_PERFT = [7, 49, 302, 1469, 7361, 36768, 179740]


def test_hop_level_perft(env):
    assert [perft(env, d) for d in range(1, 8)] == HOP_PERFT


def test_move_level_perft(env):
    assert [perft(env, d, move_level=True) for d in range(1, 8)] == MOVE_PERFT


def test_the_command_counts_from_a_fen(capsys):
    from tests.cli_helpers import run_cli

    fen = "W:W18,21,22:B9,10,K14"  # white to move, a capture forced
    status, out, err = run_cli(["perft", "--fen", fen, "--depth", "3"], capsys)
    assert status == 0, err
    assert out.splitlines()[0].endswith(f"hop-level perft from {fen}")
    counts = [int(line.split()[2].replace(",", "")) for line in out.splitlines()[1:]]
    state = jaxcheckers.games.spec("checkers").notation.from_fen(fen)
    assert counts == [perft(Checkers(), d, state=state) for d in (1, 2, 3)]
    assert counts != HOP_PERFT[:3]


class CheckersCountingTraces(Checkers):
    traces = 0

    def step(self, state, action):
        type(self).traces += 1  # runs when jax traces `step`, not when compiled code runs it
        return super().step(state, action)


def test_perft_traces_step_once_for_every_depth_and_chunking():
    """Small chunks: children spill over chunk boundaries and the states mid-capture are packed
    from many chunks into few; one compiled `step` serves every depth."""
    env = CheckersCountingTraces()
    counts = [perft(env, d, move_level=True, chunk_size=4096) for d in range(1, 8)]
    assert counts == MOVE_PERFT
    assert CheckersCountingTraces.traces == 1


@pytest.mark.slow
def test_move_level_perft_depth_8_and_9(env):
    assert perft(env, 8, move_level=True) == 845931
    assert perft(env, 9, move_level=True) == 3963680


def test_text_rendering_names_the_side_to_move(env):
    text = render.render_text(env.reset(jax.random.PRNGKey(0)))
    assert text.splitlines()[1] == " 0   b   b   b   b"
    assert text.splitlines()[-1] == "black (player 0) to move"


@pytest.mark.parametrize(
    "options", [{}, {"no_moves": "pass"}, {"repetition_draw": False}, {"forty_move_draw": False}]
)
def test_no_state_field_is_empty(options):
    """Checkpointers (orbax) refuse zero-size arrays, and training loops save env states."""
    state = jaxcheckers.make("checkers", **options).reset(jax.random.PRNGKey(0))
    assert all(leaf.size > 0 for leaf in jax.tree.leaves(state))


@pytest.mark.parametrize("n", range(4, 17, 2))
def test_mask_of_reads_each_action_bit_for_every_board_size(n):
    """Action a = direction·n² + square is legal where bit (square // 2) of that direction's
    set is on and the square is dark, whichever way mask_of lays out its work."""
    words = bitboard.layout(n).words
    moves = np.asarray(jax.random.bits(jax.random.key(n), (3, 4, words), jnp.uint32))
    direction, square = np.divmod(np.arange(4 * n * n), n * n)
    index = square // 2
    bit = (moves[:, direction, index // 32] >> (index % 32).astype(np.uint32)) & 1
    dark = (square // n + square % n) % 2 == 1
    mask = rules.mask_of(jnp.asarray(moves), n)
    np.testing.assert_array_equal(np.asarray(mask), (bit == 1) & dark)


@pytest.mark.parametrize(
    "options", [{}, {"no_moves": "pass"}, {"forty_move_draw": False}, {"repetition_draw": False}]
)
def test_history_index_gives_each_ply_of_the_ring_its_own_slot(options):
    env = jaxcheckers.make("checkers", **options)
    size = env.history_length
    slots = [env.history_index(ply) for ply in range(-1, size - 1)]
    assert sorted(slots) == list(range(size))
    assert env.history_index(size) == env.history_index(0)  # a ring
    traced = jax.jit(env.history_index)(jnp.arange(-1, size - 1))
    assert np.asarray(traced).tolist() == slots


# -- a state of other rules is refused, not misread (issue 19, item 8) --------------------------


@pytest.mark.parametrize(
    "options",
    [
        {"no_moves": "pass"},
        {"repetition_draw": False},
        {"forty_move_draw": False},
        {"board_size": 10},
    ],
)
def test_a_state_made_under_other_rules_is_refused(env, options):
    other = jaxcheckers.make("checkers", **options)
    state = other.reset(jax.random.key(0))
    with pytest.raises(ValueError, match="other rules|cannot step"):
        env.step(state, 145)
    with pytest.raises(ValueError, match="other rules|cannot step"):
        jax.jit(jax.vmap(env.step))(jax.tree.map(lambda x: x[None], state), jnp.zeros(1, jnp.int32))
    with pytest.raises(ValueError, match="other rules|cannot step"):
        Game.from_state(state, env)
    other.check_state(state)  # its own env takes it


def test_a_state_of_another_game_is_refused(env):
    tictactoe = jaxcheckers.make("tictactoe")
    with pytest.raises(ValueError, match="cannot step"):
        env.step(tictactoe.reset(jax.random.key(0)), 0)


def test_pettingzoo_cannot_play_on_from_a_state_of_other_rules():
    """reset(options={"start": state}) takes the State; its first step must not misread it."""
    pettingzoo = pytest.importorskip("jaxcheckers.adapters.pettingzoo")
    aec = pettingzoo.raw_env()
    start = jaxcheckers.make("checkers", no_moves="pass").reset(jax.random.key(0))
    try:
        aec.reset(options={"start": jax.device_get(start)})
    except ValueError:
        return  # refused at reset: better still
    with pytest.raises(ValueError, match="other rules"):
        aec.step(145)
