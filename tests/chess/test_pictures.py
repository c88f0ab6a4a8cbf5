"""Chess pictures: the SVG is well-formed and draws exactly the FEN's pieces, on their squares."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree

import chess
import pytest

from jaxcheckers.chess import pictures, state_from_fen

SVG = "{http://www.w3.org/2000/svg}"
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


@pytest.mark.parametrize("fen", [chess.STARTING_FEN, KIWIPETE, "8/8/8/4k3/8/8/8/K7 b - - 0 1"])
def test_svg_has_one_glyph_per_piece_of_the_fen_on_its_square(fen):
    svg = pictures.position_svg(state_from_fen(fen), size=400)
    root = ElementTree.fromstring(svg)
    assert len(root.findall(f"{SVG}rect")) == 64
    pieces = [t for t in root.findall(f"{SVG}text") if t.get("class") == "piece"]
    drawn = {t.get("data-square"): t.get("data-piece") for t in pieces}
    expected = chess.Board(fen).piece_map()
    assert len(pieces) == len(expected)
    assert drawn == {chess.square_name(s): p.symbol() for s, p in expected.items()}
    for text in pieces:
        assert text.text == pictures.GLYPHS[text.get("data-piece").lower()]
        square = chess.parse_square(text.get("data-square"))
        # a1 at the bottom left: 50-pixel squares, the glyph in the middle of its own.
        x, y = float(text.get("x")), float(text.get("y"))
        assert (x, y) == (
            chess.square_file(square) * 50 + 25,
            (7 - chess.square_rank(square)) * 50 + 25,
        )
        white = text.get("data-piece").isupper()
        assert text.get("fill") == ("#ffffff" if white else "#202020")


def test_highlight_title_and_coordinates():
    svg = pictures.position_svg(
        state_from_fen(chess.STARTING_FEN), highlight=("e2", "e4"), title="1. e4 <best>"
    )
    root = ElementTree.fromstring(svg)
    assert root.find(f"{SVG}title").text == "1. e4 <best>"
    fills = [r.get("fill") for r in root.findall(f"{SVG}rect")]
    assert fills.count(pictures.HIGHLIGHT) == 2
    assert fills[0] == pictures.DARK and fills[7] == pictures.LIGHT  # a1 dark, h1 light
    marks = [t.text for t in root.findall(f"{SVG}text") if t.get("class") == "coordinate"]
    assert sorted(marks) == sorted("abcdefgh12345678")
    plain = pictures.position_svg({0: "K", 63: "k"}, coordinates=False)
    assert "coordinate" not in plain and plain.count('class="piece"') == 2


def test_png_file(tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "p.png"
    pictures.save_png(state_from_fen(KIWIPETE), png, highlight=("e2", "a6"), title="Kiwipete")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000


def test_anything_else_is_refused_in_one_line():
    with pytest.raises(ValueError, match="expected a chess state"):
        pictures.position_svg("not a position")
