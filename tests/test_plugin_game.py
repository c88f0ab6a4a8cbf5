"""A game written outside the package plugs into every layer with no edit to it.

Connect Four on a 4×5 board (four in a row along a row, a column or a diagonal) is defined here,
in the test file, registered with `jaxcheckers.register`, and then driven through the layers a
user reaches: `make`, the CLI's arena, ladder, perft and play. It brings an agent of its own,
`first` (the lowest legal column), through its spec, as a built-in game brings alpha-beta.
"""

from __future__ import annotations

import io
import json
import sys
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxcheckers
from jaxcheckers import games
from jaxcheckers.core import Env, replace_fields

ROWS, COLS, IN_A_ROW = 4, 5, 4
NAME = "connect4x5"


def _lines() -> np.ndarray:
    """int32 (L, 4): the squares (row * COLS + col) of every run of four cells."""
    lines = []
    for row in range(ROWS):
        for col in range(COLS):
            for d_row, d_col in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(row + i * d_row, col + i * d_col) for i in range(IN_A_ROW)]
                if all(0 <= r < ROWS and 0 <= c < COLS for r, c in cells):
                    lines.append([r * COLS + c for r, c in cells])
    return np.array(lines, dtype=np.int32)


LINES = _lines()


class ConnectState(NamedTuple):
    current_player: jax.Array  # int32 ()
    board: jax.Array  # int8 (ROWS * COLS,)  +1 player 0, -1 player 1, 0 empty; row 0 the bottom
    rewards: jax.Array  # float32 (2,)
    terminated: jax.Array  # bool ()
    truncated: jax.Array  # bool ()
    step_count: jax.Array  # int32 ()

    replace = replace_fields

    @property
    def observation(self) -> jax.Array:
        """bool (ROWS, COLS, 2): the mover's discs, then the opponent's."""
        return _planes(self.board, self.current_player)

    @property
    def legal_action_mask(self) -> jax.Array:
        """bool (COLS,): the columns with room; none once the game is over."""
        top = self.board[..., (ROWS - 1) * COLS :]  # works on a batch of states too
        return (top == 0) & ~(self.terminated | self.truncated)[..., None]


def _planes(board: jax.Array, player: jax.Array) -> jax.Array:
    mine = (1 - 2 * jnp.asarray(player)).astype(jnp.int8)[..., None]  # an int player too
    planes = jnp.stack([board == mine, board == -mine], axis=-1)
    return planes.reshape(*board.shape[:-1], ROWS, COLS, 2)


class ConnectFour(Env):
    num_actions = COLS
    observation_shape = (ROWS, COLS, 2)

    def __init__(self, *, max_steps: int | None = None):
        self.max_steps = max_steps

    @property
    def id(self) -> str:
        return NAME

    def __repr__(self) -> str:
        return f"ConnectFour(max_steps={self.max_steps})"

    def observe(self, state: ConnectState, player: jax.Array) -> jax.Array:
        return _planes(state.board, player)

    def _init(self, key: jax.Array) -> ConnectState:
        del key
        return ConnectState(
            current_player=jnp.int32(0),
            board=jnp.zeros(ROWS * COLS, jnp.int8),
            rewards=jnp.zeros(2, jnp.float32),
            terminated=jnp.bool_(False),
            truncated=jnp.bool_(False),
            step_count=jnp.int32(0),
        )

    def _step(self, state: ConnectState, action: jax.Array) -> ConnectState:
        column = state.board.reshape(ROWS, COLS)[:, action]
        row = jnp.argmax(column == 0)
        mark = (1 - 2 * state.current_player).astype(jnp.int8)
        board = state.board.at[row * COLS + action].set(mark)
        won = (board[LINES] == mark).all(axis=-1).any()
        full = (board != 0).all()
        winner = jax.nn.one_hot(state.current_player, 2, dtype=jnp.float32)
        rewards = jnp.where(won, 2 * winner - 1, jnp.zeros(2, jnp.float32))
        return state._replace(
            current_player=1 - state.current_player,
            board=board,
            rewards=rewards,
            terminated=won | full,
        )


def _text(state: ConnectState) -> str:
    board = np.asarray(state.board).reshape(ROWS, COLS)[::-1]
    return "\n".join("".join(".XO"[int(v)] for v in row) for row in board)


def first(argument: str, env: ConnectFour):
    """The game's own agent: the lowest legal column, whatever the key."""
    if argument:
        raise ValueError(f"the first agent takes no argument, got {argument!r}")
    return lambda state, key: jnp.argmax(state.legal_action_mask).astype(jnp.int32)


SPEC = games.GameSpec(
    name=NAME,
    make=ConnectFour,
    players=("yellow", "red"),
    drawing=games.Drawing(text=_text),
    agents={"first": games.GameAgent(first, "first the lowest legal column")},
)


@pytest.fixture(scope="module", autouse=True)
def registered():
    jaxcheckers.register(SPEC)
    yield
    games._REGISTERED.pop(NAME, None)


def test_make_builds_the_registered_game():
    env = jaxcheckers.make(NAME)
    assert isinstance(env, ConnectFour) and NAME in games.names()
    state = env.step(env.reset(jax.random.key(0)), 2)
    assert int(state.board[2]) == 1 and int(state.current_player) == 1


def test_register_refuses_a_taken_name_and_a_non_spec():
    with pytest.raises(ValueError, match="already registered"):
        jaxcheckers.register(games.GameSpec(name=NAME, make=ConnectFour))
    with pytest.raises(ValueError, match="already registered"):
        jaxcheckers.register(games.GameSpec(name="chess", make=ConnectFour))
    with pytest.raises(ValueError, match="GameSpec"):
        jaxcheckers.register({"name": "x"})
    assert jaxcheckers.register(SPEC) is SPEC  # the same spec again is no clash


def test_an_unknown_game_is_one_line_naming_the_games():
    with pytest.raises(ValueError, match=f"unknown game 'go'; available: .*{NAME}"):
        jaxcheckers.make("go")


def test_an_installed_entry_point_is_found(tmp_path, monkeypatch):
    """A distribution on sys.path that declares `[jaxcheckers.games]` adds its game."""
    package = tmp_path / "nimgame.py"
    package.write_text(
        "from jaxcheckers.games import GameSpec\n"
        "from tests.test_plugin_game import ConnectFour\n"
        "SPEC = GameSpec(name='nimish', make=ConnectFour)\n"
    )
    info = tmp_path / "nimgame-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: nimgame\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[jaxcheckers.games]\nnimish = nimgame:SPEC\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        assert "nimish" in games.names()
        assert isinstance(jaxcheckers.make("nimish"), ConnectFour)
    finally:
        games._REGISTERED.pop("nimish", None)


def _cli(args: list[str], capsys, stdin: str | None = None, monkeypatch=None) -> tuple[int, str]:
    from jaxcheckers import cli

    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    status = cli.main(args)
    captured = capsys.readouterr()
    return status, captured.out + captured.err


def test_arena_plays_the_game(capsys):
    args = ["arena", "--game", NAME, "random", "random", "--games", "8", "--json"]
    status, text = _cli(args, capsys)
    assert status == 0, text
    (match,) = json.loads(text)["matches"]
    assert match["wins"] + match["draws"] + match["losses"] == 8, match


# Two `first` players fill the columns left to right, two discs each a turn: yellow, who moves
# first, completes the bottom row with its 7th disc.
FIRST_AGAINST_FIRST = "1. 0 0 2. 0 0 3. 1 1 4. 1 1 5. 2 2 6. 2 2 7. 3 1-0"


def test_arena_plays_the_games_own_agent(capsys, tmp_path):
    out = tmp_path / "games.pdn"
    args = ["arena", "--game", NAME, "first", "first", "--games", "4", "--json"]
    status, text = _cli([*args, "--pdn", str(out)], capsys)
    assert status == 0, text
    (match,) = json.loads(text)["matches"]
    assert (match["a"], match["b"]) == ("first", "first")
    # the seats alternate game by game, and whoever moves first wins
    assert (match["wins"], match["draws"], match["losses"]) == (2, 0, 2), match
    moves = [block for block in out.read_text().split("\n\n") if block.startswith("1.")]
    assert [block.strip() for block in moves] == [FIRST_AGAINST_FIRST] * 4


def test_ladder_rates_the_games_own_agent(capsys, tmp_path):
    args = ["ladder", "--game", NAME, "first", "random", "--games", "4", "--no-plot"]
    status, text = _cli([*args, "--out", str(tmp_path)], capsys)
    assert status == 0, text
    ladder = json.loads((tmp_path / "ladder.json").read_text())
    assert ladder["agents"] == ["first", "random"]
    (pair,) = ladder["pairs"]
    assert (pair["a"], pair["b"]) == ("first", "random")
    assert pair["wins"] + pair["draws"] + pair["losses"] == 4


def test_the_games_agent_is_its_own_among_the_agent_names():
    from jaxcheckers.agents import agent_specs, make_agent

    env = jaxcheckers.make(NAME)
    state = env.step(env.reset(None), 0)
    for _ in range(3):  # column 0 filled
        state = env.step(state, 0)
    assert int(make_agent("first", env)(state, jax.random.key(0))) == 1
    assert agent_specs()["first"] == f"{NAME}: first the lowest legal column"
    with pytest.raises(ValueError, match="^the first agent takes no argument"):
        make_agent("first:3", env)
    with pytest.raises(ValueError, match=f"^first plays {NAME}, not tictactoe$"):
        make_agent("first", jaxcheckers.make("tictactoe"))
    refused = f"^alphabeta plays checkers, chess and draughts, not {NAME}$"
    with pytest.raises(ValueError, match=refused):
        make_agent("alphabeta:2", env)
    with pytest.raises(ValueError, match="known: random, ppo, ppo-sample, mcts, first$"):
        make_agent("greedy", env)


def test_perft_counts_the_game(capsys):
    status, text = _cli(["perft", "--game", NAME, "--depth", "2"], capsys)
    assert status == 0, text
    assert "25" in text  # five columns, then five again


def test_arena_writes_the_games_as_records(capsys, tmp_path):
    out = tmp_path / "games.pdn"
    args = ["arena", "--game", NAME, "random", "random", "--games", "2", "--pdn", str(out)]
    status, text = _cli(args, capsys)
    assert status == 0, text
    written = out.read_text()
    assert written.count('[Game "connect4x5"]') == 2 and '[Yellow "random"]' in written


def test_ladder_rates_agents_of_the_game(capsys, tmp_path):
    args = ["ladder", "--game", NAME, "random", "mcts:uniform:4", "--games", "4"]
    args += ["--out", str(tmp_path)]
    status, text = _cli(args, capsys)
    assert status == 0, text
    assert (tmp_path / "ladder.json").exists(), sorted(p.name for p in tmp_path.iterdir())


def test_play_through_a_pipe(capsys, monkeypatch):
    """Two people type action numbers; a bad one is refused, `?` lists the columns."""
    typed = "9\n?\n0\n1\n0\n1\n0\n1\n0\n"  # yellow fills column 0 four high
    args = ["play", "--game", NAME, "--black", "human", "--white", "human", "--ascii"]
    status, text = _cli(args, capsys, stdin=typed, monkeypatch=monkeypatch)
    assert status == 0, text
    assert "9 is not legal here" in text
    assert "legal moves: 0, 1, 2, 3, 4" in text
    assert text.rstrip().endswith("game over: yellow (human) wins")


def test_the_conformance_check_passes_for_the_game_and_its_adapters():
    """`check_game` with `adapters=True`: the State contract, PettingZoo's `api_test` and
    Gymnasium's `check_env` (with its render check) on the registered game."""
    pytest.importorskip("pettingzoo")
    gymnasium = pytest.importorskip("gymnasium")
    from jaxcheckers.adapters.pettingzoo import env
    from jaxcheckers.testing import check_game

    assert check_game(NAME, adapters=True) is None
    aec = env(game=NAME, render_mode="ansi")
    aec.reset()
    assert aec.render().splitlines()[-1] == "....."
    observation, info = gymnasium.make(SPEC.gymnasium_id, opponent="random").reset(seed=0)
    assert observation.shape == (ROWS, COLS, 2) and info["action_mask"].shape == (COLS,)


def test_pgx_auto_reset_runs_the_game():
    pgx = pytest.importorskip("pgx")
    env = jaxcheckers.make(NAME)
    state = env.reset(jax.random.key(0))
    step = jax.jit(lambda s, a, k: pgx.experimental.auto_reset(env.step, env.init)(s, a, k))
    for action in [0, 1, 0, 1, 0, 1, 0]:  # yellow wins in column 0, then a fresh game
        state = step(state, jnp.int32(action), jax.random.key(1))
    assert int(state.step_count) == 0 and float(state.rewards[0]) == 1.0


def test_gymnasium_id_of_a_registered_game():
    gymnasium = pytest.importorskip("gymnasium")
    from jaxcheckers.adapters import registration

    assert SPEC.gymnasium_id in registration.register_envs()
    env = gymnasium.make(SPEC.gymnasium_id, opponent="random")
    assert env.unwrapped.adapter is SPEC


def test_a_few_ppo_updates_train_on_the_game():
    pytest.importorskip("flax")
    from jaxcheckers.training.config import TrainConfig
    from jaxcheckers.training.ppo import make_trainer

    config = TrainConfig(game=NAME, num_envs=8, rollout_length=8, total_steps=8 * 8 * 2)
    config = config.replace(num_minibatches=2, num_epochs=1, hidden_sizes=(16,), eval_every=0)
    trainer = make_trainer(config)
    state = jax.jit(trainer.init)(jax.random.key(0))
    new_state, metrics = trainer.run_updates(jax.tree.map(jnp.copy, state), 2)
    assert int(new_state.update_step) == 2
    assert all(bool(jnp.isfinite(v).all()) for v in metrics.values())
    changed = jax.tree.map(lambda a, b: bool((a != b).any()), state.params, new_state.params)
    assert any(jax.tree.leaves(changed))


def test_the_adapters_refuse_a_game_without_observe_in_one_line():
    pytest.importorskip("pettingzoo")
    from jaxcheckers.adapters.pettingzoo import raw_env

    class Blind(ConnectFour):
        observe = Env.observe

    blind = jaxcheckers.register(games.GameSpec(name="blind4x5", make=Blind))
    try:
        with pytest.raises(ValueError, match="^blind4x5 defines no observe"):
            raw_env(game=blind.name)
    finally:
        games._REGISTERED.pop(blind.name)


def test_demo_plays_the_game(capsys):
    status, text = _cli(["demo", "--game", NAME, "--batch", "4", "--steps", "2"], capsys)
    assert status == 0, text
    assert "One random game of ConnectFour" in text and "steps/s" in text
    board = [line for line in text.splitlines() if len(line) == COLS and set(line) <= set(".XO")]
    assert len(board) == ROWS  # the last position, drawn by the spec's text
