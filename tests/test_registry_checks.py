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
from jaxcheckers.games import Adapters, Defaults, Drawing, Notation
from jaxcheckers.tictactoe.env import TicTacToe
from tests.cli_helpers import assert_one_line_error, run_cli

GOOD = games.GameSpec(name="spec_checked", make=TicTacToe)

GYM = games.GymnasiumEnv(print)

BAD_FIELDS = {
    "make None": ({"make": None}, "make"),
    "make 3": ({"make": 3}, "make"),
    "one player": ({"players": ("solo",)}, "players"),
    "players not strings": ({"players": ("a", 1)}, "players"),
    "perft_depth -1": ({"defaults": Defaults(perft_depth=-1)}, "defaults.perft_depth"),
    "perft_depth 0": ({"defaults": Defaults(perft_depth=0)}, "defaults.perft_depth"),
    "perft_depth True": ({"defaults": Defaults(perft_depth=True)}, "defaults.perft_depth"),
    "perft_depth 2.0": ({"defaults": Defaults(perft_depth=2.0)}, "defaults.perft_depth"),
    "text a string": ({"drawing": Drawing(text="board")}, "drawing.text"),
    "from_fen a path": ({"notation": Notation(from_fen="m:f")}, "notation.from_fen"),
    "record a string": ({"notation": Notation(record="PDN")}, "notation.record"),
    "title 3": ({"adapters": Adapters(title=3)}, "adapters.title"),
    "openings a list": ({"openings": ["ballots"]}, "openings"),
    "seats one": ({"defaults": Defaults(seats=("human",))}, "defaults.seats"),
    "scored_against empty": ({"defaults": Defaults(scored_against=())}, "defaults.scored_against"),
    "scored_against a string": (
        {"defaults": Defaults(scored_against="random")},
        "defaults.scored_against",
    ),
    "observation_dtype": (
        {"adapters": Adapters(observation_dtype="no such dtype")},
        "adapters.observation_dtype",
    ),
    # a class, no longer a "module:Class" path
    "game_object a path": (
        {"adapters": Adapters(game_object="jaxcheckers.checkers.game:Game")},
        "adapters.game_object",
    ),
    "gymnasium_envs a path": (
        {"adapters": Adapters(gymnasium_envs={"x/Y-v0": "m:Env"})},
        "adapters.gymnasium_envs",
    ),
    "gymnasium_envs a bad id": (
        {"adapters": Adapters(gymnasium_envs={"no id": GYM})},
        "adapters.gymnasium_envs",
    ),
    # a part given as a dict, not the part's class
    "drawing a dict": ({"drawing": {"text": print}}, "drawing"),
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


def test_the_flat_fields_of_before_the_parts_still_work_for_a_release_with_a_warning():
    with pytest.warns(DeprecationWarning) as caught:
        old = games.GameSpec(name="flat", make=TicTacToe, text=str, default_seats=("a", "b"))
    moved = ["GameSpec.drawing.text", "GameSpec.defaults.seats"]
    assert [m for m in moved if any(m in str(w.message) for w in caught)] == moved
    assert old == games.GameSpec(
        name="flat", make=TicTacToe, drawing=Drawing(text=str), defaults=Defaults(seats=("a", "b"))
    )
    with pytest.warns(DeprecationWarning, match="GameSpec.defaults.perft_depth"):
        assert old.perft_depth == 4
    with pytest.raises(AttributeError, match="no attribute 'no_such_field'"):
        old.no_such_field  # noqa: B018 - the read is the test
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match="must be a Drawing"):
        games.GameSpec(name="mixed", make=TicTacToe, drawing={"rgb": None}, text=str)


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
    "shallow": ("brokengames:SHALLOW", "defaults.perft_depth must be"),
}


@pytest.fixture
def broken_plugins(tmp_path, monkeypatch):
    (tmp_path / "brokengames.py").write_text(
        "from jaxcheckers.games import Defaults, GameSpec\n"
        "from jaxcheckers.tictactoe.env import TicTacToe\n"
        "def make_spec():\n"
        "    raise RuntimeError('the factory broke')\n"
        "DASHED = GameSpec(name='my-game', make=TicTacToe)\n"
        "SHALLOW = GameSpec(name='shallow', make=TicTacToe, defaults=Defaults(perft_depth=-1))\n"
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


@pytest.mark.parametrize(
    ("game", "options", "named"),
    [
        ("draughts", {"board_size": 8}, "'board_size'; its options: variant, repetition_draw"),
        ("checkers", {"variant": "russian"}, "'variant'; its options: rule_set, board_size"),
        ("chess", {"foo": 1, "bar": 2}, "'foo', 'bar'; its options: max_steps"),
    ],
)
def test_make_refuses_an_option_the_game_lacks_naming_the_ones_it_has(game, options, named):
    """Before, Python's "__init__() got an unexpected keyword argument", which named neither the
    game nor its options."""
    with pytest.raises(TypeError, match=f"^{game} has no option {named}") as error:
        jaxcheckers.make(game, **options)
    assert "\n" not in str(error.value)
    assert jaxcheckers.make("checkers", rule_set="ealt", board_size=8).board_size == 8
