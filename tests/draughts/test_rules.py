"""Draughts rules: perft against published counts, and random-game positions against a plain
Python reference (tests/draughts/reference.py)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxcheckers import games
from jaxcheckers.core import compiled_step
from jaxcheckers.draughts import lanes, rules
from jaxcheckers.draughts.env import Draughts
from jaxcheckers.draughts.fen import fen_to_board
from jaxcheckers.draughts.perft import perft, perft_counts
from tests.cli_helpers import run_cli
from tests.draughts import helpers, reference

# Perft from the start, whole moves (routes of one move counted once). International: Aart Bik's
# counts, also in the "Perft" thread of the FMJD forum (laatste.info/bb3/viewtopic.php?f=53&t=2308)
# that rhalbersma/dctl's tests cite. Russian and Brazilian: as given in issue 50 (from the
# alternative-rules thread of the same forum, cited there too).
START = {
    "international": [9, 81, 658, 4265, 27117, 167140, 1049442, 6483961],
    "russian": [7, 49, 302, 1469, 7482, 37986, 190146, 929899],
    "brazilian": [7, 49, 302, 1469, 7473, 37628, 187302, 907830],
}
# The published test positions of the same thread, with their counts (dctl's tests list them).
RANDOM178 = "B:BK17,K24:W6,9,10,11,20,21,22,23,30,K31,33,37,41,42,43,44,46"
RANDOM178_COUNTS = [14, 55, 1168, 5432, 87195, 629010]
WOLDOUBY = "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38"
WOLDOUBY_COUNTS = [6, 12, 30, 73, 215, 590, 1944, 6269, 22369, 88050]


def _board(fen: str, variant: str = "international"):
    lay = rules.layout(variant)
    board, player = fen_to_board(fen, lay.squares)
    return board if player == 0 else -board[::-1]


FAST_DEPTH = {"international": 4, "russian": 4, "brazilian": 4}  # deeper: the slow tests


# Russian's fast samples are its reference perft below and py-draughts (test_crosscheck.py).
@pytest.mark.parametrize(
    "variant",
    [pytest.param(v, marks=pytest.mark.slow) if v == "russian" else v for v in rules.VARIANTS],
)
def test_perft_from_the_start(variant):
    depth = FAST_DEPTH[variant]
    start = rules.opening_board(rules.layout(variant))[None]
    assert perft_counts(start, depth, variant) == START[variant][:depth]


def test_perft_of_the_published_positions():
    assert perft_counts(_board(RANDOM178)[None], 3) == RANDOM178_COUNTS[:3]
    assert perft_counts(_board(WOLDOUBY)[None], 4) == WOLDOUBY_COUNTS[:4]


def test_the_commands_move_level_perft_counts_whole_moves_as_published(capsys):
    argv = ["perft", "--game", "draughts", "--move-level", "--fen", RANDOM178, "--depth", "1"]
    status, out, err = run_cli(argv, capsys)
    assert status == 0, err
    assert "whole-move perft from B:BK17" in out.splitlines()[0]
    counts = [int(line.split()[2].replace(",", "")) for line in out.splitlines()[1:]]
    # Each move once (deeper counts: the tests above, by the same function): its 14 moves take
    # 436 routes.
    assert counts == RANDOM178_COUNTS[:1]


@pytest.mark.slow
@pytest.mark.parametrize("variant", rules.VARIANTS)
def test_perft_from_the_start_deeper(variant):
    depth = 6 if variant == "international" else 7
    assert perft(depth, variant) == START[variant][depth - 1]


@pytest.mark.slow
def test_perft_of_the_published_positions_deeper():
    assert perft(5, board=_board(RANDOM178)) == RANDOM178_COUNTS[4]
    assert perft(10, board=_board(WOLDOUBY)) == WOLDOUBY_COUNTS[9]


def _reference_perft(pieces, white, variant, depth):
    if depth == 0:
        return 1
    n = reference.SIZE[variant]
    promotion = range(1, n // 2 + 1) if white else range(n * n // 2 - n // 2 + 1, n * n // 2 + 1)
    total = 0
    unique = {}
    for route in reference.routes(pieces, white, variant):
        unique.setdefault((route[0], route[1][-1], frozenset(route[2])), route)
    for (start, end, taken), route in unique.items():
        after = {s: p for s, p in pieces.items() if s != start and s not in taken}
        piece = pieces[start]
        after[end] = piece.upper() if route[3] or end in promotion else piece
        total += _reference_perft(after, not white, variant, depth - 1)
    return total


@pytest.mark.parametrize(("variant", "depth"), [("international", 3), ("russian", 5)])
def test_the_reference_matches_published_perft(variant, depth):
    # The reference is only worth checking against if it is right itself.
    lay = rules.layout(variant)
    pieces = reference.pieces_of(rules.opening_board(lay))
    assert _reference_perft(pieces, True, variant, depth) == START[variant][depth - 1]
    pieces = reference.pieces_of(fen_to_board(RANDOM178)[0])
    assert _reference_perft(pieces, False, "international", 2) == RANDOM178_COUNTS[1]


# Brazilian is the international rules on 8×8: its fast checks are perft and py-draughts.
@pytest.mark.parametrize(
    "variant",
    [
        "international",  # the 8×8 variants' fast sample is their cross-check with py-draughts
        pytest.param("russian", marks=pytest.mark.slow),
        pytest.param("brazilian", marks=pytest.mark.slow),
    ],
)
def test_random_positions_match_the_reference(variant):
    lay = rules.layout(variant)
    states = helpers.random_states(variant, *helpers.FAST_SAMPLE)
    # The State's views computed once for the batch, not once a row.
    boards, takens = np.asarray(states.board), np.asarray(states.taken)
    masks = np.asarray(states.legal_action_mask)
    moves = helpers.whole_moves(variant, boards)
    mid, captures, checked = 0, 0, 0
    for i in range(len(boards)):
        board, taken = boards[i], takens[i]
        jumper, player = int(states.jumper[i]), int(states.current_player[i])
        expected = helpers.reference_hops(board, taken, jumper, player, variant)
        assert helpers.env_hops(masks[i], player, lay) == expected, i
        mid += jumper >= 0
        if jumper < 0:
            absolute, _, _ = helpers.white_frame(board, taken, jumper, player)
            want = reference.moves(reference.pieces_of(absolute), player == 0, variant)
            assert not moves.overflow[i]
            assert helpers.whole_moves_of(moves, i, player, lay) == want, i
            captures += any(t for _, _, t in want)
            checked += 1
    assert mid > 10 and captures > 30 and checked > 300  # the sample reaches captures


@pytest.mark.parametrize(
    "variant",
    ["international", *(pytest.param(v, marks=pytest.mark.slow) for v in rules.VARIANTS[1:])],
)
def test_crowded_boards_match_the_reference_at_the_start_and_mid_capture(variant):
    """Captures of several pieces with a choice of first hops, where the env's capture search
    works (random play reaches few): the legal hops of 256 crowded boards (a batch large enough
    to queue its searches in lanes), and of each after its first legal hop."""
    env, lay = Draughts(variant=variant), rules.layout(variant)
    boards = helpers.crowded_boards(variant, 256, seed=0)
    states = jax.jit(jax.vmap(env.start))(boards, np.zeros(len(boards), np.int32))
    first = np.asarray(states.legal_action_mask).argmax(axis=1).astype(np.int32)
    after = jax.jit(jax.vmap(env.step))(states, first)
    mid = 0
    for batch in (states, after):
        board, taken = np.asarray(batch.board), np.asarray(batch.taken)
        masks, over = np.asarray(batch.legal_action_mask), np.asarray(batch.terminated)
        for i in np.flatnonzero(~over):
            jumper, player = int(batch.jumper[i]), int(batch.current_player[i])
            expected = helpers.reference_hops(board[i], taken[i], jumper, player, variant)
            assert helpers.env_hops(masks[i], player, lay) == expected, (i, jumper)
            mid += jumper >= 0
    starts = [reference.routes(reference.pieces_of(b), True, variant) for b in boards]
    long_ = sum(any(len(taken) >= 3 for *_, taken, _ in found) for found in starts)
    assert mid > 40 and long_ > 30  # the boards reach long captures and moves under way


# A king among 16 men laid out two squares apart: 1561 partial captures, far more than the
# breadth-first search the env kept a level before (128), which lost moves here.
LATTICE = "W:WK29:B11,12,13,14,21,22,23,24,31,32,33,34,41,42,43,44"


def test_a_king_with_a_thousand_partial_captures_is_offered_every_longest_one():
    env, lay = Draughts(), rules.layout("international")
    state = games.spec("draughts").notation.from_fen(LATTICE)
    step = compiled_step(env)
    for _ in range(3):  # the start of the move, then mid-capture along a longest capture
        board, taken = np.asarray(state.board), np.asarray(state.taken)
        jumper, player = int(state.jumper), int(state.current_player)
        expected = helpers.reference_hops(board, taken, jumper, player, "international")
        assert helpers.env_hops(state.legal_action_mask, player, lay) == expected
        state = step(state, np.int32(np.flatnonzero(state.legal_action_mask)[0]))
    assert int(state.current_player) == 0 and int(state.jumper) >= 0


# Under vmap, batches of 256 and more search their captures in a few lanes: each element that
# searches in a lane of its own when there are lanes enough, else each lane taking the next as
# soon as its own is searched (`lanes._run_queued`).
@pytest.mark.parametrize("idle_every", [0, 7, -30], ids=["all-search", "some-idle", "few-search"])
def test_the_batched_search_loop_runs_each_element_as_alone_a_chunk_at_a_time(idle_every):
    """A toy search (count k down to 0, adding k·c): every element's result is its own, though
    the lanes take up the 300 elements (searches of 1 to 8 rounds) one after another, or, when
    10 search, hold them all from the start."""

    def searching(carry):
        return carry[0] > 0

    def step(c, carry, scratch):
        k, total = carry
        go = k > 0
        return (jnp.where(go, k - 1, k), jnp.where(go, total + k * c, total)), scratch

    ks = np.random.default_rng(0).integers(1, 9, 300).astype(np.int32)
    if idle_every > 0:
        ks[::idle_every] = 0
    elif idle_every < 0:  # one in 30 searches: fewer than the lanes
        ks[np.arange(300) % -idle_every != 0] = 0
        assert (ks > 0).sum() <= lanes.compacted_width(300)
    cs = np.arange(300, dtype=np.int32) % 5

    def search(c, k):
        return lanes.while_each(searching, step, c, (k, jnp.int32(0)), ())

    k, total = jax.jit(jax.vmap(search))(cs, ks)
    assert lanes.compacted_width(300) < 300 and not np.asarray(k).any()
    assert np.array_equal(np.asarray(total), cs * ks * (ks + 1) // 2)
    assert np.array_equal(np.asarray(jax.jit(search)(cs[1], ks[1])[1]), total[1])


@pytest.mark.parametrize("share", [0.0, 0.01, 0.3, 1.0])
def test_the_queue_takes_the_searching_elements_first_each_group_in_order(share):
    searches = np.random.default_rng(1).random(777) < share
    order = lanes._searching_first(jnp.asarray(searches), jnp.int32(searches.sum()))
    assert np.array_equal(np.asarray(order), np.argsort(~searches, kind="stable"))


def test_a_large_batch_gets_the_masks_each_position_got_in_a_small_one():
    """The env computed the random positions' masks in batches of 8 (searched all at once)."""
    states = helpers.random_states("international", *helpers.FAST_SAMPLE)
    count = min(len(states.board), 512)
    assert count >= 256 and lanes.compacted_width(count) < count
    lay = rules.layout("international")
    words = jax.jit(jax.vmap(lambda b, t, j: rules.legal_hops(b, t, j, lay).bits))(
        states.board[:count], states.taken[:count], states.jumper[:count]
    )
    assert np.array_equal(np.asarray(words), states.legal_action_bits[:count])
