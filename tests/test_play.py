"""The play command, driven as a person drives it: typed lines in, text out."""

from __future__ import annotations

import subprocess
import sys

import jax
import pytest

import jaxcheckers
from jaxcheckers.agents.random import random_agent
from jaxcheckers.checkers.fen import state_to_fen
from jaxcheckers.play import Seat, Style, board_lines, interpret, play_in_terminal

ENV = jaxcheckers.make("checkers")
OPENING = ENV.reset(jax.random.key(0))


def scripted(lines):
    """A `read` that types `lines` one by one, then acts as a closed terminal."""
    remaining = list(lines)

    def read(prompt):
        if not remaining:
            raise EOFError
        return remaining.pop(0)

    return read


def test_piped_game_to_the_end_with_bad_input_answered_politely():
    typed = "hello\n9-13\n?\n9x18\nundo\n2,1 4,3 6,5\n"
    command = [sys.executable, "-m", "jaxcheckers.cli", "play", "--black", "human"]
    command += ["--white", "human", "--fen", "B:W14,23:B9", "--ascii"]
    done = subprocess.run(command, input=typed, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    out = done.stdout
    assert "could not read 'hello'" in out
    assert "9-13 is not legal here; ? lists the legal moves" in out
    assert "legal moves: 9x18x27" in out
    assert "continuing the capture" in out and "taken back" in out
    assert out.rstrip().endswith("game over: black (human) wins")


def test_person_against_an_agent_with_undo_and_quit():
    out = []
    seats = (Seat("human"), Seat("random", random_agent))
    read = scripted(["11-15", "undo", "undo", "quit"])
    state, game = play_in_terminal(ENV, seats, OPENING, read=read, write=out.append)
    text = "\n".join(out)
    assert "white plays" in text
    assert "nothing to undo" in text  # the second undo: back at the start already
    assert state_to_fen(state) == state_to_fen(OPENING)
    assert game.moves == [] and game.result == "*"


def test_two_agents_play_to_the_end():
    env = jaxcheckers.make("checkers", board_size=6)
    seats = (Seat("random", random_agent), Seat("random", random_agent))
    out = []
    state, game = play_in_terminal(env, seats, env.reset(jax.random.key(0)), write=out.append)
    assert bool(state.terminated | state.truncated)
    assert out[-1].startswith("game over")
    assert game.result in ("1-0", "0-1", "1/2-1/2", "*") and len(game.moves) > 0


@pytest.mark.parametrize(
    "typed, expected",
    [("11-15", "move"), ("(2,5) (3,4)", "move"), ("2,5 3,4", "move"), ("?", "help"),
     ("QUIT", "quit"), ("undo", "undo")],
)
def test_interpret_reads_notation_pairs_and_commands(typed, expected):
    what, hops = interpret(typed, OPENING, ENV)
    assert what == expected
    assert (len(hops) == 1) == (expected == "move")


@pytest.mark.parametrize("typed", ["", "11-", "2,5", "0,0 1,1", "11-15-19", "x", "99-100"])
def test_interpret_refuses_with_a_reason(typed):
    with pytest.raises(ValueError):
        interpret(typed, OPENING, ENV)


def test_board_shows_square_numbers_and_colours():
    plain = board_lines(OPENING, Style(unicode=False))
    assert "w" in plain[-1] and "b" in plain[1]
    assert " 15 " in plain[4] + " "  # the empty squares carry their numbers
    coloured = board_lines(OPENING, Style(colour=True))
    assert "\033[" in coloured[1] and "●" in coloured[1]
