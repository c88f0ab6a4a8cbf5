"""The ACF's three-move ballots and matches that open from them (`--openings ballots`)."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxcheckers
from jaxcheckers import files
from jaxcheckers.agents.random import random_agent
from jaxcheckers.checkers import ballots, pdn
from jaxcheckers.checkers.render import legal_moves
from jaxcheckers.cli import main
from jaxcheckers.core import compiled_step
from jaxcheckers.games import spec
from jaxcheckers.match import deck_order, match_games, play_match
from tests.cli_helpers import unwritable_folder

ENV = jaxcheckers.make("checkers")
ROOT = Path(__file__).resolve().parents[2]  # where `python -m benchmarks.ballots` runs


@pytest.fixture(scope="module")
def deck():
    return ballots.deck(ENV)


def test_the_deck_is_the_acf_numbering_less_its_18_barred_openings():
    assert [b.number for b in ballots.ACF_OPENINGS] == list(range(1, 175))
    assert len(ballots.BARRED) == 18 and len(ballots.BALLOTS) == 156
    assert len({b.moves for b in ballots.BALLOTS}) == 156
    assert ballots.DECK_GAMES == 312
    # Black's first moves: the seven of the start position, each in the deck.
    firsts = {b.moves.split()[0] for b in ballots.BALLOTS}
    assert firsts == {"9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"}
    by_number = {b.number: b.moves for b in ballots.ACF_OPENINGS}
    assert by_number[120] == "11-15 22-18 15x22" and 120 not in ballots.BARRED
    assert by_number[3] == "9-13 21-17 10-14" and 3 in ballots.BARRED


def test_every_ballot_is_three_legal_turns_from_the_start(deck):
    """Played hop by hop through the env's own legal actions: black, white, black."""
    step = compiled_step(ENV)
    start = ENV.reset(jax.random.key(0))
    assert deck.actions.shape[0] == 156 and len(set(deck.names)) == 156
    for ballot, name, actions in zip(ballots.BALLOTS, deck.names, deck.actions, strict=True):
        assert name == f"ACF {ballot.number}: {ballot.moves}"
        state, movers, written = start, [], []
        for action in actions[actions >= 0]:
            assert bool(state.legal_action_mask[action]), (name, action)
            written.append(dict(legal_moves(state))[int(action)])
            movers.append(int(state.current_player))
            state = step(state, jnp.int32(action))
        assert movers == [0, 1, 0] and " ".join(written) == ballot.moves
        assert not bool(state.terminated) and int(state.current_player) == 1


def test_the_deck_is_offered_for_checkers_only():
    assert set(spec("checkers").openings) == {"ballots"}
    assert not spec("chess").openings and not spec("tictactoe").openings
    with pytest.raises(ValueError, match="8×8"):
        ballots.deck(jaxcheckers.make("checkers", board_size=10))


def test_deck_order_plays_each_opening_with_both_colours():
    order = deck_order(156, 312, jax.random.key(3))
    assert sorted(order[::2].tolist()) == list(range(156))  # each ballot once a colour
    assert (order[::2] == order[1::2]).all()  # games 2k and 2k + 1: the same ballot
    assert order[:20:2].tolist() != list(range(10))  # shuffled, so a part of the deck is a sample
    longer = deck_order(156, 320, jax.random.key(3))
    assert sorted(longer[:312:2].tolist()) == list(range(156))  # the whole deck before a repeat


def test_a_match_opens_every_game_with_its_ballot_and_records_it(deck):
    """Both colours of each ballot; the PDN replays the ballot's moves first and names it."""
    match = play_match(
        ENV, random_agent, random_agent, 8, jax.random.key(1), record=True, deck=deck
    )
    assert match.a_plays_first.tolist() == [True, False] * 4
    assert (match.opening[::2] == match.opening[1::2]).all()
    games = match_games(match, "a", "b", ENV, deck=deck)
    for game, opening in zip(pdn.parse_pdn(pdn.format_games(games)), match.opening, strict=True):
        ballot = ballots.BALLOTS[opening]
        assert game.tags["Opening"] == ballot.name
        assert " ".join(game.moves[:3]) == ballot.moves
        assert pdn.replay(ENV, game).actions[:3] == deck.actions[opening].tolist()
    with pytest.raises(ValueError, match="even number"):
        play_match(ENV, random_agent, random_agent, 3, jax.random.key(1), deck=deck)


def test_the_command_plays_the_ballots_and_names_them_in_json_and_pdn(capsys, tmp_path):
    path = tmp_path / "games.pdn"
    argv = ["arena", "random", "random", "--openings", "ballots", "--games", "8"]
    assert main([*argv, "--json", "--pdn", str(path)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["openings"] == "ballots"
    (result,) = report["matches"]
    assert result["games"] == 8 and len(result["each_game"]) == 8
    names = [game["opening"] for game in result["each_game"]]
    assert names[::2] == names[1::2] and len(set(names)) == 4
    assert [game["a_plays_first"] for game in result["each_game"]] == [True, False] * 4
    assert all(re.fullmatch(r"ACF \d+: \S+ \S+ \S+", name) for name in names)
    assert [t.tags["Opening"] for t in pdn.parse_pdn(path.read_text())] == names
    order = deck_order(156, 8, jax.random.key(0))  # --seed 0
    assert names == [ballots.BALLOTS[i].name for i in order]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--openings", "ballots", "--game", "chess"], "not a deck of chess"),
        (["--openings", "ballots", "--game", "tictactoe"], "not a deck of tictactoe"),
        (["--openings", "foo"], "not a deck of checkers .its decks: ballots."),
        (
            ["--openings", "ballots", "--games", "5"],
            "even number .the whole deck of ballots is 312",
        ),
        (["--openings", "ballots", "--opening-plies", "2"], "leave out --opening-plies"),
        (["--openings", "ballots", "--board-size", "10"], "8×8 checkers, not 10×10"),
    ],
)
@pytest.mark.parametrize("command", ["arena", "ladder"])
def test_bad_openings_are_one_line(capsys, command, argv, message):
    assert main([command, "random", "alphabeta:1", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and re.search(message, err), err


@pytest.mark.slow
def test_the_ladder_plays_the_ballots(capsys, tmp_path):
    argv = ["ladder", "random", "alphabeta:1", "--openings", "ballots", "--games", "2"]
    assert main([*argv, "--out", str(tmp_path), "--no-plot"]) == 0
    report = json.loads((tmp_path / "ladder.json").read_text())
    assert report["openings"] == "ballots" and report["games_per_pair"] == 2
    assert report["opening_plies"] == 0
    assert "--openings ballots" in report["command"] and "--opening-plies" not in report["command"]
    assert "ballots deck" in (tmp_path / "ladder.md").read_text()
    assert np.isclose(sum(p["wins"] + p["draws"] + p["losses"] for p in report["pairs"]), 2)


def test_the_ballots_script_resumes_a_stopped_match_with_the_same_games(
    tmp_path, monkeypatch, capsys
):
    from benchmarks import ballots as script

    def run(*argv):
        monkeypatch.setattr(sys, "argv", ["ballots", "random", "alphabeta:1", *argv])
        script.main()

    whole, stopped = tmp_path / "whole.json", tmp_path / "stopped.json"
    options = ("--games", "8", "--batch-size", "2", "--seed", "3", "--out")
    run(*options, str(whole))
    played = json.loads(whole.read_text())
    assert played["complete"] and played["games_played"] == 8
    # A match stopped after its second batch holds 4 games and says it is not complete.
    cut = {**played, "games": played["games"][:4], "games_played": 4, "complete": False}
    stopped.write_text(json.dumps(cut))

    with pytest.raises(SystemExit):  # without --resume it would write over them
        run(*options, str(stopped))
    assert "holds a stopped match: add --resume" in capsys.readouterr().err
    damaged = tmp_path / "damaged.json"
    wrongly_typed = [  # tracebacks once resumed: "games" a string, "wall_seconds" null
        json.dumps({**cut, "games": "abc"}),
        json.dumps({**cut, "wall_seconds": None}),
        json.dumps({**cut, "games_played": "4"}),
    ]
    for text in ("{", "[]", '{"command": "x"}', *wrongly_typed):  # one line, no traceback
        damaged.write_text(text)
        for resume in ((), ("--resume",)):
            with pytest.raises(SystemExit):
                run(*options, str(damaged), *resume)
            err = capsys.readouterr().err
            assert "is not a saved match" in err and "Traceback" not in err
    run(*options, str(stopped), "--resume")
    resumed = json.loads(stopped.read_text())
    assert resumed["complete"] and resumed["games"] == played["games"]
    with pytest.raises(SystemExit) as done:  # nothing left: one line, success
        run(*options, str(stopped), "--resume")
    assert done.value.code == 0 and "nothing to resume" in capsys.readouterr().err


def _run_script(monkeypatch, capsys, *argv) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of `python -m benchmarks.ballots ARGV`, in this process."""
    from benchmarks import ballots as script

    monkeypatch.setattr(sys, "argv", ["ballots", *argv])
    try:
        status = script.main()
    except SystemExit as exit_:
        status = exit_.code
    return status, *capsys.readouterr()


def test_the_ballots_script_loses_no_match_to_a_second_run_ctrl_c_or_a_rerun(
    tmp_path, monkeypatch, capsys
):
    """Two processes on one file both played and wrote it, a rerun over a complete match wrote
    over it, Ctrl-C was a traceback. Real processes and signals: the first is stopped (SIGSTOP)
    while the second tries, and again when it gets SIGINT, so nothing depends on timing: its
    match is 10,000 batches long, far more than it can play before the test sees its first save
    (with 40 batches, a loaded machine let it finish first)."""
    out = tmp_path / "match.json"
    games = 20_000
    argv = ["random", "random", "--games", str(games), "--batch-size", "2", "--seed", "3"]
    # Ctrl-C reaches it as from a terminal, whoever started the tests: a shell's background job
    # (`make test &`) ignores SIGINT, and a child keeps that (so it played on and ended 0).
    as_from_a_terminal = (
        "import runpy, signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
        "runpy.run_module('benchmarks.ballots', run_name='__main__', alter_sys=True)"
    )
    command = [sys.executable, "-c", as_from_a_terminal, *argv, "--out", str(out)]
    first = subprocess.Popen(
        command,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,  # a line a batch: a pipe nobody reads would fill and block it
        stderr=subprocess.PIPE,
        text=True,
    )

    def wait_for(path):
        deadline = time.monotonic() + 120
        while not path.exists():
            assert first.poll() is None and time.monotonic() < deadline, first.communicate()
            time.sleep(0.01)
        first.send_signal(signal.SIGSTOP)

    wait_for(out.with_name(out.name + ".lock"))  # it holds the file, before its first game
    try:
        status, _, err = _run_script(monkeypatch, capsys, *argv, "--out", str(out))
    finally:
        first.send_signal(signal.SIGCONT)
    assert status == 2 and err.count("\n") == 1 and f"{out} is in use: process {first.pid}" in err
    wait_for(out)  # its first batch is saved
    first.send_signal(signal.SIGINT)  # delivered as it goes on
    first.send_signal(signal.SIGCONT)
    _, err = first.communicate(timeout=120)
    assert first.returncode == 130 and "Traceback" not in err, err
    kept = json.loads(out.read_text())
    line = f"stopped after {kept['games_played']} of {games} games, kept in {out}"
    assert err.strip().splitlines()[-1] == f"ballots: {line} (--resume plays the rest)"
    assert 0 < kept["games_played"] < games and not kept["complete"]

    # (Resuming is tested above.) Run again over a complete match: refused, the file kept.
    whole = json.dumps({**kept, "complete": True})
    out.write_text(whole)
    status, _, err = _run_script(monkeypatch, capsys, *argv, "--out", str(out))
    played = kept["games_played"]
    assert (
        status == 2 and f"holds a complete match ({played} games), which is not overwritten" in err
    )
    assert out.read_text() == whole


def test_the_ballots_script_refuses_before_any_game(tmp_path, monkeypatch, capsys):
    (tmp_path / "file").write_text("")
    for argv, message in [
        (["--games", "47"], "--games 47: each ballot is played with both colours"),
        (["--games", "99999999999"], "must be at most 1,000,000"),
        (["--out", str(tmp_path / "file" / "m.json")], "is a file, not a folder"),
        (["--out", ""], "an empty file name"),
        (["--out", f"{unwritable_folder()}/m.json"], "cannot write in /sys"),  # after a batch
        (["--out", "/dev/null"], "/dev/null is not a file"),  # replaced by a file, as root
    ]:
        status, _, err = _run_script(monkeypatch, capsys, "random", "random", *argv)
        assert status == 2 and err.count("\n") == 1 and message in err, err
    assert not (tmp_path / "file" / "m.json").exists()


def test_the_ballots_table_leaves_out_a_damaged_file_in_one_line(tmp_path, monkeypatch, capsys):
    from benchmarks import ballots as script

    monkeypatch.setattr(script, "RESULTS", tmp_path)
    argv = ["random", "random", "--games", "2", "--out", str(tmp_path / "a.json")]
    with monkeypatch.context() as full:  # the disk fills after the check: one line, no traceback
        full.setattr(files, "write_whole", lambda *_: (_ for _ in ()).throw(OSError(28, "full")))
        status, _, err = _run_script(monkeypatch, capsys, *argv)
    assert status == 2 and "could not save to" in err and "Traceback" not in err, err
    assert _run_script(monkeypatch, capsys, *argv)[0] == 0
    (tmp_path / "b.json").write_text('{"command": "x"}')
    status, out, err = _run_script(monkeypatch, capsys, "--table")
    assert status == 1 and err.count("\n") == 1 and f"left out {tmp_path / 'b.json'}" in err
    rows = out.splitlines()[2:]
    assert len(rows) == 1 and rows[0].startswith("| `random` | `random` | 2 |")


def test_the_ballots_table_names_a_seed_other_than_0(tmp_path, monkeypatch, capsys):
    from benchmarks import ballots as script

    monkeypatch.setattr(script, "RESULTS", tmp_path)
    for seed in ("0", "3"):
        out = str(tmp_path / f"{seed}.json")
        argv = ["random", "random", "--games", "2", "--seed", seed, "--out", out]
        assert _run_script(monkeypatch, capsys, *argv)[0] == 0
    rows = _run_script(monkeypatch, capsys, "--table")[1].splitlines()[2:]
    assert [row.split(" | ")[2] for row in rows] == ["2", "2, seed 3"]


def test_a_ctrl_c_just_after_a_save_counts_the_games_the_file_took(tmp_path, monkeypatch, capsys):
    from benchmarks import ballots as script

    save = script._save

    def saved_then_interrupted(args, out, *rest):  # Ctrl-C as the save returns
        save(args, out, *rest)
        raise KeyboardInterrupt

    def exit_(code):  # the script ends a stopped match with os._exit, not inside pytest
        raise SystemExit(code)

    monkeypatch.setattr(script, "_save", saved_then_interrupted)
    monkeypatch.setattr(script.os, "_exit", exit_)
    out = tmp_path / "m.json"
    argv = ["random", "random", "--games", "8", "--batch-size", "2", "--out", str(out)]
    status, _, err = _run_script(monkeypatch, capsys, *argv)
    played = json.loads(out.read_text())["games_played"]
    assert status == 130 and played == 2
    assert err.strip().splitlines()[-1].startswith("ballots: stopped after 2 of 8 games, kept")
