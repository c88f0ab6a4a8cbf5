"""Bad input to the library's commands: one clear line on stderr and a non-zero exit, no traceback.

The trainer's own bad invocations are in training/test_cli.py.
"""

from __future__ import annotations

import argparse
import math
import sys

import pytest

from jaxcheckers import argtypes, memory
from tests.cli_helpers import assert_one_line_error, run_cli, unwritable_folder

BAD = {
    "perft board size 7": (["perft", "--board-size", "7", "--depth", "1"], "board_size"),
    "perft depth 0": (["perft", "--depth", "0"], "--depth"),
    "perft unknown game": (["perft", "--game", "chesss"], "--game"),
    "perft fen of no game's": (["perft", "--game", "tictactoe", "--fen", "x"], "--fen"),
    "perft malformed fen": (["perft", "--game", "chess", "--fen", "garbage"], "FEN"),
    "arena batch size -1": (["arena", "random", "random", "--batch-size", "-1"], "--batch-size"),
    "arena huge seed": (["arena", "random", "random", "--seed", "9" * 20], "--seed"),
    "arena games 0": (["arena", "random", "random", "--games", "0"], "--games"),
    "arena alphabeta:100": (["arena", "alphabeta:100", "random"], "1 to 8"),
    "arena alphabeta:12": (["arena", "alphabeta:12", "random"], "1 to 8"),
    "arena alphabeta:0": (["arena", "alphabeta:0", "random"], "1 to 8"),
    "arena unicode depth": (["arena", "alphabeta:\u0663", "random"], "depth"),
    "arena missing run": (["arena", "ppo:/nonexistent/run", "random"], "/nonexistent/run"),
    "arena unknown agent": (["arena", "bogus", "random"], "bogus"),
    "arena unwritable pdn": (
        ["arena", "random", "random", "--games", "2", "--pdn", "/proc/nowhere/t.pdn"],
        "/proc/nowhere/t.pdn",
    ),
    "play delay -1": (["play", "--delay", "-1"], "--delay"),
    "play delay nan": (["play", "--delay", "nan"], "--delay"),
    "play huge seed": (["play", "--seed", "9" * 20], "--seed"),
    "play unwritable pdn": (["play", "--pdn", "/proc/nowhere/g.pdn"], "/proc/nowhere/g.pdn"),
    "demo batch -1": (["demo", "--batch", "-1"], "--batch"),
    # Numbers too large to play: refused by the argument type, before anything is allocated
    # (an OverflowError, a 373 GiB ArrayMemoryError traceback).
    "demo steps 3e9": (["demo", "--steps", "3000000000"], "at most 1,000,000"),
    "arena games 1e11": (["arena", "random", "random", "--games", "99999999999"], "at most"),
    "ladder games 1e11": (["ladder", "random", "alphabeta:1", "--games", "99999999999"], "most"),
    "ladder out empty": (["ladder", "random", "alphabeta:1", "--out", ""], "empty folder name"),
    "ladder out in a file": (
        ["ladder", "random", "alphabeta:1", "--games", "2", "--out", "/proc/version/d"],
        "cannot write in /proc/version/d",
    ),
    "demo huge seed": (["demo", "--seed", "9" * 20], "--seed"),
    # --option KEY=VALUE: malformed, an option the game lacks, a bad value, one given twice.
    "option without =": (["perft", "--game", "draughts", "--option", "variant"], "KEY=VALUE"),
    "option not a name": (["perft", "--option", "1x=2"], "KEY=VALUE"),
    "option unknown": (["perft", "--game", "draughts", "--option", "colour=red"], "colour"),
    "option bad value": (["arena", "random", "random", "--game", "draughts", "--option",
                          "variant=klingon"], "klingon"),
    "option twice": (["perft", "--board-size", "6", "--option", "board_size=8"], "twice"),
    "option and max steps": (["arena", "random", "random", "--max-steps", "9", "--option",
                              "max_steps=8"], "twice"),
    "play option unknown": (["play", "--game", "draughts", "--option", "colour=red"], "colour"),
}


@pytest.mark.parametrize("argv, word", BAD.values(), ids=BAD.keys())
def test_a_bad_invocation_is_one_line_and_a_failure(argv, word, capsys):
    status, out, err = run_cli(argv, capsys)
    assert_one_line_error(status, err, word)
    assert "vs" not in out  # refused before any game was played


def test_alphabeta_max_depth_is_built(capsys):
    import jaxcheckers
    from jaxcheckers.agents import MAX_ALPHABETA_DEPTH, make_agent

    env = jaxcheckers.make("checkers")
    assert callable(make_agent(f"alphabeta:{MAX_ALPHABETA_DEPTH}", env))
    with pytest.raises(ValueError, match="turns deep"):
        make_agent(f"alphabeta:{MAX_ALPHABETA_DEPTH + 1}", env)


@pytest.mark.parametrize(
    "kind, text",
    [
        (argtypes.positive_int, "0"),
        (argtypes.positive_int, "1.5"),
        (argtypes.non_negative_int, "-1"),
        (argtypes.finite_float, "nan"),
        (argtypes.finite_float, "inf"),
        (argtypes.positive_float, "0"),
        (argtypes.non_negative_float, "-0.5"),
        (argtypes.fraction, "1.5"),
        (argtypes.seed, "-1"),
        (argtypes.seed, str(2**32)),
        (argtypes.positive_int_list, "256,0"),
        (argtypes.positive_int_list, "256,"),
        (argtypes.games_count, str(argtypes.MAX_GAMES + 1)),
        (argtypes.steps_count, str(argtypes.MAX_STEPS + 1)),
    ],
)
def test_the_argument_types_refuse(kind, text):
    with pytest.raises(argparse.ArgumentTypeError):
        kind(text)


def test_the_argument_types_accept():
    assert argtypes.positive_int_list("256, 128") == (256, 128)
    assert argtypes.seed(str(argtypes.MAX_SEED)) == argtypes.MAX_SEED
    assert argtypes.non_negative_float("0") == 0.0
    assert math.isclose(argtypes.fraction("0.25"), 0.25)


def test_a_pasted_huge_number_is_refused_in_a_short_line():
    """Python's "Exceeds the limit (4300 digits)" message (and the 5,000 digits) kept out."""
    with pytest.raises(argparse.ArgumentTypeError) as refused:
        argtypes.games_count("9" * 5000)
    assert "5,000 characters" in str(refused.value) and len(str(refused.value)) < 120
    assert argtypes.games_count(str(argtypes.MAX_GAMES)) == argtypes.MAX_GAMES


def test_check_writable_folder_makes_it_and_refuses_what_cannot_hold_files(tmp_path):
    folder = tmp_path / "a" / "b"
    assert argtypes.check_writable_folder(folder) == folder and folder.is_dir()
    assert not any(folder.iterdir())  # the test file is gone
    (tmp_path / "file").write_text("")
    for path, message in [
        (tmp_path / "file", "is a file, not a folder"),
        (tmp_path / "file" / "d", "Not a directory"),
        ("", "an empty folder name"),
    ]:
        with pytest.raises(ValueError, match=message):
            argtypes.check_writable_folder(path)


def test_a_ladder_into_a_read_only_folder_is_refused_before_any_game(capsys):
    """It played a pair, then lost it when it could not save it."""
    out = unwritable_folder()
    argv = ["ladder", "--game", "tictactoe", "random", "perfect", "--games", "2", "--no-plot"]
    status, _, err = run_cli([*argv, "--out", out], capsys)
    assert_one_line_error(status, err, f"cannot write in {out}")  # no "random vs perfect" line


def test_check_writable_leaves_no_file(tmp_path):
    target = tmp_path / "games.pdn"
    assert argtypes.check_writable(target) == target
    assert not target.exists()
    target.write_text("kept")
    argtypes.check_writable(target)
    assert target.read_text() == "kept"
    with pytest.raises(ValueError, match="cannot write"):
        argtypes.check_writable(tmp_path / "missing" / "games.pdn")
    with pytest.raises(ValueError, match="cannot write"):
        argtypes.check_writable(tmp_path)
    for empty in ("", "  "):  # `--pdn ''`: Path("") is ".", which was refused as a directory
        with pytest.raises(ValueError, match="an empty file name"):
            argtypes.check_writable(empty)


def test_perft_stops_before_a_depth_the_memory_cannot_hold(capsys, monkeypatch):
    # Depth 3 plays the 25 positions of depth 2 (6×6): pretend there is room for 20.
    per_state = memory.state_bytes(__import__("jaxcheckers").make("checkers", board_size=6))
    monkeypatch.setattr(memory, "free_memory", lambda: (20 * 3 * per_state, "host"))
    status, out, err = run_cli(["perft", "--board-size", "6", "--depth", "4"], capsys)
    assert "depth  1:" in out and "depth  2:" in out and "depth  3:" not in out
    assert_one_line_error(status, err, "stopped before depth 3", "GiB")


@pytest.mark.parametrize("command", ["arena", "ladder"])
def test_a_match_batch_the_memory_cannot_hold_is_refused_before_any_game(
    command, capsys, monkeypatch
):
    """All --games at once by default: a million chess games is 12 GiB of States."""
    monkeypatch.setattr(memory, "free_memory", lambda: (2**20, "host"))  # pretend 1 MiB is free
    argv = [command, "--game", "tictactoe", "random", "perfect", "--games", "20000"]
    status, out, err = run_cli(argv, capsys)
    assert_one_line_error(status, err, "20,000 games at once need about", "--batch-size")
    assert "vs" not in out


def test_demo_refuses_a_batch_the_memory_cannot_hold_before_it_allocates(capsys):
    """It ran out of memory inside XLA with a long traceback (`--batch 100000000`)."""
    status, out, err = run_cli(["demo", "--batch", "100000000000", "--steps", "1"], capsys)
    assert_one_line_error(status, err, "--batch 100,000,000,000 games need about", "GiB")
    assert "One random game" not in out


@pytest.mark.parametrize(
    "missing, users, argv",
    [
        ("orbax.checkpoint", (), ["arena", "ppo:RUN", "random"]),  # loading a trained policy
        (
            "flax",
            ("jaxcheckers.agents.networks", "jaxcheckers.agents.pretrained")
            + ("jaxcheckers.agents.policy",),
            ["arena", "ppo:RUN", "random"],
        ),
    ],
)
def test_a_missing_optional_package_names_its_extra(
    missing, users, argv, capsys, monkeypatch, tmp_path
):
    # Missing, as far as Python can tell: the import fails deep inside make_agent (the modules
    # that import it at their top are dropped too, so that they import it again, and fail).
    top = missing.split(".")[0]
    for name in list(sys.modules):
        if name == top or name.startswith(top + ".") or name in users:
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, top, None)
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "config.json").write_text('{"game": "checkers", "env_options": {}}')
    argv = [arg.replace("RUN", str(run_dir)) for arg in argv]
    status, _, err = run_cli(argv, capsys)
    assert_one_line_error(status, err, f"'{top}", "jaxcheckers[training]")


@pytest.mark.parametrize(
    "missing", ["flax", "optax", "orbax.checkpoint", "chex", "tqdm", "matplotlib"]
)
def test_a_command_whose_requirement_is_missing_names_the_extra(missing, capsys, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *rest: None if name == missing else real(name, *rest),
    )
    status, _, err = run_cli(["train", "--help"], capsys)
    assert_one_line_error(status, err, f"'{missing}'", "pip install 'jaxcheckers[training]'")


def test_arena_prints_its_results_before_writing_the_pdn(capsys, monkeypatch):
    from jaxcheckers import arena

    # The disk fills up later: the write fails after the games.
    monkeypatch.setattr(arena, "check_writable", lambda path, new: path)
    argv = ["arena", "random", "random", "--board-size", "4", "--games", "2", "--json"]
    status, out, err = run_cli([*argv, "--pdn", "/proc/nowhere/t.pdn"], capsys)
    assert '"matches"' in out
    assert_one_line_error(status, err, "could not save the games to /proc/nowhere/t.pdn")
    assert out.count('[Event "jaxcheckers arena"]') == 2  # the games went to the screen


def test_ctrl_c_while_an_agent_thinks_keeps_the_game(capsys, monkeypatch, tmp_path):
    from jaxcheckers import play

    real = play.make_agent

    def interrupting(state, key):
        raise KeyboardInterrupt

    monkeypatch.setattr(play, "make_agent", lambda spec, env: real(spec, env) if spec == "random"
                        else interrupting)  # fmt: skip
    pdn = tmp_path / "game.pdn"
    argv = ["play", "--black", "random", "--white", "alphabeta:1", "--board-size", "6"]
    status, out, err = run_cli([*argv, "--pdn", str(pdn)], capsys)
    assert status == 0, err
    assert "Traceback" not in err
    assert "interrupted" in out and f"game saved to {pdn}" in out
    assert "1." in pdn.read_text()  # black's first move is in the record


def test_the_command_keeps_compiled_programs_in_the_users_cache(tmp_path, monkeypatch):
    import os
    import subprocess

    from jaxcheckers import cli

    monkeypatch.delenv("JAX_COMPILATION_CACHE_DIR", raising=False)
    monkeypatch.delenv(cli.CACHE_VARIABLE, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cli.compilation_cache_dir() == tmp_path / "xdg" / "jaxcheckers" / "jax"
    monkeypatch.setenv(cli.CACHE_VARIABLE, "off")
    assert cli.compilation_cache_dir() is None
    monkeypatch.setenv("JAX_COMPILATION_CACHE_DIR", str(tmp_path / "jax"))  # JAX's own wins
    monkeypatch.setenv(cli.CACHE_VARIABLE, str(tmp_path / "ours"))
    assert cli.compilation_cache_dir() is None

    # As a user runs it, in a new process without the suite's cache, tic-tac-toe's perft (the
    # quickest command that compiles). Every compile is worth a file here: whether one takes
    # longer than CACHE_MIN_COMPILE_SECONDS depends on the machine (a fast one compiles this
    # perft in less, and newer JAX compiles faster).
    dropped = ("JAX_COMPILATION_CACHE_DIR", "XLA_FLAGS")
    environment = {k: v for k, v in os.environ.items() if k not in dropped}
    environment[cli.CACHE_VARIABLE] = str(tmp_path / "cache")
    script = "import sys; from jaxcheckers import cli; cli.CACHE_MIN_COMPILE_SECONDS = 0; "
    script += "sys.exit(cli.main(['perft', '--game', 'tictactoe', '--depth', '1']))"
    command = [sys.executable, "-c", script]
    done = subprocess.run(command, env=environment, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert any((tmp_path / "cache").iterdir())  # compiled programs kept for the next run


@pytest.mark.parametrize(
    "argv, words",
    [
        (["arena", "random", "random", "random"], ("given twice", "random")),
        (["arena", "alphabeta:0", "random"], ("searches 1 to 8 turns deep, got 0",)),
        (["arena", "mcts:pretrained:-5", "random"], ("simulations must lie in", "-5")),
        (["play", "--delay", "1e9"], ("--delay", "at most 60")),
    ],
)
def test_slips_on_the_command_line_are_one_line(argv, words, capsys):
    status, _, err = run_cli(argv, capsys)
    assert_one_line_error(status, err, *words)


def test_pettingzoo_observe_of_an_unknown_agent_names_the_agents():
    from jaxcheckers.adapters.pettingzoo import env

    aec = env(game="tictactoe")
    aec.reset()
    with pytest.raises(ValueError, match=r"agent must be one of \['player_0', 'player_1'\]"):
        aec.unwrapped.observe("player_7")


@pytest.mark.parametrize(
    "text, expected",
    [
        ("variant=russian", ("variant", "russian")),
        ("max_steps=200", ("max_steps", 200)),
        (" repetition_draw = False ", ("repetition_draw", False)),
        ("max_steps=none", ("max_steps", None)),
        ("scale=1.5", ("scale", 1.5)),
        ("rule_set=", ("rule_set", "")),
        ("variant=inf", ("variant", "inf")),
    ],
)
def test_an_option_is_read_as_its_type(text, expected):
    assert argtypes.env_option(text) == expected


def test_python_dash_m_jaxcheckers_is_the_command():
    import subprocess

    command = [sys.executable, "-m", "jaxcheckers", "arena", "random"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "arena: give at least two agents\n"
