"""pgx's picture methods on every game's State: `to_svg`, `save_svg` and `_step_count`."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree

import jax
import numpy as np
import pytest

from jaxcheckers import games

SVG = "{http://www.w3.org/2000/svg}"


def _tree(document: str) -> ElementTree.Element:
    return ElementTree.fromstring(document)


def _count(root: ElementTree.Element, tag: str, cls: str) -> int:
    return sum(1 for e in root.iter(SVG + tag) if e.get("class") == cls)


@pytest.fixture(scope="module")
def starts():
    return {name: games.make(name).init(jax.random.PRNGKey(0)) for name in games.names()}


@pytest.mark.parametrize(
    ("game", "tag", "cls", "count"),
    [
        ("checkers", "circle", "man", 24),
        ("chess", "text", "piece", 32),
        ("tictactoe", "path", "x", 0),
    ],
)
def test_the_start_is_drawn_piece_by_piece(starts, game, tag, cls, count):
    assert _count(_tree(starts[game].to_svg()), tag, cls) == count


def test_marks_after_moves_are_drawn_where_they_stand():
    env = games.make("tictactoe")
    state = env.init(jax.random.PRNGKey(0))
    for action in (4, 0):  # X in the centre, O in the top left corner
        state = env.step(state, action)
    root = _tree(state.to_svg())
    (x,) = [e for e in root.iter(SVG + "path") if e.get("class") == "x"]
    (o,) = [e for e in root.iter(SVG + "circle") if e.get("class") == "o"]
    assert (float(o.get("cx")), float(o.get("cy"))) == (16, 16)
    assert x.get("d").startswith("M39")  # centre square (32..64), arm 9
    assert state._step_count == state.step_count == 2


def test_a_batch_is_a_grid_of_boards_and_scale_scales(starts):
    env = games.make("checkers")
    batch = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(1), 5))
    root = _tree(batch.to_svg())
    boards = root.findall(SVG + "svg")
    assert len(boards) == 5
    assert len({(b.get("x"), b.get("y")) for b in boards}) == 5
    single = _tree(starts["checkers"].to_svg(scale=2.5))
    assert float(single.get("width")) == 2.5 * 256
    assert single.get("viewBox") == "0 0 256 256"


def test_save_svg_writes_to_svg(starts, tmp_path):
    path = tmp_path / "board.svg"
    starts["chess"].save_svg(path)
    assert path.read_text(encoding="utf-8") == starts["chess"].to_svg()


@pytest.mark.parametrize("options", [{"color_theme": "neon"}, {"scale": 0}, {"scale": "2"}])
def test_bad_options_are_refused_in_one_line(starts, options):
    with pytest.raises(ValueError, match="color_theme|scale"):
        starts["tictactoe"].to_svg(**options)


def test_kings_carry_their_mark():
    from jaxcheckers.checkers.drawing import board_svg as checkers_svg

    board = np.zeros((8, 8), np.int8)
    board[0, 1], board[7, 0] = 2, -1
    root = _tree(checkers_svg(board))
    assert _count(root, "circle", "king") == 1 and _count(root, "circle", "man") == 1
