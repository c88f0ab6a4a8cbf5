"""The State contract every game keeps, and the step plumbing they share.

A game supplies two pure functions over its own State type (a NamedTuple that has at least the
fields of `State` below): `_init(key)`, and `_step(state, action)` for a legal action of a live
game; its State gives the observation and the mask as fields or as properties. `Env.step`
handles everything that is the same for every game, once: finished games, illegal actions,
truncation and the zeroing of stale rewards.
"""

from __future__ import annotations

import abc
import concurrent.futures
import functools
from typing import Any, NamedTuple, Protocol

import jax
import jax.numpy as jnp
import numpy as np

from jaxcheckers.bits import pack_mask

__all__ = [
    "Env",
    "State",
    "AutoResetStep",
    "step_autoreset",
    "tree_where",
    "computed_once",
    "divided_by_one",
    "unknown_one",
    "compiled_step",
    "compiled_method",
    "per_rules",
    "action_index",
    "replace_fields",
    "pgx_step_count",
    "outside_traces",
    "legal_actions_cleared",
    "wide",
    "in_x64",
    "packed_legal_actions",
]


class State(Protocol):
    """The fields every game's State has (pgx-compatible names). The built-in games' States
    also carry pgx's `env_id`, the game's name, as a class attribute (not a pytree leaf)."""

    # Each field's docstring is what the API page shows of it.
    current_player: jax.Array
    """int32 (): the player to move, 0 or 1."""
    observation: jax.Array
    """bool or int8 (*obs_shape): the position in the mover's frame (a field or a property)."""
    legal_action_mask: jax.Array
    """bool (num_actions,): the legal actions; all False once the game is over (pgx: all True)."""
    rewards: jax.Array
    """float32 (2,): what the last step gave each player."""
    terminated: jax.Array
    """bool (): the game ended by its rules (or by an illegal action)."""
    truncated: jax.Array
    """bool (): the game was cut at `max_steps`."""
    step_count: jax.Array
    """int32 (): environment steps taken."""

    def _replace(self, **fields: Any) -> State: ...

    def replace(self, **fields: Any) -> State: ...  # pgx's name for `_replace`


def enable_x64():
    """A context in which jax computes with 64-bit types, on every jax the project supports
    (`jax.enable_x64` arrived after the oldest)."""
    if hasattr(jax, "enable_x64"):
        return jax.enable_x64(True)
    from jax.experimental import enable_x64 as experimental_enable_x64

    return experimental_enable_x64()


def wide(function):
    """`function` traced with 64-bit types on (`enable_x64`); its results must not carry a 64-bit
    value out, so JAX's 32-bit default is left alone for the user (chess' and draughts'
    bitboards)."""

    @functools.wraps(function)
    def wrapped(*args, **kwargs):
        with enable_x64():
            out = function(*args, **kwargs)
        for leaf in jax.tree.leaves(out):
            if jnp.dtype(leaf.dtype).itemsize > 4:
                raise TypeError(f"{function.__qualname__} returned a 64-bit {leaf.dtype} value")
        return out

    return wrapped


def in_x64(function):
    """`function` traced with 64-bit types on, whatever it returns: for the functions a `wide`
    one hands to JAX, which may trace them again later (a loop's body under vmap)."""

    @functools.wraps(function)
    def wrapped(*args, **kwargs):
        with enable_x64():
            return function(*args, **kwargs)

    return wrapped


def replace_fields(self: Any, **fields: Any) -> Any:
    """`state.replace(**fields)`: pgx's name (a flax dataclass method) for a NamedTuple's
    `_replace`. A game's State class sets `replace = replace_fields`, so pgx code runs as is."""
    return self._replace(**fields)


pgx_step_count = property(lambda self: self.step_count, doc="pgx's name for `step_count`")


def tree_where(condition: jax.Array, on_true: Any, on_false: Any) -> Any:
    """`jnp.where` over two pytrees of the same structure, with a scalar condition."""
    return jax.tree.map(lambda a, b: jnp.where(condition, a, b), on_true, on_false)


def outside_traces(function: Any, *args: Any) -> Any:
    """`function(*args)` as host (numpy) arrays, computed as if no `jit` or `vmap` were tracing:
    a constant an env builds the first time a traced function asks for it. JAX keeps its trace
    state per thread, so a fresh thread starts with none."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return jax.tree.map(np.asarray, pool.submit(function, *args).result())


def computed_once(values: Any, runtime: jax.Array) -> Any:
    """The arrays of the pytree `values`, unchanged, each computed once into memory.

    XLA on the CPU fuses a cheap value into every loop that reads it. A value that many of a
    step's outputs read (the action, whether it was legal, whether the game ended) is then
    recomputed in each of their loops, and in the loop of an output with a per-game axis (the
    legal moves, a history) as scalar code, once per game. Integer division is one of the
    operations XLA will not duplicate, so each value is divided by a 1 it cannot fold away,
    which makes it compute the value once and let the readers load it. On a GPU the division
    costs one instruction per value. (Chess's bitboards use a loop that runs zero times on the
    CPU instead, `chess.bitboard.once`; for these values that was slower, docs/performance.md.)

    runtime: any integer array that is not a compile-time constant (the step count, or a value
    itself), a scalar or of the values' shape; the 1 is built from it.
    """
    return divided_by_one(values, unknown_one(runtime))


def unknown_one(runtime: jax.Array) -> jax.Array:
    """uint32: 1 (1 OR a comparison), of `runtime`'s shape, built from `runtime` (an integer
    array that is not a compile-time constant, such as a step count) so that XLA cannot fold it
    away."""
    return jnp.uint32(1) | (runtime < 0).astype(jnp.uint32)


def divided_by_one(values: Any, one: jax.Array) -> Any:
    """The pytree `values` (integer or bool arrays) divided by `one`, a uint32 1 that is not a
    compile-time constant (a scalar or of the values' shape): the same values, as a boundary XLA
    does not fuse across (`lax.optimization_barrier` does not stop fusion on the CPU)."""

    def divide(x):
        if x.dtype == jnp.bool_:
            return divide(x.astype(jnp.uint32)) != 0
        if x.dtype.itemsize > 4:  # as 32-bit halves: a 64-bit division is emulated on a GPU
            halves = jax.lax.bitcast_convert_type(x, jnp.uint32)
            return jax.lax.bitcast_convert_type(divide(halves), x.dtype)
        return jax.lax.div(x, jnp.broadcast_to(one.astype(x.dtype), x.shape))

    return jax.tree.map(divide, values)


class Env(abc.ABC):
    """A two-player, turn-based game with pure `reset(key)` and `step(state, action)`.

    Both work under `jax.jit` and `jax.vmap`; neither branches in Python on traced values.
    pgx's names work too: `init` (= `reset`), `id` (the name `jaxcheckers.make` takes),
    `version`, and `step(state, action, key)` (the key is ignored: every step is deterministic).
    """

    num_players: int = 2
    num_actions: int
    observation_shape: tuple[int, ...]
    max_steps: int | None  # None: never truncate
    version: str = "v0"  # changes when a game's rules or State change (pgx's `version`)
    state_type: type | None = None  # the game's State class: `step` refuses any other
    jit_rules: bool = True  # `step` calls the rules through a jit cached per set of rules

    @property
    def id(self) -> str:
        """The game's name, as `jaxcheckers.make` takes it ("checkers", "tictactoe")."""
        return type(self).__name__.lower()

    def reset(self, key: jax.Array) -> State:
        """A fresh game. `key` is taken for games with a random start; the rules may ignore it.

        One key, one game: a batch of keys is refused (ValueError); `jax.vmap(env.reset)(keys)`
        starts a batch of games."""
        _check_one_key(key)
        return self._init(key)

    def init(self, key: jax.Array) -> State:
        """pgx's name for `reset`."""
        return self.reset(key)

    def observe(self, state: State, player: jax.Array) -> jax.Array:
        """What `player` sees of `state`, whoever is to move (pgx's name); jittable. The
        adapters need it; a game that does not define it is refused by them in one line."""
        raise NotImplementedError(f"{self.id} defines no observe(state, player)")

    def step(self, state: State, action: jax.Array, key: jax.Array | None = None) -> State:
        """Plays `action` for `state.current_player`.

        An illegal action (masked out, or out of range) ends the game: −1 for the mover, 0 for the
        other. A game that is already over is returned unchanged, with zero rewards. An action
        that is not an integer (a float, a bool) raises TypeError when traced (`action_index`).
        """
        self.check_state(state)
        _check_action_shape(action, state)
        action = action_index(action, self.num_actions)
        # Jitted once per set of rules: a trace that steps the env (a rollout, a search, a match)
        # reuses the rules' traced program instead of tracing them again, and so does vmap.
        rules = compiled_method(self, "_rules_step") if self.jit_rules else self._rules_step
        return rules(state, action)

    def _rules_step(self, state: State, action: jax.Array) -> State:
        """`step` of a checked state and an int32 `action_index`; games that add to the step
        override this (calling it through super()), not `step`."""
        in_range = (action >= 0) & (action < self.num_actions)
        safe_action = computed_once(jnp.clip(action, 0, self.num_actions - 1), state.step_count)
        is_legal = computed_once(in_range & self._is_legal(state, safe_action), state.step_count)

        played = self._step(state, safe_action)
        played = played._replace(step_count=state.step_count + 1)
        forfeited = _forfeit(state)
        next_state = tree_where(is_legal, played, forfeited)
        next_state = self._truncate(next_state)

        is_over = state.terminated | state.truncated
        unchanged = state._replace(rewards=jnp.zeros_like(state.rewards))
        next_state = tree_where(is_over, unchanged, next_state)
        # Whether the game is over decides every field of a reset that follows: computed once.
        ended = computed_once((next_state.terminated, next_state.truncated), state.step_count)
        next_state = next_state._replace(terminated=ended[0], truncated=ended[1])
        return legal_actions_cleared(next_state, ended[0] | ended[1])

    def check_state(self, state: State) -> None:
        """ValueError unless `state` (one game or a batch) is of this env's State type; it runs
        when the step is traced, so it costs nothing after."""
        if self.state_type is not None and not isinstance(state, self.state_type):
            plays = self.state_type.__name__
            raise ValueError(f"{self!r} cannot step a {type(state).__name__}: it plays {plays}")

    def _truncate(self, state: State) -> State:
        if self.max_steps is None:
            return state
        cut = (~state.terminated) & (state.step_count >= self.max_steps)
        return state._replace(truncated=cut)

    def _is_legal(self, state: State, action: jax.Array) -> jax.Array:
        """bool (): `action` (in range) is legal. Games with a packed mask may test one bit."""
        return state.legal_action_mask[action]

    @abc.abstractmethod
    def _init(self, key: jax.Array) -> State: ...

    @abc.abstractmethod
    def _step(self, state: State, action: jax.Array) -> State:
        """The rules for a legal `action` in a live game; `step_count` is set by the caller."""


def one_game(state: Any, env_id: str) -> None:
    """ValueError unless `state` is one game (not a batch) of the game `env_id`: for the readers
    of one board (a FEN writer, a text board, a picture), which would fail deep in numpy or
    read a wrong board."""
    if getattr(state, "env_id", None) != env_id:
        raise ValueError(f"expected a {env_id} state, got {type(state).__name__}")
    batch = np.shape(state.current_player)
    if batch != ():
        raise ValueError(
            f"expected one game, got a batch of shape {batch}; take one game first, "
            "jax.tree.map(lambda x: x[i], state)"
        )


def checked_player(player: Any) -> jax.Array:
    """int32: `player` (0 or 1, an int or an array) for `observe(state, player)`; a value known
    outside a trace that is not 0 or 1 is refused in one line (ValueError), a traced one is
    taken as it is."""
    if not isinstance(player, jax.core.Tracer):
        value = np.asarray(player)
        if value.shape != () or value.dtype.kind not in "iu" or int(value) not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
    return jnp.asarray(player, jnp.int32)


def _check_action_shape(action: Any, state: State) -> None:
    """ValueError unless `action` has the shape of the state's games: one int for one game."""
    games, found = np.shape(state.current_player), np.shape(action)
    if found != games:
        raise ValueError(
            f"step takes one integer action per game: got an action of shape {found} for "
            f"{'one game' if games == () else f'games of shape {games}'}; for a batch of games "
            "use jax.vmap(env.step)(states, actions)"
        )


def _check_one_key(key: Any) -> None:
    """ValueError unless `key` is one PRNG key (a typed key of shape (), or a raw uint32 (2,)),
    or None (taken by games whose start has no chance)."""
    if key is None:
        return
    if isinstance(key, (int, np.integer)):
        raise ValueError(f"reset takes a PRNG key, not the int {key!r}: jax.random.key({key!r})")
    shape, dtype = np.shape(key), getattr(key, "dtype", None)
    typed = dtype is not None and jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key)
    if (typed and shape != ()) or (not typed and shape != (2,)):
        raise ValueError(
            f"reset takes one key, got an array of shape {shape}; for a batch of games use "
            "jax.vmap(env.reset)(keys)"
        )


MAX_STEP_COUNT = 2**31 - 1  # the largest int32 step count


def checked_max_steps(max_steps: Any) -> int | None:
    """`max_steps` as an env takes it (a positive int, or None never to truncate); ValueError."""
    if max_steps is None:
        return None
    if isinstance(max_steps, bool) or not isinstance(max_steps, (int, np.integer)) or max_steps < 1:
        raise ValueError(f"max_steps must be a positive int or None, got {max_steps!r}")
    if max_steps > MAX_STEP_COUNT:  # the step count is an int32
        raise ValueError(f"max_steps must be at most {MAX_STEP_COUNT} (or None), got {max_steps}")
    return int(max_steps)


def action_index(action: Any, num_actions: int) -> jax.Array:
    """int32 (…): `action` as the step reads it; an action out of [0, num_actions) becomes −1.

    Only integers are actions: a float or a bool raises TypeError (the dtype is static, so this
    happens when the step is traced). Integers wider than int32 (a Python int, numpy's int64,
    a traced int64 under x64) are compared before they are narrowed, so 2³² + 145 is out of
    range rather than action 145. An int32 action passes through untouched.
    """
    if isinstance(action, (bool, np.bool_)):
        raise TypeError(f"an action is an integer, got {action!r}")
    if isinstance(action, int):
        return jnp.int32(action if 0 <= action < num_actions else -1)
    if not hasattr(action, "dtype"):
        action = np.asarray(action)
    dtype = np.dtype(action.dtype)
    if not np.issubdtype(dtype, np.integer):
        raise TypeError(f"an action is an integer, got an array of {dtype} ({action!r})")
    if dtype == np.int32 or dtype.itemsize < 4:
        return jnp.asarray(action).astype(jnp.int32)
    xp = np if isinstance(action, (np.ndarray, np.generic)) else jnp
    in_range = (action >= 0) & (action < num_actions)
    # The -1 is written after the cast: an unsigned array cannot hold it (NumPy 2.5 raises).
    index = xp.where(in_range, action, 0).astype(np.int32)
    return jnp.asarray(xp.where(in_range, index, -1))


def _forfeit(state: State) -> State:
    """The game ended by an illegal action of the player to move (PettingZoo's rule)."""
    mover = jax.nn.one_hot(state.current_player, 2, dtype=jnp.float32)
    return state._replace(
        rewards=0.0 - mover,  # not −mover: the other player's 0 would be −0.0
        terminated=jnp.bool_(True),
        step_count=state.step_count + 1,
    )


def legal_actions_cleared(state: State, over: jax.Array | None = None) -> State:
    """`state` with no legal action left where its game is `over` (default: terminated or
    truncated), as the State contract has it: a stored `legal_action_mask` emptied, or the
    packed `legal_action_bits` a game reads its mask from (checkers, chess, draughts).

    `Env.step` applies it to every step it returns, whichever way the game ended (the rules, a
    forfeit, the step limit); a game's own start applies it to a position that starts decided.
    The bits are cleared in the State, not in the mask's property, so that a fresh game a wrapper
    marks finished (pgx's `auto_reset` does) still offers its moves.
    """
    if over is None:
        over = state.terminated | state.truncated
    for name in ("legal_action_mask", "legal_action_bits"):
        if name in state._fields:
            value = getattr(state, name)
            cleared = jnp.where(over[..., None], jnp.zeros_like(value), value)
            state = state._replace(**{name: cleared})
    return state


def packed_legal_actions(state: State) -> jax.Array:
    """uint32 (…, ⌈A/32⌉): the legal actions packed as `bits.pack_mask` packs a mask: the
    State's `legal_action_bits` where it keeps them so (checkers, chess, draughts), else its
    `legal_action_mask` packed. What the random player samples from, with no mask unpacked."""
    if "legal_action_bits" in getattr(state, "_fields", ()):
        return state.legal_action_bits
    return pack_mask(state.legal_action_mask)


class AutoResetStep(NamedTuple):
    """What `step_autoreset` returns.

    state: the game to act on next; a fresh game where `final` ended, carrying `final.rewards`
        so that `state.rewards` is always the reward of the transition just made.
    final: the plain `env.step` result; read `terminated`, `truncated` and the last `observation`
        of a finished game here (needed to bootstrap values at truncation).
    """

    state: Any
    final: Any


def step_autoreset(
    env: Env, state: State, action: jax.Array, key: jax.Array, reset=None
) -> AutoResetStep:
    """`env.step`, then a fresh game (from `key`) wherever the game ended. Branch-free.

    reset: `reset(key) -> State` for the fresh game (default `env.reset`)."""
    final = env.step(state, action)
    fresh = (reset or env.reset)(key)._replace(rewards=final.rewards)
    is_over = final.terminated | final.truncated
    return AutoResetStep(state=tree_where(is_over, fresh, final), final=final)


class _Rules:
    """An env as a cache key: equal to any env of the same game and options (the same repr)."""

    __slots__ = ("env", "key")

    def __init__(self, env: Env):
        self.env = env
        self.key = (type(env), repr(env))

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Rules) and self.key == other.key


def per_rules(maxsize: int = 32):
    """Caches `function(env, *args)` per set of rules: envs of the same game and options share
    what it built (a compiled function), where a cache on the env object would build it again
    for every new env. The other arguments must be hashable."""

    def decorate(function):
        cached = functools.lru_cache(maxsize)(lambda rules, *args: function(rules.env, *args))

        @functools.wraps(function)
        def by_rules(env, *args):
            return cached(_Rules(env), *args)

        return by_rules

    return decorate


@per_rules(maxsize=128)
def compiled_method(env: Env, name: str):
    """`jax.jit(getattr(env, name))` for host code that calls it one game at a time, compiled
    once per set of rules (`per_rules`). Inside another trace its cached program is inlined into
    that trace, as if traced there: the same program as an unjitted call."""
    return jax.jit(getattr(env, name), inline=True)


def compiled_step(env: Env):
    """`jax.jit(env.step)`, once per set of rules (`compiled_method`)."""
    return compiled_method(env, "step")
