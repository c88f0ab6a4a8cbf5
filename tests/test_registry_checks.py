"""The registry refuses a bad game where it enters, in one line naming what is wrong: a spec
given to `register` with a field of the wrong kind, and an installed plug-in (a real entry
point on sys.path) that cannot be loaded, which is skipped, not fatal, for the other games."""

from __future__ import annotations

import dataclasses
import warnings

import pytest

import jaxcheckers
from jaxcheckers import games
from jaxcheckers.extras import missing_message
from jaxcheckers.tictactoe.env import TicTacToe
from tests.cli_helpers import assert_one_line_error, run_cli

GOOD = games.GameSpec(name="spec_checked", make=TicTacToe)

BAD_FIELDS = {
    "make None": ({"make": None}, "make"),
    "make 3": ({"make": 3}, "make"),
    "one player": ({"players": ("solo",)}, "players"),
    "players not strings": ({"players": ("a", 1)}, "players"),
    "perft_depth -1": ({"perft_depth": -1}, "perft_depth"),
    "perft_depth 0": ({"perft_depth": 0}, "perft_depth"),
    "perft_depth True": ({"perft_depth": True}, "perft_depth"),
    "perft_depth 2.0": ({"perft_depth": 2.0}, "perft_depth"),
    "text a string": ({"text": "board"}, "text"),
    "title 3": ({"title": 3}, "title"),
    "openings a list": ({"openings": ["ballots"]}, "openings"),
    "default_seats one": ({"default_seats": ("human",)}, "default_seats"),
    "observation_dtype": ({"observation_dtype": "no such dtype"}, "observation_dtype"),
    # a class, no longer a "module:Class" path
    "game_object a path": ({"game_object": "jaxcheckers.checkers.game:Game"}, "game_object"),
    # a function, no longer a "module:function" path
    "tactical_inputs a path": (
        {"tactical_inputs": "jaxcheckers.checkers.features:tactical_inputs"},
        "tactical_inputs",
    ),
    "agents a list": ({"agents": ["first"]}, "agents"),
    "an agent a function": ({"agents": {"first": lambda argument, env: None}}, "agents"),
    "an agent a path": ({"agents": {"first": games.GameAgent("m:f", "first")}}, "agents"),
    "an agent without help": ({"agents": {"first": games.GameAgent(print, None)}}, "agents"),
    "an agent name with ':'": ({"agents": {"a:b": games.GameAgent(print, "a")}}, "agents"),
    "move_values a path": (
        {"agents": {"first": games.GameAgent(print, "first", move_values="m:v")}},
        "agents",
    ),
}


@pytest.mark.parametrize("change, field", BAD_FIELDS.values(), ids=BAD_FIELDS.keys())
def test_register_names_the_field_of_the_wrong_kind(change, field):
    with pytest.raises(ValueError, match=f"'spec_checked': {field} must be") as error:
        jaxcheckers.register(dataclasses.replace(GOOD, **change))
    assert "\n" not in str(error.value)
    assert "spec_checked" not in games.names()


@pytest.mark.parametrize("name", [5, None, "my-game", ""])
def test_register_refuses_a_name_that_is_no_identifier_in_one_line(name):
    with pytest.raises(ValueError, match="a game's name is a Python identifier"):
        jaxcheckers.register(dataclasses.replace(GOOD, name=name))


def test_the_built_in_specs_pass_the_checks_register_makes():
    for name in games.BUILTIN:
        assert games.check_spec(games.spec(name)) is games.spec(name)


# -- installed plug-ins: a real distribution on sys.path that declares [jaxcheckers.games] ---------

PLUGINS = {
    "ghost": ("no_such_module_xyz:SPEC", "ModuleNotFoundError: No module named"),
    "raising": ("brokengames:make_spec", "RuntimeError: the factory broke"),
    "missing": ("brokengames:NO_SUCH_SPEC", "AttributeError"),
    "my-game": ("brokengames:DASHED", "a game's name is a Python identifier"),
    "shallow": ("brokengames:SHALLOW", "perft_depth must be"),
}


@pytest.fixture
def broken_plugins(tmp_path, monkeypatch):
    (tmp_path / "brokengames.py").write_text(
        "from jaxcheckers.games import GameSpec\n"
        "from jaxcheckers.tictactoe.env import TicTacToe\n"
        "def make_spec():\n"
        "    raise RuntimeError('the factory broke')\n"
        "DASHED = GameSpec(name='my-game', make=TicTacToe)\n"
        "SHALLOW = GameSpec(name='shallow', make=TicTacToe, perft_depth=-1)\n"
    )
    info = tmp_path / "brokengames-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: brokengames\nVersion: 1.0\n")
    lines = [f"{name} = {value}" for name, (value, _) in PLUGINS.items()]
    (info / "entry_points.txt").write_text("[jaxcheckers.games]\n" + "\n".join(lines) + "\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield
    for name in PLUGINS:
        games._REGISTERED.pop(name, None)


@pytest.mark.parametrize("name", PLUGINS)
def test_a_broken_plugin_is_one_line_naming_it_and_its_package(name, broken_plugins):
    with pytest.raises(ValueError) as error:
        games.spec(name)
    message = str(error.value)
    assert "\n" not in message
    assert f"the game {name!r} of brokengames" in message and PLUGINS[name][1] in message


def test_the_gymnasium_ids_skip_a_broken_plugin_with_a_warning_naming_it(broken_plugins):
    """What `import jaxcheckers.adapters.gymnasium` runs: every built-in game keeps its id."""
    registration = pytest.importorskip("jaxcheckers.adapters.registration")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ids = registration.register_envs()
    expected = {games.spec(name).gymnasium_id for name in games.BUILTIN}
    assert expected <= set(ids)
    messages = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    for name in PLUGINS:
        (line,) = [m for m in messages if f"the game {name!r} of brokengames" in m]
        assert line.startswith("skipped: ") and "\n" not in line


def test_the_cli_refuses_a_plugin_whose_module_is_missing_without_blaming_an_extra(
    broken_plugins, capsys
):
    status, _, err = run_cli(["perft", "--game", "ghost"], capsys)
    assert_one_line_error(status, err, "'ghost' of brokengames", "no_such_module_xyz")
    assert "jaxcheckers[" not in err


def test_a_module_no_extra_provides_is_not_blamed_on_an_extra():
    message = missing_message("no_such_module_xyz", "this command")
    assert "'no_such_module_xyz'" in message and "jaxcheckers[" not in message
