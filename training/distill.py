"""Distillation of a search into a network: the student learns every move the teacher rates best.

    train = make_train(DistillConfig(game="chess", teacher="alphabeta:2", total_steps=200_000))
    train_state, metrics = jax.jit(train)(jax.random.key(0))

A teacher is a search agent that scores every legal move of a position (`agents.make_move_values`:
chess's and draughts' `alphabeta:DEPTH`, tic-tac-toe's `perfect`). Each update plays
`rollout_length` moves of `num_envs` games at once and labels every position they pass through with
the teacher's scores: the policy target is uniform over the moves of the best score (a search is
indifferent between them, so the student should be too), the value target `tanh(best score /
value_scale)` (a mate scores ±1). The positions go into a replay buffer of the last `buffer_size`
(labelling is the cost; each label is drawn `gradient_steps * batch_size / steps_per_update` times
on average), and `gradient_steps` minibatches drawn from it train the network by cross-entropy and
squared error (`loss_terms`).

`init_params` starts the student from a trained network (another run's, say with a different
teacher). Who moves in those games (the positions the student learns from): each seat of a game
is given, when the game starts, to the teacher (a best move, ties broken at random), the
student (its greedy move: DAgger, the positions its own mistakes lead to) or the random player,
with the weights `player_weights`; the teacher's and the student's seats play a random move
instead with probability `random_move_prob`, and every game opens with 0..`opening_plies`
random turns.
Every position is labelled, whoever moves from it.

The same `make_trainer` / `make_train` shape as the other trainers (training/trainer.py), so
`jaxcheckers train --algo distill` has their run directories, evaluations of the raw policy,
checkpoints (the buffer included: a resumed run goes on exactly) and resume rules. One device:
the buffer is not sharded.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import optax
from jax.sharding import Mesh
from jaxcheckers.training.checkpoints import initial_params
from jaxcheckers.training.config import DistillConfig
from jaxcheckers.training.openings import random_opening_reset
from jaxcheckers.training.opponents import batched_autoreset_step
from jaxcheckers.training.precision import network_dtypes
from jaxcheckers.training.sharding import Layout, data_mesh, jitted_updates, whole_run

import jaxcheckers
from jaxcheckers.agents import make_move_values
from jaxcheckers.agents.networks import make_network, masked_entropy, masked_logits, network_options
from jaxcheckers.agents.random import random_legal_actions
from jaxcheckers.bits import pack_mask, unpack_mask

__all__ = [
    "DistillConfig",
    "TrainState",
    "Buffer",
    "Trainer",
    "PLAYERS",
    "teacher_targets",
    "loss_terms",
    "make_trainer",
    "make_train",
]

# Who plays a seat of a training game: DistillConfig.player_weights are in this order.
PLAYERS = ("teacher", "student", "random")
TEACHER, STUDENT, RANDOM = range(3)


class Buffer(NamedTuple):
    """The last `buffer_size` labelled positions (a ring, oldest overwritten first)."""

    observation: jax.Array  # [N, *obs]  the env's observation dtype, mover's frame
    legal: jax.Array  # uint32 [N, ⌈A/32⌉]  legal actions, packed (`bits.pack_mask`)
    best: jax.Array  # uint32 [N, ⌈A/32⌉]  the teacher's best moves, packed
    value: jax.Array  # float32 [N]  the value target, in [-1, 1]


class TrainState(NamedTuple):
    params: Any  # network parameters
    opt_state: Any  # optax state
    env_state: Any  # the batch of games [num_envs, ...]
    seats: jax.Array  # int32 [num_envs, 2]  who plays each player's seat (PLAYERS' index)
    buffer: Buffer  # labelled positions [buffer_size, ...]
    filled: jax.Array  # int32 ()  positions written to the buffer so far (at most its size)
    key: jax.Array  # PRNG key: the rest of the run's randomness
    update_step: jax.Array  # int32 ()  updates done


class Batch(NamedTuple):
    """Labelled positions [N, ...] to learn from."""

    observation: jax.Array
    legal_action_mask: jax.Array  # bool [N, A]
    best: jax.Array  # bool [N, A]  the teacher's best moves (legal ones, at least one)
    value: jax.Array  # float32 [N]


def teacher_targets(values: jax.Array, legal: jax.Array, value_scale: float):
    """(best bool [..., A], value target float32 [...]) of the teacher's scores `values`
    [..., A] over the `legal` [..., A] moves: the moves of the highest score, and
    tanh(that score / value_scale). With no legal move: no best move and value 0."""
    integer = jnp.issubdtype(values.dtype, jnp.integer)
    scores = jnp.where(legal, values, jnp.iinfo(values.dtype).min if integer else -jnp.inf)
    top = scores.max(axis=-1)
    best = legal & (scores == top[..., None])
    any_legal = legal.any(axis=-1)
    value = jnp.where(any_legal, jnp.tanh(top.astype(jnp.float32) / value_scale), 0.0)
    return best, value


def loss_terms(params, apply: Callable, batch: Batch, value_coef: float):
    """(total, (policy, value, entropy, accuracy)): cross-entropy to the uniform policy over the
    teacher's best moves, squared error to the value target, and (reported) the policy's entropy
    over the legal moves and how often its greedy move is one of the best."""
    logits, value = apply(params, batch.observation)
    masked = masked_logits(logits, batch.legal_action_mask)
    log_policy = jax.nn.log_softmax(masked, axis=-1)
    target = batch.best / jnp.maximum(batch.best.sum(-1, keepdims=True), 1)
    policy_loss = -(target * jnp.where(batch.best, log_policy, 0.0)).sum(-1).mean()
    value_loss = ((value - batch.value) ** 2).mean()
    entropy = masked_entropy(logits, batch.legal_action_mask).mean()
    greedy = jnp.argmax(masked, axis=-1)
    accuracy = jnp.take_along_axis(batch.best, greedy[:, None], axis=-1)[:, 0].mean()
    return policy_loss + value_coef * value_loss, (policy_loss, value_loss, entropy, accuracy)


class Trainer(NamedTuple):
    config: DistillConfig
    env: Any
    network: Any
    mesh: Mesh
    init: Callable  # key -> TrainState
    update: Callable  # TrainState -> (TrainState, metrics)   (not jitted)
    run_updates: Callable  # (TrainState, n) -> (TrainState, metrics stacked [n])   (jitted)


GAME_FIELDS = ()  # one device: nothing is sharded


def make_trainer(config: DistillConfig, env=None, mesh: Mesh | None = None) -> Trainer:
    """The trainer's pieces for `config` on `env` (default: the config's game)."""
    env = jaxcheckers.make(config.game, **config.env_options) if env is None else env
    mesh = data_mesh() if mesh is None else mesh
    if mesh.devices.size != 1:
        raise ValueError("the distillation trainer runs on one device")
    if config.buffer_size % config.steps_per_update:
        raise ValueError(
            f"buffer_size ({config.buffer_size}) must be a multiple of the positions an update "
            f"labels (num_envs x rollout_length = {config.steps_per_update})"
        )
    teacher = jax.vmap(make_move_values(config.teacher, env))
    network = make_network(
        env.num_actions,
        tuple(env.observation_shape),
        **network_options(config),
        **network_dtypes(config),
    )
    optimizer = optax.chain(
        optax.clip_by_global_norm(config.max_grad_norm), optax.adam(config.learning_rate)
    )
    initial = initial_params(config, network, env)
    reset = random_opening_reset(env, config.opening_plies)
    weights = jnp.log(jnp.asarray(config.player_weights, jnp.float32))
    layout = Layout(mesh)
    num_envs, size = config.num_envs, config.buffer_size

    def draw_seats(key, shape):
        return jax.random.categorical(key, weights, shape=(*shape, 2)).astype(jnp.int32)

    def init(key: jax.Array) -> TrainState:
        net_key, env_key, seat_key, key = jax.random.split(key, 4)
        states = jax.vmap(reset)(jax.random.split(env_key, num_envs))
        params = network.init(net_key, states.observation[:1]) if initial is None else initial
        words = pack_mask(states.legal_action_mask[:1]).shape[-1]
        buffer = Buffer(
            observation=jnp.zeros((size, *env.observation_shape), states.observation.dtype),
            legal=jnp.zeros((size, words), jnp.uint32),
            best=jnp.zeros((size, words), jnp.uint32),
            value=jnp.zeros(size, jnp.float32),
        )
        seats = draw_seats(seat_key, (num_envs,))
        return TrainState(
            params, optimizer.init(params), states, seats, buffer, jnp.int32(0), key, jnp.int32(0)
        )

    def play_move(params, carry, _):
        states, seats, key = carry
        key, teach_key, random_key, explore_key, step_key, seat_key = jax.random.split(key, 6)
        legal = states.legal_action_mask
        best, value = teacher_targets(teacher(states), legal, config.value_scale)
        logits, _ = network.apply(params, states.observation)
        student = jnp.argmax(masked_logits(logits, legal), axis=-1).astype(jnp.int32)
        moves = jnp.stack(
            [
                random_legal_actions(teach_key, best),
                student,
                random_legal_actions(random_key, legal),
            ]
        )  # [3, B] in PLAYERS' order
        player = jnp.take_along_axis(seats, states.current_player[:, None], axis=1)[:, 0]
        explore = jax.random.uniform(explore_key, player.shape) < config.random_move_prob
        player = jnp.where(explore, RANDOM, player)
        action = jnp.take_along_axis(moves, player[None], axis=0)[0]
        stepped = batched_autoreset_step(env, states, action, step_key, reset)
        ended = stepped.final.terminated | stepped.final.truncated
        seats = jnp.where(ended[:, None], draw_seats(seat_key, (num_envs,)), seats)
        sample = (
            states.observation,
            pack_mask(legal),
            pack_mask(best),
            value,
            ended,
            jnp.where(ended, stepped.final.step_count, 0),
        )
        return (stepped.state, seats, key), sample

    grad_fn = jax.value_and_grad(
        lambda params, batch: loss_terms(params, network.apply, batch, config.value_coef),
        has_aux=True,
    )

    def gradient_step(carry, key):
        params, opt_state, buffer, filled = carry
        rows = jax.random.randint(key, (config.batch_size,), 0, jnp.maximum(filled, 1))
        take = lambda x: jnp.take(x, rows, axis=0)  # noqa: E731
        batch = Batch(
            take(buffer.observation),
            unpack_mask(take(buffer.legal), env.num_actions),
            unpack_mask(take(buffer.best), env.num_actions),
            take(buffer.value),
        )
        (_, terms), grads = grad_fn(params, batch)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return (optax.apply_updates(params, updates), opt_state, buffer, filled), terms

    def update(train_state: TrainState):
        key, play_key, learn_key = jax.random.split(train_state.key, 3)
        (states, seats, _), samples = jax.lax.scan(
            lambda c, x: play_move(train_state.params, c, x),
            (train_state.env_state, train_state.seats, play_key),
            None,
            config.rollout_length,
        )
        observation, legal, best, value, ended, game_length = samples
        flat = lambda x: x.reshape(-1, *x.shape[2:])  # noqa: E731  [T, B, ...] -> [T B, ...]
        start = (train_state.update_step * config.steps_per_update) % size
        buffer = jax.tree.map(
            lambda old, new: jax.lax.dynamic_update_slice_in_dim(old, flat(new), start, 0),
            train_state.buffer,
            Buffer(observation, legal, best, value),
        )
        filled = jnp.minimum(train_state.filled + config.steps_per_update, size)
        (params, opt_state, buffer, _), terms = jax.lax.scan(
            gradient_step,
            (train_state.params, train_state.opt_state, buffer, filled),
            jax.random.split(learn_key, config.gradient_steps),
        )
        step = train_state.update_step + 1
        new_state = TrainState(params, opt_state, states, seats, buffer, filled, key, step)
        return new_state, _metrics(terms, ended, game_length, filled, step, config)

    return Trainer(
        config=config,
        env=env,
        network=network,
        mesh=mesh,
        init=init,
        update=update,
        run_updates=jitted_updates(update, layout, GAME_FIELDS),
    )


def _metrics(terms, ended, game_length, filled, update_step, config: DistillConfig) -> dict:
    policy_loss, value_loss, entropy, accuracy = terms
    games = ended.sum()
    return {
        "update": update_step,
        "env_steps": update_step * config.steps_per_update,
        "loss": (policy_loss + config.value_coef * value_loss).mean(),
        "policy_loss": policy_loss.mean(),
        "value_loss": value_loss.mean(),
        "entropy": entropy.mean(),
        "accuracy": accuracy.mean(),
        "buffer": filled,
        "games": games,
        "game_length": game_length.sum() / jnp.maximum(games, 1),
    }


def make_train(config: DistillConfig, env=None, mesh: Mesh | None = None) -> Callable:
    """`train(key) -> (TrainState, metrics stacked over the updates)`: pure and jittable."""
    return whole_run(make_trainer(config, env, mesh), config.num_updates)
