"""Every rule of rules.md on a scripted position, the board drawn in the test.

Boards are absolute (row 0 at the top): 'b'/'B' player 0's man/king (moving down), 'w'/'W'
player 1's (moving up). Moves are written with printed square numbers ("9-14", "18x27"), so the
tests read like checkers notation and do not depend on the action layout.
"""

from __future__ import annotations

import functools

import jax
import numpy as np
import pytest

import jaxcheckers
from jaxcheckers.checkers import positions
from jaxcheckers.checkers.render import legal_moves

EMPTY_ROW = "........"


@functools.cache
def env_and_step(**options):
    env = jaxcheckers.make("checkers", **options)
    return env, jax.jit(env.step)


def start(rows, player=0, jumper=None, **options):
    env, _ = env_and_step(**options)
    return positions.from_board(env, rows, player=player, jumper=jumper)


def moves(state) -> set[str]:
    return {text for _, text in legal_moves(state)}


def play(state, move: str, **options):
    """Plays the legal action written `move` (e.g. "9-14", "18x27")."""
    _, step = env_and_step(**options)
    actions = {text: action for action, text in legal_moves(state)}
    assert move in actions, f"{move} is not legal here; legal: {sorted(actions)}"
    return step(state, actions[move])


def board_of(state) -> list[str]:
    return positions.draw_board(positions.absolute_board(state))


def test_opening_position_and_moves():
    env, _ = env_and_step()
    state = env.reset(jax.random.PRNGKey(0))
    assert board_of(state) == [
        ".b.b.b.b", "b.b.b.b.", ".b.b.b.b", EMPTY_ROW,
        EMPTY_ROW, "w.w.w.w.", ".w.w.w.w", "w.w.w.w.",
    ]  # fmt: skip
    assert moves(state) == {"9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"}
    assert int(state.current_player) == 0
    assert not state.terminated and not state.truncated
    assert state.observation.shape == (8, 8, 4) and state.legal_action_mask.shape == (256,)


def test_capture_is_compulsory():
    rows = [
        EMPTY_ROW, EMPTY_ROW, ".b...b..", "..w.....",
        EMPTY_ROW, EMPTY_ROW, EMPTY_ROW, "w.......",
    ]  # fmt: skip
    # Black's man on 10 can jump 15; every simple move (the other man's) is then illegal.
    assert moves(start(rows)) == {"9x18"}


def test_any_capture_may_be_chosen_no_majority_rule():
    rows = [
        EMPTY_ROW, "b...b...", ".w...w..", EMPTY_ROW,
        "...w....", EMPTY_ROW, EMPTY_ROW, EMPTY_ROW,
    ]  # fmt: skip
    # 5x14 could go on to take 18 as well, 7x16 takes one piece: both are allowed.
    assert moves(start(rows)) == {"5x14", "7x16"}


def test_multi_jump_continues_with_the_same_piece_only():
    rows = [
        ".b......", "..w.....", EMPTY_ROW, "....w...",
        EMPTY_ROW, "..b.....", EMPTY_ROW, "w.......",
    ]  # fmt: skip
    state = start(rows)
    assert moves(state) == {"1x10"}, "the capture is compulsory; 22 may not move"
    after = play(state, "1x10")
    assert int(after.current_player) == 0, "the capturing side moves again"
    assert moves(after) == {"10x19"}, "only the jumping piece, and only its captures"
    assert board_of(after)[1] == EMPTY_ROW, "the jumped man is gone"
    done = play(after, "10x19")
    assert int(done.current_player) == 1
    assert int(done.jumper) == -1
    assert board_of(done)[3] == EMPTY_ROW and board_of(done)[4] == ".....b.."


def test_crowning_ends_the_move_even_if_a_king_could_capture_more():
    rows = [
        EMPTY_ROW, EMPTY_ROW, EMPTY_ROW, EMPTY_ROW,
        EMPTY_ROW, "..b.....", "...w.w..", EMPTY_ROW,
    ]  # fmt: skip
    crowned = play(start(rows), "22x31")
    assert board_of(crowned)[7] == "....B...", "the man is crowned on the far row"
    # As a king it could now jump 27 (to 24); but crowning ended the turn.
    assert int(crowned.current_player) == 1
    assert int(crowned.jumper) == -1


def test_crowning_continues_lets_the_new_king_capture_on():
    """ealt/Checkers' rule: the man crowned by 22x31 goes on as a king, 31x24, and wins."""
    rows = [
        EMPTY_ROW, EMPTY_ROW, EMPTY_ROW, EMPTY_ROW,
        EMPTY_ROW, "..b.....", "...w.w..", EMPTY_ROW,
    ]  # fmt: skip
    ealt = {"crowning": "continues"}
    crowned = play(start(rows, **ealt), "22x31", **ealt)
    assert board_of(crowned)[6:] == [".....w..", "....B..."]
    assert int(crowned.current_player) == 0, "the same side moves again"
    assert moves(crowned) == {"31x24"}, "only the new king's capture, backwards"
    done = play(crowned, "31x24", **ealt)
    assert board_of(done)[5:] == ["......B.", EMPTY_ROW, EMPTY_ROW]
    assert bool(done.terminated) and done.rewards.tolist() == [1.0, -1.0]


def test_crowning_continues_for_white_and_over_several_hops():
    """White's man on 10 takes 7 to be crowned on 3, then as a king 8 and 16 (backwards)."""
    rows = [
        EMPTY_ROW,
        "....b.b.",
        "...w....",
        "......b.",
        EMPTY_ROW,
        "b.......",
        EMPTY_ROW,
        EMPTY_ROW,
    ]
    ealt = {"crowning": "continues"}
    state = start(rows, player=1, **ealt)
    assert moves(state) == {"10x3"}
    state = play(state, "10x3", **ealt)
    assert int(state.current_player) == 1 and moves(state) == {"3x12"}
    state = play(state, "3x12", **ealt)
    assert int(state.current_player) == 1 and moves(state) == {"12x19"}
    state = play(state, "12x19", **ealt)
    assert int(state.current_player) == 0, "no capture left: the turn passes"
    assert board_of(state) == [EMPTY_ROW] * 4 + [".....W..", "b......."] + [EMPTY_ROW] * 2
    # Under the default rule the same first hop ends the turn on the crowning row.
    ends = play(start(rows, player=1), "10x3")
    assert int(ends.current_player) == 0 and board_of(ends)[:2] == [".....W..", "......b."]


def test_crowning_continues_changes_nothing_without_a_capture_to_follow():
    rows = [
        EMPTY_ROW, EMPTY_ROW, EMPTY_ROW, EMPTY_ROW,
        EMPTY_ROW, "..b.....", "...w....", "......w.",
    ]  # fmt: skip
    for options in ({}, {"crowning": "continues"}):
        crowned = play(start(rows, **options), "22x31", **options)
        assert int(crowned.current_player) == 1 and int(crowned.jumper) == -1, options
    simple = [EMPTY_ROW] * 6 + [".b......", "......w."]
    crowned = play(start(simple, crowning="continues"), "25-29", crowning="continues")
    assert int(crowned.current_player) == 1, "a simple move that crowns ends the turn"


def test_crowning_must_be_a_known_rule():
    with pytest.raises(ValueError, match="crowning"):
        jaxcheckers.make("checkers", crowning="king")


def test_kings_move_backwards_men_do_not():
    rows = [
        EMPTY_ROW, EMPTY_ROW, EMPTY_ROW, "....B...",
        EMPTY_ROW, EMPTY_ROW, "........", "w.......",
    ]  # fmt: skip
    assert moves(start(rows)) == {"15-10", "15-11", "15-18", "15-19"}
    rows[3] = "....b..."
    assert moves(start(rows)) == {"15-18", "15-19"}


def test_king_captures_backwards():
    rows = [
        EMPTY_ROW, EMPTY_ROW, "...w....", "....B...",
        EMPTY_ROW, EMPTY_ROW, EMPTY_ROW, "w.......",
    ]  # fmt: skip
    assert moves(start(rows)) == {"15x6"}


def test_white_moves_up_and_sees_the_board_turned_around():
    rows = [
        ".b......", EMPTY_ROW, EMPTY_ROW, EMPTY_ROW,
        EMPTY_ROW, EMPTY_ROW, EMPTY_ROW, "w.......",
    ]  # fmt: skip
    state = start(rows, player=1)
    assert moves(state) == {"29-25"}
    obs = np.asarray(state.observation)
    # In white's own frame its man stands at the top-right corner and black's at the bottom.
    assert obs[0, 7, 0] and obs[7, 6, 2]
    assert obs.sum() == 2


WHITE_BLOCKED_AFTER_17_21 = [
    EMPTY_ROW, EMPTY_ROW, EMPTY_ROW, EMPTY_ROW,
    ".b......", "..b.....", ".b......", "w.......",
]  # fmt: skip


def test_a_side_to_move_without_a_move_has_lost():
    blocked = list(WHITE_BLOCKED_AFTER_17_21)
    blocked[4], blocked[5] = EMPTY_ROW, "b.b....."
    state = start(blocked, player=1)
    assert bool(state.terminated), "a game that starts lost is over before any step"
    assert np.asarray(state.rewards).tolist() == [1.0, -1.0]  # white, to move, has lost


def test_the_move_that_leaves_the_opponent_no_move_wins():
    state = start(WHITE_BLOCKED_AFTER_17_21, player=0)
    final = play(state, "17-21")
    assert bool(final.terminated)
    assert np.asarray(final.rewards).tolist() == [1.0, -1.0]
    assert not np.asarray(final.legal_action_mask).any()


def test_capturing_the_last_piece_wins():
    rows = [
        EMPTY_ROW, EMPTY_ROW, "...b....", "..w.....",
        EMPTY_ROW, EMPTY_ROW, EMPTY_ROW, EMPTY_ROW,
    ]  # fmt: skip
    final = play(start(rows, player=1), "14x7")
    assert bool(final.terminated)
    assert np.asarray(final.rewards).tolist() == [-1.0, 1.0]


def test_pass_variant_a_blocked_side_passes():
    state = start(WHITE_BLOCKED_AFTER_17_21, player=0, no_moves="pass")
    after = play(state, "17-21", no_moves="pass")
    assert not bool(after.terminated)
    assert int(after.current_player) == 0, "white is blocked, so black moves again"
    assert np.asarray(after.rewards).tolist() == [0.0, 0.0]


def test_pass_variant_losing_all_pieces_still_loses():
    rows = [
        EMPTY_ROW, EMPTY_ROW, "...b....", "..w.....",
        EMPTY_ROW, EMPTY_ROW, EMPTY_ROW, EMPTY_ROW,
    ]  # fmt: skip
    final = play(start(rows, player=1, no_moves="pass"), "14x7", no_moves="pass")
    assert np.asarray(final.rewards).tolist() == [-1.0, 1.0]


KINGS_FAR_APART = [
    ".B......", EMPTY_ROW, EMPTY_ROW, EMPTY_ROW,
    EMPTY_ROW, EMPTY_ROW, EMPTY_ROW, "......W.",
]  # fmt: skip


def shuffle(state, plies: int, first: int = 0, **options):
    """Both kings step back and forth, far apart: black 1-5, 5-1; white 32-28, 28-32."""
    routes = (("1-5", "5-1"), ("32-28", "28-32"))
    for ply in range(first, first + plies):
        state = play(state, routes[ply % 2][(ply // 2) % 2], **options)
    return state


def test_threefold_repetition_draws_on_the_third_occurrence():
    state = start(KINGS_FAR_APART, player=0)
    # The start position recurs after 4 plies and after 8: the third occurrence draws.
    state = shuffle(state, 7)
    assert not bool(state.terminated)
    state = shuffle(state, 1, first=7)
    assert bool(state.terminated)
    assert np.asarray(state.rewards).tolist() == [0.0, 0.0]


def test_repetition_rule_can_be_switched_off():
    state = start(KINGS_FAR_APART, repetition_draw=False)
    state = shuffle(state, 12, repetition_draw=False)
    assert not bool(state.terminated)


@pytest.mark.parametrize("plies_back, drawn", [(124, True), (128, False)])
def test_without_the_forty_move_rule_repetitions_count_over_the_last_128_plies(plies_back, drawn):
    """Deep in a quiet stretch, the position after "1-5" is written into the history twice, 64
    plies back and `plies_back` plies back: playing "1-5" then is its third occurrence only if
    the older one is still inside the window (the ring of 128 positions, this one included).
    A position recurs a multiple of four plies later, so 124 plies back is the oldest it can be
    in the window."""
    options = dict(forty_move_draw=False)
    env, _ = env_and_step(**options)
    state = start(KINGS_FAR_APART, **options)
    after = play(state, "1-5", **options)
    ply = int(after.quiet_plies)
    key = after.history[env.history_index(ply)]
    key_before = after.history[env.history_index(ply - 1)]  # a record writes the slot before too

    quiet = 300  # the move makes it 301: the ring has wrapped twice
    history = np.zeros_like(state.history)
    for back in (64, plies_back):
        history[env.history_index(quiet + 1 - back)] = key
        history[env.history_index(quiet - back)] = key_before
    deep = state._replace(quiet_plies=np.int32(quiet), history=history)
    assert bool(play(deep, "1-5", **options).terminated) == drawn


@pytest.mark.parametrize("no_moves", ["lose", "pass"])
@pytest.mark.parametrize("side, drawn", [("same", True), ("other", False)])
def test_history_entries_tell_the_side_to_move(no_moves, side, drawn):
    """KINGS_FAR_APART is its own mirror image: white to move sees it as black to move does, and
    after white's 32-28 black sees what white sees after black's 1-5. Entries of those two
    positions are written twice into a deep quiet stretch; playing 1-5 then repeats the position
    a third time only if they were written with the same side to move."""
    options = dict(no_moves=no_moves)
    env, _ = env_and_step(**options)
    state = start(KINGS_FAR_APART, player=0, **options)
    if side == "same":
        source = play(state, "1-5", **options)
    else:
        source = play(start(KINGS_FAR_APART, player=1, **options), "32-28", **options)
    ply = int(source.quiet_plies)
    quiet = 20
    history = np.zeros_like(state.history)
    for back in (4, 8):
        history[env.history_index(quiet + 1 - back)] = source.history[env.history_index(ply)]
        # a record writes the slot before too
        history[env.history_index(quiet - back)] = source.history[env.history_index(ply - 1)]
    deep = state._replace(quiet_plies=np.int32(quiet), history=history)
    assert bool(play(deep, "1-5", **options).terminated) == drawn


def test_forty_move_rule_draws_after_80_quiet_plies():
    options = dict(repetition_draw=False)
    state = start(KINGS_FAR_APART, **options)
    state = shuffle(state, 79, **options)
    assert not bool(state.terminated) and int(state.quiet_plies) == 79
    state = shuffle(state, 1, first=79, **options)
    assert bool(state.terminated)
    assert np.asarray(state.rewards).tolist() == [0.0, 0.0]


def test_man_move_resets_the_forty_move_count():
    options = dict(repetition_draw=False)
    rows = list(KINGS_FAR_APART)
    rows[2] = "...b...."
    state = start(rows, **options)
    state = shuffle(state, 4, **options)
    assert int(state.quiet_plies) == 4
    state = play(state, "10-15", **options)
    assert int(state.quiet_plies) == 0


def test_forty_move_rule_can_be_switched_off():
    options = dict(repetition_draw=False, forty_move_draw=False)
    state = shuffle(start(KINGS_FAR_APART, **options), 100, **options)
    assert not bool(state.terminated)


def test_truncation_at_max_steps():
    options = dict(max_steps=3)
    env, step = env_and_step(**options)
    state = env.reset(jax.random.PRNGKey(0))
    for _ in range(3):
        assert not bool(state.truncated)
        action = int(np.flatnonzero(np.asarray(state.legal_action_mask))[0])
        state = step(state, action)
    assert bool(state.truncated) and not bool(state.terminated)
    assert not np.asarray(state.legal_action_mask).any()
    assert int(state.step_count) == 3


@pytest.mark.parametrize("action", [0, 144, 255, -1, 256, 10_000])
def test_illegal_action_ends_the_game_against_the_mover(action):
    env, step = env_and_step()
    state = step(env.reset(jax.random.PRNGKey(0)), 209)  # 9-14; white (player 1) to move
    final = step(state, action)
    assert bool(final.terminated)
    assert np.asarray(final.rewards).tolist() == [0.0, -1.0]
    assert not np.asarray(final.legal_action_mask).any()


def test_stepping_a_finished_game_changes_nothing():
    env, step = env_and_step()
    final = step(env.reset(jax.random.PRNGKey(0)), 0)  # illegal: the game is over
    again = step(final, 209)
    assert np.asarray(again.rewards).tolist() == [0.0, 0.0]
    for name in ("board", "current_player", "terminated", "step_count", "legal_action_mask"):
        assert np.array_equal(getattr(again, name), getattr(final, name)), name


def test_start_mid_jump_restricts_to_the_jumper():
    rows = [
        EMPTY_ROW, "..b.....", "...w....", EMPTY_ROW,
        EMPTY_ROW, "b.......", ".w......", EMPTY_ROW,
    ]  # fmt: skip
    assert moves(start(rows)) == {"6x15", "21x30"}
    assert moves(start(rows, jumper=(5, 0))) == {"21x30"}


@pytest.mark.parametrize(
    "rows,player,jumper,message",
    [
        (["b......."] + [EMPTY_ROW] * 7, 0, None, "light square"),
        ([EMPTY_ROW] * 7 + [".b......"], 0, None, "light square"),
        ([EMPTY_ROW] * 7 + ["b......."], 0, None, "crowned"),
        (["w......."[::-1]] + [EMPTY_ROW] * 7, 0, None, "crowned"),
        ([".b.b.b.b", "b.b.b.b.", ".b.b.b.b", "b......."] + [EMPTY_ROW] * 4, 0, None, "13 pieces"),
        ([".b......"] + [EMPTY_ROW] * 7, 2, None, "player must be 0 or 1"),
        ([".b......"] + [EMPTY_ROW] * 7, 0, (0, 1), "no capture"),
        ([".b......"] + [EMPTY_ROW] * 7, 0, (3, 3), "not a piece of player 0"),
        (["...", ".b.", "..."], 0, None, "board size must be even"),
        ([".b......", "..."] + [EMPTY_ROW] * 6, 0, None, "row 1 has 3 squares"),
        ([".x......"] + [EMPTY_ROW] * 7, 0, None, "use one of"),
    ],
)
def test_impossible_positions_are_refused(rows, player, jumper, message):
    env, _ = env_and_step()
    with pytest.raises(ValueError, match=message):
        positions.from_board(env, rows, player=player, jumper=jumper)


@pytest.mark.parametrize(
    "options,message",
    [
        (dict(board_size=7), "even"),
        (dict(board_size=18), "between 4 and 16"),
        (dict(board_size="8"), "must be an int"),
        (dict(no_moves="draw"), "no_moves must be one of"),
        (dict(forty_move_draw="yes"), "True or False"),
        (dict(max_steps=0), "positive int or None"),
    ],
)
def test_bad_options_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        jaxcheckers.make("checkers", **options)


def test_unknown_game_is_refused():
    with pytest.raises(ValueError, match="unknown game"):
        jaxcheckers.make("go")
