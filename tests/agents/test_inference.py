"""The networks applied with jax.numpy alone (`agents.inference`, what the shipped networks play
with) give exactly what their flax modules give, on positions reached by random play."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxcheckers
from jaxcheckers.agents import pretrained
from jaxcheckers.agents.inference import NETWORKS, plain_network
from jaxcheckers.agents.random import random_agent

flax_serialization = pytest.importorskip("flax.serialization")
networks = pytest.importorskip("jaxcheckers.agents.networks")


@functools.cache
def positions(game: str, options: tuple = (), games: int = 32, plies: int = 48):
    """(observations [N, ...], legal masks [N, A]) of `games` random games, every ply."""
    env = jaxcheckers.make(game, **dict(options))

    @jax.jit
    def play(key):
        def ply(states, key):
            keys = jax.random.split(key, games)
            actions = jax.vmap(random_agent)(states, keys)
            seen = (states.observation, states.legal_action_mask, states.terminated)
            return jax.vmap(env.step)(states, actions), seen

        states = jax.vmap(env.reset)(jax.random.split(key, games))
        _, (observations, masks, over) = jax.lax.scan(ply, states, jax.random.split(key, plies))
        return observations, masks, over

    observations, masks, over = jax.device_get(play(jax.random.key(3)))
    playing = ~over.reshape(-1)
    flat = observations.reshape(-1, *observations.shape[2:])[playing]
    return flat, masks.reshape(-1, masks.shape[-1])[playing]


def flax_network(settings: dict, path):
    """(flax module, params) as the loader read them before it needed jax alone."""
    network, shapes = networks.network_for(settings)
    template = jax.tree.map(lambda x: jnp.zeros(x.shape, x.dtype), shapes)
    return network, flax_serialization.from_bytes(template, path.read_bytes())


# Chess's 16 MB network is the slow sample; the command line plays it fast (test_pretrained).
SHIPPED = [
    pytest.param(name, game, marks=pytest.mark.slow) if game == "chess" else (name, game)
    for name in sorted(pretrained.NAMES)
    for game in pretrained.games(name)
]


@pytest.mark.parametrize("name, game", SHIPPED)
def test_a_shipped_network_reads_and_plays_as_its_flax_module(name, game):
    params, network, settings = pretrained.load(name, game=game)
    path = pretrained.DIRECTORY / f"{pretrained.stem(name, game)}.msgpack"
    module, flax_params = flax_network(settings, path)
    assert jax.tree.structure(params) == jax.tree.structure(flax_params)
    for ours, theirs in zip(jax.tree.leaves(params), jax.tree.leaves(flax_params), strict=True):
        assert ours.dtype == theirs.dtype
        np.testing.assert_array_equal(ours, theirs)

    options = tuple(settings.get("env_options", {}).items())
    observations, masks = positions(settings["game"], options)
    assert len(observations) > 1000
    logits, values = jax.jit(network.apply)(params, observations)
    flax_logits, flax_values = jax.jit(module.apply)(flax_params, observations)
    np.testing.assert_array_equal(logits, flax_logits)
    np.testing.assert_array_equal(values, flax_values)
    moves = np.where(masks, logits, -np.inf).argmax(-1)
    assert masks[np.arange(len(moves)), moves].all()
    assert len(np.unique(moves)) > 10  # the positions are not all alike


@pytest.mark.parametrize(
    "game, network", [("checkers", network) for network in NETWORKS] + [("tictactoe", "mlp")]
)
def test_every_network_applies_as_its_flax_module(game, network):
    options = {"board_size": 6} if game == "checkers" else {}
    settings = {"game": game, "env_options": options, "network": network}
    settings |= {"hidden_sizes": [24, 16], "conv_channels": 8, "conv_blocks": 1}
    module, shapes = networks.network_for(settings)
    plain, env = plain_network(settings)
    # Boards of random planes (the forward pass does not care whether a game reaches them), and
    # every weight drawn at 1 / sqrt(fan-in), not flax's small heads and zero biases.
    observations = jax.random.bernoulli(jax.random.key(0), 0.3, (256, *env.observation_shape))
    leaves, tree = jax.tree.flatten(shapes)
    keys = jax.random.split(jax.random.key(2), len(leaves))
    params = jax.tree.unflatten(
        tree,
        [
            jax.random.normal(k, x.shape) / np.sqrt(np.prod(x.shape[:-1]) if x.ndim > 1 else 4)
            for k, x in zip(keys, leaves, strict=True)
        ],
    )
    plain.check(params, tuple(env.observation_shape), env.num_actions)
    logits, values = jax.jit(plain.apply)(params, observations)
    expected_logits, expected_values = jax.jit(module.apply)(params, observations)
    np.testing.assert_array_equal(logits, expected_logits)
    np.testing.assert_array_equal(values, expected_values)
    assert np.ptp(np.asarray(values)) > 0.1  # the value head sees the board


def test_params_that_do_not_fit_the_settings_are_refused_in_one_line(tmp_path):
    stem = pretrained.stem(pretrained.NAME)
    shipped = (pretrained.DIRECTORY / f"{stem}.json").read_text()
    (tmp_path / f"{stem}.json").write_text(shipped.replace('"mlp-tactical"', '"mlp"'))
    params = (pretrained.DIRECTORY / f"{stem}.msgpack").read_bytes()
    (tmp_path / f"{stem}.msgpack").write_bytes(params)
    with pytest.raises(ValueError, match="does not fit") as error:
        pretrained.load(pretrained.NAME, tmp_path)
    assert "\n" not in str(error.value)
    (tmp_path / f"{stem}.msgpack").write_bytes(b"\xc1 not msgpack")
    with pytest.raises(ValueError, match="is not a params file"):
        pretrained.load(pretrained.NAME, tmp_path)
