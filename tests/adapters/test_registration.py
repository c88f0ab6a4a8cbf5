"""Gymnasium ids from a fresh interpreter: made by id alone, `check_env` on every id through
`gymnasium.make`, and `make_vec(..., vectorization_mode="async")` with spawned workers."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

gymnasium = pytest.importorskip("gymnasium")

from jaxcheckers import games  # noqa: E402
from jaxcheckers.adapters import registration  # noqa: E402
from jaxcheckers.tictactoe import spec as tictactoe_spec  # noqa: E402
from jaxcheckers.tictactoe.env import TicTacToe  # noqa: E402
from jaxcheckers.tictactoe.gym import TicTacToeGymEnv  # noqa: E402

FRESH_INTERPRETER = textwrap.dedent(
    """
    import sys, warnings
    import numpy as np
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    assert not [m for m in sys.modules if m.startswith("jaxcheckers")]
    # The "module:id" form imports the registration, which registers both ids.
    env = gymnasium.make("jaxcheckers.adapters.registration:jaxcheckers/Checkers-v0", board_size=6)
    assert type(env.unwrapped).__name__ == "LearnerEnv" and env.unwrapped.adapter.name == "checkers"
    from jaxcheckers.adapters.registration import IDS

    # Checked in the tests' own process through the registry too: checkers and chess in
    # tests/adapters, tic-tac-toe-gym in tests/tictactoe. Here they need only to resolve.
    CHECKED_ELSEWHERE = ("Chess", "Checkers", "TicTacToeGym")
    for env_id in IDS:
        if env_id.split("/")[1].split("-")[0] in CHECKED_ELSEWHERE:
            entry = gymnasium.spec(env_id).entry_point
            entry = getattr(entry, "func", entry)  # a partial carrying the env's metadata
            print("RESULT registered", env_id, getattr(entry, "__qualname__", entry))
            continue
        # The smaller boards compile faster: checkers 6×6, draughts on 8×8 (Brazilian).
        options = {"Checkers": {"board_size": 6}, "Draughts": {"variant": "brazilian"}}.get(
            env_id.split("/")[1].split("-")[0], {})
        env = gymnasium.make(env_id, **options)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # check_env's complaints fail the test
            check_env(env.unwrapped)
        print("RESULT checked", env_id)

    # Async workers started fresh ("spawn"): no JAX forked, so they step.
    envs = gymnasium.make_vec(
        "jaxcheckers/TicTacToeGym-v0", num_envs=2, vectorization_mode="async",
        vector_kwargs={"context": "spawn"},
    )
    observations, infos = envs.reset(seed=0)
    observations, rewards, *_ = envs.step(np.array([4, 0]))
    assert observations[0][1, 1] == 1 and observations[1][0, 0] == 1, observations
    envs.close()
    print("RESULT async ok")
    """
)


def test_ids_resolve_check_env_passes_and_async_workers_run_in_a_fresh_interpreter():
    done = subprocess.run(
        [sys.executable, "-c", FRESH_INTERPRETER],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    results = [line.split(maxsplit=1)[1] for line in done.stdout.splitlines() if "RESULT" in line]
    assert results == [
        "registered jaxcheckers/Checkers-v0 jaxcheckers.adapters.gymnasium:LearnerEnv",
        "registered jaxcheckers/Chess-v0 jaxcheckers.adapters.gymnasium:LearnerEnv",
        "checked jaxcheckers/Draughts-v0",
        "checked jaxcheckers/TicTacToe-v0",
        "registered jaxcheckers/TicTacToeGym-v0 gym_env",
        "async ok",
    ]


def test_importing_the_registration_loads_no_env():
    code = (
        "import sys, jaxcheckers.adapters.registration as r; "
        "loaded = [m for m in sys.modules if m.startswith(('jaxcheckers.adapters.', 'pgx'))]; "
        "assert loaded == ['jaxcheckers.adapters.registration'], loaded; "
        "import gymnasium; assert all(i in gymnasium.registry for i in r.IDS)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]


def test_a_game_brings_its_own_gymnasium_ids_through_its_spec():
    own = games.GymnasiumEnv(tictactoe_spec.gym_env, tictactoe_spec.gym_vector_env)
    adapters = games.Adapters(gymnasium_envs={"owngym/Both-v0": own})
    game = games.register(games.GameSpec(name="own_gym", make=TicTacToe, adapters=adapters))
    try:
        assert "owngym/Both-v0" in registration.register_envs()
        env = gymnasium.make("owngym/Both-v0", size=4)
        assert isinstance(env.unwrapped, TicTacToeGymEnv)
        assert env.reset(seed=0)[0].shape == (4, 4)
    finally:
        games._REGISTERED.pop(game.name, None)
        gymnasium.registry.pop("owngym/Both-v0", None)
    with pytest.warns(DeprecationWarning, match="jaxcheckers.tictactoe.spec.GYM_ID"):
        old = registration.TICTACTOE_GYM_ID
    assert old == tictactoe_spec.GYM_ID == "jaxcheckers/TicTacToeGym-v0"
