"""The networks that ship with the package: they load with jax alone (no flax) and play well
above random; `mcts:pretrained` searches with the AlphaZero one."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import jaxcheckers
from jaxcheckers.agents import make_agent, pretrained, search
from jaxcheckers.agents.policy import load_params
from jaxcheckers.checkers import alphabeta
from jaxcheckers.checkers.positions import from_board
from jaxcheckers.match import play_match
from jaxcheckers.ratings import summarize

ENV = jaxcheckers.make("checkers")


# The most a shipped network's parameters may weigh: chess's policy head alone has 4,672 outputs.
MAX_BYTES = {"checkers": 4 * 2**20, "chess": 20 * 2**20}


def test_the_shipped_files_are_small_and_name_their_game_and_trainer():
    trainers = {}
    for name in pretrained.NAMES:
        for game in pretrained.games(name):
            stem = pretrained.stem(name, game)
            assert (pretrained.DIRECTORY / f"{stem}.msgpack").stat().st_size < MAX_BYTES[game]
            _, _, settings = pretrained.load(name, game=game)
            assert settings["game"] == game
            trainers[name, game] = settings.get("algo", "ppo")
    assert trainers == {
        (pretrained.NAME, "checkers"): "ppo",
        (pretrained.HOUR_NAME, "checkers"): "ppo",  # the same before its last PPO run
        (pretrained.SEARCH_NAME, "checkers"): "alphazero",
        (pretrained.NAME, "chess"): "ppo",  # distilled from alpha-beta, then PPO
        (pretrained.DISTILLED_NAME, "chess"): "distill",  # the same before PPO: to search with
    }
    assert pretrained.load()[2]["game"] == "checkers"  # a name alone: the checkers network


def test_ppo_pretrained_beats_random():
    agent = make_agent("ppo:pretrained", ENV)
    match = play_match(
        ENV, agent, make_agent("random", ENV), 40, jax.random.key(7), opening_plies=2
    )
    summary = summarize(match.a_score)
    assert summary.score > 0.8, summary


def test_mcts_pretrained_searches_with_the_shipped_alphazero_network(monkeypatch):
    searched_with = []
    made = search.search_agent

    def recorded(env, evaluate, params, **options):
        searched_with.append(params)
        return made(env, evaluate, params, **options)

    monkeypatch.setattr(search, "search_agent", recorded)
    agent = make_agent(f"mcts:{pretrained.NAME}:4", ENV)
    make_agent(f"mcts:{pretrained.SEARCH_NAME}:4", ENV)
    alphazero, _, _ = pretrained.load(pretrained.SEARCH_NAME, game="checkers")
    assert len(searched_with) == 2
    for params in searched_with:  # both names search with the AlphaZero network
        assert jax.tree.all(jax.tree.map(np.array_equal, params, alphazero))
    state = ENV.reset(jax.random.key(0))
    keys = jax.random.split(jax.random.key(1), 8)
    chosen = np.asarray(jax.jit(jax.vmap(agent, in_axes=(None, 0)))(state, keys))
    assert np.asarray(state.legal_action_mask)[chosen].all()


def test_a_game_without_a_shipped_network_is_told_which_games_have_one():
    tictactoe = jaxcheckers.make("tictactoe")
    with pytest.raises(ValueError, match="no pretrained network ships for tictactoe") as error:
        make_agent("ppo:pretrained", tictactoe)
    assert "checkers, chess" in str(error.value)
    with pytest.raises(ValueError, match="no pretrained-alphazero network ships for chess"):
        make_agent("mcts:pretrained", jaxcheckers.make("chess"))


def test_the_chess_network_mates_the_random_player_rather_than_stalemating_it():
    """The distilled network won on material but stalemated the lone king in a third of its
    games against random (0.77); PPO against random and `alphabeta:1` taught it to mate."""
    chess = jaxcheckers.make("chess")
    agent = make_agent("ppo:pretrained", chess)
    match = play_match(
        chess, agent, make_agent("random", chess), 24, jax.random.key(5), opening_plies=2
    )
    summary = summarize(match.a_score)
    assert summary.losses == 0 and summary.score >= 0.85, summary


def test_the_distilled_chess_network_judges_a_position_for_the_search():
    """`pretrained-distilled`'s value head was fitted to alpha-beta's scores: a queen up is good
    for the side to move and a queen down bad. (The PPO network's value learnt how its games
    against weak opponents ended, nearly always won, so it is not the one to search with.)"""
    params, network, _ = load_params(pretrained.DISTILLED_NAME, game="chess")  # as mcts loads
    from_fen = jaxcheckers.games.spec("chess").notation.from_fen
    white_without_queen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR"
    up, down = (from_fen(f"{white_without_queen} {side} KQkq - 0 1") for side in "bw")
    _, values = network.apply(params, np.stack([up.observation, down.observation]))
    assert values[0] > 0.5 and values[1] < -0.5, values


def test_the_chess_network_plays_from_the_command_line(tmp_path, monkeypatch):
    """`jaxcheckers play --game chess --white ppo:pretrained` picks the chess network and plays
    it in the terminal: it takes a hanging queen (and plays on to the end against random)."""
    import io

    from jaxcheckers.cli import main

    pgn = tmp_path / "game.pgn"
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    argv = ["play", "--game", "chess", "--white", "ppo:pretrained", "--black", "random"]
    argv += ["--fen", "4k3/8/8/3q4/8/8/3R4/7K w - - 0 1", "--pgn", str(pgn)]
    assert main(argv) == 0
    record = pgn.read_text()
    assert '[White "ppo:pretrained"]' in record and "1. Rxd5 " in record


# -- search with the shipped PPO network (mcts:ppo:pretrained) -----------------------------------

# Black (b, B) far ahead: three kings and two men against one white man.
BLACK_AHEAD = """
. . . . . . . .
. . . . B . . .
. . . . . . . .
. . B . . . B .
. b . . . . . .
b . . . . . . .
. . . . . w . .
. . . . . . . .
"""

# White to move in positions from the games over the ballots of ppo:pretrained-hour (the checkers
# network that shipped as ppo:pretrained before), where its raw policy loses two or more men by
# alpha-beta to depth 5 (found by scanning its games against alphabeta:3).
BLUNDERS = [
    """
    . . . . . b . b
    b . b . b . b .
    . . . . . . . b
    w . b . . . b .
    . . . . . . . w
    w . . . . . . .
    . b . w . . . w
    w . w . w . w .
    """,
    """
    . . . . . W . .
    . . b . . . . .
    . b . . . b . b
    w . . . b . . .
    . w . w . . . w
    b . . . . . w .
    . . . . . . . .
    . . w . . . . .
    """,
    """
    . . . b . . . b
    b . . . b . b .
    . . . b . b . b
    . . . . b . b .
    . w . . . . . w
    b . . . w . w .
    . . . w . . . w
    w . w . w . w .
    """,
]


def test_the_ppo_value_head_scores_the_position_for_the_side_to_move():
    """The search reads `value` as the mover's expected result: positive for the side that is
    far ahead when it is to move, negative for the side far behind."""
    params, network, _ = pretrained.load(pretrained.NAME)
    states = [from_board(ENV, BLACK_AHEAD, player=player) for player in (0, 1)]
    _, values = network.apply(params, np.stack([s.observation for s in states]))
    assert values[0] > 0.5 and values[1] < -0.5, values


@pytest.mark.slow
def test_search_with_the_ppo_network_mends_its_raw_policys_blunders():
    """In each position the raw policy loses two men or more (alpha-beta, depth 5); the search
    (64 simulations) plays a move within one man of the best, and the same search with the value's
    sign flipped does not: the sign convention decides these positions."""
    states = [from_board(ENV, board, player=1) for board in BLUNDERS]
    batch = jax.tree.map(lambda *xs: np.stack(xs), *states)
    roots = jax.jit(jax.vmap(lambda s: alphabeta.root_values(s.position, s.jumper, depth=5, n=8)))(
        batch
    )
    params, network, _ = pretrained.load(pretrained.HOUR_NAME)

    def flipped(params, states):
        logits, value = network.apply(params, states.observation)
        return logits, -value

    raw = jax.jit(make_agent(f"ppo:{pretrained.HOUR_NAME}", ENV))
    searched = jax.jit(make_agent(f"mcts:ppo:{pretrained.HOUR_NAME}:64", ENV))
    wrong_sign = jax.jit(search.search_agent(ENV, flipped, params, num_simulations=64))
    key = jax.random.key(0)
    for i, state in enumerate(states):
        valid = np.asarray(roots.valid[i])
        value = dict(
            zip(
                np.asarray(roots.first_actions[i])[valid].tolist(),
                np.asarray(roots.values[i])[valid].tolist(),
                strict=True,
            )
        )
        best = max(value.values())
        assert value[int(raw(state, key))] <= best - 2, (i, value)
        assert value[int(searched(state, key))] >= best - 1, (i, value)
        assert value[int(wrong_sign(state, key))] <= best - 2, (i, value)


def test_mcts_ppo_names_the_ppo_network_and_pretrained_alone_the_alphazero_one(monkeypatch):
    built = []

    def search_agent(env, evaluate, params, *, num_simulations):
        built.append((params, num_simulations))
        return "agent"

    monkeypatch.setattr(search, "search_agent", search_agent)
    assert make_agent("mcts:ppo:pretrained:96", ENV) == "agent"
    assert make_agent("mcts:pretrained", ENV) == "agent"
    (ppo, _, _), (alphazero, _, _) = (
        pretrained.load(n) for n in (pretrained.NAME, pretrained.SEARCH_NAME)
    )
    same = lambda a, b: jax.tree.all(jax.tree.map(np.array_equal, a, b))  # noqa: E731
    assert same(built[0][0], ppo) and built[0][1] == 96
    assert same(built[1][0], alphazero) and built[1][1] == 64
    with pytest.raises(ValueError, match="needs a run directory"):
        make_agent("mcts:ppo:", ENV)
    with pytest.raises(ValueError, match="simulations"):
        make_agent("mcts:ppo:pretrained:0", ENV)


def test_the_search_is_asked_game_by_game():
    """On a CPU a match asks it only in the games where it is to move, one at a time (how
    act_where treats such agents is tested with alpha-beta and in test_arena)."""
    assert make_agent("mcts:ppo:pretrained:4", ENV).game_by_game


def test_a_shipped_network_whose_settings_are_damaged_is_refused_in_one_line(tmp_path):
    """A settings file of `[]` raised TypeError when loaded and AttributeError when the games
    with a network were listed (the other networks' listing included)."""
    import shutil

    shutil.copytree(pretrained.DIRECTORY, tmp_path, dirs_exist_ok=True)
    (tmp_path / "checkers.json").write_text("[]")
    assert "checkers" not in pretrained.games(directory=tmp_path)
    assert "chess" in pretrained.games(directory=tmp_path)
    with pytest.raises(ValueError) as refused:
        pretrained.load(directory=tmp_path, game="checkers")
    assert "\n" not in str(refused.value)
    pretrained.load(directory=tmp_path, game="chess")  # the other network still loads
