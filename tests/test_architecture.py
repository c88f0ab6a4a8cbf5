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

from jaxcheckers import games, rgb, svg

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


@pytest.mark.parametrize("module", [rgb, svg])
def test_the_shared_drawing_modules_name_no_game(module):
    public = set(module.__all__)
    assert not {name for name in public if any(g in name for g in games.BUILTIN)}
    assert imported_games(Path(module.__file__)) == set()


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
