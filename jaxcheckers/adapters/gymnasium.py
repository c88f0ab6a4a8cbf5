"""Gymnasium environments: one learner against an opponent agent, singly or batched in JAX, in
checkers or chess.

    import gymnasium, jaxcheckers.adapters.gymnasium    # the import registers the ids
    env = gymnasium.make("jaxcheckers/Checkers-v0", opponent="random")   # or Chess-v0
    observation, info = env.reset(seed=0)                # info["action_mask"]: int8 (A,)
    env.unwrapped.action_masks()                         # bool (A,), for MaskablePPO
    observation, reward, terminated, truncated, info = env.step(action)
    envs = gymnasium.make_vec("jaxcheckers/Checkers-v0", num_envs=256,
                              vectorization_mode="vector_entry_point")  # CheckersVectorEnv

(`gymnasium.make("jaxcheckers.adapters.registration:jaxcheckers/Checkers-v0")` needs no import.)
A is the game's number of actions: 4·n² in checkers, 4672 in chess.

Rules and options: the game is `jaxcheckers.make("checkers", ...)` (`CheckersEnv`,
`jaxcheckers/Checkers-v0`: American checkers, tournament rules, by default) or
`jaxcheckers.make("chess", ...)` (`ChessEnv`, `jaxcheckers/Chess-v0`); its options are keywords
of both environments: for checkers `board_size`, `no_moves`, `forty_move_draw`,
`repetition_draw`, `max_steps` (1000 hops, then `truncated`); for chess `max_steps` (1000 plies),
`insufficient_material`, `threefold_repetition`, `fifty_move_rule`, `history`. Further keywords:
- `opponent`: a spec for `jaxcheckers.agents.make_agent` ("random", "alphabeta:3", ...) or a pure
  `act(state, key) -> action` function (default "random");
- `learner_seat`: 0 (moves first: black in checkers, white in chess), 1, or "random" (drawn at
  each reset, the default); `reset(options={"learner_seat": s})` overrides it for one episode
  (single env); `reset(options={"start": position})` starts the episode from a position, as
  the PettingZoo adapter takes it (the game's FEN text or a State of this env; checkers also a
  `Game`), the opponent moving first if it is its turn. Any other key is refused, and a
  seed is None or an int in [0, 2**32);
- `observation_type`: "box" (default) gives the game's observation planes as float32, in the
  learner's frame whoever is to move: checkers (n, n, 4) (own men, own kings, opponent men,
  opponent kings), chess (8, 8, 20) (PettingZoo's `chess_utils.get_observation` planes; (8, 8,
  111) with history=True); "dict" gives `{"observation": those planes, "action_mask": int8
  (A,)}`. The mask is also in `info["action_mask"]` either way, and the learner's seat in
  `info["learner_seat"]`.

Each `step` plays the learner's action (in checkers one hop: a multi-jump is several steps by the
learner), then the opponent's moves until the learner is to move again or the game is over. The
reward is the learner's: +1 win, −1 loss, 0 draw, at the end. A masked-out action loses the game
(−1), as in the JAX env; an action outside `Discrete(A)` raises ValueError.

Render modes: "ansi" (the board as text), "human" (printed), and "rgb_array" (uint8 (H, W, 3) for
`gymnasium.wrappers.RecordVideo`: checkers (32·n, 32·n, 3), black at the top; chess drawn with
matplotlib, white at the bottom).

Randomness: every episode is a pure function of one JAX key (seat, then one key split per opponent
move); the single env draws it from `np_random`, so `reset(seed=s)` repeats an episode.

`LearnerVectorEnv` (and `CheckersVectorEnv`, `ChessVectorEnv`) runs `num_envs` of these games
under one `jax.jit` (vmap), numpy in and out. Autoreset, as Gymnasium defines it: NEXT_STEP (the
default: the step after a game ends resets that game and ignores its action, reward 0) or
`autoreset_mode=SAME_STEP` (the game that ends restarts in the same step; its last observation
and info are in `info["final_obs"]` and `info["final_info"]`). Infos, `reset(seed=...)`,
`reset(options={"reset_mask": mask})` and `render()` (a tuple, one frame or text a game) follow
`SyncVectorEnv`: seeded alike, game i plays what `SyncVectorEnv`'s i-th `LearnerEnv` plays.

`gymnasium.make_vec(..., vectorization_mode="async")` needs `vector_kwargs={"context": "spawn"}`
(or "forkserver"): forked workers would deadlock in JAX, so the default 'fork' is refused at once.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxcheckers.adapters import registration
from jaxcheckers.adapters.common import (
    PickledAsSettings,
    checked_action,
    checked_seed,
    reset_options,
)
from jaxcheckers.agents import make_agent
from jaxcheckers.argtypes import checked_positive_int
from jaxcheckers.core import Env, State, per_rules, tree_where
from jaxcheckers.extras import needed_for
from jaxcheckers.games import GameSpec, observable_env, spec

with needed_for("the Gymnasium adapter"):
    import gymnasium
    from gymnasium import spaces
    from gymnasium.vector import AutoresetMode, VectorEnv
    from gymnasium.vector.utils import batch_space

__all__ = [
    "LearnerEnv",
    "LearnerVectorEnv",
    "CheckersEnv",
    "CheckersVectorEnv",
    "ChessEnv",
    "ChessVectorEnv",
    "LearnerState",
    "LearnerGame",
    "register",
    "ENV_ID",
    "CHESS_ID",
]

ENV_ID = spec("checkers").gymnasium_id
CHESS_ID = spec("chess").gymnasium_id
RENDER_FPS = 2
RANDOM_SEAT = -1  # learner_seat value: draw the seat from the episode's key
RESET_OPTIONS = ("learner_seat", "start")  # the keys the single env's `reset(options=)` takes


class LearnerState(NamedTuple):
    """One learner's game: the JAX State, the learner's seat, and the key of the rest."""

    game: State
    seat: jax.Array  # int32 ()  the learner's player id
    key: jax.Array  # key ()  split once per opponent move


class LearnerView(NamedTuple):
    """What the learner is shown, computed inside the jitted step."""

    observation: jax.Array  # float32 (*observation_shape)  learner's frame
    action_mask: jax.Array  # int8 (num_actions,)  all zeros once the game is over
    reward: jax.Array  # float32 ()  the learner's reward since its last action
    terminated: jax.Array  # bool ()
    truncated: jax.Array  # bool ()
    seat: jax.Array  # int32 ()  the learner's player id


class LearnerGame:
    """Pure functions for one learner's episode (vmap them for many), built once per setting.

    `advance(learner_state, action, restart, seat_option, fresh_key)`: the learner's move (or a
    new episode), then the opponent's moves until it is the learner's turn; `autoreset_step` is
    the vector env's version of it. `observe(state, player)` is the game's observation
    as `player` sees it (`jaxcheckers.games`).
    """

    def __init__(self, env: Env, opponent: Callable, observe: Callable):
        self.env = env
        self.opponent = opponent
        self.observe = observe

    def _fresh(self, key: jax.Array, seat_option: jax.Array) -> LearnerState:
        seat_key, game_key, play_key = jax.random.split(key, 3)
        drawn = jax.random.randint(seat_key, (), 0, 2, dtype=jnp.int32)
        seat = jnp.where(seat_option == RANDOM_SEAT, drawn, seat_option).astype(jnp.int32)
        return LearnerState(self.env.reset(game_key), seat, play_key)

    def _moves(
        self, learner: LearnerState, action: jax.Array, learner_first: jax.Array
    ) -> tuple[LearnerState, jax.Array]:
        """The learner's `action` where `learner_first`, then the opponent's moves while the game
        is live and not the learner's turn; the learner's rewards summed. The learner's move and
        the opponent's share one `env.step` in one loop, so the game's step (slow to compile for
        chess) is compiled once per setting (but see `advance`'s `batched`)."""

        def goes_on(carry) -> jax.Array:
            learner, _, first = carry
            game = learner.game
            live = ~(game.terminated | game.truncated)
            return first | (live & (game.current_player != learner.seat))

        def move(carry):
            learner, reward, first = carry

            def learners():
                return jnp.asarray(action, jnp.int32), learner.key

            def opponents():  # one key split per opponent move
                key, act_key = jax.random.split(learner.key)
                return jnp.asarray(self.opponent(learner.game, act_key), jnp.int32), key

            chosen, key = jax.lax.cond(first, learners, opponents)
            game = self.env.step(learner.game, chosen)
            learner = learner._replace(game=game, key=key)
            return learner, reward + game.rewards[learner.seat], jnp.bool_(False)

        carry = (learner, jnp.float32(0.0), jnp.asarray(learner_first))
        learner, reward, _ = jax.lax.while_loop(goes_on, move, carry)
        return learner, reward

    def view(self, learner: LearnerState, reward: jax.Array) -> LearnerView:
        game = learner.game
        learners_turn = game.current_player == learner.seat
        mask = game.legal_action_mask & learners_turn
        return LearnerView(
            observation=self.observe(game, learner.seat).astype(jnp.float32),
            action_mask=mask.astype(jnp.int8),
            reward=reward.astype(jnp.float32),
            terminated=game.terminated,
            truncated=game.truncated,
            seat=learner.seat,
        )

    def advance(
        self,
        learner: LearnerState,
        action: jax.Array,
        restart: jax.Array,
        seat_option: jax.Array,
        fresh_key: jax.Array,
        batched: bool = False,
    ) -> tuple[LearnerState, LearnerView]:
        """The learner's `action`, or (where `restart`) a new episode from `fresh_key`; then the
        opponent's moves until the learner is to move. One function for reset and step, so that
        each setting compiles once.

        `batched` (static; the vector env, under vmap): a `cond` is then a select that evaluates
        both branches, so the learner's move is played before the loop, whose every turn would
        otherwise evaluate the opponent for nothing on the learner's move (a search opponent
        would cost as much again). That puts a second `env.step` in the graph,
        which the single env, where `cond` runs one branch, does without.
        """
        start = jax.lax.cond(restart, lambda: self._fresh(fresh_key, seat_option), lambda: learner)
        learners_move = ~restart
        reward = jnp.float32(0.0)
        if batched:
            game = tree_where(learners_move, self.env.step(start.game, action), start.game)
            reward = jnp.where(learners_move, game.rewards[start.seat], reward)
            start, learners_move = start._replace(game=game), jnp.bool_(False)
        learner, more = self._moves(start, action, learners_move)
        return learner, self.view(learner, reward + more)

    def start_from(
        self, game: State, key: jax.Array, seat_option: jax.Array
    ) -> tuple[LearnerState, LearnerView]:
        """A new episode from the position `game` (`reset(options={"start": ...})`): the seat and
        the key drawn from `key` as `advance` draws them, then the opponent's moves until the
        learner is to move."""
        learner = self._fresh(key, seat_option)._replace(game=game)
        learner, reward = self._moves(learner, jnp.int32(0), jnp.bool_(False))
        return learner, self.view(learner, reward)

    def autoreset_step(
        self,
        learner: LearnerState,
        action: jax.Array,
        needs_reset: jax.Array,
        seat_option: jax.Array,
        fresh_seed: jax.Array,
    ) -> tuple[LearnerState, LearnerView]:
        """The vector env's step: where `needs_reset`, a new episode from `jax.random.key(
        fresh_seed)` (`action` ignored), as the single env's `reset` draws one; else `action`.
        A continuing game keeps its key, so its hops match `advance` exactly."""
        fresh_key = jax.random.key(fresh_seed)
        return self.advance(learner, action, needs_reset, seat_option, fresh_key, batched=True)

    def placeholder(self) -> LearnerState:
        """A LearnerState of the right shapes, for the first `advance(..., restart=True)`."""
        return LearnerState(self.env.reset(jax.random.key(0)), jnp.int32(0), jax.random.key(0))


@per_rules(maxsize=32)
def _learner_game(env: Env, opponent: str | Callable) -> LearnerGame:
    """The LearnerGame of one setting, per set of rules, so that its jitted functions are shared."""
    act = make_agent(opponent, env) if isinstance(opponent, str) else opponent
    if not callable(act):
        raise ValueError(
            f"opponent must be an agent spec or an act(state, key) function, got {opponent!r}"
        )
    return LearnerGame(env, act, env.observe)


@functools.lru_cache(maxsize=96)
def _compiled(game: LearnerGame, kind: str) -> Callable:
    """`advance` jitted ("single"), `start_from` jitted ("start"), or `autoreset_step` vmapped
    and jitted ("batched")."""
    if kind == "single":
        return jax.jit(game.advance)
    if kind == "start":
        return jax.jit(game.start_from)
    return jax.jit(jax.vmap(game.autoreset_step, in_axes=(0, 0, 0, None, 0)))


def _seat_option(learner_seat: int | str) -> int:
    if learner_seat == "random":
        return RANDOM_SEAT
    if learner_seat in (0, 1) and not isinstance(learner_seat, bool):
        return int(learner_seat)
    raise ValueError(f"learner_seat must be 0, 1 or 'random', got {learner_seat!r}")


def _spaces(env: Env, observation_type: str) -> tuple[spaces.Space, spaces.Discrete]:
    planes = spaces.Box(low=0.0, high=1.0, shape=env.observation_shape, dtype=np.float32)
    mask = spaces.Box(low=0, high=1, shape=(env.num_actions,), dtype=np.int8)
    if observation_type == "box":
        observation_space = planes
    elif observation_type == "dict":
        observation_space = spaces.Dict({"observation": planes, "action_mask": mask})
    else:
        raise ValueError(f"observation_type must be 'box' or 'dict', got {observation_type!r}")
    return observation_space, spaces.Discrete(env.num_actions)


def _game_of(env_class: type, game: str | None) -> GameSpec:
    """The spec of `game`, or of the class's own `game_name`; ValueError when neither is set."""
    name = game or env_class.game_name
    if name is None:
        raise ValueError(f"{env_class.__name__} needs game=NAME (one of the registered games)")
    return spec(name)


class LearnerEnv(PickledAsSettings, gymnasium.Env):
    """One learner against an opponent agent in any registered game (`game=NAME`, or the
    subclass's `game_name`); see the module docstring for rules and options."""

    REBUILT = ("adapter", "jax_env", "learner_game", "_advance")

    game_name: str | None = None  # an entry of `jaxcheckers.games`
    # The modes any game may have; each instance's `metadata` holds its game's own.
    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": RENDER_FPS}

    def __init__(
        self,
        render_mode: str | None = None,
        *,
        game: str | None = None,
        opponent: str | Callable = "random",
        learner_seat: int | str = "random",
        observation_type: str = "box",
        **options,
    ):
        self.adapter = _game_of(type(self), game)
        self.metadata = {"render_modes": self.adapter.render_modes, "render_fps": RENDER_FPS}
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        registration.refuse_forked_workers()
        self.render_mode = render_mode
        self._game, self._options, self._opponent = self.adapter.name, options, opponent
        self._attach()
        self.observation_type = observation_type
        self.observation_space, self.action_space = _spaces(self.jax_env, observation_type)
        self._seat_option = _seat_option(learner_seat)
        self._learner: LearnerState | None = None
        self._over = True
        self._mask = np.zeros(self.jax_env.num_actions, dtype=bool)

    def _attach(self) -> None:
        """The game's spec, env and compiled step, from the settings (again after unpickling)."""
        self.adapter = spec(self._game)
        self.jax_env = observable_env(self._game, **self._options)
        self.learner_game = _learner_game(self.jax_env, self._opponent)
        self._advance = _compiled(self.learner_game, "single")

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        options = reset_options(options, RESET_OPTIONS)
        seat = self._seat_option
        if "learner_seat" in options:
            seat = _seat_option(options["learner_seat"])
        start = options.get("start")
        game = None if start is None else self.adapter.start_state(start, self.jax_env)
        if game is not None and bool(game.terminated | game.truncated):
            raise ValueError("options['start'] is a finished game: there is no move to play")
        super().reset(seed=checked_seed(seed))
        key = jax.random.key(_episode_seed(self.np_random))
        if game is not None:
            begin = _compiled(self.learner_game, "start")
            self._learner, view = begin(game, key, np.int32(seat))
        else:
            placeholder = self._learner is None
            previous = self.learner_game.placeholder() if placeholder else self._learner
            self._learner, view = self._advance(previous, np.int32(0), True, np.int32(seat), key)
        observation, _, _, _, info = self._answer(view)
        return observation, info

    def step(self, action):
        if self._learner is None or self._over:
            raise RuntimeError("the episode is over (or never began); call reset() first")
        action = np.int32(checked_action(action, self.jax_env.num_actions))
        self._learner, view = self._advance(
            self._learner, action, False, np.int32(self._seat_option), self._learner.key
        )
        return self._answer(view)

    def _answer(self, view: LearnerView):
        view = jax.device_get(view)
        self._over = bool(view.terminated) or bool(view.truncated)
        self._mask = view.action_mask.astype(bool)
        info = {"action_mask": view.action_mask, "learner_seat": int(view.seat)}
        observation = view.observation
        if self.observation_type == "dict":
            observation = {"observation": observation, "action_mask": view.action_mask}
        if self.render_mode == "human":
            self.render()
        reward = float(view.reward)
        return observation, reward, bool(view.terminated), bool(view.truncated), info

    def action_masks(self) -> np.ndarray:
        """bool (num_actions,): the learner's legal actions now (MaskablePPO reads it)."""
        return self._mask.copy()

    @property
    def jax_state(self) -> State:
        """The JAX State of the current game (host arrays); RuntimeError before the first reset."""
        if self._learner is None:
            raise RuntimeError("the episode has not begun: call reset() first")
        return jax.device_get(self._learner.game)

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
            return None
        if self._learner is None:
            return None
        if self.render_mode == "rgb_array":
            return self.adapter.drawing.rgb(self.jax_state)
        text = self.adapter.board_text(self.jax_state)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    @property
    def game(self):
        """The current position as the game's plain Python object (checkers: a `Game`, to print
        it, list its moves in notation, ...); AttributeError for a game without one."""
        return self.adapter.position_object(self.jax_state, self.jax_env)


class CheckersEnv(LearnerEnv):
    """Checkers, one learner against an opponent agent (`jaxcheckers/Checkers-v0`)."""

    game_name = "checkers"


class ChessEnv(LearnerEnv):
    """Chess, one learner against an opponent agent (`jaxcheckers/Chess-v0`)."""

    game_name = "chess"


class LearnerVectorEnv(PickledAsSettings, VectorEnv):
    """`num_envs` learners against the opponent, batched in JAX; numpy in and out.

    Same options as `LearnerEnv` (the module docstring lists them), and `autoreset_mode`
    (Gymnasium's NEXT_STEP, the default, or SAME_STEP). Game i is the game that a `LearnerEnv`
    seeded as `SyncVectorEnv` seeds its i-th env would play: each keeps its own generator,
    from which every new episode draws its seed.
    """

    game_name: str | None = None  # an entry of `jaxcheckers.games`
    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}
    REBUILT = ("adapter", "jax_env", "learner_game", "_autoreset_step")

    def __init__(
        self,
        num_envs: int,
        *,
        game: str | None = None,
        opponent: str | Callable = "random",
        learner_seat: int | str = "random",
        observation_type: str = "box",
        render_mode: str | None = None,
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        **options,
    ):
        self.num_envs = checked_positive_int(num_envs, "num_envs")
        self.adapter = _game_of(type(self), game)
        self.autoreset_mode = _autoreset_mode(autoreset_mode)
        modes = [mode for mode in self.adapter.render_modes if mode != "human"]
        self.metadata = {"autoreset_mode": self.autoreset_mode, "render_modes": modes}
        if render_mode is not None and render_mode not in modes:
            raise ValueError(f"render_mode must be one of {modes} (or None), not {render_mode!r}")
        self.render_mode = render_mode
        self._game, self._options, self._opponent = self.adapter.name, options, opponent
        self._attach()
        self.observation_type = observation_type
        self.single_observation_space, self.single_action_space = _spaces(
            self.jax_env, observation_type
        )
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._seat_option = np.int32(_seat_option(learner_seat))
        self._generators: list[np.random.Generator] | None = None  # one per game
        self._learners: LearnerState | None = None
        self._view: LearnerView | None = None  # host arrays: the last answer
        self._needs_reset = np.zeros(self.num_envs, dtype=bool)

    def _attach(self) -> None:
        """The game's spec, env and compiled step, from the settings (again after unpickling)."""
        self.adapter = spec(self._game)
        self.jax_env = observable_env(self._game, **self._options)
        self.learner_game = _learner_game(self.jax_env, self._opponent)
        self._autoreset_step = _compiled(self.learner_game, "batched")

    def reset(self, *, seed: int | list[int | None] | None = None, options: dict | None = None):
        """All games anew, or those where `options["reset_mask"]` (bool (num_envs,)) is True.

        `seed`, as `SyncVectorEnv` takes it: an int s (game i seeded s + i), a list of one per
        game, or None (each game's generator goes on, or starts from fresh entropy).
        """
        mask = _reset_mask(reset_options(options, ("reset_mask",)).get("reset_mask"), self.num_envs)
        if mask is not None and self._learners is None:
            raise RuntimeError("reset_mask needs the games begun: call reset() without it first")
        self._seed_generators(seed)
        restart = np.ones(self.num_envs, dtype=bool) if mask is None else mask
        learners, view = self._restarted(restart)
        self._learners, self._view = learners, view
        observation, _, _, _, info = self._answer(view, flagged=mask)
        return observation, info

    def step(self, actions):
        if self._learners is None:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(
                f"actions must be {self.num_envs} ints, got shape {actions.shape}, {actions.dtype}"
            )
        if ((actions < 0) | (actions >= self.jax_env.num_actions)).any():
            raise ValueError(f"actions must lie in [0, {self.jax_env.num_actions})")
        seeds = self._episode_seeds(self._needs_reset)
        self._learners, view = self._autoreset_step(
            self._learners, actions.astype(np.int32), self._needs_reset, self._seat_option, seeds
        )
        self._view = jax.device_get(view)
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            return self._answer(self._view)
        return self._same_step_answer(self._view)

    def _same_step_answer(self, ended_view: LearnerView):
        """SAME_STEP: the games that ended restart now; their last observation and info go in
        `info["final_obs"]` and `info["final_info"]`, laid out as `SyncVectorEnv` lays them."""
        ended = ended_view.terminated | ended_view.truncated
        answer = self._answer(ended_view)
        if not ended.any():
            return answer
        final_observation, reward, terminated, truncated, _ = answer
        self._learners, self._view = self._restarted(ended)
        observation, _, _, _, info = self._answer(self._view)
        final_obs = np.full(self.num_envs, None, dtype=object)
        for i in np.flatnonzero(ended):
            final_obs[i] = jax.tree.map(lambda x, i=i: x[i], final_observation)
        info |= {
            "final_obs": final_obs,
            "_final_obs": ended,
            "final_info": _infos(_rows_where(ended, ended_view, _zeros_like(ended_view)), ended),
            "_final_info": ended,
        }
        return observation, reward, terminated, truncated, info

    def _restarted(self, restart: np.ndarray) -> tuple[LearnerState, LearnerView]:
        """The games where `restart` begun anew from their generators' next seeds (the others
        as they are, with their last view)."""
        seeds = self._episode_seeds(restart)
        previous = self._learners
        if previous is None:
            placeholders = np.zeros(self.num_envs, dtype=np.int32)
            previous = jax.vmap(lambda _: self.learner_game.placeholder())(placeholders)
        zeros = np.zeros(self.num_envs, dtype=np.int32)
        everyone = np.ones(self.num_envs, dtype=bool)
        learners, view = self._autoreset_step(previous, zeros, everyone, self._seat_option, seeds)
        view = jax.device_get(view)
        if restart.all():
            return learners, view
        kept = _rows_where(restart, learners, self._learners)
        return kept, _rows_where(restart, view, self._view)

    def _seed_generators(self, seed: int | list[int | None] | None) -> None:
        if isinstance(seed, (list, tuple, np.ndarray)):
            if len(seed) != self.num_envs:
                raise ValueError(f"{len(seed)} seeds for {self.num_envs} envs")
            seeds = [checked_seed(s) for s in seed]
        elif checked_seed(seed) is None:
            if self._generators is not None:
                return
            seeds = [None] * self.num_envs
        else:
            seeds = [seed + i for i in range(self.num_envs)]
        super().reset(seed=seeds[0])
        self._generators = [gymnasium.utils.seeding.np_random(s)[0] for s in seeds]

    def _episode_seeds(self, restart: np.ndarray) -> np.ndarray:
        """int32 (num_envs,): the next episode seed of each game that restarts, 0 elsewhere."""
        seeds = np.zeros(self.num_envs, dtype=np.int32)
        for i in np.flatnonzero(restart):
            seeds[i] = _episode_seed(self._generators[i])
        return seeds

    def action_masks(self) -> np.ndarray:
        """bool (num_envs, num_actions): each learner's legal actions now (for MaskablePPO)."""
        if self._view is None:
            return np.zeros((self.num_envs, self.jax_env.num_actions), dtype=bool)
        return self._view.action_mask.astype(bool)

    def render(self) -> tuple | None:
        """Each game's picture ("rgb_array") or text ("ansi"), as `SyncVectorEnv` renders."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        if self._learners is None:
            return None
        states = jax.device_get(self._learners.game)
        rgb = self.render_mode == "rgb_array"
        draw = self.adapter.drawing.rgb if rgb else self.adapter.board_text
        return tuple(draw(jax.tree.map(lambda x, i=i: x[i], states)) for i in range(self.num_envs))

    def _answer(self, view: LearnerView, flagged: np.ndarray | None = None):
        """What reset and step return, from a host view; `flagged`: the rows the infos cover."""
        self._needs_reset = view.terminated | view.truncated
        info = _infos(view, np.ones(self.num_envs, dtype=bool) if flagged is None else flagged)
        observation = view.observation
        if self.observation_type == "dict":
            observation = {"observation": observation, "action_mask": view.action_mask}
        return observation, view.reward.astype(np.float64), view.terminated, view.truncated, info

    @property
    def jax_state(self) -> State:
        """The batched JAX State of all games (on device)."""
        return self._learners.game


class CheckersVectorEnv(LearnerVectorEnv):
    """Checkers: `num_envs` learners against the opponent, batched in JAX."""

    game_name = "checkers"


class ChessVectorEnv(LearnerVectorEnv):
    """Chess: `num_envs` learners against the opponent, batched in JAX."""

    game_name = "chess"


def _infos(view: LearnerView, rows: np.ndarray) -> dict:
    """The vector env's info, laid out as `SyncVectorEnv`'s: each key with its `_key` rows."""
    return {
        "action_mask": view.action_mask,
        "_action_mask": rows,
        "learner_seat": view.seat,
        "_learner_seat": rows,
    }


def _episode_seed(generator: np.random.Generator) -> int:
    """The seed of an episode's key, drawn as every env here draws it."""
    return int(generator.integers(2**31))


def _autoreset_mode(mode: str | AutoresetMode) -> AutoresetMode:
    try:
        mode = AutoresetMode(mode)
    except ValueError:
        mode = None
    if mode not in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
        raise ValueError(
            "autoreset_mode must be NEXT_STEP or SAME_STEP (Gymnasium's AutoresetMode)"
        )
    return mode


def _reset_mask(mask: Any, num_envs: int) -> np.ndarray | None:
    """`options["reset_mask"]` checked as `SyncVectorEnv` checks it; None when absent."""
    if mask is None:
        return None
    if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_ or mask.shape != (num_envs,):
        raise ValueError(f"options['reset_mask'] must be a bool numpy array of shape ({num_envs},)")
    if not mask.any():
        raise ValueError("options['reset_mask'] must be True for at least one game")
    return mask


def _zeros_like(tree: Any) -> Any:
    return jax.tree.map(np.zeros_like, tree)


def _rows_where(mask: np.ndarray, on_true: Any, on_false: Any) -> Any:
    """Per game (leading axis), the rows of `on_true` where `mask`, else those of `on_false`."""

    def pick(a, b):
        if jax.dtypes.issubdtype(a.dtype, jax.dtypes.prng_key):
            data = _rows_where(mask, jax.random.key_data(a), jax.random.key_data(b))
            return jax.random.wrap_key_data(data, impl=jax.random.key_impl(a))
        where = jnp.where if isinstance(a, jax.Array) else np.where
        return where(mask.reshape(mask.shape + (1,) * (a.ndim - 1)), a, b)

    return jax.tree.map(pick, on_true, on_false)


def register() -> None:
    """Registers every jaxcheckers id with Gymnasium (`registration.register_envs`)."""
    registration.register_envs()
