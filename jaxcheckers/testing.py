"""A public conformance check: does an env keep jaxcheckers' State contract? (pgx's `api_test`.)

    from jaxcheckers.testing import check_game
    check_game("checkers")                  # a game of the registry, by name (and its options)
    check_game(MyGame(), adapters=True)     # an env, and PettingZoo's and Gymnasium's checks

`check_game` raises AssertionError, one message naming the step, the game of the batch and the
rule, on the first thing that breaks the contract (`core.State`, `Env.step`, docs/rules.md), and
returns None when the game keeps it. It is cheap: a few games, a few dozen random steps, one
compiled program (a jitted, vmapped rollout, run twice); one game's State is read as the vmapped
trace sees it, so nothing unbatched is compiled.

What it checks:
- the State's fields, dtypes and shapes: `current_player` int32 () in {0, 1}, `observation`
  bool or int8 of `env.observation_shape`, `legal_action_mask` bool (num_actions,), `rewards`
  float32 (2,), `terminated`/`truncated` bool (), `step_count` int32 (), a State's `env_id`
  (where it has one) and `env.id`; `reset` refuses a batch of keys; `init` is `reset`;
- `jit` and `vmap`: one batched rollout of `steps` plies compiles once and runs the same twice
  (the same key, the same games);
- the masks: a live game offers a move, a finished one offers none (all False, not pgx's all
  True); random legal moves never forfeit; a State that keeps `legal_action_bits` keeps
  exactly its mask packed (`bits.pack_mask`, the words the random player samples from);
- the rewards: zero until the step that ends the game, then +1/−1 or 0/0 (zero-sum); an illegal
  action (masked out, or out of range) ends the game with −1 for the mover and 0 for the other;
  a finished game stepped again is unchanged, with zero rewards; `truncated` only at `max_steps`;
- `step_autoreset`: a fresh game where one ended, carrying the last rewards, the game unchanged
  elsewhere;
- `observe(state, state.current_player)` is the observation, and `observe(state, 0)` takes the
  player as an int (for envs that define `observe`);
- for a game of the registry, by name: the agents its spec names by default (`play`'s seats,
  `scored_against`) exist for it;
- with `adapters=True`, for a registered game: PettingZoo's `api_test` and Gymnasium's
  `check_env` (each skipped with a warning that names the missing extra).

Only jax is needed; pytest is not imported.
"""

from __future__ import annotations

import warnings
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxcheckers import games
from jaxcheckers.agents import make_agent
from jaxcheckers.bits import pack_mask
from jaxcheckers.core import Env, packed_legal_actions, step_autoreset, tree_where
from jaxcheckers.extras import missing_message

__all__ = ["check_game", "CONTRACT"]

CONTRACT: dict[str, tuple[tuple[str, ...], tuple[int, ...] | None]] = {
    "current_player": (("int32",), ()),
    "observation": (("bool", "int8"), None),  # env.observation_shape
    "legal_action_mask": (("bool",), None),  # (env.num_actions,)
    "rewards": (("float32",), (2,)),
    "terminated": (("bool",), ()),
    "truncated": (("bool",), ()),
    "step_count": (("int32",), ()),
}
"""The State's fields as `check_game` checks them: name -> (the dtypes allowed, the shape); the
shape None where the env gives it (`observation_shape`, `(num_actions,)`)."""
# The games of a batch by what they play: the first half auto-resets (`step_autoreset`), the rest
# keep their finished games; two of those end by an illegal action, at the steps below.
MASKED_OUT, OUT_OF_RANGE = (2, -1), (3, -2)  # (step, game) of each illegal action


def check_game(
    game: str | Env,
    *,
    batch: int = 8,
    steps: int = 32,
    seed: int = 0,
    random_start: bool | None = None,
    adapters: bool = False,
    **options: Any,
) -> None:
    """Checks that `game` (a name of the registry, built with `options`, or an env) keeps the
    State contract; AssertionError on the first violation, None when it conforms.

    batch: games played at once (at least 4); steps: plies each. random_start: True for a game
    whose start depends on the key (different keys must give different starts), False for one
    whose start is fixed, None not to check. adapters: also run PettingZoo's `api_test` and
    Gymnasium's `check_env` over the game's registry name (a warning where an extra is missing).
    """
    if isinstance(game, Env):
        if options:
            raise ValueError("check_game takes options only with a game's name, not with an env")
        env, name = game, None
    else:
        env, name = games.make(game, **options), game
    if batch < 4 or steps < max(MASKED_OUT[0], OUT_OF_RANGE[0]) + 1:
        raise ValueError(f"check_game needs batch >= 4 and steps >= 4, got {batch}, {steps}")
    label = f"check_game({name or env.id!r})"
    _check_names(env, name, label)
    if name is not None:
        _check_default_agents(env, games.spec(name), label)
    _check_batch_of_keys_refused(env, label)
    _check_observe_takes_an_int(env, label)
    rollout, traces, one_game = _rollout(env, batch, steps)
    key = jax.random.key(seed)
    try:
        first = jax.device_get(rollout(key))
    except Exception:  # a State whose dtypes change in a step fails the scan: say which
        _check_one_game(env, one_game, label)
        raise
    _check_one_game(env, one_game, label)
    _Rollout(env, first, label, random_start, one_game["leaves"]).check()
    again = jax.device_get(rollout(key))
    _expect(traces == [1], f"{label}: the rollout was traced {len(traces)} times, not once")
    for path, a, b in _leaves_with_paths(first, again):
        _expect(np.array_equal(a, b), f"{label}: the same key gave another rollout ({path})")
    if adapters:
        _check_adapters(env, name, options, label)


def _expect(condition: Any, message: str) -> None:
    if not bool(condition):
        raise AssertionError(message)


def _view(state: Any, *, observation: bool = True) -> dict[str, jax.Array]:
    """The contract's fields of `state` (a field or a property), inside a trace; without the
    observation if told (the rollout records its shape once, not its value at every step)."""
    return {f: getattr(state, f) for f in CONTRACT if observation or f != "observation"}


def _check_names(env: Env, name: str | None, label: str) -> None:
    _expect(env.num_players == 2, f"{label}: num_players is {env.num_players}, not 2")
    _expect(
        isinstance(env.num_actions, int) and env.num_actions > 0,
        f"{label}: num_actions must be a positive int, got {env.num_actions!r}",
    )
    _expect(isinstance(env.id, str) and env.id, f"{label}: env.id must be a name")
    if name is not None:
        _expect(env.id == name, f"{label}: env.id is {env.id!r}, not the name it was made by")
    env_id = getattr(env.state_type, "env_id", env.id)
    _expect(env_id == env.id, f"{label}: the State's env_id is {env_id!r}, not {env.id!r}")


def _check_default_agents(env: Env, spec: games.GameSpec, label: str) -> None:
    named = [s for s in spec.defaults.seats if s != "human"] + list(spec.defaults.scored_against)
    for agent in named:
        try:
            make_agent(agent, env)
        except ValueError as error:
            raise AssertionError(f"{label}: its default agent {agent!r}: {error}") from None


def _check_batch_of_keys_refused(env: Env, label: str) -> None:
    try:
        jax.eval_shape(env.reset, jax.random.split(jax.random.key(0), 3))
    except ValueError:
        return
    raise AssertionError(f"{label}: reset took a batch of 3 keys; it must refuse them")


def _check_one_game(env: Env, one_game: dict[str, Any], label: str) -> None:
    """The fields of one game's State, as the vmapped trace saw them (whatever it reached)."""
    for where, fields in one_game.items():
        if where != "leaves":
            _check_fields(env, fields, (), f"{label}: {where}")


def _check_fields(env: Env, fields: dict[str, Any], batch: tuple[int, ...], where: str) -> None:
    shapes = {"observation": tuple(env.observation_shape), "legal_action_mask": (env.num_actions,)}
    for field, (dtypes, shape) in CONTRACT.items():
        if field not in fields:  # the rollout's records leave out the observation
            continue
        value = fields[field]
        want = batch + (shapes[field] if shape is None else shape)
        _expect(
            str(value.dtype) in dtypes and tuple(value.shape) == want,
            f"{where}: {field} is {value.dtype}{tuple(value.shape)}, the contract says "
            f"{' or '.join(dtypes)}{want}",
        )


def _leaf_equal(a: Any, b: Any) -> jax.Array:
    """bool (leaves,): each leaf of two states of one game equal (rewards left out)."""
    a, b = a._replace(rewards=b.rewards), b
    return jnp.stack(
        [jnp.array_equal(x, y) for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b), strict=True)]
    )


def _check_observe_takes_an_int(env: Env, label: str) -> None:
    """`observe(state, 0)`, the player a Python int as pgx users write it, traces (shapes only:
    nothing is compiled); the rollout then compares it with an int32 player's."""
    if type(env).observe is Env.observe:
        return
    state = jax.eval_shape(env.reset, jax.random.key(0))
    try:
        jax.eval_shape(lambda state: env.observe(state, 0), state)
    except Exception as error:
        message = str(error).splitlines()[0] if str(error) else ""
        raise AssertionError(
            f"{label}: observe(state, 0) fails on a player given as an int: "
            f"{type(error).__name__}: {message}"
        ) from None


def _rollout(env: Env, batch: int, steps: int):
    """The compiled rollout `key -> records` ([steps, batch] each), its list of traces, and the
    shapes of one game's fields after `reset` and `step` (filled in when it is traced)."""
    traces: list[int] = []
    one_game: dict[str, Any] = {}  # the shapes and dtypes of one game's fields, when traced
    lanes = jnp.arange(batch)
    resets = lanes < batch // 2  # these games start afresh when they end
    observes = type(env).observe is not Env.observe

    def one_step(state, action, key, reset):
        result = step_autoreset(env, state, action, key)
        fresh = env.reset(key)  # the game step_autoreset starts where one ended
        carried = tree_where(reset, result.state, result.final)
        seen = {"reset(key)": _view(fresh), "step(state, action)": _view(result.final)}
        record = {
            "before": _view(state, observation=False),
            "final": _view(result.final, observation=False),
            "next": _view(carried, observation=False),
            "unchanged": _leaf_equal(result.final, state),
            "next_is_final": _leaf_equal(carried, result.final),
            "next_is_fresh": _leaf_equal(carried, fresh),
            "packed_is_mask": jnp.array_equal(
                packed_legal_actions(state), pack_mask(state.legal_action_mask)
            ),
        }
        if observes:
            mine = env.observe(state, state.current_player)
            record["observe_is_observation"] = jnp.array_equal(mine, state.observation)
            record["observe_takes_an_int"] = jnp.array_equal(
                env.observe(state, 0), env.observe(state, jnp.int32(0))
            )
            theirs = env.observe(state, 1 - state.current_player)
            seen["observe(state, the other player)"] = {"observation": theirs}
        one_game["leaves"] = [jax.tree_util.keystr(p) for p, _ in _flat_with_paths(state)]
        for where, fields in seen.items():
            one_game[where] = {f: jax.ShapeDtypeStruct(v.shape, v.dtype) for f, v in fields.items()}
        return carried, record

    @jax.jit
    def rollout(key):
        traces.append(1)
        start_keys = jax.random.split(key, batch)
        start = jax.vmap(env.init)(start_keys)
        same_start = jax.vmap(_leaf_equal)(start, jax.vmap(env.reset)(start_keys)).all(-1)
        other_start = jax.vmap(_leaf_equal)(start, jax.vmap(env.init)(start_keys[::-1]))

        def body(state, step_and_key):
            step, key = step_and_key
            act_key, reset_key = jax.random.split(key)
            mask = state.legal_action_mask
            logits = jnp.where(mask, 0.0, -jnp.inf)
            played = jax.random.categorical(act_key, logits, axis=-1)
            played = jnp.where(mask.any(-1), played, 0).astype(jnp.int32)
            masked_out = jnp.where(mask.all(-1), env.num_actions, jnp.argmin(mask, axis=-1))
            action = jnp.where(
                (step == MASKED_OUT[0]) & (lanes == batch + MASKED_OUT[1]), masked_out, played
            )
            out_of_range = (step == OUT_OF_RANGE[0]) & (lanes == batch + OUT_OF_RANGE[1])
            action = jnp.where(out_of_range, env.num_actions, action).astype(jnp.int32)
            keys = jax.random.split(reset_key, batch)
            state, record = jax.vmap(one_step)(state, action, keys, resets)
            return state, {**record, "action": action}

        ticks = (jnp.arange(steps), jax.random.split(key, steps))
        _, records = jax.lax.scan(body, start, ticks)
        return {
            "start": _view(start),
            "init_is_reset": same_start,
            "starts_differ": ~other_start.all(-1),
            "records": records,
        }

    return rollout, traces, one_game


class _Rollout:
    """The host-side checks of one rollout's records ([steps, batch] arrays)."""

    def __init__(self, env: Env, out: dict, label: str, random_start: bool | None, leaves: list):
        self.env, self.out, self.label, self.random_start = env, out, label, random_start
        self.leaves = leaves  # the State's leaves by name, as `unchanged` lists them
        self.records = out["records"]
        self.steps, self.batch = self.records["action"].shape

    def fail_at(self, bad: np.ndarray, rule: str, *shown: str) -> None:
        """AssertionError naming the first (step, game) where `bad` and what it shows there."""
        if not bad.any():
            return
        step, game = (int(i) for i in np.argwhere(bad)[0])
        seen = "; ".join(
            f"{name.partition(':')[0] or name} {self.at(name.rpartition(':')[2], step, game)}"
            for name in shown
        )
        raise AssertionError(
            f"{self.label}: step {step}, game {game}: {rule}" + (f" ({seen})" if seen else "")
        )

    def at(self, name: str, step: int, game: int) -> Any:
        part, _, field = name.partition(".")
        value = self.records[part][field] if field else self.records[part]
        value = np.asarray(value[step, game])
        if name in ("unchanged", "next_is_final", "next_is_fresh"):  # the leaves that differ
            return [leaf for leaf, same in zip(self.leaves, value, strict=True) if not same]
        return value.tolist() if value.size <= 8 else f"{value.dtype}{value.shape}"

    def check(self) -> None:
        env, out, label, records = self.env, self.out, self.label, self.records
        batch = (self.batch,)
        _check_fields(env, out["start"], batch, f"{label}: vmap(init)(keys)")
        for part in ("before", "final", "next"):
            _check_fields(env, records[part], (self.steps, *batch), f"{label}: the rollout")
        _expect(out["init_is_reset"].all(), f"{label}: init(key) and reset(key) differ")
        if self.random_start is not None:
            differ = bool(out["starts_differ"].any())
            _expect(
                differ == self.random_start,
                f"{label}: different keys gave {'different' if differ else 'the same'} starts, "
                f"but random_start={self.random_start}",
            )
        self.check_masks()
        self.check_steps()
        self.check_rewards()
        self.check_auto_reset()
        self.fail_at(
            ~records["packed_is_mask"],
            "legal_action_bits is not legal_action_mask packed (bits.pack_mask)",
        )
        if "observe_is_observation" in records:
            self.fail_at(
                ~records["observe_is_observation"],
                "observe(state, state.current_player) is not state.observation",
            )
            self.fail_at(
                ~records["observe_takes_an_int"],
                "observe(state, 0) differs from observe(state, jnp.int32(0))",
            )

    def ended(self, part: str) -> np.ndarray:
        return self.records[part]["terminated"] | self.records[part]["truncated"]

    def check_masks(self) -> None:
        records = self.records
        for part in ("before", "final", "next"):
            player = records[part]["current_player"]
            self.fail_at(
                (player != 0) & (player != 1),
                "current_player is not 0 or 1",
                f"{part}.current_player",
            )
            mask = records[part]["legal_action_mask"]
            self.fail_at(
                ~self.ended(part) & ~mask.any(-1),
                "a game that is not over offers no legal action",
                f"{part}.step_count",
            )
            self.fail_at(
                self.ended(part) & mask.any(-1),
                "a finished game's legal_action_mask must be all False (pgx's all True is not "
                "this contract's)",
                f"{part}.terminated",
                f"{part}.truncated",
            )
            self.fail_at(
                records[part]["terminated"] & records[part]["truncated"],
                "a game is both terminated and truncated",
            )

    def illegal(self) -> np.ndarray:
        """bool [steps, batch]: the action played was not a legal one of a live game."""
        action, mask = self.records["action"], self.records["before"]["legal_action_mask"]
        inside = (action >= 0) & (action < self.env.num_actions)
        legal = np.take_along_axis(mask, np.clip(action, 0, mask.shape[-1] - 1)[..., None], -1)
        return ~(inside & legal[..., 0]) & ~self.ended("before")

    def check_steps(self) -> None:
        records, env = self.records, self.env
        live = ~self.ended("before")
        before, final = records["before"]["step_count"], records["final"]["step_count"]
        self.fail_at(
            live & (final != before + 1),
            "a step of a live game must add 1 to step_count",
            "before.step_count",
            "final.step_count",
        )
        stale = ~live & ~records["unchanged"].all(-1)
        self.fail_at(stale, "stepping a finished game must change nothing", "changed:unchanged")
        illegal = self.illegal()
        for step, game in (MASKED_OUT, OUT_OF_RANGE):
            _expect(
                illegal[step, game] or not live[step, game],
                f"{self.label}: step {step}: the check's illegal action was legal",
            )
        self.fail_at(
            illegal & ~records["final"]["terminated"],
            "an illegal action (masked out or out of range) must end the game",
            "action",
            "final.terminated",
        )
        truncated = records["final"]["truncated"] & live
        if env.max_steps is None:
            self.fail_at(truncated, "a game with max_steps=None was truncated")
        else:
            self.fail_at(
                truncated & (final < env.max_steps),
                f"a game was truncated before max_steps={env.max_steps}",
                "final.step_count",
            )
            self.fail_at(
                live & (final >= env.max_steps) & ~self.ended("final"),
                f"a game went past max_steps={env.max_steps} without being truncated",
                "final.step_count",
            )

    def check_rewards(self) -> None:
        records = self.records
        rewards = records["final"]["rewards"]
        live = ~self.ended("before")
        ends = live & self.ended("final")
        self.fail_at(~np.isfinite(rewards).all(-1), "rewards must be finite", "final.rewards")
        self.fail_at(
            ~ends & (rewards != 0).any(-1),
            "rewards must be zero except on the step that ends the game",
            "final.rewards",
            "before.terminated",
        )
        illegal = self.illegal()
        mover = records["before"]["current_player"]
        forfeit = -np.stack([mover == 0, mover == 1], -1).astype(np.float32)
        self.fail_at(
            illegal & (rewards != forfeit).any(-1),
            "an illegal action must give -1 to the mover and 0 to the other",
            "action",
            "before.current_player",
            "final.rewards",
        )
        legal_end = ends & ~illegal
        self.fail_at(
            legal_end & (rewards.sum(-1) != 0),
            "a game ended by a legal move must give zero-sum rewards (+1/-1 or 0/0)",
            "final.rewards",
        )
        self.fail_at(
            legal_end & ~np.isin(rewards, (-1.0, 0.0, 1.0)).all(-1),
            "a game's rewards must be +1 for the winner, -1 for the loser, 0 on a draw",
            "final.rewards",
        )

    def check_auto_reset(self) -> None:
        records = self.records
        resets = np.arange(self.batch) < self.batch // 2
        restarted = resets & self.ended("final")
        self.fail_at(
            restarted & ~records["next_is_fresh"].all(-1),
            "step_autoreset must start a fresh game, reset(key), where the game ended",
            "differing:next_is_fresh",
        )
        self.fail_at(
            ~restarted & ~records["next_is_final"].all(-1),
            "step_autoreset must leave a game that did not end as env.step left it",
            "differing:next_is_final",
        )
        self.fail_at(
            restarted & (records["next"]["step_count"] != 0),
            "a game started afresh by step_autoreset must have step_count 0",
            "next.step_count",
        )
        self.fail_at(
            restarted & (records["next"]["rewards"] != records["final"]["rewards"]).any(-1),
            "step_autoreset's fresh game must carry the rewards of the step that ended the game",
            "next.rewards",
            "final.rewards",
        )


def _flat_with_paths(tree: Any) -> list:
    return jax.tree_util.tree_flatten_with_path(tree)[0]


def _leaves_with_paths(a: Any, b: Any):
    for (path, x), y in zip(_flat_with_paths(a), jax.tree.leaves(b), strict=True):
        yield jax.tree_util.keystr(path), x, y


def _check_adapters(env: Env, name: str | None, options: dict, label: str) -> None:
    """PettingZoo's `api_test` and Gymnasium's `check_env` on the game's registry name."""
    name = name or env.id
    if name not in games.names():
        _skipped(label, f"the adapters' checks need a registered game; {name!r} is not one")
        return
    try:
        from pettingzoo.test import api_test

        from jaxcheckers.adapters.pettingzoo import env as aec_env
    except ModuleNotFoundError as error:
        _skipped(label, missing_message(_package(error), "PettingZoo's api_test"))
    else:
        try:
            api_test(aec_env(game=name, render_mode="ansi", **options), num_cycles=10)
        except AssertionError as error:
            raise AssertionError(f"{label}: PettingZoo's api_test: {error}") from error
    try:
        import gymnasium
        from gymnasium.utils.env_checker import check_env

        from jaxcheckers.adapters import registration
    except ModuleNotFoundError as error:
        _skipped(label, missing_message(_package(error), "Gymnasium's check_env"))
        return
    registration.register_envs()
    gym_id = games.spec(name).gymnasium_id
    learner = gymnasium.make(gym_id, render_mode="ansi", opponent="random", **options)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # check_env's complaints are failures
        try:
            check_env(learner.unwrapped, skip_render_check=False)
        except (AssertionError, Warning) as error:
            raise AssertionError(f"{label}: Gymnasium's check_env: {error}") from error


def _skipped(label: str, why: str) -> None:
    """A check left out: a warning at the caller of `check_game`, saying why."""
    warnings.warn(f"{label}: skipped: {why}", stacklevel=4)


def _package(error: ModuleNotFoundError) -> str:
    """The package to install for a missing module ("pettingzoo" for "pettingzoo.test")."""
    return (error.name or "").split(".")[0]
