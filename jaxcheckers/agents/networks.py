"""Actor-critic networks over the mover's-frame observation, and the masked policy.

One network plays both seats: the observation is always in the frame of the player to move, the
logits are over the env's actions (also in the mover's frame) and the value is that player's
expected outcome, in [-1, 1]. The trainer builds them with flax (the `training` extra); a
trained network plays with jax alone through `jaxcheckers.agents.inference`, which applies the
same params.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp

from jaxcheckers.agents.inference import NETWORKS, mlp_inputs, network_options
from jaxcheckers.extras import needed_for
from jaxcheckers.games import make

with needed_for("training or loading a training run's network"):
    import flax.linen as nn

__all__ = [
    "MLPActorCritic",
    "ConvActorCritic",
    "make_network",
    "NETWORKS",
    "masked_logits",
    "masked_log_prob",
    "masked_entropy",
    "sample_action",
    "ILLEGAL_LOGIT",
    "network_options",
    "network_for",
]

_DEFAULT_KERNEL_INIT = nn.initializers.lecun_normal()  # flax Dense's own default

# Finite, so that nothing downstream meets inf - inf; exp() of it is exactly 0 in float32.
ILLEGAL_LOGIT = -1e9


class MLPActorCritic(nn.Module):
    """An MLP torso, a linear policy head and a tanh value head.

    With `split` the value head has a torso of its own (same widths), so that the value loss
    does not pull on the features the policy reads. `inputs` (static) maps the observation
    batch to the torso's input, flattened by default.
    """

    num_actions: int
    hidden_sizes: Sequence[int] = (256, 256)
    split: bool = False
    inputs: Callable[[jax.Array], jax.Array] | None = None
    dtype: Any = jnp.float32  # what the layers compute in
    param_dtype: Any = jnp.float32  # what the params are stored in

    @nn.compact
    def __call__(self, observation: jax.Array) -> tuple[jax.Array, jax.Array]:
        """observation [B, *obs_shape] -> logits [B, num_actions], value [B] (float32 always)."""
        if self.inputs is None:
            x = observation.reshape(observation.shape[0], -1)
        else:
            x = self.inputs(observation)
        x = x.astype(self.dtype)
        policy_features = self._torso(x)
        value_features = self._torso(x) if self.split else policy_features
        logits = self._dense(self.num_actions, nn.initializers.orthogonal(0.01))(policy_features)
        value = self._dense(1, nn.initializers.orthogonal(1.0))(value_features)
        return _float32(logits, jnp.tanh(value[:, 0]))

    def _torso(self, x: jax.Array) -> jax.Array:
        for width in self.hidden_sizes:
            x = nn.relu(self._dense(width)(x))
        return x

    def _dense(self, width: int, kernel_init=_DEFAULT_KERNEL_INIT) -> nn.Dense:
        return nn.Dense(
            width, kernel_init=kernel_init, dtype=self.dtype, param_dtype=self.param_dtype
        )


class ConvActorCritic(nn.Module):
    """Residual 3x3 convolutions over an (H, W, C) board; dense heads (for GPUs)."""

    num_actions: int
    channels: int = 64
    blocks: int = 4
    dtype: Any = jnp.float32  # what the layers compute in
    param_dtype: Any = jnp.float32  # what the params are stored in

    @nn.compact
    def __call__(self, observation: jax.Array) -> tuple[jax.Array, jax.Array]:
        """observation [B, H, W, C] -> logits [B, num_actions], value [B] (float32 always)."""
        dtypes = {"dtype": self.dtype, "param_dtype": self.param_dtype}
        x = observation.astype(self.dtype)
        x = nn.relu(nn.Conv(self.channels, (3, 3), **dtypes)(x))
        for _ in range(self.blocks):
            y = nn.relu(nn.Conv(self.channels, (3, 3), **dtypes)(x))
            y = nn.Conv(self.channels, (3, 3), **dtypes)(y)
            x = nn.relu(x + y)
        x = x.reshape(x.shape[0], -1)
        logits = nn.Dense(self.num_actions, kernel_init=nn.initializers.orthogonal(0.01), **dtypes)(
            x
        )
        hidden = nn.relu(nn.Dense(self.channels, **dtypes)(x))
        value = nn.Dense(1, kernel_init=nn.initializers.orthogonal(1.0), **dtypes)(hidden)
        return _float32(logits, jnp.tanh(value[:, 0]))


def _float32(logits: jax.Array, value: jax.Array) -> tuple[jax.Array, jax.Array]:
    """The outputs as float32 whatever the layers computed in: the masking (ILLEGAL_LOGIT), the
    sampling and the losses downstream are written for float32."""
    return logits.astype(jnp.float32), value.astype(jnp.float32)


def make_network(
    num_actions: int,
    observation_shape: tuple[int, ...],
    *,
    network: str = "mlp",
    hidden_sizes: Sequence[int] = (256, 256),
    conv_channels: int = 64,
    conv_blocks: int = 4,
    game: str | None = None,
    dtype: Any = jnp.float32,
    param_dtype: Any = jnp.float32,
) -> nn.Module:
    """The network called `network` (one of NETWORKS; the conv one needs (H, W, C) boards).

    `game` (a registered name) picks the inputs of "mlp-tactical"; without it, checkers'.
    `dtype`: what the layers compute in; `param_dtype`: what the params are stored in (the
    trainers' precision policy: training/precision.py).
    """
    dtypes = {"dtype": dtype, "param_dtype": param_dtype}
    if network == "conv":
        if len(observation_shape) != 3:
            raise ValueError(
                f"the conv network needs (H, W, C) observations, got {observation_shape}"
            )
        return ConvActorCritic(num_actions, conv_channels, conv_blocks, **dtypes)
    if network not in NETWORKS:
        raise ValueError(f"network must be one of {', '.join(NETWORKS)}, not {network!r}")
    return MLPActorCritic(
        num_actions,
        tuple(hidden_sizes),
        split=network == "mlp-split",
        inputs=mlp_inputs(network, observation_shape, game),
        **dtypes,
    )


def masked_logits(logits: jax.Array, legal_action_mask: jax.Array) -> jax.Array:
    """Illegal actions get ILLEGAL_LOGIT: zero probability, and (through `where`) zero gradient.

    With no legal action at all the result is uniform rather than NaN.
    """
    return jnp.where(legal_action_mask, logits, ILLEGAL_LOGIT)


def masked_log_prob(
    logits: jax.Array, legal_action_mask: jax.Array, action: jax.Array
) -> jax.Array:
    """log pi(action) [...] under the masked policy."""
    log_probs = jax.nn.log_softmax(masked_logits(logits, legal_action_mask), axis=-1)
    return jnp.take_along_axis(log_probs, action[..., None].astype(jnp.int32), axis=-1)[..., 0]


def masked_entropy(logits: jax.Array, legal_action_mask: jax.Array) -> jax.Array:
    """The entropy [...] of the masked policy, summed over the legal actions only."""
    log_probs = jax.nn.log_softmax(masked_logits(logits, legal_action_mask), axis=-1)
    terms = jnp.where(legal_action_mask, jnp.exp(log_probs) * log_probs, 0.0)
    return -terms.sum(axis=-1)


def sample_action(key: jax.Array, logits: jax.Array, legal_action_mask: jax.Array) -> jax.Array:
    """int32 [...]: a legal action drawn from the masked policy."""
    return jax.random.categorical(key, masked_logits(logits, legal_action_mask)).astype(jnp.int32)


def network_for(settings: dict) -> tuple[nn.Module, Any]:
    """(network, the shapes of its params) of run settings (`config.json`, or a shipped
    network's JSON): the game they name, its options and the network's."""
    env = make(settings["game"], **settings.get("env_options", {}))
    shape = tuple(env.observation_shape)
    network = make_network(env.num_actions, shape, **network_options(settings))
    dummy = jnp.zeros((1, *env.observation_shape), jnp.float32)
    return network, jax.eval_shape(network.init, jax.random.PRNGKey(0), dummy)
