"""The package's public surface: `dir(jaxcheckers)` holds `__all__` and the subpackages only, and
every built-in game's State carries pgx's `env_id`."""

from __future__ import annotations

import types

import jax
import pytest

import jaxcheckers
from jaxcheckers import games


def test_the_top_level_namespace_is_all_and_the_subpackages():
    public = {name for name in dir(jaxcheckers) if not name.startswith("_")}
    assert set(jaxcheckers.__all__) <= public
    extra = public - set(jaxcheckers.__all__)
    stray = [
        name
        for name in extra
        if not (
            isinstance(getattr(jaxcheckers, name), types.ModuleType)
            and getattr(jaxcheckers, name).__name__ == f"jaxcheckers.{name}"
        )
    ]
    assert stray == []
    assert jaxcheckers.__version__ and jaxcheckers.GAMES == tuple(games.BUILTIN)


@pytest.mark.parametrize("name", sorted(games.BUILTIN))
def test_every_built_in_state_has_pgx_s_env_id(name):
    env = jaxcheckers.make(name)
    assert env.state_type.env_id == env.id == name
    assert "env_id" not in env.state_type._fields  # a name, not a pytree leaf


def test_a_batch_of_states_has_the_env_id_too():
    env = jaxcheckers.make("tictactoe")
    keys = jax.random.split(jax.random.key(0), 3)
    batch = jax.eval_shape(jax.vmap(env.reset), keys)  # the State type, nothing compiled
    assert batch.current_player.shape == (3,) and batch.env_id == "tictactoe"


def test_the_conformance_check_is_a_public_module_of_the_package():
    import jaxcheckers.testing

    assert jaxcheckers.testing.__all__ == ["check_game", "CONTRACT"]
    assert callable(jaxcheckers.testing.check_game)
    test_the_top_level_namespace_is_all_and_the_subpackages()  # a module there, nothing more
