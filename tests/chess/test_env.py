"""The env as users drive it: PettingZoo's observations and action ids, bad actions, one trace."""

from __future__ import annotations

import chess
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from pettingzoo.classic.chess import chess_utils

import jaxcheckers
from jaxcheckers.chess import action_to_uci, state_from_fen
from tests.chess import helpers as h


def test_make_and_spaces():
    env = h.env()
    assert "chess" in jaxcheckers.GAMES
    assert env.num_actions == 4672 and env.observation_shape == (8, 8, 20)
    state = env.reset(jax.random.key(0))
    assert state.legal_action_mask.shape == (4672,) and state.legal_action_mask.dtype == bool
    assert state.observation.shape == (8, 8, 20) and state.observation.dtype == bool
    assert state.rewards.dtype == jnp.float32 and int(state.current_player) == 0
    assert int(state.legal_action_mask.sum()) == 20


@pytest.mark.parametrize(
    "options", [{"max_steps": 0}, {"max_steps": True}, {"history": 1}, {"fifty_move_rule": None}]
)
def test_bad_options(options):
    with pytest.raises(ValueError):
        jaxcheckers.make("chess", **options)


_OBSERVE = jax.jit(lambda s: s.observation)


def observe(state) -> np.ndarray:
    return np.asarray(_OBSERVE(state))


def test_random_games_match_pettingzoo_chess_utils():
    """Every ply: chess_utils.legal_moves gives our action ids, and get_observation our planes."""
    rng = np.random.default_rng(0)
    step = h.jitted_step()
    seen_repetition = seen_ep = 0
    for game in range(6):
        board = chess.Board()
        state = h.env().reset(None)
        for ply in range(200):
            player = int(state.current_player)
            ours = h.actions_of_bits(state.legal_action_bits)
            assert ours == set(chess_utils.legal_moves(board)), (game, ply, board.fen())
            expected = chess_utils.get_observation(board, player)
            assert np.array_equal(observe(state), expected), (game, ply, board.fen())
            seen_repetition += bool(expected[..., 19].any())
            seen_ep += board.ep_square is not None
            action = int(rng.choice(sorted(ours)))
            move = chess_utils.action_to_move(board, action, player)
            assert move.uci() == action_to_uci(state, action)
            board.push(move)
            state = step(state, action)
            if bool(state.terminated):
                break
    assert seen_repetition and seen_ep


def test_observation_of_a_repetition_and_of_the_clock():
    moves = ["g1f3", "g8f6", "f3g1", "f6g8"]
    state, board = h.env().reset(None), chess.Board()
    for uci in moves:
        from jaxcheckers.chess import uci_to_action

        state = h.jitted_step()(state, uci_to_action(state, uci))
        board.push_uci(uci)
    observation = observe(state)
    assert observation[..., 19].all()  # the start position again, white to move
    assert np.array_equal(observation, chess_utils.get_observation(board, 0))
    # The clock plane: one square, number halfmove_clock // 2.
    assert observation[..., 5].sum() == 1 and observation[7, 2, 5]


@pytest.mark.parametrize("action", [-1, 4672, 10**6, 0])
def test_bad_action_ends_the_game_against_the_mover(action):
    state = state_from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
    after = h.jitted_step()(state, action)
    assert bool(after.terminated)
    assert after.rewards.tolist() == [0.0, -1.0]
    assert not np.asarray(after.legal_action_mask).any()
    again = h.jitted_step()(after, 442)
    assert again.rewards.tolist() == [0.0, 0.0]
    assert int(again.step_count) == int(after.step_count)


def test_step_compiles_once():
    """Games from FEN, from reset and mid-game all reuse the one compiled step."""
    step = h.jitted_step()
    state = h.env().reset(None)
    for fen in ("8/8/8/4k3/8/8/3r4/4K3 w - - 0 1", "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 3 9"):
        other = state_from_fen(fen)
        step(other, int(sorted(h.actions_of_bits(other.legal_action_bits))[0]))
    for _ in range(3):
        state = step(state, int(sorted(h.actions_of_bits(state.legal_action_bits))[0]))
    assert step._cache_size() == 1


def test_state_is_small():
    state = h.env().reset(None)
    size = sum(np.asarray(x).nbytes for x in jax.tree.leaves(state))
    assert size < 3000, size  # 2,548 bytes, 1,700 of them the repetition history


@pytest.mark.slow
def test_history_observation_matches_pettingzoo_env():
    """history=True: the (8, 8, 111) stack of PettingZoo's chess_v6 env itself."""
    import sys
    import types

    sys.modules.setdefault("pygame", types.ModuleType("pygame"))  # only its renderer needs it
    from pettingzoo.classic.chess import chess as pz_chess

    env = jaxcheckers.make("chess", history=True)
    step = jax.jit(env.step)
    rng = np.random.default_rng(1)
    for _ in range(3):
        theirs = pz_chess.raw_env()
        theirs.reset()
        state = env.reset(None)
        for _ in range(120):
            agent = theirs.agent_selection
            observed = theirs.observe(agent)
            assert np.array_equal(np.asarray(state.observation), observed["observation"])
            assert np.array_equal(np.asarray(state.legal_action_mask), observed["action_mask"] == 1)
            action = int(rng.choice(np.flatnonzero(observed["action_mask"])))
            theirs.step(action)
            state = step(state, action)
            if bool(state.terminated):
                break
