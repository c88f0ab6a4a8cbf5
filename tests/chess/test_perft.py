"""Perft through the public API (the generic batched perft over `env.step` and the mask), against
the published counts (chessprogramming.org, "Perft Results").

The default env (every draw rule on) counts the fast cases: no draw can end a game within 5 plies
of these positions (no repetition is claimable before ply 5, their clocks are low and they hold
mating material), so its counts are the rules' own. The deep counts use an env with the draw
rules off, as perft must. (The FENs of positions 4, 5 and 6 are the wiki's; the copies in the
brief had typos.)"""

from __future__ import annotations

import pytest

import jaxcheckers
from jaxcheckers.chess import state_from_fen
from jaxcheckers.perft import perft
from tests.chess import helpers as h

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
POSITION_3 = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"
POSITION_4 = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"
POSITION_5 = "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8"
POSITION_6 = "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10"

FAST = [
    (START, [20, 400, 8902]),
    (KIWIPETE, [48, 2039, 97862]),
    (POSITION_3, [14, 191, 2812]),
    (POSITION_4, [6, 264, 9467]),
    # positions 5 and 6 (no rule the four above miss) with the slow tests
    pytest.param(POSITION_5, [44, 1486, 62379], marks=pytest.mark.slow),
    pytest.param(POSITION_6, [46, 2079, 89890], marks=pytest.mark.slow),
]
# Chunks of 1,024 states, not the default 16,384, for the fast counts: their frontiers hold a few
# thousand, and the suite's unoptimised XLA steps a padded chunk slowly.
CHUNK = 1024
SLOW = [
    (START, 4, 197281),
    (START, 5, 4865609),
    (START, 6, 119060324),
    (KIWIPETE, 4, 4085603),
    (POSITION_3, 4, 43238),
    (POSITION_3, 5, 674624),
    (POSITION_3, 6, 11030083),
    (POSITION_4, 4, 422333),
    (POSITION_5, 4, 2103487),
    (POSITION_6, 4, 3894594),
]


@pytest.mark.parametrize(
    "fen,counts", FAST, ids=["start", "kiwipete", "pos3", "pos4", "pos5", "pos6"]
)
def test_perft(fen, counts):
    env = h.env()
    state = state_from_fen(fen)
    counts_seen = [perft(env, d, state=state, chunk_size=CHUNK) for d in range(1, len(counts) + 1)]
    assert counts_seen == counts


def test_perft_of_a_finished_game_is_empty():
    # Fool's mate: white is mated, nothing to play.
    state = state_from_fen("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")
    assert bool(state.terminated)
    assert perft(h.env(), 1, state=state, chunk_size=CHUNK) == 0


@pytest.mark.slow
@pytest.mark.parametrize("fen,depth,count", SLOW)
def test_perft_deep(fen, depth, count):
    options = dict(threefold_repetition=False, fifty_move_rule=False, insufficient_material=False)
    env = jaxcheckers.make("chess", **options)
    assert perft(env, depth, state=state_from_fen(fen, **options)) == count
