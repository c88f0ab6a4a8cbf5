"""The draughts env: the draw rules, a capture over several steps, FEN and move text."""

from __future__ import annotations

import jax
import numpy as np
import pytest

from jaxcheckers import games
from jaxcheckers.core import compiled_step
from jaxcheckers.draughts import notation, rules
from jaxcheckers.draughts.env import Draughts
from jaxcheckers.draughts.fen import fen_to_board
from tests.cli_helpers import run_cli
from tests.draughts import helpers

SPEC = games.spec("draughts")
# Two kings each side of the board, far from each other: White's shuttles 46-41-46, Black's
# 1-6-1 (no capture is ever possible: neither lies on a diagonal through the other).
SHUTTLE = ["46-41", "1-6", "41-46", "6-1"]


def _shuttle(env, text: str, limit: int = 60) -> tuple[int, object]:
    """Plays the shuttle from the FEN until the game ends: (whole moves played, last state)."""
    state = SPEC.notation.from_fen(text, **_options(env))
    step = compiled_step(env)
    for ply in range(limit):
        if bool(state.terminated):
            return ply, state
        (action,) = notation.parse_move(env, state, SHUTTLE[ply % 4])
        state = step(state, action)
    return limit, state


def _options(env) -> dict:
    return {
        "repetition_draw": env.repetition_draw,
        "king_moves_draw": env.king_moves_draw,
        "endgame_draw": env.endgame_draw,
    }


OFF = {"repetition_draw": False, "king_moves_draw": False, "endgame_draw": False}


@pytest.mark.parametrize(
    ("fen", "rule", "plies"),
    [
        # The third occurrence of the start position comes after two rounds of four moves.
        ("W:WK46:BK1", "repetition_draw", 8),
        # 25 moves of each side with only kings moved (the men on 35 and 16 make it no ending).
        # Each rule compiles its own step (seconds): the repetition rule is the fast sample.
        pytest.param("W:WK46,35:BK1,16", "king_moves_draw", 50, marks=pytest.mark.slow),
        # King against king: 5 moves each.
        pytest.param("W:WK46:BK1", "endgame_draw", 10, marks=pytest.mark.slow),
        # Three kings against one: 16 moves each.
        pytest.param("W:WK46,K47,K48:BK1", "endgame_draw", 32, marks=pytest.mark.slow),
    ],
)
def test_each_draw_rule_ends_the_game_when_it_says(fen, rule, plies):
    env = Draughts(**{**OFF, rule: True})
    played, state = _shuttle(env, fen)
    assert played == plies
    assert bool(state.terminated) and not bool(state.truncated)
    assert np.asarray(state.rewards).tolist() == [0.0, 0.0]
    assert not np.asarray(state.legal_action_mask).any()  # the kings could move: the game is over
    # Without the rule the same shuttle goes on.
    played, state = _shuttle(Draughts(**OFF), fen, limit=plies + 4)
    assert played == plies + 4 and not bool(state.terminated)


def _undoing_game(env, fen: str, rng, moves: int):
    """A game from `fen` whose hops undo the same side's last hop when they can (six times in
    ten), else are random: kings shuttle, so positions repeat. Yields (state, FEN) at each move's
    end until the game ends or `moves` moves are played."""
    lay = rules.layout(env.variant)
    state = SPEC.notation.from_fen(fen, **_options(env))
    step = compiled_step(env)
    last = [None, None]  # each side's last hop (in its own frame, which stays its own)
    yield state, SPEC.notation.to_fen(state)
    for _ in range(moves):
        if bool(state.terminated):
            return
        while True:
            legal = np.flatnonzero(np.asarray(state.legal_action_mask))
            player = int(state.current_player)
            action = int(rng.choice(legal))
            if last[player] is not None and rng.random() < 0.6:
                direction, distance, square = rules.hop_of(last[player], lay)
                landing = int(lay.ray[square, direction, distance - 1])
                undo = rules.action_of(rules.OPPOSITE[direction], distance, landing, lay)
                action = undo if undo in legal else action
            last[player] = action
            state = step(state, action)
            if not notation.mid_move(state):
                break
        yield state, SPEC.notation.to_fen(state)


def _men_and_kings(fen: str) -> tuple[np.ndarray, int]:
    """The men of a FEN's board (kings left out) and how many kings it has."""
    board, _ = fen_to_board(fen)
    return np.where(np.abs(board) == 1, board, 0), int((np.abs(board) == 2).sum())


@pytest.mark.parametrize("seed", [0, pytest.param(1, marks=pytest.mark.slow)])
def test_the_repetition_and_25_move_rules_end_games_where_a_plain_reference_says(seed):
    """Against the rules written over FENs: the third occurrence of a position (the same side to
    move) since the last capture or man move draws, and so do 50 plies without either."""
    env = Draughts(endgame_draw=False)
    rng = np.random.default_rng(seed)
    fens = ["W:WK46,K50,33:BK5,K1,18", "B:WK45,K36,28:BK4,K10,23,24", "W:WK31,K42:BK9,K20"]
    repeats = 0
    for fen in fens * 8:
        seen: list[str] = []
        men, kings = None, 0
        for state, text in _undoing_game(env, fen, rng, moves=160):
            now_men, now_kings = _men_and_kings(text)
            irreversible = men is not None and ((now_men != men).any() or now_kings < kings)
            seen = [text] if men is None or irreversible else [*seen, text]
            men, kings = now_men, now_kings
            third = seen.count(text) >= 3
            quiet = len(seen) - 1 >= 50
            lost = np.asarray(state.rewards).any()  # no move left: the only other way to end
            assert bool(state.terminated) == (third or quiet or lost), (fen, text)
            if third or quiet:
                assert not lost
                repeats += third and not quiet
    assert repeats >= 5  # the games did repeat (else the test tests little)


def test_a_state_of_other_draw_rules_or_an_older_history_is_refused_in_one_line():
    env = Draughts()
    state = env.init(jax.random.key(0))
    other = Draughts(repetition_draw=False).init(jax.random.key(0))
    older = state._replace(history=np.zeros((env.history_length, 4), np.uint32))  # (H, 4) before
    for bad in (other, older):
        with pytest.raises(ValueError, match="other draw rules .* or by an older") as error:
            env.step(bad, 0)
        assert "\n" not in str(error.value)


def test_a_capture_takes_a_step_a_piece_and_removes_them_at_the_end():
    env = Draughts()
    # White's man on 32 must take 27 and 17 (the longest capture), ending on 12... as two hops.
    state = SPEC.notation.from_fen("W:W32:B27,17,3", **{})
    assert notation.legal_moves_text(env, state) == "legal moves: 32x12"
    first, second = notation.parse_move(env, state, "32x12")
    step = compiled_step(env)
    mid = step(state, first)
    assert int(mid.current_player) == 0 and notation.mid_move(mid)
    planes = np.asarray(mid.observation)
    assert planes.shape == (10, 10, 5) and planes[..., 4].sum() == 1  # 27 taken, still there
    assert planes[..., 2].sum() == 3
    done = step(mid, second)
    assert int(done.current_player) == 1 and not notation.mid_move(done)
    assert SPEC.notation.to_fen(done) == "B:W12:B3"


def test_a_position_with_too_many_routes_to_list_takes_its_captures_hop_by_hop(monkeypatch):
    env = Draughts()
    state = SPEC.notation.from_fen("W:W32:B27,17,3", **{})
    monkeypatch.setattr(notation, "ROUTE_STEP_LIMIT", 0)  # so that every capture is too long
    assert notation.legal_moves_text(env, state) == (
        "more than 0 capture hops to list in this position: type a capture hop by hop; "
        "its first hops: 32x21"
    )
    with pytest.raises(ValueError, match="type the capture hop by hop"):
        notation.parse_move(env, state, "32x12")
    (first,) = notation.parse_move(env, state, "32x21")
    monkeypatch.undo()
    assert [first] == notation.parse_move(env, state, "32x12")[:1]


@pytest.mark.parametrize("variant", ["international", "russian"])
def test_the_observation_puts_each_square_on_its_cell(variant):
    """Planes read cell by cell against the FMJD layout: square s (0-based) on row s // (n/2),
    column 2·(s mod n/2), plus one on even rows; every light cell empty."""
    states = helpers.random_states(variant, *helpers.FAST_SAMPLE)
    planes = np.asarray(states.observation)
    boards, taken = np.asarray(states.board), np.asarray(states.taken)
    count, squares = boards.shape
    n = planes.shape[1]
    expected = np.zeros_like(planes)
    for s in range(squares):
        row = s // (n // 2)
        col = 2 * (s % (n // 2)) + (row % 2 == 0)
        for plane, value in enumerate((1, 2, -1, -2)):
            expected[:, row, col, plane] = boards[:, s] == value
        expected[:, row, col, 4] = taken[:, s]
    assert count > 100 and taken.any() and np.array_equal(planes, expected)


def test_fen_round_trips_and_bad_fen_is_one_line():
    text = "B:WK31,32,40:BK1,2,19"
    assert SPEC.notation.to_fen(SPEC.notation.from_fen(text)) == text
    assert SPEC.notation.to_fen(SPEC.notation.from_fen("W:W31-50:B1-20")) == SPEC.notation.to_fen(
        jax.jit(Draughts().reset)(jax.random.key(0))
    )
    for bad, reason in [
        ("X:W1:B2", "side to move"),
        ("W:W51:B1", "squares run from 1 to 50"),
        ("W:W31,31:B1", "listed twice"),
        ("W:W1-21,22:B50", "more than 20 pieces"),
        ("W:W3:B40", "promotion row"),
    ]:
        with pytest.raises(ValueError, match=reason) as error:
            SPEC.notation.from_fen(bad)
        assert "\n" not in str(error.value)


def test_moves_as_text_are_read_and_written():
    env = Draughts()
    state = jax.jit(env.reset)(jax.random.key(0))
    assert notation.legal_moves_text(env, state) == (
        "legal moves: 31-26, 31-27, 32-27, 32-28, 33-28, 33-29, 34-29, 34-30, 35-30"
    )
    (action,) = notation.parse_move(env, state, "32-28")
    assert notation.move_name(env, state, action) == "32-28"
    for bad in ("32-27x", "32-23", "hello"):
        with pytest.raises(ValueError):
            notation.parse_move(env, state, bad)


def test_step_compiles_once_for_the_batch():
    env = Draughts(variant="russian")
    traces = []

    def counted(state, action):
        traces.append(1)
        return env.step(state, action)

    step = jax.jit(jax.vmap(counted))
    states = jax.vmap(env.reset)(jax.random.split(jax.random.key(0), 4))
    for _ in range(3):
        action = np.argmax(np.asarray(states.legal_action_mask), axis=1).astype(np.int32)
        states = step(states, action)
    assert len(traces) == 1
    assert np.asarray(states.legal_action_mask).any(axis=1).all()


def test_step_runs_inside_a_vmapped_loop_as_searches_call_it():
    """Searches (alpha-beta, mctx) step the env inside loops under vmap; the capture search's
    own batching rule must not see the caller's values as foreign tracers there."""
    import jax.numpy as jnp

    env = Draughts()
    spec = games.spec("draughts")
    states = jax.tree.map(
        lambda *x: np.stack(x),
        spec.notation.from_fen("W:W28,32:B23,K19"),  # a capture, and a king among the pieces
        spec.notation.from_fen("W:W31,32:B18,19"),
    )
    actions = jnp.asarray([int(np.flatnonzero(np.asarray(m))[0]) for m in states.legal_action_mask])

    def twice_in_a_loop(state, action):
        def body(carry):
            i, _ = carry
            return i + 1, env.step(state, action).legal_action_mask

        return jax.lax.while_loop(lambda c: c[0] < 2, body, (0, state.legal_action_mask))[1]

    looped = jax.jit(jax.vmap(twice_in_a_loop))(states, actions)
    step = compiled_step(env)  # one game at a time, as the other tests compiled it
    one = lambda i: jax.tree.map(lambda x: x[i], states)  # noqa: E731
    plain = [step(one(i), actions[i]).legal_action_mask for i in range(len(actions))]
    assert np.array_equal(np.asarray(looped), np.stack(plain))


def test_a_variant_is_chosen_on_the_command_line(capsys):
    argv = ["perft", "--game", "draughts", "--option", "variant=russian", "--depth", "3"]
    status, out, _ = run_cli(argv, capsys)
    assert status == 0 and "variant='russian'" in out
    counts = [
        int(line.split()[2].replace(",", ""))
        for line in out.splitlines()
        if line.startswith("depth")
    ]
    assert counts == [7, 49, 302]  # Russian draughts' published perft from the start
