"""Careless input to draughts: refused in one line, never read as something else.

Refused before anything is counted: FEN text, `jaxcheckers perft --game draughts --move-level`
and the PDN writer's start position.
"""

from __future__ import annotations

import numpy as np
import pytest

from jaxcheckers import memory
from jaxcheckers.draughts import pdn
from jaxcheckers.draughts.env import Draughts
from jaxcheckers.draughts.fen import fen_to_board
from tests.cli_helpers import assert_one_line_error, run_cli


@pytest.mark.parametrize(
    ("fen", "squares"),
    [
        ("W:W1:B50", 50),  # a white man on 1, White's crowning row
        ("W:W31:B46", 50),  # a black man on 46, Black's
        ("B:W5:B20", 50),
        ("W:W4:B20", 32),  # 8×8: White crowns on 1–4, Black on 29–32
        ("W:W21:B30", 32),
    ],
)
def test_a_man_on_its_own_promotion_row_is_refused_by_the_fen_reader(fen, squares):
    # It was refused only by `from_fen`: the perft command read it and counted 0 moves.
    with pytest.raises(ValueError, match="promotion row"):
        fen_to_board(fen, squares)


def test_kings_on_the_promotion_rows_and_men_on_the_others_still_read():
    board, player = fen_to_board("B:WK1,46:BK50,5", 50)
    assert player == 1 and board[[0, 45, 49, 4]].tolist() == [2, 1, -2, -1]


def _perft(argv, capsys):
    """`jaxcheckers perft --game draughts --move-level ARGV`, in this process."""
    return run_cli(["perft", "--game", "draughts", "--move-level", *argv], capsys)


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--depth", "0"], ("must be a positive integer, got '0'",)),
        (["--depth", "-1"], ("must be a positive integer, got '-1'",)),
        (["--depth", "1", "--fen", "W:W1:B50"], ("promotion row",)),  # counted 0 moves
        (["--depth", "1", "--fen", "W:W4:B20", "--option", "variant=russian"], ("promotion row",)),
    ],
)
def test_the_perft_command_refuses_what_it_cannot_count(argv, words, capsys):
    status, out, err = _perft(argv, capsys)
    assert out == ""
    assert_one_line_error(status, err, *words)


def test_the_perft_command_stops_before_a_depth_the_memory_cannot_hold(capsys, monkeypatch):
    # A huge depth ran until the host ran out of memory; now it stops before the first depth.
    monkeypatch.setattr(memory, "free_memory", lambda: (100, "host"))  # not one frontier fits
    status, out, err = _perft(["--depth", "99999999999999999999"], capsys)
    assert "depth  1" not in out
    assert_one_line_error(status, err, "stopped before depth 1", "GiB")


def test_a_record_starting_mid_capture_is_refused():
    # Its FEN tag listed the pieces already taken, as though they were still to be taken.
    env = Draughts()
    mid = env._opening_state._replace(jumper=np.int32(31))
    with pytest.raises(ValueError, match="mid-capture"):
        pdn.DIALECT.tags(env, mid)


def test_a_numpy_string_variant_plays_its_own_states():
    """`functools.cache` told np.str_("russian") from "russian": a second State class, and the
    env refused the states it had made."""
    import jax

    env = Draughts(variant=np.str_("russian"))
    assert type(env.variant) is str and env.state_type is Draughts(variant="russian").state_type
    state = env.reset(jax.random.key(0))
    action = int(np.flatnonzero(state.legal_action_mask)[0])
    assert int(env.step(state, action).current_player) == 1


def test_the_fen_writer_takes_a_player_to_move_of_0_or_1():
    from jaxcheckers.draughts import fen

    for player in (2, -1, True):
        with pytest.raises(ValueError, match="player to move is 0 .White. or 1 .Black."):
            fen.board_to_fen(np.zeros(50, np.int8), player)
    assert fen.board_to_fen(np.zeros(50, np.int8), 1) == "B:W:B"


def test_fen_ranges_may_have_spaces_around_the_dash_as_checkers_fen_may():
    board, _ = fen_to_board("W:W31 - 50:B1 -20")
    assert (board[30:] == 1).all() and (board[:20] == -1).all() and not board[20:30].any()


def test_a_quiet_move_written_as_a_capture_is_not_legal_and_a_move_is_text():
    import jax

    from jaxcheckers.draughts import notation

    env = Draughts()
    state = env.reset(jax.random.key(0))
    assert len(notation.parse_move(env, state, "32-28")) == 1
    with pytest.raises(ValueError, match="32x28 is not legal here"):
        notation.parse_move(env, state, "32x28")
    with pytest.raises(ValueError, match="typed as text"):
        notation.parse_move(env, state, None)
