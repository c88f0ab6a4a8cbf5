"""PDN as a careless user, a crash or a cut game leaves it (issue 19, item 5).

The reader must answer any text with games or a ValueError, quickly; the writer must write
every game so that the reader replays it, a game cut in the middle of a capture included.
"""

from __future__ import annotations

import contextlib
import functools
import re
import signal

import jax
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jaxcheckers
from benchmarks.game_ends import final_states
from jaxcheckers.agents.random import random_agent
from jaxcheckers.checkers import pdn
from jaxcheckers.checkers.positions import from_board
from jaxcheckers.core import compiled_step
from jaxcheckers.match import match_games, play_match

ENV = jaxcheckers.make("checkers")
SECONDS = 10  # a generous bound: the reader is linear, these texts take milliseconds


@contextlib.contextmanager
def time_limit(seconds: int = SECONDS):
    """Fails the test, rather than hanging it, where the code inside runs past `seconds`."""

    def stop(signum, frame):
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize(
    "text",
    [
        "1. 11-15 ) 24-20 (",  # looped for ever
        "1. 11-15 ( 24-20",
        "1. 11-15 {never closed 24-20",
        "1. 11-15 (2. 8-11 {x) 24-20",
        '[Event "never closed] 1. 11-15',
        "1. 11-15 [ 24-20",
        '1. 11-15 "24-20"',
        "1. ١١-١٥",  # digits int() would read
    ],
)
def test_bad_pdn_raises_value_error_quickly(text):
    with time_limit(), pytest.raises(ValueError):
        pdn.parse_pdn(text)


def test_braces_and_brackets_inside_tag_values_are_only_text():
    text = '[Event "a {b"]\n[Site "c } [d] (e"]\n[Black "x"]\n\n1. 11-15 {c} 24-20 *\n'
    (game,) = pdn.parse_pdn(text)
    assert game.tags == {"Event": "a {b", "Site": "c } [d] (e", "Black": "x"}
    assert game.moves == ["11-15", "24-20"] and game.result == "*"


def test_a_variation_over_several_lines_is_skipped():
    text = "1. 11-15 (1. 9-13\n 21-17 (1... 22-18\n) 2. 5-9)\n 24-20 (2. 8-11\n) 1-0"
    (game,) = pdn.parse_pdn(text)
    assert game.moves == ["11-15", "24-20"] and game.result == "1-0"


def test_tag_values_are_written_on_one_line_and_read_back():
    start = ENV.reset(jax.random.key(0))
    name = 'line one\nline "two"\r\n\\three {x} (y) [z]\t\u2028end'
    game = pdn.game_from_actions(ENV, start, [145], Black=name, White="}")
    text = pdn.format_game(game)
    assert all(line.startswith("[") for line in text.split("\n\n")[0].splitlines())
    (back,) = pdn.parse_pdn(text)
    assert back.tags["Black"] == 'line one line "two"  \\three {x} (y) [z]  end'
    assert back.tags["White"] == "}" and back.moves == ["9-13"]


def test_a_tag_name_the_reader_cannot_read_is_refused():
    game = pdn.PdnGame({"My tag": "x"}, [], [], "*")
    with pytest.raises(ValueError, match="tag name"):
        pdn.format_game(game)


# -- games cut at the step limit, in the middle of a capture, read back --------------------------


def test_games_cut_mid_capture_are_written_and_replayed():
    """As `arena random random --games 200 --max-steps 41 --pdn`, where 7 of 200 did not replay;
    its first 60 games, three of them cut mid-capture (all written and read, those three and 10
    others replayed)."""
    env = jaxcheckers.make("checkers", max_steps=41)
    match = play_match(env, random_agent, random_agent, 60, jax.random.key(0), record=True)
    games = match_games(match, "random", "random", env)
    finals = jax.device_get(final_states(env, match))  # each game replayed from its start
    cut_mid_capture = np.flatnonzero(finals.jumper >= 0).tolist()
    assert cut_mid_capture, "the sample has no game cut mid-capture"
    parsed = pdn.parse_pdn(pdn.format_games(games))
    assert len(parsed) == len(games)
    for g in [*cut_mid_capture, *range(10)]:
        replayed = pdn.replay(env, parsed[g])
        assert replayed.actions == match.actions[g, : match.length[g]].tolist(), g
        last = replayed.states[-1]
        assert (np.asarray(last.board) == np.asarray(finals.board)[g]).all(), g
        assert int(last.jumper) == int(finals.jumper[g]), g
        assert bool(last.truncated) == bool(finals.truncated[g]), g


def test_only_the_last_move_may_stop_mid_capture():
    board = [
        "........",
        "........",
        ".b......",
        "..w.....",
        "........",
        "....w...",
        "........",
        "w.......",
    ]
    start = from_board(ENV, board, player=0)  # black on 9 takes 14 and then 23
    game = pdn.PdnGame({"SetUp": "1", "FEN": "B:W14,23,29:B9"}, ["9x18"], [0], "*")
    replayed = pdn.replay(ENV, game)
    assert len(replayed.actions) == 1 and int(replayed.states[-1].jumper) >= 0
    assert (np.asarray(replayed.states[0].board) == np.asarray(start.board)).all()
    longer = pdn.PdnGame(game.tags, ["9x18", "29-25"], [0, 1], "*")
    with pytest.raises(ValueError, match="move 1"):
        pdn.replay(ENV, longer)


# -- hypothesis: any text, and written games ---------------------------------------------------

PDN_PIECES = st.sampled_from(
    ["[", "]", "{", "}", "(", ")", '"', "\\", " ", "\n", "1.", "2...", "11-15", "15x22",
     "x", "-", "*", "1-0", "0-1", "1/2-1/2", "$3", "Event", '[Event "', '"]', "!", "?", "9"]
)  # fmt: skip


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=80), st.lists(PDN_PIECES, max_size=40).map("".join)))
def test_parse_pdn_answers_any_text_with_games_or_value_error(text):
    with time_limit():
        try:
            games = pdn.parse_pdn(text)
        except ValueError as error:
            assert str(error)
            return
    for game in games:
        assert len(game.moves) == len(game.movers)
        assert game.result in pdn.RESULTS or game.result == game.tags.get("Result")
        try:
            pdn.replay(ENV, game)
        except ValueError as error:
            assert str(error)


@functools.cache
def _jitted_random_move():
    return jax.jit(random_agent)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**16),
    hops=st.integers(0, 60),
    name=st.text(max_size=20),
)
def test_written_games_read_back_the_same(seed, hops, name):
    """A game stopped after any number of hops (mid-capture too), tagged with any text."""
    step = compiled_step(ENV)
    state = start = ENV.reset(jax.random.key(0))
    key = jax.random.key(seed)
    actions = []
    for _ in range(hops):
        if bool(state.terminated | state.truncated):
            break
        key, now = jax.random.split(key)
        actions.append(int(_jitted_random_move()(state, now)))
        state = step(state, actions[-1])
    game = pdn.game_from_actions(ENV, start, actions, Black=name)
    (back,) = pdn.parse_pdn(pdn.format_game(game))
    assert back.moves == game.moves and back.result == game.result
    assert back.tags["Black"] == re.sub(r"[\x00-\x1f\x7f\x85\u2028\u2029]", " ", name)
    replayed = pdn.replay(ENV, back)
    assert replayed.actions == actions
    assert int(replayed.states[-1].jumper) == int(state.jumper)
