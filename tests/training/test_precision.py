"""The precision policy (training/precision.py): with bfloat16 compute the layers run in
bfloat16 while the params, the optimizer state, the outputs and the loss stay float32."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest
from jaxcheckers.training.config import TrainConfig
from jaxcheckers.training.losses import Batch, ppo_loss
from jaxcheckers.training.ppo import make_trainer

import jaxcheckers
from jaxcheckers.agents.networks import make_network

TINY = dict(game="tictactoe", num_envs=8, rollout_length=4, num_minibatches=2, num_epochs=1)


def _float_dtypes(tree) -> set:
    leaves = jax.tree.leaves(tree)
    return {leaf.dtype for leaf in leaves if jnp.issubdtype(leaf.dtype, jnp.floating)}


def _layer_output_dtypes(network, params, observation) -> set:
    """The dtypes of every layer's output inside the network (flax's captured intermediates)."""
    _, captured = network.apply(params, observation, capture_intermediates=True, mutable=True)
    layers = {k: v for k, v in captured["intermediates"].items() if k != "__call__"}
    return {out.dtype for layer in layers.values() for out in jax.tree.leaves(layer)}


def test_bfloat16_compute_keeps_params_optimizer_state_and_loss_float32_and_updates():
    trainer = make_trainer(TrainConfig(**TINY, hidden_sizes=(16,), compute_dtype="bfloat16"))
    state = jax.jit(trainer.init)(jax.random.PRNGKey(0))
    assert _float_dtypes(state.params) == {jnp.dtype(jnp.float32)}
    assert _float_dtypes(state.opt_state) == {jnp.dtype(jnp.float32)}

    observation = state.env_state.observation
    assert _layer_output_dtypes(trainer.network, state.params, observation) == {
        jnp.dtype(jnp.bfloat16)
    }
    logits, value = trainer.network.apply(state.params, observation)
    assert logits.dtype == value.dtype == jnp.float32  # handed on as float32

    n = observation.shape[0]
    batch = Batch(
        observation=observation,
        legal_action_mask=state.env_state.legal_action_mask,
        action=jnp.argmax(state.env_state.legal_action_mask, axis=-1).astype(jnp.int32),
        log_prob=jnp.zeros(n),
        value=jnp.zeros(n),
        advantage=jnp.linspace(-1.0, 1.0, n),
        target=jnp.ones(n),
    )
    loss, terms = ppo_loss(
        state.params, trainer.network.apply, batch, clip_epsilon=0.2, value_coef=0.5,
        entropy_coef=0.01,
    )  # fmt: skip
    assert loss.dtype == jnp.float32 and bool(jnp.isfinite(loss))

    new_state, metrics = trainer.run_updates(state, 1)
    assert int(new_state.update_step) == 1
    assert metrics["loss"].dtype == jnp.float32 and bool(jnp.isfinite(metrics["loss"]).all())
    assert _float_dtypes(new_state.params) == {jnp.dtype(jnp.float32)}
    assert _float_dtypes(new_state.opt_state) == {jnp.dtype(jnp.float32)}


# float32 compute is every other test's; bfloat16 is the fast sample here.
@pytest.mark.parametrize("dtype", [pytest.param(jnp.float32, marks=pytest.mark.slow), jnp.bfloat16])
def test_the_conv_network_computes_in_its_dtype_over_float32_params(dtype):
    env = jaxcheckers.make("tictactoe")
    network = make_network(
        env.num_actions, env.observation_shape, network="conv", conv_channels=4, conv_blocks=1,
        dtype=dtype,
    )  # fmt: skip
    observation = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), 2)).observation
    params = network.init(jax.random.PRNGKey(1), observation)
    assert _float_dtypes(params) == {jnp.dtype(jnp.float32)}
    assert _layer_output_dtypes(network, params, observation) == {jnp.dtype(dtype)}


def test_the_default_compute_dtype_is_float32():
    assert TrainConfig().compute_dtype == "float32"


@pytest.mark.parametrize("name", ["float16", "bf16", ""])
def test_an_unknown_compute_dtype_is_refused_in_one_line(name):
    with pytest.raises(ValueError, match="compute_dtype must be one of float32, bfloat16"):
        TrainConfig(compute_dtype=name)
