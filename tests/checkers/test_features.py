"""The attack maps of `checkers.features` against the plain-Python reference's capture rule, and
the tactical network that reads them."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxcheckers
from jaxcheckers.agents.networks import make_network
from jaxcheckers.checkers.features import attack_maps, tactical_inputs
from tests.checkers import reference as ref

DIAGONALS = tuple(ref.DIRECTIONS.values())


def _positions(n: int, count: int, seed: int) -> np.ndarray:
    """bool (count, n, n, 4): observations along random games (restarting when one ends)."""
    env = jaxcheckers.make("checkers", board_size=n)

    def one_move(state, key):
        action = jax.random.categorical(key, jnp.where(state.legal_action_mask, 0.0, -1e9))
        after = env.step(state, action)
        after = jax.lax.cond(after.terminated | after.truncated, env.reset, lambda _: after, key)
        return after, after.observation

    keys = jax.random.split(jax.random.PRNGKey(seed), count)
    _, observations = jax.jit(lambda k: jax.lax.scan(one_move, env.reset(k[0]), k))(keys)
    return np.asarray(observations)


def _frame(observation: np.ndarray) -> list[list[int]]:
    """The reference's frame board (the mover's pieces positive) of a (n, n, 4) observation."""
    values = (observation.astype(int) * [ref.MAN, ref.KING, -ref.MAN, -ref.KING]).sum(-1)
    return values.tolist()


def _jumps(frame: list[list[int]]) -> set[tuple[tuple[int, int], tuple[int, int]]]:
    """(jumped square, landing square) of every capture the mover of `frame` has now."""
    n = len(frame)
    hops = set()
    for row, col in ref.own_squares(frame):
        for action in ref.jump_actions_of_piece(frame, row, col):
            _, _, direction = ref.decode_action(n, action)
            dr, dc = ref.DIRECTIONS[direction]
            hops.add(((row + dr, col + dc), (row + 2 * dr, col + 2 * dc)))
    return hops


def _opponent_jumps(frame: list[list[int]]) -> set[tuple[tuple[int, int], tuple[int, int]]]:
    """`_jumps` of the player not to move, in the mover's frame."""
    n = len(frame)
    back = lambda square: ref.square_to_frame(n, 1, square)  # noqa: E731
    return {(back(jumped), back(landing)) for jumped, landing in _jumps(ref.to_frame(frame, 1))}


def _jumped(hops) -> set[tuple[int, int]]:
    return {jumped for jumped, _ in hops}


def _with(frame, changes: dict) -> list[list[int]]:
    board = [row[:] for row in frame]
    for (row, col), value in changes.items():
        board[row][col] = value
    return board


def _reference_maps(frame: list[list[int]]) -> np.ndarray:
    """bool (n, n, 5): `attack_maps`' five planes, each square tried on the reference."""
    n = len(frame)
    maps = np.zeros((n, n, 5), bool)
    for row, col in _jumped(_opponent_jumps(frame)):
        maps[row, col, 0] = True
    for row, col in _jumped(_jumps(frame)):
        maps[row, col, 3] = True
    for row in range(n):
        for col in range(n):
            if frame[row][col] != ref.EMPTY:
                continue
            here = (row, col)
            maps[row, col, 1] = here in _jumped(_opponent_jumps(_with(frame, {here: ref.MAN})))
            maps[row, col, 4] = here in _jumped(_jumps(_with(frame, {here: -ref.MAN})))
            for dr, dc in DIAGONALS:  # a piece of the mover's behind, moved away (onto here)
                behind = (row + dr, col + dc)
                if ref.on_board(n, *behind) and frame[behind[0]][behind[1]] > 0:
                    moved = _with(frame, {here: ref.MAN, behind: ref.EMPTY})
                    maps[row, col, 2] |= (here, behind) in _opponent_jumps(moved)
    return maps


# 10×10 (its own compiles) is the slow sample; 8×8 and 6×6 stay fast.
@pytest.mark.parametrize("n, seed", [(8, 0), (6, 1), pytest.param(10, 2, marks=pytest.mark.slow)])
def test_attack_maps_agree_with_the_reference_capture_rule(n, seed):
    observations = _positions(n, 120, seed)
    maps = np.asarray(jax.jit(attack_maps)(observations))
    for observation, got in zip(observations, maps, strict=True):
        np.testing.assert_array_equal(got, _reference_maps(_frame(observation)))
    assert maps.any(axis=(0, 1, 2)).all()  # every plane was exercised somewhere


def test_tactical_inputs_are_the_dark_squares_planes_and_maps():
    observations = _positions(8, 16, 3)
    inputs = np.asarray(tactical_inputs(observations))
    assert inputs.shape == (16, 32 * 9) and inputs.dtype == np.float32
    dark = inputs.reshape(16, 32, 9)
    np.testing.assert_array_equal(dark[..., :4].sum(1), observations.sum((1, 2)))
    np.testing.assert_array_equal(
        dark[..., 4:].sum(1), np.asarray(attack_maps(observations)).sum((1, 2))
    )


def test_the_tactical_network_reads_checkers_boards_only():
    model = make_network(256, (8, 8, 4), network="mlp-tactical", hidden_sizes=(16,))
    observation = jnp.asarray(_positions(8, 4, 4))
    params = model.init(jax.random.PRNGKey(0), observation)
    assert params["params"]["Dense_0"]["kernel"].shape == (32 * 9, 16)
    logits, value = model.apply(params, observation)
    assert logits.shape == (4, 256) and value.shape == (4,)
    with pytest.raises(ValueError, match="checkers boards"):
        make_network(9, (3, 3, 2), network="mlp-tactical")
