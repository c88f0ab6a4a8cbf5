"""The public conformance check, `jaxcheckers.testing.check_game`: every built-in game passes it,
and an env that breaks the contract fails it, with a message that names the rule.

The broken envs are the plug-in Connect Four of `test_plugin_game.py`, each with one fault; the
plug-in game itself passes the check in its own test file."""

from __future__ import annotations

import subprocess
import sys

import jax.numpy as jnp
import pytest

from jaxcheckers import games
from jaxcheckers.testing import check_game
from tests.test_plugin_game import COLS, NAME, ROWS, ConnectFour, ConnectState


@pytest.mark.parametrize("name", sorted(games.BUILTIN))
def test_every_built_in_game_passes(name):
    assert check_game(name) is None


class IntegerRewards(ConnectFour):
    def _init(self, key):
        state = super()._init(key)
        return state._replace(rewards=jnp.zeros(2, jnp.int32))


class OpenAfterTheEnd(ConnectFour):
    """Offers its free columns even once the game is over."""

    def _init(self, key):
        return OpenState(*super()._init(key))

    def _step(self, state, action):
        return OpenState(*super()._step(state, action))


class OpenState(ConnectState):
    @property
    def legal_action_mask(self):
        return self.board[..., (ROWS - 1) * COLS :] == 0


class WinnerTakesAll(ConnectFour):
    """Gives the winner +1 and the loser nothing."""

    def _step(self, state, action):
        state = super()._step(state, action)
        return state._replace(rewards=jnp.maximum(state.rewards, 0.0))


class Blinkered(ConnectFour):
    """Shows every player the board as player 0 sees it."""

    def observe(self, state, player):
        return super().observe(state, jnp.zeros_like(player))


class IntPlayerRefused(ConnectFour):
    """Reads the player's dtype, which an int has not (as tic-tac-toe once did)."""

    def observe(self, state, player):
        return super().observe(state, player.astype(jnp.int32))


BROKEN = {
    "integer rewards": (
        IntegerRewards,
        r"reset\(key\): rewards is int32\(2,\), the contract says float32\(2,\)",
    ),
    "an open mask after the end": (
        OpenAfterTheEnd,
        r"step \d+, game \d+: a finished game's legal_action_mask must be all False",
    ),
    "rewards that are not zero-sum": (
        WinnerTakesAll,
        r"step \d+, game \d+: a game ended by a legal move must give zero-sum rewards "
        r"\(\+1/-1 or 0/0\) \(final.rewards \[(1.0, 0.0|0.0, 1.0)\]\)",
    ),
    "an observe that is not the observation": (
        Blinkered,
        r"step \d+, game \d+: observe\(state, state.current_player\) is not state.observation",
    ),
    "an observe that fails on an int player": (
        IntPlayerRefused,
        r"observe\(state, 0\) fails on a player given as an int: AttributeError",
    ),
}


@pytest.mark.parametrize("broken, message", BROKEN.values(), ids=BROKEN.keys())
def test_an_env_that_breaks_the_contract_fails_with_the_rule_named(broken, message):
    with pytest.raises(AssertionError, match=r"^check_game\('connect4x5'\): " + message):
        check_game(broken())


def test_a_default_agent_the_game_lacks_fails_by_name(monkeypatch):
    spec = games.GameSpec(
        name=NAME,
        make=ConnectFour,
        defaults=games.Defaults(seats=("human", "random"), scored_against=("random", "perfect")),
    )
    monkeypatch.setitem(games._REGISTERED, spec.name, spec)
    with pytest.raises(AssertionError, match="its default agent 'perfect': perfect plays"):
        check_game(spec.name)


def test_a_fixed_start_fails_a_check_that_asks_for_a_random_one():
    with pytest.raises(AssertionError, match="the same starts, but random_start=True"):
        check_game(ConnectFour(), random_start=True)


def test_options_go_to_the_game_and_not_with_an_env():
    with pytest.raises(ValueError, match="options only with a game's name"):
        check_game(ConnectFour(), board_size=6)
    with pytest.raises(ValueError, match="batch >= 4"):
        check_game(ConnectFour(), batch=2)


def test_the_module_imports_with_jax_alone():
    code = (
        "import sys, jaxcheckers.testing; "
        "bad = [m for m in ('pytest', 'pettingzoo', 'gymnasium', 'flax') if m in sys.modules]; "
        "assert bad == [], bad"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]


def test_a_missing_extra_skips_the_adapters_with_a_warning_naming_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "pettingzoo.test", None)  # import fails: not installed
    monkeypatch.setitem(sys.modules, "gymnasium", None)
    with pytest.warns(UserWarning) as seen:
        check_game("tictactoe", adapters=True)
    assert [str(warning.message) for warning in seen] == [
        f"check_game('tictactoe'): skipped: {who} needs the package '{package}' ({package}), "
        f"which the 'adapters' extra installs: pip install 'jaxcheckers[adapters]'"
        for who, package in [
            ("PettingZoo's api_test", "pettingzoo"),
            ("Gymnasium's check_env", "gymnasium"),
        ]
    ]
    assert seen[0].filename == __file__  # the warning points at the caller
