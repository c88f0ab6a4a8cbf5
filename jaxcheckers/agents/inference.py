"""The networks at play, with jax.numpy alone: their names and options, and their forward pass
over the params their flax modules (`jaxcheckers.agents.networks`) make.

    network = plain_network(settings)             # run settings, or a shipped network's JSON
    logits, value = network.apply(params, observation)    # [B, A], [B]: as the flax module

Training a network needs flax; playing with a trained one needs jax only, so that the networks
that ship with the package play on the base install. A flax module names its layers in the
order it makes them (Dense_0, Dense_1, ...; Conv_0, ...) and the functions here read them in
that order; tests/agents/test_inference.py checks that both give the same outputs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp

from jaxcheckers.games import DEFAULT, make, spec

__all__ = [
    "NETWORKS",
    "NETWORK_FIELDS",
    "PlainNetwork",
    "plain_network",
    "mlp_inputs",
    "network_options",
]

# The names `make_network` takes: "mlp-split" is the MLP with separate policy and value torsos;
# "mlp-tactical" the MLP over the inputs its game's spec gives (`GameSpec.tactical_inputs`:
# checkers' dark squares and attack maps, chess's attack maps).
NETWORKS = ("mlp", "mlp-split", "mlp-tactical", "conv")

# The run settings (config fields) that shape a network, as `make_network` takes them (the game
# names the input features of "mlp-tactical").
NETWORK_FIELDS = ("game", "network", "hidden_sizes", "conv_channels", "conv_blocks")


def mlp_inputs(
    network: str, observation_shape: Sequence[int], game: str | None = None
) -> Callable[[jax.Array], jax.Array] | None:
    """What the MLP called `network` reads: for "mlp-tactical", the tactical inputs of `game`'s
    spec (ValueError for a game that has none; without a game, the default game's, ValueError
    for observations they do not read), else None (the flattened observation)."""
    if network != "mlp-tactical":
        return None
    name = DEFAULT if game is None else game
    inputs = spec(name).tactical_inputs
    if inputs is None:
        raise ValueError(f"the mlp-tactical network has no inputs for {name}")
    if game is None:  # no game named: the observations must be the default game's
        try:
            jax.eval_shape(inputs, jax.ShapeDtypeStruct((1, *observation_shape), jnp.int8))
        except (ValueError, TypeError, IndexError):
            shape = tuple(observation_shape)
            raise ValueError(f"the mlp-tactical network reads {name} boards, not {shape}") from None
    return inputs


def network_options(settings: Any) -> dict:
    """The keyword options of `make_network` from run settings (a dict or a config)."""
    get = settings.get if isinstance(settings, dict) else lambda name: getattr(settings, name)
    return {name: get(name) for name in NETWORK_FIELDS if get(name) is not None}


@dataclasses.dataclass(frozen=True)
class PlainNetwork:
    """`apply(params, observation [B, *obs_shape]) -> (logits [B, A], value [B])` of a network of
    NETWORKS, computed as its flax module computes it. `depth`: the MLP's hidden layers in each
    torso, or the conv network's residual blocks."""

    network: str
    depth: int
    inputs: Callable[[jax.Array], jax.Array] | None = None

    def apply(self, params: Any, observation: jax.Array) -> tuple[jax.Array, jax.Array]:
        layers = _Layers(params["params"])
        if self.network == "conv":
            return _conv_forward(layers, observation, self.depth)
        split = self.network == "mlp-split"
        return _mlp_forward(layers, observation, self.depth, split, self.inputs)

    def layer_names(self) -> set[str]:
        """The names of the layers its params hold (flax's, in the order it makes them)."""
        if self.network == "conv":
            convs = {f"Conv_{i}" for i in range(1 + 2 * self.depth)}
            return convs | {"Dense_0", "Dense_1", "Dense_2"}
        torsos = 2 if self.network == "mlp-split" else 1
        return {f"Dense_{i}" for i in range(torsos * self.depth + 2)}

    def check(self, params: Any, observation_shape: Sequence[int], num_actions: int) -> None:
        """ValueError (one line) unless `params` are this network's for these observations and
        actions."""
        try:
            names = set(params["params"])
        except (KeyError, TypeError):
            raise ValueError("the params hold no 'params' tree") from None
        if names != self.layer_names():
            raise ValueError(
                f"the params' layers {sorted(names)} are not those of the {self.network} network"
                f" {sorted(self.layer_names())}"
            )
        observation = jax.ShapeDtypeStruct((1, *observation_shape), jnp.float32)
        try:
            logits, value = jax.eval_shape(self.apply, params, observation)
        except (TypeError, ValueError, KeyError) as error:
            reason = " ".join(str(error).split())[:200]
            message = f"the params do not fit the {self.network} network: {reason}"
            raise ValueError(message) from None
        if logits.shape != (1, num_actions) or value.shape != (1,):
            raise ValueError(
                f"the params give logits {logits.shape} and values {value.shape}, not "
                f"{(1, num_actions)} and (1,)"
            )


def plain_network(settings: dict) -> tuple[PlainNetwork, Any]:
    """(network, env) of run settings (`config.json`, or a shipped network's JSON): the game they
    name with its options, and the network's shape. ValueError, one line, for settings that are
    not an object naming a game (a damaged file: `[]`)."""
    if not isinstance(settings, dict) or not isinstance(settings.get("game"), str):
        shown = repr(settings)[:40]
        raise ValueError(f"a network's settings must be an object naming its game, not {shown}")
    if not isinstance(settings.get("env_options", {}), dict):
        raise ValueError("a network's env_options must be a JSON object")
    env = make(settings["game"], **settings.get("env_options", {}))
    options = network_options(settings)
    network = options.get("network", "mlp")
    if network not in NETWORKS:
        raise ValueError(f"network must be one of {', '.join(NETWORKS)}, not {network!r}")
    if network == "conv":
        return PlainNetwork(network, options.get("conv_blocks", 4)), env
    hidden_sizes = options.get("hidden_sizes", (256, 256))
    inputs = mlp_inputs(network, tuple(env.observation_shape), settings["game"])
    return PlainNetwork(network, len(hidden_sizes), inputs), env


class _Layers:
    """The layers of a params tree, handed out in the order the flax module made them."""

    def __init__(self, params: Any):
        self.params = params
        self.made = {"Dense": 0, "Conv": 0}

    def _next(self, kind: str) -> Any:
        layer = self.params[f"{kind}_{self.made[kind]}"]
        self.made[kind] += 1
        return layer

    def dense(self, x: jax.Array) -> jax.Array:
        """flax.linen.Dense: x @ kernel + bias."""
        layer = self._next("Dense")
        kernel = jnp.asarray(layer["kernel"])
        y = jax.lax.dot_general(x, kernel, (((x.ndim - 1,), (0,)), ((), ())))
        return y + jnp.reshape(layer["bias"], (1,) * (y.ndim - 1) + (-1,))

    def conv(self, x: jax.Array) -> jax.Array:
        """flax.linen.Conv with padding "SAME", stride 1, over [B, H, W, C]."""
        layer = self._next("Conv")
        kernel = jnp.asarray(layer["kernel"])
        y = jax.lax.conv_general_dilated(
            x, kernel, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
        )
        return y + jnp.reshape(layer["bias"], (1, 1, 1, -1))


def _mlp_forward(layers: _Layers, observation, depth: int, split: bool, inputs):
    """networks.MLPActorCritic: torso (or two), a linear policy head and a tanh value head."""
    if inputs is None:
        x = observation.reshape(observation.shape[0], -1).astype(jnp.float32)
    else:
        x = inputs(observation)

    def torso(x):
        for _ in range(depth):
            x = jax.nn.relu(layers.dense(x))
        return x

    policy_features = torso(x)
    value_features = torso(x) if split else policy_features
    logits = layers.dense(policy_features)
    value = layers.dense(value_features)
    return logits, jnp.tanh(value[:, 0])


def _conv_forward(layers: _Layers, observation, blocks: int):
    """networks.ConvActorCritic: residual 3x3 convolutions, dense heads."""
    x = jax.nn.relu(layers.conv(observation.astype(jnp.float32)))
    for _ in range(blocks):
        y = jax.nn.relu(layers.conv(x))
        x = jax.nn.relu(x + layers.conv(y))
    x = x.reshape(x.shape[0], -1)
    logits = layers.dense(x)
    hidden = jax.nn.relu(layers.dense(x))
    value = layers.dense(hidden)
    return logits, jnp.tanh(value[:, 0])
