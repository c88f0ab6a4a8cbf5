"""The single-game object: moves, immutability, agreement with the JAX core, bad input."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import jaxcheckers
from jaxcheckers.agents import random_agent
from jaxcheckers.checkers.game import Game, Move, play_game
from jaxcheckers.core import compiled_step
from jaxcheckers.games import opening

# A black man on square 14 (row 3, col 2) with white men on 18 and 26 in front: a double jump.
DOUBLE_JUMP = [
    ". . . . . . . .",
    ". . . . . . . .",
    ". . . . . . . .",
    ". . b . . . . .",
    ". . . w . . . .",
    ". . . . . . . .",
    ". . . w . . . .",
    ". . . . . . w .",
]


def test_opening_moves_are_the_seven_standard_ones():
    game = Game.new()
    notations = {move.notation for move in game.legal_moves()}
    assert notations == {"9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"}
    assert all(move.captured is None for move in game.legal_moves())
    assert game.current_player == 0 and not game.is_over and game.result is None


def test_play_returns_a_new_game_and_accepts_every_move_form():
    game = Game.new()
    by_notation = game.play("11-15")
    move = next(m for m in game.legal_moves() if m.notation == "11-15")
    by_move = game.play(move)
    by_action = game.play(move.action)
    assert game.moves == () and game.current_player == 0  # unchanged
    for after in (by_notation, by_move, by_action):
        assert after.moves == (move,)
        assert after.current_player == 1
        np.testing.assert_array_equal(after.board, by_notation.board)
    assert by_notation.board[2, 5] == 0 and by_notation.board[3, 4] == 1  # 11 is empty, 15 black


def test_a_double_jump_is_two_plays_by_the_same_side():
    game = Game.from_board(DOUBLE_JUMP, player=0)
    (first,) = game.legal_moves()
    assert (first.start, first.end, first.captured, first.notation) == (14, 23, 18, "14x23")
    middle = game.play(first)
    assert middle.current_player == 0 and middle.jumper == 23
    (second,) = middle.legal_moves()
    assert (second.start, second.end, second.captured) == (23, 30, 26)
    finished = middle.play(second)
    assert finished.current_player == 1 and finished.jumper is None
    whole = game.play("14x23x30")
    np.testing.assert_array_equal(whole.board, finished.board)
    assert [m.notation for m in whole.moves] == ["14x23", "23x30"]


def test_the_board_size_comes_from_the_board():
    with pytest.raises(ValueError, match="taken from it"):
        Game.from_board(DOUBLE_JUMP, board_size=6)
    with pytest.raises(ValueError, match="light square"):
        Game.from_board(["b...", "....", "....", "...."])


def test_a_piece_mid_jump_can_be_given_as_a_square_number():
    by_number = Game.from_board(DOUBLE_JUMP, player=0, jumper=14)
    by_position = Game.from_board(DOUBLE_JUMP, player=0, jumper=(3, 2))
    assert by_number.jumper == by_position.jumper == 14


@pytest.mark.parametrize(
    "bad_move, message",
    [
        ("11-14", "not a legal move"),
        ("11:15", "not checkers notation"),
        ("", "not checkers notation"),
        (256, "out of range"),
        (-1, "out of range"),
        (0, "not legal"),
        (True, "a move is"),
        (1.5, "a move is"),
        (Move(14, 23, 18, 0, "14x23"), "not a legal move"),
    ],
)
def test_bad_moves_raise_value_error(bad_move, message):
    with pytest.raises(ValueError, match=message):
        Game.new().play(bad_move)


def test_a_capture_cannot_go_on_after_the_turn_passed():
    with pytest.raises(ValueError, match="cannot go on|not a legal move"):
        Game.from_board(DOUBLE_JUMP, player=0).play("14x23x30x21")


def test_a_position_with_the_mover_stuck_is_over_and_lost():
    # White's king in the corner, hemmed in by black men it cannot jump.
    drawing = [".W....", "b.b...", "...b..", "......", "......", "......"]
    stuck = Game.from_board(drawing, player=1)
    assert stuck.is_over and stuck.legal_moves() == []
    assert stuck.result == (1.0, -1.0) and stuck.winner == 0
    with pytest.raises(ValueError, match="over"):
        stuck.play(0)


def test_state_round_trip_and_printing():
    game = Game.new(board_size=6).play("5-8")
    again = Game.from_state(game.state, game.env)
    np.testing.assert_array_equal(again.board, game.board)
    assert again.current_player == game.current_player
    text = str(game)
    assert "white (player 1) to move" in text and len(text.splitlines()) == 8
    assert game.copy().moves == game.moves


def test_play_game_agrees_step_for_step_with_the_jax_core():
    env = jaxcheckers.make("checkers", board_size=6)
    step = compiled_step(env)
    act = jax.jit(random_agent)
    for seed in range(2):
        finished = play_game(
            ["random", random_agent], Game.new(board_size=6), key=jax.random.key(seed)
        )
        # The core, driven the way play_game documents it: one key split per hop.
        state, key = opening(env), jax.random.key(seed)
        for move in finished.moves:
            key, subkey = jax.random.split(key)
            action = int(act(state, subkey))
            assert action == move.action
            state = step(state, action)
        assert bool(state.terminated | state.truncated)
        np.testing.assert_array_equal(np.asarray(state.board), np.asarray(finished.state.board))
        assert finished.result == tuple(float(r) for r in np.asarray(state.rewards))


def test_play_game_rejects_a_wrong_number_of_agents_and_bad_specs():
    with pytest.raises(ValueError, match="two agents"):
        play_game(["random"])
    with pytest.raises(ValueError, match="start must be"):
        play_game(["random", "random"], start=np.zeros((6, 6)))
    with pytest.raises(ValueError, match="unknown agent"):
        play_game(["random", "no-such-agent"], Game.new(board_size=6))


def test_fen_round_trip_when_the_fen_module_exists():
    pytest.importorskip("jaxcheckers.checkers.fen")
    game = Game.new().play("11-15")
    again = Game.from_fen(game.fen())
    np.testing.assert_array_equal(again.board, game.board)
    assert again.current_player == game.current_player
    six = Game.from_fen("W:W10,K12:B1", board_size=6)
    assert six.current_player == 1 and six.board[3, 4] == -2 and six.board[0, 1] == 1
    for malformed in ("this is not FEN", "B:W40:B1", "X:W10:B1"):
        with pytest.raises(ValueError):
            Game.from_fen(malformed)
    finished = play_game(["random", "random"], start="W:W10,K12:B1,2", key=jax.random.key(1))
    assert finished.is_over and finished.moves[0].start in (10, 12)


# -- the ealt rule set (issue 19: ealt/Checkers' games, move for move) ---------------------------

CROWNED_CAPTURING_ON = [
    ". . . . . . . .",
    ". . . . . . . .",
    ". . . . . . . .",
    ". . . . . . . .",
    ". . . . . . . .",
    ". . b . . . . .",
    ". . . w . w . .",
    ". . . . . . . .",
]


def test_the_ealt_rule_set_lets_a_crowned_man_capture_on():
    ealt = Game.from_board(CROWNED_CAPTURING_ON, player=0, rule_set="ealt")
    assert ealt.env.crowning == "continues" and ealt.env.no_moves == "pass"
    assert not ealt.env.forty_move_draw and not ealt.env.repetition_draw
    done = ealt.play("22x31x24")
    assert done.is_over and done.winner == 0
    american = Game.from_board(CROWNED_CAPTURING_ON, player=0)
    with pytest.raises(ValueError, match="cannot go on"):
        american.play("22x31x24")
    assert american.play("22x31").current_player == 1


def test_rule_set_options_and_bad_names():
    assert Game.new(rule_set="ealt", max_steps=None).env.max_steps is None
    assert Game.new(rule_set="ealt", crowning="ends").env.crowning == "ends"
    assert repr(Game.new(rule_set="american").env) == repr(Game.new().env)
    with pytest.raises(ValueError, match="rule_set"):
        Game.new(rule_set="ealt/Checkers")


def test_ealt_games_move_for_move_against_the_reference():
    """Random games through Game(rule_set="ealt") and the plain-Python reference under ealt's
    rules: the same legal hops, board, side to move and result after every hop."""
    import random

    from jaxcheckers.checkers import positions
    from tests.checkers.reference import ReferenceCheckers

    rng = random.Random(7)
    crowned_mid_capture = 0
    for _ in range(8):  # 4 men crowned mid-capture among them at this seed
        game = Game.new(rule_set="ealt")
        ref = ReferenceCheckers(
            8, no_moves="pass", crowning="continues", forty_move_draw=False,
            repetition_draw=False, max_steps=game.env.max_steps,
        )  # fmt: skip
        while True:
            legal = {move.action for move in game.legal_moves()}
            assert legal == ref.legal_actions()
            assert (game.board == np.array(ref.board)).all()
            assert game.is_over == (ref.terminated or ref.truncated)
            if game.is_over:
                assert list(game.result) == ref.rewards or bool(game.state.truncated)
                break
            assert game.current_player == ref.player
            action = rng.choice(sorted(legal))
            kings = int((np.abs(game.board) == 2).sum())
            game = game.play(action)
            ref.step(action)
            if game.jumper is not None and int((np.abs(game.board) == 2).sum()) > kings:
                crowned_mid_capture += 1
        assert positions.absolute_board(game.state).shape == (8, 8)
    assert crowned_mid_capture > 0, "the sample never crowned a man that captured on"


def test_the_game_object_lives_in_the_game_s_folder_and_its_old_path_still_serves_it():
    from jaxcheckers import adapters, checkers, games
    from jaxcheckers.adapters import game as old_home
    from jaxcheckers.checkers import game as new_home

    assert games.spec("checkers").adapters.game_object is new_home.Game
    with pytest.warns(DeprecationWarning, match="jaxcheckers.checkers.game.Game"):
        assert old_home.Game is new_home.Game
    with pytest.warns(DeprecationWarning, match="jaxcheckers.checkers.game.Move"):
        assert old_home.Move is new_home.Move
    with pytest.warns(DeprecationWarning, match="jaxcheckers.checkers.game.play_game"):
        assert old_home.play_game is new_home.play_game
    assert old_home.checked_action is adapters.common.checked_action
    game = games.spec("checkers").position_object(opening(checkers.Checkers()), checkers.Checkers())
    assert isinstance(game, new_home.Game) and len(game.legal_moves()) == 7
