"""The step plumbing every game shares (`jaxcheckers.core`)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxcheckers
from jaxcheckers.core import action_index, checked_max_steps, computed_once, enable_x64

EXTREMES = {
    "bool": [False, True],
    "int8": [-128, -1, 0, 1, 127],
    "int32": [-(2**31), -7, -1, 0, 1, 255, 2**31 - 1],
    "uint32": [0, 1, 2**31, 2**32 - 1],
    "float32": [-np.inf, -2.5, -0.0, 0.0, 1e-30, 3.25, np.inf],
}


@pytest.mark.parametrize("dtype", sorted(EXTREMES))
def test_computed_once_returns_its_values_unchanged(dtype):
    values = np.array(EXTREMES[dtype], dtype=dtype)
    step_counts = jnp.arange(len(values), dtype=jnp.int32) - 2  # traced; negative ones too
    kept = jax.jit(jax.vmap(computed_once))(jnp.asarray(values), step_counts)
    assert kept.dtype == values.dtype
    np.testing.assert_array_equal(np.asarray(kept), values)


def test_computed_once_may_build_its_one_from_the_value_itself():
    board = np.array([[-128, -2, -1, 0, 1, 2, 127]], dtype=np.int8)  # as the observation pins it
    kept = jax.jit(lambda x: computed_once(x, x))(jnp.asarray(board))
    assert kept.dtype == board.dtype
    np.testing.assert_array_equal(np.asarray(kept), board)


def test_computed_once_keeps_a_pytree_and_its_shapes():
    tree = {"a": jnp.arange(6, dtype=jnp.uint32).reshape(2, 3), "b": (jnp.bool_(True),)}
    kept = jax.jit(computed_once)(tree, jnp.int32(3))
    assert jax.tree.structure(kept) == jax.tree.structure(tree)
    np.testing.assert_array_equal(kept["a"], tree["a"])
    assert bool(kept["b"][0])


# -- the action as `Env.step` reads it (issue 19, item 8) ----------------------------------------

CHECKERS = jaxcheckers.make("checkers")
OPENING = CHECKERS.reset(jax.random.key(0))
LEGAL = 145  # 9-13 at the opening: square 17 = (2, 1), direction 2 (SW)


def test_the_chosen_legal_action_is_legal_at_the_opening():
    assert bool(OPENING.legal_action_mask[LEGAL])


@pytest.mark.parametrize("action", [145.7, 145.0, np.float32(145), np.array(145.0), True, "145"])
def test_a_non_integer_action_raises_type_error(action):
    with pytest.raises(TypeError, match="integer"):
        CHECKERS.step(OPENING, action)
    tictactoe = jaxcheckers.make("tictactoe")
    with pytest.raises(TypeError, match="integer"):
        tictactoe.step(tictactoe.reset(jax.random.key(0)), action)


def test_a_traced_float_action_raises_when_the_step_is_traced():
    with pytest.raises(TypeError, match="integer"):
        jax.jit(CHECKERS.step)(OPENING, jnp.float32(145))


@pytest.mark.parametrize(
    "action",
    [2**32 + LEGAL, -(2**32) + LEGAL, 2**64 + LEGAL, np.int64(2**32 + LEGAL),
     np.uint64(2**32 + LEGAL), np.array([2**32 + LEGAL])[0], np.uint32(2**32 - 1)],
)  # fmt: skip
def test_an_integer_beyond_int32_forfeits_and_does_not_wrap(action):
    after = CHECKERS.step(OPENING, action)
    assert bool(after.terminated)
    np.testing.assert_array_equal(after.rewards, [-1.0, 0.0])


def test_a_traced_int64_beyond_int32_forfeits_under_x64():
    with enable_x64():
        actions = jnp.array([LEGAL, 2**32 + LEGAL, -(2**40)], dtype=jnp.int64)
        after = jax.jit(jax.vmap(CHECKERS.step, (None, 0)))(OPENING, actions)
    np.testing.assert_array_equal(after.terminated, [False, True, True])
    np.testing.assert_array_equal(after.rewards[:, 0], [0.0, -1.0, -1.0])


@pytest.mark.parametrize(
    "action", [LEGAL, np.int64(LEGAL), np.int8(5), np.uint32(LEGAL), jnp.int32(LEGAL)]
)
def test_in_range_integers_of_any_width_are_the_same_action(action):
    assert int(action_index(action, CHECKERS.num_actions)) == int(action)
    after = CHECKERS.step(OPENING, action)
    assert bool(after.terminated) == (int(action) != LEGAL)


def test_a_forfeit_gives_the_other_player_plus_zero():
    after = jax.jit(CHECKERS.step)(OPENING, jnp.int32(0))
    assert not np.signbit(np.asarray(after.rewards)[1])


@pytest.mark.parametrize("value", [0, -3, True, 1.5, "3", np.float32(4)])
def test_max_steps_is_a_positive_int_or_none(value):
    with pytest.raises(ValueError, match="max_steps must be a positive int or None"):
        checked_max_steps(value)
    assert checked_max_steps(None) is None
    assert checked_max_steps(np.int64(7)) == 7 and type(checked_max_steps(np.int64(7))) is int


@pytest.mark.parametrize("game", ["checkers", "chess"])
def test_every_game_with_a_cut_checks_max_steps(game):
    with pytest.raises(ValueError, match="max_steps"):
        jaxcheckers.make(game, max_steps=0)
    assert jaxcheckers.make(game, max_steps=12).max_steps == 12


def test_reset_takes_one_key_and_refuses_a_batch():
    import jaxcheckers

    env = jaxcheckers.make("tictactoe")
    keys = jax.random.split(jax.random.key(0), 3)
    with pytest.raises(ValueError, match=r"one key, got an array of shape \(3,\).*jax.vmap"):
        env.reset(keys)
    with pytest.raises(ValueError, match="one key"):
        env.reset(jax.random.key_data(keys))  # raw keys, (3, 2)
    assert jax.vmap(env.reset)(keys).board.shape == (3, 9)
    assert env.reset(jax.random.PRNGKey(0)).board.shape == (9,)  # a raw (2,) key is one key


def test_every_game_refuses_a_state_of_another_in_one_line():
    """`step` checks the State's type before it reads a field (it raised AttributeError)."""
    from jaxcheckers import games

    envs = {name: games.make(name) for name in ("checkers", "chess", "tictactoe")}
    starts = {name: games.opening(env) for name, env in envs.items()}
    for name, env in envs.items():
        for other, state in starts.items():
            if other != name:
                with pytest.raises(ValueError, match="cannot step"):
                    env.step(state, 0)
    with pytest.raises(ValueError, match="cannot step a 16-square board"):
        envs["tictactoe"].step(games.opening(games.make("tictactoe", board_size=4)), 0)


@pytest.mark.parametrize("game", ["checkers", "chess", "tictactoe", "draughts"])
def test_every_game_refuses_an_action_not_shaped_like_its_games_in_one_line(game):
    """A (1, 1) action stepped one checkers game silently; the others failed deep in JAX. The
    check runs before anything is traced."""
    from jaxcheckers import games

    env = jaxcheckers.make(game)
    one = games.opening(env)
    batch = jax.tree.map(lambda x: np.stack([x] * 3), one)
    action = int(np.flatnonzero(one.legal_action_mask)[0])
    for state, wrong in ((one, [action, action]), (one, [[action]]), (batch, action)):
        with pytest.raises(ValueError, match="one integer action per game.*jax.vmap") as error:
            env.step(state, jnp.asarray(wrong))
        assert "\n" not in str(error.value)


def test_an_action_shaped_like_the_games_steps_them_one_or_vmapped():
    env = jaxcheckers.make("tictactoe")
    one = env.reset(jax.random.key(0))
    batch = jax.vmap(env.reset)(jax.random.split(jax.random.key(0), 3))
    assert int(env.step(one, jnp.asarray(4)).step_count) == 1
    assert int(env.step(one, np.int64(4)).step_count) == 1
    assert jax.vmap(env.step)(batch, jnp.full(3, 4)).step_count.tolist() == [1, 1, 1]


@pytest.mark.parametrize("game", ["checkers", "chess", "tictactoe", "draughts"])
def test_observe_takes_a_player_as_an_int_or_an_array_and_refuses_one_that_is_no_player(game):
    """Tic-tac-toe's `observe(state, 0)` failed on the int; every game took player 2 as the
    opponent."""
    env = jaxcheckers.make(game)
    state = env.reset(jax.random.key(0))
    traced = jax.jit(env.observe)
    for player in (0, 1):
        expected = np.asarray(traced(state, jnp.int32(player)))
        for given in (player, np.int64(player), jnp.asarray(player)):
            assert np.array_equal(np.asarray(env.observe(state, given)), expected)
    assert np.array_equal(np.asarray(env.observe(state, 0)), np.asarray(state.observation))
    for bad in (2, -1, True, 0.0, np.array([0, 1])):
        with pytest.raises(ValueError, match="player must be 0 or 1"):
            env.observe(state, bad)


def test_reset_refuses_an_int_seed_and_names_the_key_to_make():
    with pytest.raises(ValueError, match=r"not the int 7: jax.random.key\(7\)"):
        jaxcheckers.make("tictactoe").reset(7)


@pytest.mark.parametrize("game", ["checkers", "chess", "tictactoe", "draughts"])
def test_the_readers_of_one_board_refuse_a_batch_or_another_game_in_one_line(game):
    """A game's FEN writer, text board and RGB picture failed deep in numpy on a batch (or, for
    tic-tac-toe's picture, drew one); on another game's state they read a wrong board."""
    from importlib.util import find_spec

    from jaxcheckers import games

    spec, env = games.spec(game), jaxcheckers.make(game)
    one = games.opening(env)
    batch = jax.tree.map(lambda x: np.stack([x] * 2), one)
    stranger = games.opening(jaxcheckers.make("tictactoe" if game != "tictactoe" else "chess"))
    readers = [f for f in (spec.notation.to_fen, spec.drawing.text, spec.drawing.rgb) if f]
    for read in readers:
        with pytest.raises(ValueError, match=r"expected one game, got a batch of shape \(2,\)"):
            read(batch)
        with pytest.raises(ValueError, match=f"expected a {game} state"):
            read(stranger)
        if game != "chess" or read is not spec.drawing.rgb or find_spec("matplotlib"):
            assert read(one) is not None  # chess draws with matplotlib, an extra
