"""Arena: statistics on known numbers, seat swapping, recorded games that replay, the command."""

from __future__ import annotations

import json
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.experimental import io_callback

import jaxcheckers
from jaxcheckers import agents, ratings
from jaxcheckers.agents.random import random_agent
from jaxcheckers.checkers import pdn
from jaxcheckers.cli import main
from jaxcheckers.match import match_batches, match_games, play_match, replay_start

ENV = jaxcheckers.make("checkers", board_size=6, max_steps=200)


def test_elo_difference_of_known_scores():
    assert ratings.elo_difference(0.5) == 0.0
    assert ratings.elo_difference(0.75) == pytest.approx(400 * math.log10(3))
    assert ratings.elo_difference(1.0) == math.inf
    assert ratings.elo_difference(0.0) == -math.inf


def test_wilson_interval_matches_the_textbook_values():
    low, high = ratings.wilson_interval(0.5, 100)
    assert (round(low, 3), round(high, 3)) == (0.404, 0.596)
    low, high = ratings.wilson_interval(1.0, 200)
    assert high == 1.0 and 0.98 < low < 0.985  # never the degenerate [1, 1]


def test_summary_counts_and_scores():
    summary = ratings.summarize(np.array([1, 1, 1, 0.5, 0]))
    assert (summary.wins, summary.draws, summary.losses, summary.games) == (3, 1, 1, 5)
    assert summary.score == pytest.approx(0.7)
    assert summary.score_low < 0.7 < summary.score_high
    assert summary.elo_low < summary.elo < summary.elo_high


def illegal_agent(state, key):
    del state, key
    return jnp.int32(-1)  # forfeits at once: the env ends the game, −1 for the mover


def test_seats_swap_and_scores_are_from_a_side():
    match = play_match(ENV, illegal_agent, random_agent, 6, jax.random.key(0), batch_size=4)
    assert match.a_plays_first.tolist() == [True, False, True, False, True, False]
    # Black games: A forfeits at its first move. White games: after one random move by black.
    assert (match.a_score == 0).all()
    assert match.length.tolist() == [1, 2, 1, 2, 1, 2]
    flipped = play_match(ENV, random_agent, illegal_agent, 4, jax.random.key(0))
    assert (flipped.a_score == 1).all()


def test_a_match_resumed_part_way_plays_the_games_it_would_have_played():
    key = jax.random.key(3)
    whole = play_match(ENV, random_agent, random_agent, 6, key, batch_size=2, record=True)
    rest = match_batches(
        ENV, random_agent, random_agent, 6, key, batch_size=2, record=True, first_game=4
    )
    (tail,) = list(rest)
    np.testing.assert_array_equal(tail.actions, whole.actions[4:])
    np.testing.assert_array_equal(tail.a_score, whole.a_score[4:])
    with pytest.raises(ValueError, match="first game 3: give a multiple of the batch size 2"):
        next(match_batches(ENV, random_agent, random_agent, 6, key, batch_size=2, first_game=3))


def test_recorded_games_replay_to_the_same_results():
    match = play_match(
        ENV, random_agent, random_agent, 8, jax.random.key(1), opening_plies=2, record=True
    )
    games = match_games(match, "random", "random", ENV)
    parsed = pdn.parse_pdn(pdn.format_games(games))
    assert len(parsed) == 8
    for game, original in zip(parsed, games, strict=True):
        assert game.moves == original.moves
        final = pdn.replay(ENV, game).states[-1]
        over = bool(final.terminated | final.truncated)
        replayed = pdn.result_text(final.rewards, bool(final.truncated)) if over else "*"
        assert replayed == game.result == game.tags["Result"]


def test_the_command_prints_json(capsys):
    code = main(["arena", "random", "random", "--games", "4", "--board-size", "6", "--json"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    result = report["matches"][0]
    assert result["games"] == 4
    assert result["wins"] + result["draws"] + result["losses"] == 4


def test_round_robin_table_and_pdn_file(capsys, tmp_path):
    path = tmp_path / "games.pdn"
    argv = ["arena", "random", "random", "--games", "2", "--board-size", "6"]
    assert main([*argv, "--pdn", str(path)]) == 0  # one agent twice: a self-play match
    out = capsys.readouterr().out
    assert "random vs random" in out and "95% CI" in out
    assert len(pdn.parse_pdn(path.read_text())) == 2
    table = ratings.round_robin_table(
        ["a", "b", "c"],
        [
            {"a": "a", "b": "b", "score": 1.0},
            {"a": "a", "b": "c", "score": 0.5},
            {"a": "b", "b": "c", "score": 0.25},
        ],
    )
    rows = {line.split()[0]: line.split()[1:] for line in table.splitlines()[1:]}
    assert rows["a"] == ["-", "1.000", "0.500", "0.750"]
    assert rows["c"] == ["0.500", "0.750", "-", "0.625"]


def test_bad_agent_names_are_reported_not_raised(capsys):
    assert main(["arena", "random", "nonsense", "--games", "2"]) == 2
    assert "unknown agent" in capsys.readouterr().err


def test_opening_plies_are_whole_turns_in_every_game():
    """A forfeits at its first own choice: what came before is exactly the random opening."""
    tictactoe = jaxcheckers.make("tictactoe")
    match = play_match(
        tictactoe, illegal_agent, random_agent, 4, jax.random.key(2), opening_plies=3
    )
    # Three random turns leave player 1 to move: A itself where it plays second (odd games),
    # else B moves once first.
    assert match.length.tolist() == [5, 4, 5, 4]

    checkers = play_match(
        ENV, illegal_agent, random_agent, 16, jax.random.key(3), opening_plies=12, record=True
    )
    step = jax.jit(ENV.step)
    for game in range(16):
        state = replay_start(ENV, checkers, game)
        turns = 0
        for action in checkers.actions[game, : checkers.length[game] - 1]:
            before = int(state.current_player)
            state = step(state, action)
            turns += int(state.current_player) != before
        if not bool(state.terminated | state.truncated):
            assert turns == 12 + (game % 2), game  # odd games: B's own turn after the opening


@pytest.mark.parametrize("game_by_game, batch_size", [(False, 1), (True, 2)])
def test_each_agent_is_asked_on_its_own_turns_only(game_by_game, batch_size):
    """A search must not also run on the opponent's turns (it did, doubling the cost of every
    alpha-beta and mcts match): at batch 1 for any agent, at any batch for one marked
    `game_by_game` (alpha-beta on a CPU). Count the calls that reach the host."""
    calls = {"a": 0, "b": 0}

    def counted(name):
        def bump(_):
            calls[name] += 1
            return np.int32(0)

        def agent(state, key):
            done = io_callback(bump, jax.ShapeDtypeStruct((), jnp.int32), key)
            return random_agent(state, key) + done

        return agents.game_by_game(agent) if game_by_game else agent

    tictactoe = jaxcheckers.make("tictactoe")
    match = play_match(
        tictactoe,
        counted("a"),
        counted("b"),
        2,
        jax.random.key(5),
        batch_size=batch_size,
        opening_plies=1,
    )
    # Ply 0 is the random opening; then game 0 (A first) gives A plies 2, 4, ...,
    # game 1 plies 1, 3, ...
    a_turns = sum((length - 1 + (game == 1)) // 2 for game, length in enumerate(match.length))
    b_turns = sum(match.length) - 2 - a_turns
    assert (calls["a"], calls["b"]) == (a_turns, b_turns)


def test_the_arena_plays_tictactoe_from_the_command(capsys):
    code = main(["arena", "--game", "tictactoe", "perfect", "random", "--games", "40", "--json"])
    assert code == 0
    result = json.loads(capsys.readouterr().out)["matches"][0]
    assert result["games"] == 40 and result["losses"] == 0 and result["wins"] > 20


def test_board_size_is_refused_where_a_game_has_none_and_max_steps_taken_by_every_game(capsys):
    argv = ["arena", "--game", "chess", "random", "random", "--board-size", "6"]
    assert main(argv) == 2
    assert "chess has no --board-size" in capsys.readouterr().err
    argv = ["arena", "--game", "tictactoe", "random", "random", "--games", "4", "--max-steps", "2"]
    assert main([*argv, "--json"]) == 0
    (match,) = json.loads(capsys.readouterr().out)["matches"]
    assert match["draws"] == 4  # every game cut after two marks: a draw


@pytest.mark.parametrize(
    "first",
    [  # random against itself compiles in seconds; alpha-beta inside the match in minutes
        "random",
        pytest.param("alphabeta:1", marks=pytest.mark.slow),
    ],
)
def test_chess_match_from_the_command_saved_as_pgn_that_python_chess_replays(
    first, capsys, tmp_path
):
    import io

    import chess.pgn

    pgn = tmp_path / "games.pgn"
    argv = ["arena", "--game", "chess", first, "random", "--games", "2"]
    code = main([*argv, "--max-steps", "12", "--pgn", str(pgn), "--json"])
    assert code == 0
    result = json.loads(capsys.readouterr().out)["matches"][0]
    assert result["games"] == 2 and result["draws"] == 2  # both cut at 12 plies: draws
    text = io.StringIO(pgn.read_text())
    for round_, white in ((1, first), (2, "random")):
        game = chess.pgn.read_game(text)
        assert game is not None and not game.errors  # every SAN move legal where it was played
        assert game.headers["White"] == white and game.headers["Round"] == str(round_)
        assert len(list(game.mainline_moves())) == 12 and game.headers["Result"] == "*"
    assert chess.pgn.read_game(text) is None
