"""Without an extra: the shipped PPO network still plays (it needs jax alone), and everything
that does need the extra says so in one line that names it."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

import jaxcheckers
from jaxcheckers.agents import make_agent
from jaxcheckers.extras import MissingExtra
from tests.cli_helpers import assert_one_line_error, run_cli

ROOT = Path(__file__).resolve().parents[1]
TRAINING = ("flax", "optax", "orbax", "mctx", "chex", "tqdm", "matplotlib")
ADAPTERS = ("gymnasium", "pettingzoo")

# Runs in a fresh interpreter, the training and adapters extras' packages hidden as on
# `pip install jaxcheckers`: plays two moves against ppo:pretrained, then (the adapters only,
# as on `pip install 'jaxcheckers[adapters]'`) a Gymnasium episode against the same policy.
BASE_INSTALL = """
import sys
for name in {hidden!r}:
    sys.modules[name] = None
from jaxcheckers.cli import main
status = main(["play", "--white", "ppo:pretrained", "--seed", "0"])
print("play exit", status)
for name in {adapters!r}:
    del sys.modules[name]
import numpy as np
from jaxcheckers.adapters.gymnasium import CheckersEnv
env = CheckersEnv(opponent="ppo:pretrained")
observation, info = env.reset(seed=1)
action = int(np.flatnonzero(info["action_mask"])[0])
observation, reward, terminated, truncated, info = env.step(action)
print("gymnasium step", observation.shape, terminated)
print("imported", sorted(name for name in {hidden!r} if sys.modules.get(name) is not None))
"""


def test_the_shipped_policy_plays_on_the_base_install():
    script = BASE_INSTALL.format(hidden=TRAINING + ADAPTERS, adapters=ADAPTERS)
    if importlib.util.find_spec("gymnasium") is None:
        pytest.skip("needs gymnasium for its second half")
    environment = dict(os.environ, JAXCHECKERS_COMPILATION_CACHE="off", PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-c", script],
        input="11-15\n15-19\nquit\n",
        capture_output=True,
        text=True,
        env=environment,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "play exit 0" in lines, done.stdout
    assert "white plays" in done.stdout  # the shipped policy answered
    assert "gymnasium step (8, 8, 4) False" in lines, done.stdout
    assert "imported ['gymnasium']" in lines, done.stdout  # none of the training extra


def hide(monkeypatch, packages, modules=()) -> None:
    """`packages` as if not installed, and `modules` (which import them) to be imported again."""
    for name in list(sys.modules):
        if name.split(".")[0] in packages or name in modules:
            monkeypatch.delitem(sys.modules, name)
    for name in packages:
        monkeypatch.setitem(sys.modules, name, None)
    for name in modules:  # `from package import module` reads the package's attribute first
        parent, _, child = name.rpartition(".")
        if parent in sys.modules:
            monkeypatch.delattr(sys.modules[parent], child, raising=False)


def assert_names_extra(error: pytest.ExceptionInfo, package: str, extra: str) -> None:
    message = str(error.value)
    assert "\n" not in message
    assert f"'{package}'" in message and f"pip install 'jaxcheckers[{extra}]'" in message


def test_mcts_without_mctx_names_the_training_extra(monkeypatch):
    hide(monkeypatch, ["mctx"], ["jaxcheckers.agents.search"])
    with pytest.raises(MissingExtra) as error:
        make_agent("mcts:pretrained", jaxcheckers.make("checkers"))
    assert_names_extra(error, "mctx", "training")


def test_a_gymnasium_opponent_without_its_extra_is_one_line(monkeypatch):
    gymnasium_adapter = pytest.importorskip("jaxcheckers.adapters.gymnasium")
    hide(monkeypatch, ["mctx"], ["jaxcheckers.agents.search"])
    with pytest.raises(MissingExtra) as error:
        gymnasium_adapter.CheckersEnv(opponent="mcts:pretrained:4")
    assert_names_extra(error, "mctx", "training")


def test_the_cli_names_the_extra_of_an_agent_spec(monkeypatch, capsys):
    hide(monkeypatch, ["mctx"], ["jaxcheckers.agents.search"])
    status, _, err = run_cli(["arena", "mcts:pretrained", "random", "--games", "2"], capsys)
    assert_one_line_error(status, err, "'mctx'", "pip install 'jaxcheckers[training]'")


@pytest.mark.parametrize(
    "module",
    [
        "jaxcheckers.adapters.gymnasium",
        "jaxcheckers.adapters.pettingzoo",
        "jaxcheckers.tictactoe.gym",
        "jaxcheckers.adapters.tictactoe_gym",  # its old path, for one release
        "jaxcheckers.adapters.registration",
    ],
)
def test_an_adapter_without_its_extra_names_it(module, monkeypatch):
    pytest.importorskip("gymnasium")
    adapters = [f"jaxcheckers.adapters.{name}" for name in ("gymnasium", "pettingzoo")]
    adapters += ["jaxcheckers.tictactoe.gym", "jaxcheckers.adapters.tictactoe_gym"]
    adapters += ["jaxcheckers.adapters.registration"]
    hide(monkeypatch, ["gymnasium", "pettingzoo"], adapters)
    with pytest.raises(MissingExtra) as error:
        importlib.import_module(module)
    assert_names_extra(error, "gymnasium", "adapters")


@pytest.mark.parametrize("package", ["flax", "optax", "orbax.checkpoint"])
def test_the_trainer_without_its_extra_names_it(package, monkeypatch):
    trainer = [name for name in sys.modules if name.startswith("jaxcheckers.training")]
    hide(monkeypatch, [package.split(".")[0]], trainer + ["jaxcheckers.training"])
    with pytest.raises(MissingExtra) as error:
        importlib.import_module("jaxcheckers.training.ppo")
    assert_names_extra(error, package, "training")


def test_a_missing_module_of_jaxcheckers_itself_is_not_blamed_on_an_extra():
    from jaxcheckers.extras import needed_for

    with pytest.raises(ModuleNotFoundError) as error, needed_for("a test"):
        import jaxcheckers.no_such_module  # noqa: F401
    assert not isinstance(error.value, MissingExtra)


def test_a_picture_without_matplotlib_names_the_extra(monkeypatch, tmp_path):
    from jaxcheckers.checkers import pictures

    hide(monkeypatch, ["matplotlib"])
    state = jaxcheckers.make("checkers").reset(None)
    with pytest.raises(MissingExtra) as error:
        pictures.save_png(state, tmp_path / "board.png")
    assert_names_extra(error, "matplotlib", "training")
    assert not (tmp_path / "board.png").exists()
