"""Search-guided self-play (AlphaZero with Gumbel MuZero search, on DeepMind's mctx).

    train = make_train(AlphaZeroConfig(game="tictactoe", total_steps=200_000))
    train_state, metrics = jax.jit(train)(jax.random.key(0))

One `jit` holds the whole run, as in the PPO trainer: a `lax.scan` over updates, each a scan of
`rollout_length` batched self-play moves, every move chosen by `mctx.gumbel_muzero_policy` with
the env's own `step` as the model (`jaxcheckers.agents.search`), then `num_epochs` x
`num_minibatches` gradient steps on the search's improved policy (cross-entropy) and on the
game results (squared error). `make_trainer` exposes init, one update and a jitted chunk of
updates for the CLI (`jaxcheckers train --algo alphazero`), as `ppo.make_trainer` does.

Each game opens with a few uniformly random moves (`opening_plies`): the search's policy is
still recorded there, but their value targets are left out, since what follows a random move
is not the policy's outcome (without them tic-tac-toe self-play collapsed to first-player
wins: training/README.md). Devices: as PPO (`training/sharding.py`): the games sharded over
"data", the rest replicated, minibatches drawn from each device's own games.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import mctx
import optax
from jax.sharding import Mesh
from jaxcheckers.training.checkpoints import initial_params
from jaxcheckers.training.config import AlphaZeroConfig
from jaxcheckers.training.opponents import batched_autoreset_step
from jaxcheckers.training.precision import network_dtypes
from jaxcheckers.training.sharding import (
    Layout,
    data_mesh,
    device_minibatches,
    jitted_updates,
    whole_run,
)

import jaxcheckers
from jaxcheckers.agents import search
from jaxcheckers.agents.networks import make_network, masked_entropy, masked_logits, network_options
from jaxcheckers.agents.random import random_legal_actions

__all__ = [
    "AlphaZeroConfig",
    "TrainState",
    "Trainer",
    "Sample",
    "make_train",
    "make_trainer",
    "value_targets",
    "record_move",
    "opening_lengths",
    "loss_terms",
]


class TrainState(NamedTuple):
    params: Any  # network parameters (replicated)
    opt_state: Any  # optax state (replicated)
    env_state: Any  # the batch of games [num_envs, ...] (sharded over "data")
    opening: jax.Array  # int32 [num_envs]  random moves that open each game in progress (sharded)
    key: jax.Array  # PRNG key: the rest of the run's randomness
    update_step: jax.Array  # int32 ()  updates done


GAME_FIELDS = ("env_state", "opening")  # TrainState's fields sharded over the devices


class Sample(NamedTuple):
    """One self-play move of every game; stacked by the scan to [T, B, ...]."""

    observation: jax.Array  # [B, *obs]  mover's frame
    legal_action_mask: jax.Array  # bool [B, A]
    policy_target: jax.Array  # float32 [B, A]  the search's improved policy
    value_weight: jax.Array  # float32 [B]  0 where the move was a random opening move, else 1
    reward: jax.Array  # float32 [B]  to the mover
    same_mover_next: jax.Array  # bool [B]  the mover moves again (a capture goes on)
    ended: jax.Array  # bool [B]  the game ended with this move (terminated or truncated)
    truncated: jax.Array  # bool [B]  ... by the step limit
    game_length: jax.Array  # int32 [B]  steps of the game that ended here (else 0)
    first_player_reward: jax.Array  # float32 [B]  player 0's reward where a game ended (else 0)


def record_move(states, random_move: jax.Array, policy_target: jax.Array, final) -> Sample:
    """What a batch of moves from `states` [B] to `final` (the plain `env.step` results, before
    any auto-reset) leaves for training."""
    mover = states.current_player
    ended = final.terminated | final.truncated
    return Sample(
        observation=states.observation,
        legal_action_mask=states.legal_action_mask,
        policy_target=policy_target,
        value_weight=jnp.where(random_move, 0.0, 1.0),
        reward=jnp.take_along_axis(final.rewards, mover[:, None], axis=1)[:, 0],
        same_mover_next=final.current_player == mover,
        ended=ended,
        truncated=final.truncated,
        game_length=jnp.where(ended, final.step_count, 0),
        first_player_reward=jnp.where(ended, final.rewards[:, 0], 0.0),
    )


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


def opening_lengths(
    key: jax.Array, started: jax.Array, current: jax.Array, opening_plies: int
) -> jax.Array:
    """int32 [B]: a fresh number of random opening moves, uniform in 0..opening_plies, for the
    games that `started` (bool [B]); the others keep `current`."""
    fresh = jax.random.randint(key, current.shape, 0, opening_plies + 1, dtype=jnp.int32)
    return jnp.where(started, fresh, current)


class Batch(NamedTuple):
    """Self-play moves to learn from, [N, ...] (or [T, B, ...] before the minibatches)."""

    observation: jax.Array
    legal_action_mask: jax.Array  # bool
    policy_target: jax.Array  # float32 [..., A]
    value_target: jax.Array  # float32
    value_weight: jax.Array  # float32


def loss_terms(params, apply: Callable, batch: Batch, value_coef: float):
    """(total, (policy, value, entropy)): cross-entropy to the search's policy over the legal
    actions, squared error to the outcome (weighted: random opening moves count 0), and the
    network policy's entropy (reported, not optimised)."""
    logits, value = apply(params, batch.observation)
    log_policy = jax.nn.log_softmax(masked_logits(logits, batch.legal_action_mask), axis=-1)
    legal_log_policy = jnp.where(batch.legal_action_mask, log_policy, 0.0)
    policy_loss = -(batch.policy_target * legal_log_policy).sum(-1).mean()
    weight = batch.value_weight
    squared = weight * (value - batch.value_target) ** 2
    value_loss = squared.sum() / jnp.maximum(weight.sum(), 1.0)
    entropy = masked_entropy(logits, batch.legal_action_mask).mean()
    return policy_loss + value_coef * value_loss, (policy_loss, value_loss, entropy)


class Trainer(NamedTuple):
    config: AlphaZeroConfig
    env: Any
    network: Any
    mesh: Mesh
    init: Callable  # key -> TrainState
    update: Callable  # TrainState -> (TrainState, metrics)   (not jitted)
    run_updates: Callable  # (TrainState, n) -> (TrainState, metrics stacked [n])   (jitted)


def make_trainer(config: AlphaZeroConfig, env=None, mesh: Mesh | None = None) -> Trainer:
    """The trainer's pieces for `config` on `env` (default: the config's game) over `mesh`."""
    env = jaxcheckers.make(config.game, **config.env_options) if env is None else env
    mesh = data_mesh() if mesh is None else mesh
    num_devices = mesh.devices.size
    if config.num_envs % num_devices:
        raise ValueError(f"num_envs ({config.num_envs}) must divide over {num_devices} devices")
    if (config.num_envs // num_devices) % config.num_minibatches:
        raise ValueError("num_minibatches must divide the games on each device")
    network = make_network(
        env.num_actions,
        tuple(env.observation_shape),
        **network_options(config),
        **network_dtypes(config),
    )
    evaluate = search.network_evaluator(network.apply)
    recurrent_fn = search.make_recurrent_fn(env, evaluate)
    optimizer = optax.chain(
        optax.clip_by_global_norm(config.max_grad_norm), optax.adam(config.learning_rate)
    )
    layout = Layout(mesh)
    shard = layout.shard

    def replicate_all_but_games(state: TrainState) -> TrainState:
        return layout.replicate_all_but(state, GAME_FIELDS)

    initial = initial_params(config, network, env)

    def init(key: jax.Array) -> TrainState:
        net_key, env_key, opening_key, key = jax.random.split(key, 4)
        states = jax.vmap(env.reset)(jax.random.split(env_key, config.num_envs))
        params = network.init(net_key, states.observation[:1]) if initial is None else initial
        every_game = jnp.ones(config.num_envs, bool)
        opening = opening_lengths(
            opening_key, every_game, jnp.zeros(config.num_envs, jnp.int32), config.opening_plies
        )
        return replicate_all_but_games(
            TrainState(
                params, optimizer.init(params), shard(states), shard(opening), key, jnp.int32(0)
            )
        )

    def self_play_move(params, carry, _):
        states, opening, key = carry
        key, search_key, random_key, step_key, opening_key = jax.random.split(key, 5)
        policy = mctx.gumbel_muzero_policy(
            params,
            search_key,
            search.make_root(evaluate, params, states),
            recurrent_fn,
            num_simulations=config.num_simulations,
            invalid_actions=~states.legal_action_mask,
            max_num_considered_actions=config.max_num_considered_actions,
            qtransform=search.QTRANSFORM,
        )
        random_move = states.step_count < opening
        action = jnp.where(
            random_move, random_legal_actions(random_key, states.legal_action_mask), policy.action
        )
        stepped = batched_autoreset_step(env, states, action, step_key)
        sample = record_move(states, random_move, policy.action_weights, stepped.final)
        opening = opening_lengths(opening_key, sample.ended, opening, config.opening_plies)
        return (shard(stepped.state), shard(opening), key), sample

    grad_fn = jax.value_and_grad(
        lambda params, batch: loss_terms(params, network.apply, batch, config.value_coef),
        has_aux=True,
    )

    def gradient_step(carry, batch: Batch):
        params, opt_state = carry
        (_, terms), grads = grad_fn(params, shard(batch))
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return (optax.apply_updates(params, updates), opt_state), terms

    def epoch(carry, key):
        params, opt_state, batch = carry
        minibatches = device_minibatches(batch, key, num_devices, config.num_minibatches)
        (params, opt_state), terms = jax.lax.scan(gradient_step, (params, opt_state), minibatches)
        return (params, opt_state, batch), terms

    def update(train_state: TrainState):
        key, play_key, learn_key = jax.random.split(train_state.key, 3)
        (states, opening, _), samples = jax.lax.scan(
            lambda c, x: self_play_move(train_state.params, c, x),
            (train_state.env_state, train_state.opening, play_key),
            None,
            config.rollout_length,
        )
        _, bootstrap = network.apply(train_state.params, states.observation)
        target = value_targets(samples.reward, samples.same_mover_next, samples.ended, bootstrap)
        batch = Batch(
            samples.observation,
            samples.legal_action_mask,
            samples.policy_target,
            target,
            samples.value_weight,
        )
        (params, opt_state, _), terms = jax.lax.scan(
            epoch,
            (train_state.params, train_state.opt_state, batch),
            jax.random.split(learn_key, config.num_epochs),
        )
        step = train_state.update_step + 1
        new_state = TrainState(params, opt_state, states, opening, key, step)
        return new_state, _metrics(terms, samples, step, config)

    return Trainer(
        config=config,
        env=env,
        network=network,
        mesh=mesh,
        init=init,
        update=update,
        run_updates=jitted_updates(update, layout, GAME_FIELDS),
    )


def _metrics(terms, samples: Sample, update_step, config: AlphaZeroConfig) -> dict:
    policy_loss, value_loss, entropy = terms
    games = samples.ended.sum()
    per_game = jnp.maximum(games, 1)
    return {
        "update": update_step,
        "env_steps": update_step * config.steps_per_update,
        "loss": (policy_loss + config.value_coef * value_loss).mean(),
        "policy_loss": policy_loss.mean(),
        "value_loss": value_loss.mean(),
        "entropy": entropy.mean(),
        "games": games,
        "game_length": samples.game_length.sum() / per_game,
        "first_player_wins": (samples.first_player_reward > 0).sum() / per_game,
        "draws": (samples.ended & (samples.first_player_reward == 0)).sum() / per_game,
        "truncations": samples.truncated.sum(),
    }


def make_train(config: AlphaZeroConfig, env=None, mesh: Mesh | None = None) -> Callable:
    """`train(key) -> (TrainState, metrics stacked over the updates)`: pure and jittable."""
    return whole_run(make_trainer(config, env, mesh), config.num_updates)
