"""The play command, driven as a person drives it: typed lines in, text out."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import jax
import numpy as np
import pytest

import jaxcheckers
from jaxcheckers import games
from jaxcheckers.agents.random import random_agent
from jaxcheckers.checkers.fen import state_from_fen, state_to_fen
from jaxcheckers.checkers.notation import (
    HOP_SEARCH_LIMIT,
    MOVE_LIST_LIMIT,
    _whole_moves,
    board_lines,
    legal_moves_text,
)
from jaxcheckers.checkers.positions import from_board
from jaxcheckers.checkers.render import legal_moves
from jaxcheckers.cli import main
from jaxcheckers.play import Seat, interpret, play_in_terminal

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


def test_piped_game_to_the_end_with_bad_input_answered_politely(capsys, monkeypatch):
    typed = "hello\n9-13\n?\n9x18\nundo\n2,1 4,3 6,5\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(typed))  # not a terminal: read as a pipe
    argv = ["play", "--black", "human", "--white", "human", "--fen", "B:W14,23:B9", "--ascii"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
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
    [
        ("11-15", "move"),
        ("(2,5) (3,4)", "move"),
        ("2,5 3,4", "move"),
        ("?", "help"),
        ("QUIT", "quit"),
        ("undo", "undo"),
    ],
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
    plain = board_lines(OPENING, unicode=False)
    assert "w" in plain[-1] and "b" in plain[1]
    assert " 15 " in plain[4] + " "  # the empty squares carry their numbers
    coloured = board_lines(OPENING, colour=True)
    assert "\033[" in coloured[1] and "●" in coloured[1]


# -- `?` on a crowded big board (issue 19, item 10) ---------------------------------------------


def crowded_14x14():
    """White men on every dark square of the odd rows 1–11 (42, the most a side may have) and
    black kings between them: every king can jump on and on, in every direction."""
    n = 14
    board = np.zeros((n, n), np.int8)
    for row in range(1, 12, 2):
        board[row, 0::2] = -1
    for row, col in [(2, 3), (2, 9), (4, 5), (4, 11), (6, 1), (6, 7), (8, 3), (8, 9), (10, 5)]:
        board[row, col] = 2
    env = jaxcheckers.make("checkers", board_size=n)
    return env, from_board(env, board, player=0)


def test_question_mark_on_a_crowded_board_stops_early_and_lists_hops():
    env, state = crowded_14x14()
    listing = _whole_moves(env, state)
    assert not listing.complete
    assert listing.hops_stepped <= HOP_SEARCH_LIMIT  # the search stopped, it did not truncate
    assert len(listing.moves) <= MOVE_LIST_LIMIT + 1
    text = legal_moves_text(env, state)
    hops = [hop for _, hop in legal_moves(state)]
    assert len(hops) > 9 and text.endswith("play a capture one hop at a time")
    assert f"legal hops: {', '.join(hops)};" in text


def test_question_mark_lists_every_whole_move_where_there_are_few():
    state = state_from_fen(ENV, "B:W14,23:B9")
    listing = _whole_moves(ENV, state)
    assert listing.complete and listing.moves == ["9x18x27"]
    assert listing.hops_stepped == 2
    text = legal_moves_text(ENV, OPENING)
    assert text == "legal moves: 9-13, 9-14, 10-14, 10-15, 11-15, 11-16, 12-16"
    assert _whole_moves(ENV, OPENING).hops_stepped == 0


# -- chess ------------------------------------------------------------------------------------


CHESS = jaxcheckers.make("chess")


def test_chess_between_two_people_in_san_and_uci_with_bad_input_answered():
    from jaxcheckers.chess.fen import chess_fen

    typed = ["e4", "hello", "e2e5", "e7e5", "?", "Bc4", "Nc6", "undo", "Nc6", "Qh5", "Nf6"]
    typed += ["Qxf7"]  # the mate, typed without its #
    out = []
    seats = (Seat("human"), Seat("human"))
    state, game = play_in_terminal(
        CHESS, seats, CHESS.reset(jax.random.key(0)), read=scripted(typed), write=out.append
    )
    text = "\n".join(out)
    assert "could not read 'hello'; type a move like e4" in text
    assert "illegal move 'e2e5'" in text and "; ? lists the legal moves" in text
    legal = next(line for line in out if line.startswith("legal moves: "))
    assert "Nf3 (g1f3)" in legal and "Qh5 (d1h5)" in legal and legal.count("(") == 29
    assert "taken back" in text
    assert game.moves == ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]
    assert game.movers == [0, 1] * 3 + [0] and game.result == "1-0"
    assert out[-1] == "game over: white (human) wins"
    assert chess_fen(state).startswith("r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b")
    assert "8 r . b q k b . r" in text  # the text board, rank 8 at the top


def test_chess_from_the_command_line_agent_mates_and_the_game_is_saved(tmp_path, monkeypatch):
    pgn = tmp_path / "game.pgn"
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    argv = ["play", "--game", "chess", "--white", "alphabeta:1", "--black", "random"]
    argv += ["--fen", "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", "--pgn", str(pgn)]
    assert main(argv) == 0
    record = pgn.read_text()
    assert '[FEN "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"]' in record
    assert '[White "alphabeta:1"]' in record and "1. Ra8# 1-0" in record


def test_chess_refuses_what_it_cannot_do_in_one_line(capsys):
    assert main(["play", "--game", "chess", "--board-size", "6"]) == 2
    assert main(["play", "--game", "chess", "--white", "alphabeta:9"]) == 2
    assert main(["play", "--game", "chess", "--fen", "8/8/8/8/8/8/8/8 w - - 0 1"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[0] == "play: chess has no --board-size"
    assert lines[1].startswith("play: chess alpha-beta searches 1 to 4 plies deep, got 9")
    assert lines[2] == "play: white has 0 kings; each side has exactly one"


@pytest.mark.parametrize(
    "argv, status, result",
    [
        # Black to move is mated: white has won before any move.
        (
            ["--game", "chess", "--fen", "7k/5KQ1/8/8/8/8/8/8 b - - 0 1"],
            "white (human) wins",
            "1-0",
        ),
        # Black to move has no piece, so no move: white has won (American rules).
        (["--fen", "B:W21-32"], "white (alphabeta:3) wins", "1-0"),
    ],
)
def test_a_position_that_starts_decided_is_scored_as_decided(
    argv, status, result, tmp_path, capsys, monkeypatch
):
    record = tmp_path / "game.txt"
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["play", *argv, "--pdn", str(record)]) == 0
    last_status, saved = capsys.readouterr().out.rstrip().splitlines()[-2:]
    assert last_status.endswith(f"game over: {status}") and saved.startswith("game saved")
    assert f'[Result "{result}"]' in record.read_text()


def test_a_record_is_never_overwritten_and_an_empty_name_is_refused(tmp_path, capsys):
    earlier = tmp_path / "earlier.pdn"
    earlier.write_text('[Event "kept"]\n')
    assert main(["play", "--black", "random", "--white", "random", "--pdn", str(earlier)]) == 2
    assert main(["play", "--fen", "", "--black", "random", "--white", "random"]) == 2
    assert main(["arena", "random", "random", "--games", "2", "--pdn", str(earlier)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    refused = f"{earlier} exists already; give a new file name (it is not overwritten)"
    assert lines[0] == f"play: {refused}"
    assert lines[1].startswith("play: ") and len(lines) == 3
    assert "exists already" in lines[2]
    assert earlier.read_text() == '[Event "kept"]\n'


def test_arena_games_that_cannot_be_saved_go_to_the_screen(capsys):
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    assert main(["arena", "random", "random", "--games", "2", "--pdn", "/dev/full"]) == 1
    captured = capsys.readouterr()
    assert "arena: could not save the games to /dev/full" in captured.err
    assert captured.out.count('[Event "jaxcheckers arena"]') == 2


def test_ctrl_c_while_a_deep_search_thinks_saves_the_game_and_exits_at_once(tmp_path):
    """A real SIGINT during alphabeta:8's compile or search: the game is saved and the process
    ends at once (it crashed, or waited for the search, while the interpreter shut down).

    The signal goes as soon as the agent's turn is announced, and the process compiles the
    search anew (a cache of its own), which takes seconds on any machine: it lands in the
    agent's turn however loaded the machine is (after a fixed sleep it could land after the
    search, at the person's prompt, or before it)."""
    import os
    import signal
    import time

    record = tmp_path / "game.pdn"
    command = [sys.executable, "-m", "jaxcheckers.cli", "play", "--black", "alphabeta:8"]
    command += ["--white", "human", "--ascii", "--pdn", str(record)]
    environment = {**os.environ, "JAX_COMPILATION_CACHE_DIR": str(tmp_path / "cache")}
    process = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
    )
    for line in process.stdout:
        if "black (alphabeta:8) to move" in line:
            process.send_signal(signal.SIGINT)
            break
    sent = time.monotonic()
    out, err = process.communicate(timeout=120)
    assert time.monotonic() - sent < 30, "it waited for the search to end"
    assert process.returncode == 0, (process.returncode, err)
    assert "interrupted" in out and f"game saved to {record}" in out
    assert '[Result "*"]' in record.read_text()


def test_a_pasted_5000_digit_move_is_not_a_move(capsys):
    """It printed Python's "Exceeds the limit (4300 digits)" message, or echoed all the digits."""
    from jaxcheckers import play

    env = jaxcheckers.make("checkers")
    seats = (play.Seat("human"), play.Seat("human"))
    for typed in ("1" * 5000 + ",3 4,5", "1" * 5000 + "-15", "1" * 5000):
        read = iter([typed, "quit"]).__next__
        play.play_in_terminal(env, seats, env.reset(jax.random.key(0)), read=lambda _, r=read: r())
        answer = capsys.readouterr().out.splitlines()[-2]
        assert answer.startswith("could not read '11111") and " characters);" in answer
        assert "type a move like 11-15" in answer and len(answer) < 300


@pytest.mark.parametrize(
    ("argv", "seats"),
    [
        (["--game", "chess", "--white", "random"], ("random", "human")),
        (["--game", "chess", "--black", "random"], ("human", "random")),
        (["--game", "chess"], ("human", "alphabeta:2")),
        (["--white", "random"], ("human", "random")),  # checkers: black moves first
        (["--white", "random", "--black", "random"], ("random", "random")),
    ],
)
def test_one_seat_given_the_person_at_the_terminal_takes_the_other(argv, seats):
    """`play --game chess --white AGENT` let alpha-beta take black, so nobody was asked."""
    import argparse

    from jaxcheckers import play

    parser = argparse.ArgumentParser()
    play.add_arguments(parser)
    args = parser.parse_args(argv)
    assert play._seat_specs(args, jaxcheckers.games.spec(args.game)) == seats


# -- draughts ---------------------------------------------------------------------------------


def test_draughts_between_two_people_with_a_capture_typed_hop_by_hop_and_undo():
    draughts = jaxcheckers.make("draughts")
    start = games.spec("draughts").notation.from_fen("W:W32:B27,17,3")
    typed = ["?", "32-28", "32x21", "undo", "32x12", "3-8"]
    out = []
    seats = (Seat("human"), Seat("human"))
    state, game = play_in_terminal(draughts, seats, start, read=scripted(typed), write=out.append)
    text = "\n".join(out)
    assert "legal moves: 32x12" in text
    assert "32-28 is not legal here; ? lists the legal moves" in text
    assert "continuing the capture" in text and "taken back" in text
    assert game.moves == ["32x21x12", "3-8"] and game.result == "*"  # records write the path
    assert games.spec("draughts").notation.to_fen(state) == "W:W12:B8"


def test_a_variant_chosen_by_option_is_played_and_recorded(tmp_path, monkeypatch, capsys):
    """Russian draughts: the man crowned on 2 mid-capture goes on as a king and takes 9 (under
    the international rules on 8×8 it would stop on 2)."""
    from jaxcheckers.draughts import pdn

    record = tmp_path / "game.pdn"
    monkeypatch.setattr("sys.stdin", io.StringIO("11x13\n"))
    argv = ["play", "--game", "draughts", "--option", "variant=russian", "--fen", "W:W11:B7,9"]
    argv += ["--white", "human", "--black", "human", "--pdn", str(record)]
    assert main(argv) == 0
    assert "white (human) wins" in capsys.readouterr().out
    (game,) = pdn.parse_pdn(record.read_text())
    assert game.tags["GameType"] == "25" and game.moves == ["11x2x13"] and game.result == "2-0"
    assert pdn.replay(game).env.variant == "russian"
