"""Search-guided self-play (AlphaZero with Gumbel MuZero search, on DeepMind's mctx).

    train = make_train(AlphaZeroConfig(game="tictactoe", total_steps=200_000))
    train_state, metrics = jax.jit(train)(jax.random.key(0))

One `jit` holds the whole run, as in the PPO trainer: a `lax.scan` over updates, each a scan of
`rollout_length` batched self-play moves, every move chosen by `mctx.gumbel_muzero_policy` with
the env's own `step` as the model (`jaxcheckers.agents.search`), then `num_epochs` x
`num_minibatches` gradient steps on the search's improved policy (cross-entropy) and on the
game results (squared error). The batch of games is sharded over the devices of `mesh`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import mctx
import optax
from jax.sharding import Mesh, NamedSharding, PartitionSpec
from jaxcheckers.training.opponents import batched_autoreset_step
from jaxcheckers.training.ppo import DATA_AXIS, data_mesh

import jaxcheckers
from jaxcheckers.agents import search
from jaxcheckers.agents.networks import make_network, masked_logits
from jaxcheckers.agents.policy import network_options

__all__ = ["AlphaZeroConfig", "TrainState", "make_train", "make_trainer", "value_targets"]


@dataclass(frozen=True)
class AlphaZeroConfig:
    game: str = "checkers"  # a name for jaxcheckers.make
    env_options: dict[str, Any] = field(default_factory=dict)
    num_envs: int = 64  # games played in parallel, one search tree each
    rollout_length: int = 32  # self-play moves per game between two updates
    total_steps: int = 1_000_000  # self-play moves in all
    num_simulations: int = 32  # per move
    max_num_considered_actions: int = 16  # Gumbel MuZero's root candidates
    num_epochs: int = 2
    num_minibatches: int = 4
    learning_rate: float = 1e-3
    value_coef: float = 1.0
    max_grad_norm: float = 1.0
    network: str = "mlp"
    hidden_sizes: tuple[int, ...] = (256, 256)
    conv_channels: int = 64
    conv_blocks: int = 4
    seed: int = 0

    def __post_init__(self):
        for name in ("num_envs", "rollout_length", "total_steps", "num_simulations", "num_epochs"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        if self.num_envs % self.num_minibatches:
            raise ValueError("num_minibatches must divide num_envs")

    @property
    def steps_per_update(self) -> int:
        return self.num_envs * self.rollout_length

    @property
    def num_updates(self) -> int:
        return max(1, self.total_steps // self.steps_per_update)

    def replace(self, **changes: Any) -> AlphaZeroConfig:
        return dataclasses.replace(self, **changes)


class TrainState(NamedTuple):
    params: Any
    opt_state: Any
    env_state: Any  # the batch of games [num_envs, ...]
    key: jax.Array
    update_step: jax.Array  # int32 ()


class Sample(NamedTuple):
    """One self-play move of every game; stacked by the scan to [T, B, ...]."""

    observation: jax.Array  # [B, *obs]  mover's frame
    legal_action_mask: jax.Array  # bool [B, A]
    policy_target: jax.Array  # float32 [B, A]  the search's improved policy
    reward: jax.Array  # float32 [B]  to the mover
    same_mover_next: jax.Array  # bool [B]  the mover moves again (a capture goes on)
    ended: jax.Array  # bool [B]  the game ended with this move (terminated or truncated)
    first_player_reward: jax.Array  # float32 [B]  player 0's reward where a game ended


def value_targets(
    reward: jax.Array, same_mover_next: jax.Array, ended: jax.Array, bootstrap: jax.Array
) -> jax.Array:
    """The outcome [T, B] of each game from each move on, from the view of that move's mover.

    z_t = r_t + d_t z_{t+1}, d_t = 0 where the game ended, +1 where the same player moves next,
    −1 where the turn passes; z_T = bootstrap [B] (the value of the states left to play, from
    their movers' view). A game cut by truncation counts as a draw, as in the arena.
    """

    def back(z_next, step):
        r, same, over = step
        d = jnp.where(over, 0.0, jnp.where(same, 1.0, -1.0))
        z = r + d * z_next
        return z, z

    _, z = jax.lax.scan(back, bootstrap, (reward, same_mover_next, ended), reverse=True)
    return z


class Trainer(NamedTuple):
    config: AlphaZeroConfig
    env: Any
    network: Any
    init: Callable  # key -> TrainState
    update: Callable  # TrainState -> (TrainState, metrics)


def make_trainer(config: AlphaZeroConfig, env=None, mesh: Mesh | None = None) -> Trainer:
    env = jaxcheckers.make(config.game, **config.env_options) if env is None else env
    mesh = data_mesh() if mesh is None else mesh
    if config.num_envs % mesh.devices.size:
        raise ValueError(f"num_envs ({config.num_envs}) must divide over {mesh.devices.size}")
    network = make_network(env.num_actions, tuple(env.observation_shape), **network_options(config))
    evaluate = search.network_evaluator(network.apply)
    recurrent_fn = search.make_recurrent_fn(env, evaluate)
    optimizer = optax.chain(
        optax.clip_by_global_norm(config.max_grad_norm), optax.adam(config.learning_rate)
    )
    sharding = NamedSharding(mesh, PartitionSpec(DATA_AXIS))

    def shard(tree):
        return jax.tree.map(lambda x: jax.lax.with_sharding_constraint(x, sharding), tree)

    def init(key: jax.Array) -> TrainState:
        net_key, env_key, key = jax.random.split(key, 3)
        states = jax.vmap(env.reset)(jax.random.split(env_key, config.num_envs))
        params = network.init(net_key, states.observation[:1])
        return TrainState(params, optimizer.init(params), shard(states), key, jnp.int32(0))

    def self_play_move(params, carry, _):
        states, key = carry
        key, search_key, step_key = jax.random.split(key, 3)
        policy = mctx.gumbel_muzero_policy(
            params,
            search_key,
            search.make_root(evaluate, params, states),
            recurrent_fn,
            num_simulations=config.num_simulations,
            invalid_actions=~states.legal_action_mask,
            max_num_considered_actions=config.max_num_considered_actions,
        )
        mover = states.current_player
        stepped = batched_autoreset_step(env, states, policy.action, step_key)
        final = stepped.final
        ended = final.terminated | final.truncated
        sample = Sample(
            observation=states.observation,
            legal_action_mask=states.legal_action_mask,
            policy_target=policy.action_weights,
            reward=jnp.take_along_axis(final.rewards, mover[:, None], axis=1)[:, 0],
            same_mover_next=final.current_player == mover,
            ended=ended,
            first_player_reward=jnp.where(ended, final.rewards[:, 0], 0.0),
        )
        return (shard(stepped.state), key), sample

    def loss(params, batch):
        observation, mask, policy_target, target = batch
        logits, value = network.apply(params, observation)
        log_policy = jax.nn.log_softmax(masked_logits(logits, mask), axis=-1)
        policy_loss = -(policy_target * jnp.where(mask, log_policy, 0.0)).sum(-1).mean()
        value_loss = jnp.mean((value - target) ** 2)
        return policy_loss + config.value_coef * value_loss, (policy_loss, value_loss)

    grad_fn = jax.value_and_grad(loss, has_aux=True)

    def gradient_step(carry, batch):
        params, opt_state = carry
        (_, terms), grads = grad_fn(params, batch)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return (optax.apply_updates(params, updates), opt_state), terms

    def epoch(carry, key):
        params, opt_state, data = carry
        size = data[0].shape[0]
        order = jax.random.permutation(key, size)
        batches = jax.tree.map(
            lambda x: x[order].reshape(config.num_minibatches, -1, *x.shape[1:]), data
        )
        (params, opt_state), terms = jax.lax.scan(gradient_step, (params, opt_state), batches)
        return (params, opt_state, data), terms

    def update(train_state: TrainState):
        key, play_key, learn_key = jax.random.split(train_state.key, 3)
        (states, _), samples = jax.lax.scan(
            lambda c, x: self_play_move(train_state.params, c, x),
            (train_state.env_state, play_key),
            None,
            config.rollout_length,
        )
        _, bootstrap = network.apply(train_state.params, states.observation)
        target = value_targets(samples.reward, samples.same_mover_next, samples.ended, bootstrap)
        flat = lambda x: x.reshape(-1, *x.shape[2:])  # noqa: E731
        data = (
            flat(samples.observation),
            flat(samples.legal_action_mask),
            flat(samples.policy_target),
            flat(target),
        )
        (params, opt_state, _), (policy_loss, value_loss) = jax.lax.scan(
            epoch,
            (train_state.params, train_state.opt_state, data),
            jax.random.split(learn_key, config.num_epochs),
        )
        step = train_state.update_step + 1
        games = jnp.maximum(samples.ended.sum(), 1)
        metrics = {
            "update": step,
            "env_steps": step * config.steps_per_update,
            "policy_loss": policy_loss.mean(),
            "value_loss": value_loss.mean(),
            "games": samples.ended.sum(),
            "first_player_wins": (samples.first_player_reward > 0).sum() / games,
            "draws": (samples.ended & (samples.first_player_reward == 0)).sum() / games,
        }
        return TrainState(params, opt_state, states, key, step), metrics

    return Trainer(config, env, network, init, update)


def make_train(config: AlphaZeroConfig, env=None, mesh: Mesh | None = None) -> Callable:
    """`train(key) -> (TrainState, metrics stacked over the updates)`: pure and jittable."""
    trainer = make_trainer(config, env, mesh)

    def train(key: jax.Array):
        return jax.lax.scan(
            lambda s, _: trainer.update(s), trainer.init(key), None, config.num_updates
        )

    return train
