"""PPO self-play: `make_train(config) -> train(key)`, the whole run under one `jit`.

    train = make_train(TrainConfig(total_steps=1_000_000))
    final_state, metrics = jax.jit(train)(jax.random.PRNGKey(0))

The loop is purejaxrl's: an update is a `lax.scan` over `rollout_length` batched env steps (with
auto-reset), GAE (`training.advantages`), then `num_epochs` x `num_minibatches` gradient steps;
the run is a `lax.scan` over updates. `make_trainer` exposes the pieces (init, one update, a
jitted chunk of updates) for the CLI, which evaluates, logs and checkpoints between chunks.

Devices: the game batch is laid out along a 1-D mesh axis "data" over the devices given (every
device of every process by default, `jax.devices()`); parameters and optimizer state are
replicated. The loss is a mean over the whole (sharded) batch, so XLA's partitioner all-reduces the
gradients: every device applies the same averaged update. On one device the same code runs
unchanged. Minibatches are shuffled within each device's shard so that the shuffle needs no
communication.

Several processes (`jax.distributed.initialize()`, one per host or per accelerator): every process
runs the same program with the same key. The games are created inside `jit` (`init`), so each
process builds and steps only the rows of its own devices; nothing is fed from the host. What
comes back to the host (parameters, optimizer state, key, metrics) is replicated over the mesh,
so each process can read it locally; only the games in progress stay sharded across processes.
tests/training/test_distributed.py runs two processes on one machine (gloo collectives on CPU)
and checks their parameters against each other and against one process over two devices.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import optax
from jax.sharding import Mesh
from jaxcheckers.training.advantages import self_play_gae
from jaxcheckers.training.checkpoints import initial_params
from jaxcheckers.training.config import TrainConfig
from jaxcheckers.training.losses import Batch, ppo_loss
from jaxcheckers.training.openings import training_reset
from jaxcheckers.training.opponents import (
    StepOutcome,
    batched_autoreset_step,
    make_opponents,
    no_outcome,
    opponent_names,
)
from jaxcheckers.training.precision import network_dtypes
from jaxcheckers.training.sharding import (
    Layout,
    data_mesh,
    device_minibatches,
    jitted_updates,
    whole_run,
)

import jaxcheckers
from jaxcheckers.agents.networks import (
    make_network,
    masked_log_prob,
    network_options,
    sample_action,
)

__all__ = ["TrainState", "Trainer", "make_trainer", "make_train", "make_env", "data_mesh"]


class TrainState(NamedTuple):
    params: Any  # network parameters (replicated)
    opt_state: Any  # optax state (replicated)
    env_state: Any  # the batch of games, [num_envs, ...] (sharded over "data")
    key: jax.Array  # uint32 (2,)  raw PRNG key: the rest of the run's randomness
    update_step: jax.Array  # int32 ()  updates done
    snapshot_params: Any  # the past parameters the "snapshot" opponent plays with
    league: Any  # opponents.League: who plays each opponent game, the learner's scores (or None)


class Transition(NamedTuple):
    """One batched env step of a rollout; stacked by the scan to [T, num_envs, ...]."""

    observation: jax.Array  # bool/float [B, *obs_shape]  mover's frame
    legal_action_mask: jax.Array  # bool [B, num_actions]
    action: jax.Array  # int32 [B]
    log_prob: jax.Array  # float32 [B]
    value: jax.Array  # float32 [B]  mover's frame
    reward: (
        jax.Array
    )  # float32 [B]  to the mover (including an opponent's reply that ends the game)
    same_mover_next: jax.Array  # bool [B]  the next state (or the truncated one) has the same mover
    terminated: jax.Array  # bool [B]
    truncated: jax.Array  # bool [B]
    truncated_value: jax.Array  # float32 [B]  value of a truncated game's last state (else 0)
    game_length: jax.Array  # int32 [B]  steps of the game that ended here (else 0)
    first_player_reward: jax.Array  # float32 [B]  player 0's reward at a game end (else 0)


class Trainer(NamedTuple):
    config: TrainConfig
    env: Any
    network: Any
    mesh: Mesh
    init: Callable  # key -> TrainState
    update: Callable  # TrainState -> (TrainState, metrics)   (not jitted)
    # (params, snapshot, env_state, league, key) -> (env_state, league, transitions, last_value)
    rollout: Callable
    learn: Callable  # (params, opt_state, transitions, last_value, key) -> (params, opt, terms)
    run_updates: Callable  # (TrainState, n) -> (TrainState, metrics stacked [n])   (jitted)


def make_env(config: TrainConfig):
    """The env the config names, through `jaxcheckers.make`."""
    return jaxcheckers.make(config.game, **config.env_options)


def make_optimizer(config: TrainConfig) -> optax.GradientTransformation:
    gradient_steps = config.num_updates * config.num_epochs * config.num_minibatches
    if config.lr_schedule == "linear":
        schedule = optax.linear_schedule(config.learning_rate, 0.0, gradient_steps)
    elif config.lr_schedule == "cosine":
        schedule = optax.cosine_decay_schedule(config.learning_rate, gradient_steps)
    else:
        schedule = optax.constant_schedule(config.learning_rate)
    return optax.chain(
        optax.clip_by_global_norm(config.max_grad_norm),
        optax.adam(schedule, eps=1e-5),
    )


def make_trainer(config: TrainConfig, env=None, mesh: Mesh | None = None) -> Trainer:
    """The trainer's pieces for `config` on `env` (default: the config's game) over `mesh`."""
    env = make_env(config) if env is None else env
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
    # every training game's start
    reset = training_reset(env, config.game, config.openings, config.opening_plies)
    opponents = make_opponents(config, env, network, reset)
    optimizer = make_optimizer(config)
    num_envs = config.num_envs
    layout = Layout(mesh)
    shard_batch = layout.shard

    def replicate_all_but_games(state: TrainState) -> TrainState:
        """Everything but the games replicated: with several processes, each one then reads the
        parameters, key and metrics locally, without gathering them."""
        return layout.replicate_all_but(state, ("env_state",))

    def apply(params, observation):
        return network.apply(params, observation)

    learn = make_learn(config, apply, optimizer, mesh)
    initial = initial_params(config, network, env)

    def init(key: jax.Array) -> TrainState:
        net_key, env_key, opp_key, key = jax.random.split(key, 4)
        env_state = shard_batch(jax.vmap(reset)(jax.random.split(env_key, num_envs)))
        observation = env_state.observation[:1]
        params = network.init(net_key, observation) if initial is None else initial
        # Games where the opponent holds seat 0 start with a move of its at random (as an
        # opening turn): init, compiled apart from the updates, compiles no opponent.
        opening = no_outcome(env_state)
        outcome, league = opponents.open(opponents.league, opening, opp_key)
        return replicate_all_but_games(
            TrainState(
                params=params,
                opt_state=optimizer.init(params),
                env_state=shard_batch(outcome.state),
                key=key,
                update_step=jnp.int32(0),
                snapshot_params=params,
                league=league,
            )
        )

    def rollout_step(params, snapshot_params, carry, _):
        state, league, key = carry
        key, act_key, step_key, reply_key = jax.random.split(key, 4)
        mover = state.current_player
        logits, value = apply(params, state.observation)
        action = sample_action(act_key, logits, state.legal_action_mask)
        log_prob = masked_log_prob(logits, state.legal_action_mask, action)

        stepped = batched_autoreset_step(env, state, action, step_key, reset)
        final = stepped.final
        ended = final.terminated | final.truncated
        outcome = StepOutcome(
            state=stepped.state,
            reward=jnp.take_along_axis(final.rewards, mover[:, None], axis=1)[:, 0],
            terminated=final.terminated,
            truncated=final.truncated,
            last_observation=final.observation,
            last_player=final.current_player,
            game_length=jnp.where(ended, final.step_count, 0),
            first_player_reward=jnp.where(ended, final.rewards[:, 0], 0.0),
        )
        outcome, league = opponents.advance(snapshot_params, league, outcome, reply_key)
        next_state = shard_batch(outcome.state)

        # Only a truncated game needs the value of its last state; skip the forward pass unless
        # some game in the batch was cut.
        truncated_value = jax.lax.cond(
            outcome.truncated.any(),
            lambda: apply(params, outcome.last_observation)[1],
            lambda: jnp.zeros_like(value),
        )
        same_mover_next = jnp.where(
            outcome.truncated,
            outcome.last_player == mover,
            next_state.current_player == mover,
        )
        transition = Transition(
            observation=state.observation,
            legal_action_mask=state.legal_action_mask,
            action=action,
            log_prob=log_prob,
            value=value,
            reward=outcome.reward,
            same_mover_next=same_mover_next,
            terminated=outcome.terminated,
            truncated=outcome.truncated,
            truncated_value=jnp.where(outcome.truncated, truncated_value, 0.0),
            game_length=jnp.where(outcome.terminated | outcome.truncated, outcome.game_length, 0),
            first_player_reward=outcome.first_player_reward,
        )
        return (next_state, league, key), transition

    def rollout(params, snapshot_params, env_state, league, key):
        (env_state, league, key), transitions = jax.lax.scan(
            lambda carry, x: rollout_step(params, snapshot_params, carry, x),
            (env_state, league, key),
            None,
            config.rollout_length,
        )
        _, last_value = apply(params, env_state.observation)
        return env_state, league, transitions, last_value

    def update(train_state: TrainState):
        key, rollout_key, epoch_key = jax.random.split(train_state.key, 3)
        env_state, league, transitions, last_value = rollout(
            train_state.params,
            train_state.snapshot_params,
            train_state.env_state,
            train_state.league,
            rollout_key,
        )
        params, opt_state, terms = learn(
            train_state.params, train_state.opt_state, transitions, last_value, epoch_key
        )
        update_step = train_state.update_step + 1
        refresh = (update_step % max(config.snapshot_every, 1)) == 0
        snapshot_params = jax.tree.map(
            lambda new, old: jnp.where(refresh, new, old), params, train_state.snapshot_params
        )
        new_state = TrainState(
            params, opt_state, env_state, key, update_step, snapshot_params, league
        )
        return new_state, _metrics(terms, transitions, league, update_step, config)

    return Trainer(
        config=config,
        env=env,
        network=network,
        mesh=mesh,
        init=init,
        update=update,
        rollout=rollout,
        learn=learn,
        run_updates=jitted_updates(update, layout, ("env_state",)),
    )


def make_learn(config: TrainConfig, apply: Callable, optimizer, mesh: Mesh) -> Callable:
    """`learn(params, opt_state, transitions [T, B], last_value [B], key)`: two-player GAE, then
    `num_epochs` passes of `num_minibatches` clipped-PPO gradient steps over the rollout."""
    num_devices = mesh.devices.size
    shard_batch = Layout(mesh).shard

    def advantages(transitions: Transition, last_value):
        following = jnp.concatenate([transitions.value[1:], last_value[None]])
        next_values = jnp.where(transitions.truncated, transitions.truncated_value, following)
        return self_play_gae(
            transitions.value,
            transitions.reward,
            next_values,
            transitions.same_mover_next,
            transitions.terminated,
            transitions.terminated | transitions.truncated,
            gamma=config.gamma,
            gae_lambda=config.gae_lambda,
        )

    def minibatches(batch: Batch, key) -> Batch:
        return device_minibatches(batch, key, num_devices, config.num_minibatches)

    loss_fn = jax.value_and_grad(
        lambda params, batch: ppo_loss(
            params,
            apply,
            batch,
            clip_epsilon=config.clip_epsilon,
            value_coef=config.value_coef,
            entropy_coef=config.entropy_coef,
            normalize_advantages=config.normalize_advantages,
        ),
        has_aux=True,
    )

    def gradient_step(carry, batch: Batch):
        params, opt_state = carry
        batch = shard_batch(batch)
        (_, terms), grads = loss_fn(params, batch)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return (optax.apply_updates(params, updates), opt_state), terms

    def epoch(carry, key):
        params, opt_state, batch = carry
        (params, opt_state), terms = jax.lax.scan(
            gradient_step, (params, opt_state), minibatches(batch, key)
        )
        return (params, opt_state, batch), terms

    def learn(params, opt_state, transitions: Transition, last_value, key):
        """GAE, then the epochs of minibatch gradient steps on one rollout."""
        advantage, target = advantages(transitions, last_value)
        batch = Batch(
            observation=transitions.observation,
            legal_action_mask=transitions.legal_action_mask,
            action=transitions.action,
            log_prob=transitions.log_prob,
            value=transitions.value,
            advantage=advantage,
            target=target,
        )
        (params, opt_state, _), terms = jax.lax.scan(
            epoch, (params, opt_state, batch), jax.random.split(key, config.num_epochs)
        )
        return params, opt_state, terms

    return learn


def _metrics(terms, transitions: Transition, league, update_step, config: TrainConfig) -> dict:
    ended = transitions.terminated | transitions.truncated
    games = ended.sum()
    per_game = jnp.maximum(games, 1)
    # The learner's running score against each opponent, and the share of the opponent games
    # each one plays (fixed with "groups", the league's choice with "league").
    opponents = config.opponents if config.num_opponent_envs else ()
    named = {}
    for index, name in enumerate(opponent_names(opponents)):
        named[f"score/{name}"] = league.score[index]
        named[f"share/{name}"] = (league.opponent == index).mean()
    return named | {
        "update": update_step,
        "env_steps": update_step * config.steps_per_update,
        "loss": terms.total.mean(),
        "policy_loss": terms.policy.mean(),
        "value_loss": terms.value.mean(),
        "entropy": terms.entropy.mean(),
        "approx_kl": terms.approx_kl.mean(),
        "clip_fraction": terms.clip_fraction.mean(),
        "games": games,
        "game_length": transitions.game_length.sum() / per_game,
        "first_player_wins": (transitions.first_player_reward > 0).sum() / per_game,
        "draws": (ended & (transitions.first_player_reward == 0)).sum() / per_game,
        "truncations": transitions.truncated.sum(),
    }


def make_train(config: TrainConfig, env=None, mesh: Mesh | None = None) -> Callable:
    """`train(key) -> (TrainState, metrics)`: the whole run, pure and jittable.

    `metrics` is a dict of arrays stacked over the `config.num_updates` updates.
    """
    return whole_run(make_trainer(config, env, mesh), config.num_updates)
