"""Tests of the plain-Python reference implementation (reference.py beside it).

Boards are drawn in absolute coordinates, row 0 first: '.' empty, 'b' player-0
man, 'B' player-0 king, 'w' player-1 man, 'W' player-1 king. Player 0 ('b')
moves down the page, player 1 ('w') up.
"""

import pytest

from tests.checkers.reference import (
    NE,
    NW,
    SE,
    SW,
    ReferenceCheckers,
    action_from_squares,
    board_from_strings,
    board_to_strings,
    encode_action,
    opening_board,
    perft,
)


def make(rows, **kwargs):
    board = board_from_strings(rows)
    return ReferenceCheckers(len(board), board=board, **kwargs)


def act(game, src, dst):
    """Action of the side to move for the absolute move src -> dst."""
    return action_from_squares(game.n, game.player, src, dst)


def play(game, src, dst):
    action = act(game, src, dst)
    assert action in game.legal_actions(), (src, dst, game)
    game.step(action)


# --------------------------------------------------------------------------
# Perft anchors (8x8 opening)
# --------------------------------------------------------------------------

HOP_PERFT = [7, 49, 302, 1469, 7361]     # then 36768, 179255 (checked by hand)
MOVE_PERFT = [7, 49, 302, 1469, 7361]    # then 36768, 179740 (checked by hand)


@pytest.mark.parametrize("depth", range(1, 6))
def test_perft_hop_level(depth):
    assert perft(ReferenceCheckers(), depth) == HOP_PERFT[depth - 1]


@pytest.mark.parametrize("depth", range(1, 6))
def test_perft_move_level(depth):
    assert perft(ReferenceCheckers(), depth, move_level=True) == MOVE_PERFT[depth - 1]


# --------------------------------------------------------------------------
# Layout: opening, board strings, action encoding in the mover's frame
# --------------------------------------------------------------------------

def test_opening_and_board_strings():
    rows = [
        ".b.b.b.b",
        "b.b.b.b.",
        ".b.b.b.b",
        "........",
        "........",
        "w.w.w.w.",
        ".w.w.w.w",
        "w.w.w.w.",
    ]
    assert opening_board(8) == board_from_strings(rows)
    assert board_to_strings(opening_board(8)) == rows
    assert board_from_strings([". b", "w ."]) == [[0, 1], [-1, 0]]
    # 6x6: 2 rows of 3 men per side.
    assert sum(v > 0 for row in opening_board(6) for v in row) == 6
    assert sum(v < 0 for row in opening_board(6) for v in row) == 6


def test_opening_actions_in_mover_frame():
    n = 8
    expected = {
        encode_action(n, 2, 1, SW), encode_action(n, 2, 1, SE),
        encode_action(n, 2, 3, SW), encode_action(n, 2, 3, SE),
        encode_action(n, 2, 5, SW), encode_action(n, 2, 5, SE),
        encode_action(n, 2, 7, SW),
    }
    assert expected == {2 * 64 + 17, 3 * 64 + 17, 2 * 64 + 19, 3 * 64 + 19,
                        2 * 64 + 21, 3 * 64 + 21, 2 * 64 + 23}
    assert ReferenceCheckers().legal_actions() == expected
    # The opening is symmetric under the 180-degree rotation, so player 1 to
    # move sees exactly the same actions in its own frame.
    assert ReferenceCheckers(player=1).legal_actions() == expected


def test_player1_action_is_rotated():
    game = ReferenceCheckers()
    play(game, (2, 1), (3, 0))
    assert game.player == 1
    # Absolute (5, 2) -> (4, 3) for player 1 is frame (2, 5) moving SW.
    action = encode_action(8, 2, 5, SW)
    assert action == act(game, (5, 2), (4, 3))
    game.step(action)
    assert game.board[4][3] == -1 and game.board[5][2] == 0
    assert game.player == 0


def test_invalid_boards_raise():
    good = opening_board(8)
    with pytest.raises(ValueError):
        ReferenceCheckers(7)
    with pytest.raises(ValueError):
        ReferenceCheckers(18)
    with pytest.raises(ValueError):
        ReferenceCheckers(8, board=opening_board(6))
    with pytest.raises(ValueError):
        bad = [list(r) for r in good]
        bad[3][1] = 3
        ReferenceCheckers(8, board=bad)
    with pytest.raises(ValueError):  # piece on a light square
        bad = [list(r) for r in good]
        bad[3][3] = 1
        ReferenceCheckers(8, board=bad)
    with pytest.raises(ValueError):  # player-0 man on its crowning row
        make(["..w....."] + ["........"] * 6 + [".b......"])
    with pytest.raises(ValueError):  # player-1 man on its crowning row
        make([".w......"] + ["........"] * 7)
    with pytest.raises(ValueError):  # too many pieces
        bad = [list(r) for r in good]
        bad[3][0] = 1
        ReferenceCheckers(8, board=bad)
    with pytest.raises(ValueError):
        ReferenceCheckers(player=2)
    with pytest.raises(ValueError):
        ReferenceCheckers(no_moves="draw")
    with pytest.raises(ValueError):  # jumper is not a piece of the side to move
        ReferenceCheckers(jumper=(5, 0))
    with pytest.raises(ValueError):  # jumper with no jump available
        ReferenceCheckers(jumper=(2, 1))


def test_start_with_jumper():
    rows = [
        "........",
        "........",
        "........",
        "....b...",
        ".....w..",
        "........",
        ".b......",
        "w.w.....",
    ]
    game = make(rows, jumper=(3, 4))
    assert game.legal_actions() == {act(game, (3, 4), (5, 6))}


# --------------------------------------------------------------------------
# Move rules
# --------------------------------------------------------------------------

def test_forced_capture():
    rows = [
        ".b......",
        "........",
        "...b....",
        "....w...",
        "........",
        "........",
        "........",
        "w.......",
    ]
    game = make(rows)
    # Only the jump (2,3)x(3,4)->(4,5); the simple moves are not legal.
    assert game.legal_actions() == {act(game, (2, 3), (4, 5))}
    play(game, (2, 3), (4, 5))
    assert game.board[3][4] == 0 and game.board[4][5] == 1
    assert game.player == 1 and game.jumper is None
    # Player 1 captures too, in its own frame.
    rows = [
        "........",
        "b.......",
        "........",
        "........",
        "...b....",
        "..w.....",
        "........",
        "........",
    ]
    game = make(rows, player=1)
    assert game.legal_actions() == {encode_action(8, 2, 5, SW)}
    assert game.legal_actions() == {act(game, (5, 2), (3, 4))}


def test_men_move_forward_only():
    rows = [
        "........",
        "........",
        "........",
        "........",
        "...b....",
        "........",
        "........",
        "w.......",
    ]
    game = make(rows)
    assert game.legal_actions() == {act(game, (4, 3), (5, 2)), act(game, (4, 3), (5, 4))}
    # A man does not capture backwards either.
    rows[3] = "..w....."
    game = make(rows)
    assert game.legal_actions() == {act(game, (4, 3), (5, 2)), act(game, (4, 3), (5, 4))}


def test_multi_jump_restricted_to_jumper():
    rows = [
        "........",
        "..b.....",
        "...w....",
        "........",
        ".....w..",
        "b.......",
        ".w......",
        "........",
    ]
    game = make(rows)
    first = act(game, (1, 2), (3, 4))
    other = act(game, (5, 0), (7, 2))
    assert game.legal_actions() == {first, other}
    game.step(first)
    # Same player again, only the jumping piece's jump is legal.
    assert game.player == 0 and game.jumper == (3, 4)
    assert game.legal_actions() == {act(game, (3, 4), (5, 6))}
    assert game.rewards == [0.0, 0.0] and not game.terminated
    play(game, (3, 4), (5, 6))
    assert game.jumper is None and game.player == 1
    assert game.step_count == 2
    assert game.board[2][3] == 0 and game.board[4][5] == 0 and game.board[5][6] == 1


def test_crowning_ends_the_move():
    rows = [
        "........",
        "........",
        "........",
        "........",
        "........",
        "..b.....",
        "...w.w..",
        "........",
    ]
    game = make(rows)
    play(game, (5, 2), (7, 4))
    # Crowned: a king on (7, 4) could jump (6, 5) at once, but the move ends.
    assert game.board[7][4] == 2
    assert game.jumper is None and game.player == 1
    assert game.quiet_plies == 0
    # A piece that already was a king goes on jumping.
    rows[5] = "..B....."
    game = make(rows)
    play(game, (5, 2), (7, 4))
    assert game.player == 0 and game.jumper == (7, 4)
    assert game.legal_actions() == {act(game, (7, 4), (5, 6))}


def test_player1_crowns_on_row_0():
    rows = [
        "........",
        "..w.....",
        "........",
        "........",
        "........",
        "........",
        "........",
        "B.......",
    ]
    game = make(rows, player=1)
    play(game, (1, 2), (0, 1))
    assert game.board[0][1] == -2


def test_king_moves_backwards():
    rows = [
        "........",
        "........",
        "........",
        "........",
        "...B....",
        "........",
        "........",
        "w.......",
    ]
    game = make(rows)
    assert game.legal_actions() == {
        act(game, (4, 3), (3, 2)), act(game, (4, 3), (3, 4)),
        act(game, (4, 3), (5, 2)), act(game, (4, 3), (5, 4))}
    assert act(game, (4, 3), (3, 2)) == encode_action(8, 4, 3, NW)
    assert act(game, (4, 3), (3, 4)) == encode_action(8, 4, 3, NE)
    play(game, (4, 3), (3, 2))
    assert game.board[3][2] == 2
    # A king captures backwards, and the capture is compulsory.
    rows[3] = "..w....."
    game = make(rows)
    assert game.legal_actions() == {act(game, (4, 3), (2, 1))}
    # Player 1's king also moves "backwards" (down the page).
    rows = [
        "........",
        "........",
        "........",
        "....W...",
        "........",
        "........",
        "........",
        "B.......",
    ]
    game = make(rows, player=1)
    assert len(game.legal_actions()) == 4
    play(game, (3, 4), (4, 5))
    assert game.board[4][5] == -2


# --------------------------------------------------------------------------
# End of game
# --------------------------------------------------------------------------

def test_capturing_the_last_piece_wins():
    rows = [
        "........",
        "........",
        "...b....",
        "....w...",
        "........",
        "........",
        "........",
        "........",
    ]
    game = make(rows)
    play(game, (2, 3), (4, 5))
    assert game.terminated and not game.truncated
    assert game.rewards == [1.0, -1.0]
    assert game.legal_actions() == set()
    # Same for player 1 winning.
    game = make(rows, player=1)
    play(game, (3, 4), (1, 2))
    assert game.terminated and game.rewards == [-1.0, 1.0]


BLOCKED_P1 = [
    ".b......",
    "........",
    "........",
    "........",
    "........",
    "..b.....",
    ".b......",
    "w.......",
]


def test_no_moves_loses():
    # Player 1's only man on (7, 0) is blocked by (6, 1) and can't jump it
    # because (5, 2) is occupied.
    game = make(BLOCKED_P1)
    play(game, (0, 1), (1, 2))
    assert game.terminated and game.rewards == [1.0, -1.0]
    assert game.legal_actions() == set()


def test_no_moves_at_construction():
    game = make(BLOCKED_P1, player=1)
    assert game.terminated and game.rewards == [0.0, 0.0]
    assert game.legal_actions() == set()
    game = make(BLOCKED_P1, player=1, no_moves="pass")
    assert not game.terminated and game.player == 0
    assert game.legal_actions()


def test_pass_variant():
    game = make(BLOCKED_P1, no_moves="pass")
    play(game, (0, 1), (1, 2))
    # Player 1 cannot move: the turn passes straight back to player 0.
    assert not game.terminated and game.rewards == [0.0, 0.0]
    assert game.player == 0 and game.jumper is None
    assert game.legal_actions()
    assert game.step_count == 1


DEADLOCK_6 = [
    "......",
    "......",
    ".b....",   # (2,1) will move to (3,0)
    "..b.b.",
    ".b.b.b",
    "w.w.w.",
]


def test_pass_variant_neither_can_move_is_a_draw():
    game = make(DEADLOCK_6, no_moves="pass")
    assert game.legal_actions() == {act(game, (2, 1), (3, 0))}
    play(game, (2, 1), (3, 0))
    assert game.terminated and game.rewards == [0.0, 0.0]
    # Under the default rule player 1 just loses.
    game = make(DEADLOCK_6)
    play(game, (2, 1), (3, 0))
    assert game.terminated and game.rewards == [1.0, -1.0]


# Two lone kings far apart that can shuffle without meeting.
KINGS = [
    ".B......",
    "........",
    "........",
    "........",
    "........",
    "........",
    ".......W",
    "........",
]
SHUFFLE = [((0, 1), (1, 2)), ((6, 7), (5, 6)), ((1, 2), (0, 1)), ((5, 6), (6, 7))]


def test_forty_move_draw():
    game = make(KINGS, repetition_draw=False)
    for ply in range(80):
        assert not game.terminated, ply
        assert game.quiet_plies == ply
        play(game, *SHUFFLE[ply % 4])
        assert game.rewards == [0.0, 0.0] or ply == 79
    assert game.terminated and not game.truncated
    assert game.rewards == [0.0, 0.0]
    assert game.quiet_plies == 80
    # Switched off, the game just goes on.
    game = make(KINGS, repetition_draw=False, forty_move_draw=False)
    for ply in range(100):
        play(game, *SHUFFLE[ply % 4])
    assert not game.game_over


def test_man_move_and_capture_reset_quiet_plies():
    rows = [
        ".B......",
        "........",
        "........",
        "........",
        "........",
        "........",
        ".b.....W",
        "........",
    ]
    game = make(rows)
    play(game, (0, 1), (1, 2))   # king move: quiet
    play(game, (6, 7), (5, 6))   # king move: quiet
    assert game.quiet_plies == 2 and len(game.history) == 3
    play(game, (6, 1), (7, 0))   # man move (crowning): irreversible
    assert game.quiet_plies == 0 and len(game.history) == 1
    play(game, (5, 6), (6, 7))
    assert game.quiet_plies == 1


def test_threefold_repetition():
    game = make(KINGS)
    for ply in range(7):
        play(game, *SHUFFLE[ply % 4])
        assert not game.terminated, ply
    # The start position, player 0 to move, comes back after plies 4 and 8:
    # the third occurrence draws.
    play(game, *SHUFFLE[7 % 4])
    assert game.terminated and game.rewards == [0.0, 0.0]
    assert game.legal_actions() == set()
    # Switched off, no draw.
    game = make(KINGS, repetition_draw=False)
    for ply in range(12):
        play(game, *SHUFFLE[ply % 4])
    assert not game.terminated


def test_repetition_in_pass_variant():
    # Player 1 is blocked for good, so player 0 moves every ply; its king
    # going back and forth repeats the position with player 0 to move.
    rows = [".B......"] + BLOCKED_P1[1:]
    game = make(rows, no_moves="pass")
    for ply in range(3):
        play(game, *[((0, 1), (1, 2)), ((1, 2), (0, 1))][ply % 2])
        assert not game.terminated and game.player == 0, ply
    play(game, (1, 2), (0, 1))   # start position, third time
    assert game.terminated and game.rewards == [0.0, 0.0]


# --------------------------------------------------------------------------
# Illegal actions, finished games, truncation
# --------------------------------------------------------------------------

def test_illegal_action():
    game = ReferenceCheckers()
    game.step(0)  # (0, 0) NW: no piece there
    assert game.terminated and game.rewards == [-1.0, 0.0]
    assert game.step_count == 1
    assert game.board == opening_board(8)
    # Player 1 playing illegally, and out-of-range actions.
    for bad in (0, -1, 4 * 64, 10 ** 6):
        game = ReferenceCheckers()
        play(game, (2, 1), (3, 0))
        game.step(bad)
        assert game.terminated and game.rewards == [0.0, -1.0], bad
    # A simple move while a capture is compulsory is illegal.
    rows = [
        ".b......",
        "........",
        "...b....",
        "....w...",
        "........",
        "........",
        "........",
        "w.......",
    ]
    game = make(rows)
    game.step(act(game, (0, 1), (1, 2)))
    assert game.terminated and game.rewards == [-1.0, 0.0]


def test_stepping_a_finished_game():
    game = ReferenceCheckers()
    game.step(0)
    board = [list(r) for r in game.board]
    for action in (0, encode_action(8, 2, 1, SW)):
        game.step(action)
        assert game.rewards == [0.0, 0.0]
        assert game.terminated and game.step_count == 1
        assert game.board == board and game.player == 0


def test_truncation():
    game = ReferenceCheckers(max_steps=3)
    play(game, (2, 1), (3, 0))
    play(game, (5, 2), (4, 3))
    assert not game.truncated
    play(game, (2, 3), (3, 2))
    assert game.truncated and not game.terminated
    assert game.rewards == [0.0, 0.0]
    assert game.legal_actions() == set()
    board = [list(r) for r in game.board]
    game.step(encode_action(8, 5, 2, SW))
    assert game.step_count == 3 and game.board == board and game.rewards == [0.0, 0.0]
    # A game-ending step on the last allowed step is terminated, not truncated.
    rows = [
        "........",
        "........",
        "...b....",
        "....w...",
        "........",
        "........",
        "........",
        "........",
    ]
    game = make(rows, max_steps=1)
    play(game, (2, 3), (4, 5))
    assert game.terminated and not game.truncated and game.rewards == [1.0, -1.0]
    # max_steps=None never truncates.
    game = make(KINGS, max_steps=None, repetition_draw=False, forty_move_draw=False)
    for ply in range(1200):
        play(game, *SHUFFLE[ply % 4])
    assert not game.game_over


def test_copy_is_independent():
    game = ReferenceCheckers()
    twin = game.copy()
    play(twin, (2, 1), (3, 0))
    assert game.board == opening_board(8) and game.player == 0
    assert len(game.history) == 1 and game.step_count == 0
