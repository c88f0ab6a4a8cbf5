"""Pictures: the SVG is well-formed and shows every piece; PNG, GIF and strips are written."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree

import jax
import pytest

import jaxcheckers
from jaxcheckers.checkers import pdn, pictures
from jaxcheckers.checkers.positions import from_board

ENV = jaxcheckers.make("checkers")
SVG = "{http://www.w3.org/2000/svg}"


def test_svg_of_the_opening_has_every_square_and_piece():
    svg = pictures.position_svg(ENV.reset(jax.random.key(0)), highlight=[(2, 1)], title="a<b")
    root = ElementTree.fromstring(svg)
    assert len(root.findall(f"{SVG}rect")) == 64
    assert len(root.findall(f"{SVG}circle")) == 24  # 24 men, no king rings
    numbers = [t.text for t in root.findall(f"{SVG}text")]
    assert numbers[0] == "1" and numbers[-1] == "32"
    assert svg.count(pictures.HIGHLIGHT) == 1


def test_kings_get_a_ring():
    board = ["." * 8] * 3 + ["..B.....", "...w...."] + ["." * 8] * 3
    svg = pictures.position_svg(from_board(ENV, board, player=1), numbers=False)
    root = ElementTree.fromstring(svg)
    assert len(root.findall(f"{SVG}circle")) == 3 and not root.findall(f"{SVG}text")


def test_png_gif_and_strip_files(tmp_path):
    pytest.importorskip("matplotlib")
    (game,) = pdn.parse_pdn("1. 11-15 23-19 2. 8-11 22-17 *")
    replayed = pdn.replay(ENV, game)
    png = tmp_path / "p.png"
    pictures.save_png(replayed.states[-1], png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    gif = tmp_path / "g.gif"
    frames = pictures.save_game_gif(ENV, replayed.start, replayed.actions, gif, dpi=30)
    assert frames == 5 and gif.read_bytes()[:6] == b"GIF89a"
    strip = tmp_path / "s.png"
    assert pictures.save_game_strip(ENV, replayed.start, replayed.actions, strip, every=2) == 3
    assert strip.stat().st_size > 1000
