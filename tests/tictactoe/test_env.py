"""n×n tic-tac-toe: perft, win detection on drawn boards, the contract's edge cases, jit/vmap.

Boards are drawn row by row: 'X' player 0's mark, 'O' player 1's, '.' empty.
"""

from __future__ import annotations

import functools

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxcheckers.agents.random import random_legal_action
from jaxcheckers.tictactoe.env import (
    TicTacToe,
    covers_a_line,
    gym_board,
    has_line,
    line_bit_masks,
    packed,
    winning_lines,
)

# Move sequences of each length from the empty 3×3 board, games stopping at a win.
PERFT_3X3 = [9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872]
FINISHED_GAMES_3X3 = 255168


@functools.cache
def env_of(size: int, k: int | None = None) -> TicTacToe:
    return TicTacToe(size=size, k=k)


@functools.cache
def jitted(size: int, k: int | None = None):
    """(start, step, batched step) of one env, jitted once per test session."""
    env = env_of(size, k)
    return jax.jit(env.start), jax.jit(env.step), jax.jit(jax.vmap(env.step))


def board_from(rows: list[str]) -> np.ndarray:
    values = {"X": 1, "O": -1, ".": 0}
    return np.array([values[c] for row in rows for c in row.replace(" ", "")], np.int8)


def play_on(rows: list[str], player: int, square: tuple[int, int], k: int | None = None):
    """The state after `player` marks `square` (row, col) on the drawn board."""
    size = len(rows)
    start, step, _ = jitted(size, k)
    state = start(board_from(rows), jnp.int32(player))
    return step(state, jnp.int32(square[0] * size + square[1]))


# -- perft ---------------------------------------------------------------------------------------


PERFT_CHUNK = 16384  # states stepped per call: one compiled shape whatever the depth


def step_in_chunks(step_many, states, actions: np.ndarray):
    """`step_many` over a host batch of any length, in fixed-size chunks (the last one padded)."""
    count = len(actions)
    chunks = []
    for begin in range(0, count, PERFT_CHUNK):
        take = np.minimum(np.arange(begin, begin + PERFT_CHUNK), count - 1)  # pad: repeat the last
        out = step_many(jax.tree.map(lambda x, t=take: x[t], states), jnp.asarray(actions[take]))
        chunks.append(jax.tree.map(np.asarray, out))
    joined = jax.tree.map(lambda *parts: np.concatenate(parts), *chunks)
    return jax.tree.map(lambda x: x[:count], joined)


def perft(size: int, k: int | None, depth: int) -> tuple[list[int], int]:
    """Move sequences of each length 1..depth through `env.step`, and the games finished."""
    start, _, step_many = jitted(size, k)
    states = jax.tree.map(
        lambda x: np.asarray(x)[None], start(np.zeros(size * size, np.int8), jnp.int32(0))
    )
    counts, finished = [], 0
    for _ in range(depth):
        parents, actions = np.nonzero(states.legal_action_mask)
        if len(actions) == 0:
            break
        children = step_in_chunks(
            step_many, jax.tree.map(lambda x, p=parents: x[p], states), actions
        )
        counts.append(len(actions))
        finished += int(children.terminated.sum())
        live = ~children.terminated
        states = jax.tree.map(lambda x, live=live: x[live], children)
    return counts, finished


def test_perft_3x3_every_depth_and_finished_games():
    counts, finished = perft(3, None, 9)
    assert counts == PERFT_3X3
    assert finished == FINISHED_GAMES_3X3


def reference_perft(size: int, k: int, depth: int) -> tuple[list[int], int]:
    """The same counts by plain recursion over Python lists, with `reference_winner` as referee."""
    counts, finished = [0] * depth, 0

    def visit(board: np.ndarray, mark: int, ply: int) -> None:
        nonlocal finished
        for square in np.flatnonzero(board == 0):
            child = board.copy()
            child[square] = mark
            counts[ply] += 1
            if reference_winner(child, size, k) or not (child == 0).any():
                finished += 1
            elif ply + 1 < depth:
                visit(child, -mark, ply + 1)

    visit(np.zeros(size * size, np.int8), 1, 0)
    return [c for c in counts if c], finished


def test_perft_3x3_two_in_a_row_agrees_with_plain_recursion():
    assert perft(3, 2, 9) == reference_perft(3, 2, 9)


# -- win detection on drawn boards ---------------------------------------------------------------

# (rows, player to move, square marked, k, the mover wins)
WIN_CASES = [
    # 3×3, three in a row: each line direction, won by either player.
    (["XX.", "OO.", "..."], 0, (0, 2), None, True),  # row
    (["X.O", "X.O", "..."], 1, (2, 2), None, True),  # column
    (["XO.", ".XO", "..."], 0, (2, 2), None, True),  # diagonal
    (["X.O", "XO.", "..."], 1, (2, 0), None, True),  # anti-diagonal
    (["XO.", "OX.", "..."], 0, (2, 1), None, False),  # no line
    # 4×4, three in a row.
    ([".XX.", "O...", "O...", "...."], 0, (0, 3), 3, True),  # row, at the edge
    (["....", ".O..", ".OX.", "X..X"], 1, (0, 1), 3, True),  # column, mark at the top
    (["X...", ".X..", "....", "O.OO"], 0, (2, 2), 3, True),  # diagonal, mark in the middle
    (["...X", "..X.", "....", "OO.."], 0, (2, 1), 3, True),  # anti-diagonal
    (["..XX", "X...", "O...", "O..."], 0, (0, 1), 3, True),  # row of three at columns 1..3
    (["..XX", "X...", "O...", "O..."], 0, (3, 3), 3, False),  # 2,3 and 4 are not a line (no wrap)
    # 5×5, four in a row.
    (["XXX..", "OOO..", ".....", ".....", "....."], 0, (0, 4), 4, False),  # gap at (0, 3)
    (["XXX.X", "OOO..", ".....", ".....", "O...."], 0, (0, 3), 4, True),  # fills the gap
    (["O....", ".O...", "..O..", ".....", "XXX.X"], 1, (3, 3), 4, True),  # diagonal
    (["....O", "...O.", "..O..", ".....", "XXX.X"], 1, (3, 1), 4, True),  # anti-diagonal
    (["....X", "X...X", "....X", ".....", "OOO.."], 0, (3, 4), 4, True),  # column, bottom cell
    (["....X", "X...X", "....X", ".....", "OOO.."], 0, (3, 3), 4, False),
    # 10×10, five in a row (gomoku).
    (
        [
            "..........",
            "......X...",
            ".....X....",
            "....X.....",
            "...X......",
            "..........",
            "OOOO......",
            "..........",
            "..........",
            "..........",
        ],
        0,
        (5, 2),
        5,
        True,
    ),
    (
        [
            ".........X",
            ".........X",
            ".........X",
            ".........X",
            "..........",
            "..........",
            "OOOO......",
            "..........",
            "..........",
            "..........",
        ],
        0,
        (4, 9),
        5,
        True,
    ),
    (
        [
            "..........",
            "..........",
            "..........",
            "..........",
            "..........",
            "..........",
            "..........",
            "..........",
            "XXXX......",
            "OOOO......",
        ],
        0,
        (9, 4),
        5,
        False,  # (9, 4) is O's row: X does not win by extending O's line
    ),
]


@pytest.mark.parametrize("rows, player, square, k, wins", WIN_CASES)
def test_win_detection_on_drawn_boards(rows, player, square, k, wins):
    state = play_on(rows, player, square, k)
    assert bool(state.terminated) == wins
    expected = np.zeros(2) if not wins else np.where(np.arange(2) == player, 1.0, -1.0)
    np.testing.assert_array_equal(state.rewards, expected)
    assert int(state.current_player) == 1 - player
    assert np.asarray(state.legal_action_mask).any() != wins


def test_winning_lines_count_every_direction():
    # n×n, k in a row: (n−k+1)·n rows, as many columns, (n−k+1)² lines per diagonal direction.
    for size, k in [(3, 3), (4, 3), (5, 4), (10, 5), (7, 1)]:
        free = size - k + 1
        expected = 2 * free * size + 2 * free * free if k > 1 else size * size
        assert len(winning_lines(size, k)) == expected


@pytest.mark.parametrize("size, k", [(3, 3), (4, 3), (5, 4), (5, 2)])
def test_packed_line_check_agrees_with_the_square_by_square_one(size, k):
    # Small boards check lines on one packed int32; the plain check reads the squares.
    lines = winning_lines(size, k)
    masks = jnp.asarray(line_bit_masks(lines))
    boards = np.random.default_rng(size * 10 + k).random((256, size * size)) < 0.4
    fast = jax.vmap(lambda marked: covers_a_line(packed(marked), masks))(boards)
    plain = jax.vmap(lambda marked: has_line(marked, jnp.asarray(lines)))(boards)
    np.testing.assert_array_equal(fast, plain)
    assert 0 < int(plain.sum()) < len(boards)  # both answers occur


def test_k1_first_mark_wins():
    state = play_on(["...", "...", "..."], 0, (1, 1), k=1)
    assert bool(state.terminated)
    np.testing.assert_array_equal(state.rewards, [1.0, -1.0])


def test_draw_on_the_last_square():
    state = play_on(["XOX", "XOO", "OX."], 0, (2, 2))
    assert bool(state.terminated)
    np.testing.assert_array_equal(state.rewards, [0.0, 0.0])


def test_win_on_the_last_square_is_a_win_not_a_draw():
    state = play_on(["XOX", "OXO", "OX."], 0, (2, 2))
    assert bool(state.terminated)
    np.testing.assert_array_equal(state.rewards, [1.0, -1.0])


def test_start_on_a_decided_board_is_over():
    start, _, _ = jitted(3)
    state = start(board_from(["XXX", "OO.", "..."]), jnp.int32(1))
    assert bool(state.terminated)
    assert not np.asarray(state.legal_action_mask).any()


# -- the contract: observations, illegal actions, finished games ---------------------------------


def test_observation_is_in_the_movers_frame_and_gym_board_is_absolute():
    state = play_on(["X..", ".O.", "..."], 0, (2, 2))  # X marks, O to move
    assert int(state.current_player) == 1
    own = board_from(["...", ".O.", "..."]).reshape(3, 3) != 0
    opponent = board_from(["X..", "...", "..X"]).reshape(3, 3) != 0
    np.testing.assert_array_equal(state.observation[..., 0], own)
    np.testing.assert_array_equal(state.observation[..., 1], opponent)
    np.testing.assert_array_equal(gym_board(state), board_from(["X..", ".O.", "..X"]).reshape(3, 3))
    assert state.observation.dtype == jnp.bool_
    assert gym_board(state).dtype == jnp.int8


def test_reset_is_the_empty_board_with_player_0_to_move():
    env = env_of(4, 3)
    state = jax.jit(env.reset)(jax.random.key(0))
    assert int(state.current_player) == 0
    assert state.observation.shape == env.observation_shape == (4, 4, 2)
    assert not np.asarray(state.observation).any()
    assert np.asarray(state.legal_action_mask).all() and state.legal_action_mask.shape == (16,)
    assert env.num_actions == 16 and env.max_steps is None
    assert not bool(state.terminated) and not bool(state.truncated)


@pytest.mark.parametrize("action", [4, 9, -1])
def test_illegal_action_loses_for_the_mover(action):
    _, step, _ = jitted(3)
    state = play_on(["...", ".X.", "..."], 1, (0, 0))  # O marked (0, 0); X to move
    state = step(state, jnp.int32(action))  # 4 is taken; 9 and -1 are off the board
    assert bool(state.terminated)
    np.testing.assert_array_equal(state.rewards, [-1.0, 0.0])
    assert not np.asarray(state.legal_action_mask).any()


def test_stepping_a_finished_game_changes_nothing():
    _, step, _ = jitted(3)
    over = play_on(["XX.", "OO.", "..."], 0, (0, 2))
    again = step(over, jnp.int32(8))
    np.testing.assert_array_equal(again.rewards, [0.0, 0.0])
    np.testing.assert_array_equal(again.board, over.board)
    assert bool(again.terminated) and int(again.step_count) == int(over.step_count)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"size": 2}, "size must be an int from 3 to 19"),
        ({"size": 20}, "size must be an int from 3 to 19"),
        ({"size": 3.0}, "size must be an int"),
        ({"size": True}, "size must be an int"),
        ({"size": 4, "k": 5}, r"k must be an int from 1 to board_size \(4\)"),
        ({"board_size": 0}, "board_size must be an int from 3 to 19, got 0"),
        ({"board_size": 4, "size": 4}, "not both"),
        ({"max_steps": 0}, "max_steps must be a positive int"),
        ({"size": 4, "k": 0}, "k must be an int from 1"),
    ],
)
def test_options_are_validated(options, message):
    with pytest.raises(ValueError, match=message):
        TicTacToe(**options)


# -- random games against a plain-Python referee ------------------------------------------------


def reference_winner(board: np.ndarray, size: int, k: int) -> int:
    """+1 / −1 when that mark has k in a row anywhere, else 0 (scans every cell and direction)."""
    grid = board.reshape(size, size)
    for row in range(size):
        for col in range(size):
            mark = grid[row, col]
            if mark == 0:
                continue
            for d_row, d_col in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(row + i * d_row, col + i * d_col) for i in range(k)]
                if all(0 <= r < size and 0 <= c < size and grid[r, c] == mark for r, c in cells):
                    return int(mark)
    return 0


@pytest.mark.parametrize("size, k", [(4, 3), (6, 4)])
def test_random_games_agree_with_a_plain_python_referee(size, k):
    _, _, step_many = jitted(size, k)
    env = env_of(size, k)
    games = 16
    states = jax.jit(jax.vmap(env.reset))(jax.random.split(jax.random.key(size), games))
    rng = np.random.default_rng(k)
    for _ in range(size * size):
        mask = np.asarray(states.legal_action_mask)
        before = np.asarray(states.terminated)
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask])
        player = np.asarray(states.current_player)
        states = step_many(states, jnp.asarray(actions, jnp.int32))
        for g in np.flatnonzero(~before):
            board = np.asarray(states.board[g])
            winner = reference_winner(board, size, k)
            full = not (board == 0).any()
            assert bool(states.terminated[g]) == (winner != 0 or full)
            mover_sign = 1 - 2 * player[g]
            expected = [0.0, 0.0] if winner == 0 else [winner * 1.0, -winner * 1.0]
            assert winner in (0, mover_sign)  # only the mover can complete a line
            np.testing.assert_array_equal(states.rewards[g], expected)
    assert np.asarray(states.terminated).all()


# -- jit, vmap, no recompiles --------------------------------------------------------------------


def test_batched_play_at_1024_does_not_retrace():
    env = env_of(3)

    @jax.jit
    @chex.assert_max_traces(n=1)
    def play(states, key):
        keys = jax.random.split(key, states.current_player.shape[0])
        actions = jax.vmap(random_legal_action)(keys, states.legal_action_mask)
        return jax.vmap(env.step)(states, actions)

    states = jax.jit(jax.vmap(env.reset))(jax.random.split(jax.random.key(0), 1024))
    for i in range(9):
        states = play(states, jax.random.key(i))
    chex.assert_shape(states.observation, (1024, 3, 3, 2))
    chex.assert_shape(states.rewards, (1024, 2))
    assert np.asarray(states.terminated).all()
    # Random play: each player wins some games, some are drawn; the rewards sum to zero.
    assert set(np.unique(np.asarray(states.rewards[:, 0]))) <= {-1.0, 0.0, 1.0}
    assert float(np.asarray(states.rewards).sum()) == 0.0


def test_max_steps_cuts_a_game_and_board_size_names_the_board():
    env = TicTacToe(board_size=4, max_steps=2)
    assert env.size == env.board_size == 4
    assert repr(env) == "TicTacToe(board_size=4, k=4, max_steps=2)"
    state = env.reset(jax.random.key(0))
    for action in (0, 1):
        state = env.step(state, action)
    assert bool(state.truncated) and not bool(state.terminated)
    assert not bool(state.legal_action_mask.any())
