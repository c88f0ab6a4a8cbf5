"""The direction of imports: a game's package is imported only from inside its own folder, and the
shared drawing modules hold primitives, never a game's drawing.

No module of the library or the trainers outside a game's folder imports it (benchmarks may).
`DEPRECATED_SHIMS` are the old paths of modules that moved into
a game's folder: each imports its new home to serve the old names for one release, with a
DeprecationWarning, and is deleted in the next release (with its line here)."""

from __future__ import annotations

import ast
import warnings
from pathlib import Path

import pytest

from jaxcheckers import arena, games, ladder, match, ratings, rgb, svg

ROOT = Path(__file__).resolve().parent.parent
GAME_PACKAGES = {f"jaxcheckers.{name}" for name in games.BUILTIN}
# old path -> new home; each old module does nothing but serve its new home's names
DEPRECATED_SHIMS = {
    "jaxcheckers/agents/alphabeta.py": "jaxcheckers.checkers.alphabeta",
    "jaxcheckers/agents/chess_alphabeta.py": "jaxcheckers.chess.alphabeta",
    "jaxcheckers/agents/perfect.py": "jaxcheckers.tictactoe.perfect",
    "jaxcheckers/agents/sarsa.py": "jaxcheckers.checkers.sarsa",
    "jaxcheckers/adapters/tictactoe_gym.py": "jaxcheckers.tictactoe.gym",
}


def imported_games(path: Path) -> set[str]:
    """The game packages the module at `path` imports (any `import` or `from ... import`)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return {game for game in GAME_PACKAGES for name in names if (name + ".").startswith(game + ".")}


def outside_its_games(path: Path) -> set[str]:
    relative = path.relative_to(ROOT).as_posix()
    own = {game for game in GAME_PACKAGES if relative.startswith(game.replace(".", "/") + "/")}
    return imported_games(path) - own


def test_no_module_outside_a_game_imports_it_but_the_deprecation_shims():
    modules = [*(ROOT / "jaxcheckers").rglob("*.py"), *(ROOT / "training").rglob("*.py")]
    importing = {path.relative_to(ROOT).as_posix() for path in modules if outside_its_games(path)}
    assert importing - set(DEPRECATED_SHIMS) == set(), "a game imported from outside its folder"
    assert set(DEPRECATED_SHIMS) <= importing  # each shim does import its new home


@pytest.mark.parametrize("module", [rgb, svg, match, ratings, arena, ladder])
def test_the_shared_modules_name_no_game(module):
    public = set(module.__all__)
    assert not {name for name in public if any(g in name for g in games.BUILTIN)}
    assert imported_games(Path(module.__file__)) == set()


@pytest.mark.parametrize("module", [match, ratings])
def test_the_match_engine_and_the_ratings_name_no_game_even_in_words(module):
    import re

    text = Path(module.__file__).read_text()
    named = re.findall(rf"\b({'|'.join(games.BUILTIN)})\b", text)  # "jaxcheckers" is no game
    assert named == []


@pytest.mark.parametrize(
    "module, old, home, new",
    [
        (rgb, "checkers_rgb", "jaxcheckers.checkers.drawing", "board_rgb"),
        (rgb, "tictactoe_rgb", "jaxcheckers.tictactoe.drawing", "board_rgb"),
        (svg, "checkers_svg", "jaxcheckers.checkers.drawing", "board_svg"),
        (svg, "tictactoe_svg", "jaxcheckers.tictactoe.drawing", "board_svg"),
    ],
)
def test_a_moved_drawing_keeps_its_old_name_for_a_release_with_a_warning(module, old, home, new):
    import importlib

    with pytest.warns(DeprecationWarning, match=f"{home}.{new}"):
        function = getattr(module, old)
    assert function is getattr(importlib.import_module(home), new)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(AttributeError, match="no attribute 'no_such_drawing'"):
            module.no_such_drawing  # noqa: B018 - the attribute access is the test


@pytest.mark.parametrize("old_path, home", DEPRECATED_SHIMS.items())
def test_a_moved_module_keeps_its_old_path_for_a_release_with_a_warning(old_path, home):
    """Each name of the new home is served at the old path, the same object, with a warning
    naming the new home; the shim imports that home and nothing else of a game."""
    import importlib

    try:
        new = importlib.import_module(home)
    except ModuleNotFoundError as error:  # tictactoe.gym without the adapters extra
        pytest.skip(str(error))
    old = importlib.import_module(old_path.removesuffix(".py").replace("/", "."))
    names = [name for name in new.__all__ if not name.startswith("_")]
    assert names
    for name in names:
        with pytest.warns(DeprecationWarning, match=f"moved to {home}; the old path goes"):
            assert getattr(old, name) is getattr(new, name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
            old.no_such_name  # noqa: B018 - the attribute access is the test
    assert imported_games(ROOT / old_path) == {home.rsplit(".", 1)[0]}


# The names the match engine and the statistics took from arena.py and ladder.py (issue 49):
# old module -> {new home: names}; each old name is served for one release.
MOVED_FROM_THE_FRONT_ENDS = {
    arena: {
        "jaxcheckers.match": [
            *("UNLIMITED_GAME_CAP", "Outcome", "Match", "play_games", "play_match"),
            *("match_batches", "deck_order", "replay_start", "PairMatch", "scheduled_pairs"),
            *("round_robin", "match_games", "each_game"),
        ],
        "jaxcheckers.ratings": [
            *("Z_95", "Summary", "elo_difference", "wilson_interval", "summarize"),
            *("describe", "round_robin_table"),
        ],
        "jaxcheckers.argtypes": ["add_agents_argument"],
    },
    ladder: {
        "jaxcheckers.ratings": [
            *("ELO_SCALE", "DEFAULT_PRIOR_DRAWS", "PairResult", "Rating", "expected_score"),
            *("choose_anchor", "fit_ratings", "separated_tiers", "markdown_table", "tiers_note"),
            *("plot_ratings", "Z_95", "round_robin_table"),
        ],
        "jaxcheckers.match": ["round_robin", "scheduled_pairs"],
    },
}


@pytest.mark.parametrize(
    "module, old, home",
    [
        (module, name, home)
        for module, homes in MOVED_FROM_THE_FRONT_ENDS.items()
        for home, names in homes.items()
        for name in names
    ],
)
def test_a_name_moved_out_of_a_front_end_keeps_working_for_a_release_with_a_warning(
    module, old, home
):
    import importlib

    with pytest.warns(DeprecationWarning, match=f"{module.__name__}.{old} moved to {home}.{old}"):
        value = getattr(module, old)
    assert value is getattr(importlib.import_module(home), old)


@pytest.mark.parametrize("module", [arena, ladder])
def test_a_front_end_keeps_only_its_command(module):
    """The front ends hold their command (and the ladder its report files); every other name
    of theirs is a moved one, served with a warning, or an AttributeError."""
    assert {"add_arguments", "run"} <= set(module.__all__)
    moved = {name for names in MOVED_FROM_THE_FRONT_ENDS[module].values() for name in names}
    assert not moved & set(vars(module)), "a moved name bound in the front end never warns"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
            module.no_such_name  # noqa: B018 - the attribute access is the test
