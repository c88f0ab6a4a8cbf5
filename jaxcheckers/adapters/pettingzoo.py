"""PettingZoo AEC environments with the interfaces of PettingZoo's classic checkers_v3 (retired)
and chess_v6, one adapter over the games' shared State contract.

    from jaxcheckers.adapters import pettingzoo
    env = pettingzoo.env(game="chess", render_mode="ansi")   # game="checkers" (the default)
    env.reset(seed=0)
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else env.action_space(agent).sample(
            observation["action_mask"])
        env.step(action)

Rules and options: every step is `jaxcheckers.make(game, ...).step`, jitted once per set of
options; the keyword options of `env()` / `raw_env` are those of the JAX environment.
- checkers (American, tournament rules, by default): `board_size` (8), `no_moves` ("lose"),
  `forty_move_draw` (True), `repetition_draw` (True), `max_steps` (1000 hops, then both agents
  are truncated), or a named set, `rule_set="ealt"`.
- chess: as chess_v6 by default, `history=True` (the (8, 8, 111) stack) and `max_steps=None`
  (chess_v6 never truncates; the fifty-move rule ends every game); the draw rules
  `insufficient_material`, `threefold_repetition`, `fifty_move_rule` (each True).

Interface, as the PettingZoo env named in `metadata["name"]`:
- agents `player_0` (moves first: black in checkers, white in chess) and `player_1`;
- observation `{"observation": ..., "action_mask": int8 (num_actions,)}`, in the observing
  agent's own frame, whichever agent is to move. Checkers: int8 (n, n, 4) planes (own men, own
  kings, opponent men, opponent kings; the board turned around for `player_1`). Chess: bool
  (8, 8, 111), chess_v6's `observe` plane for plane (bool (8, 8, 20), as
  `chess_utils.get_observation` gives them, with history=False);
- the mask is all zeros for every agent but the selected one, who sees the moves the rules give
  the side to move, as chess_v6 shows them: none after a checkmate, a stalemate or any checkers
  ending, but the position's moves once a chess game ends in a claimed draw, and after an
  illegal action (the game is over all the same: only `step(None)` is taken);
- `Discrete(num_actions)` actions: checkers `direction · n² + square` (4·n²), chess the
  8×8×73 AlphaZero layout (4672), both in the mover's frame (see the rules doc);
- checkers: each hop of a multi-jump is one step, and the same agent is selected again after it;
- rewards +1 / −1 to the winner / loser on the step that ends the game, 0 both on a draw;
- an illegal action (masked out) is handled by PettingZoo's own `TerminateIllegalWrapper`, as
  PettingZoo's classic board games (chess_v6 among them) are wrapped: the game ends, −1 for its
  agent and 0 for the other, every agent terminated and truncated, and `player_0` is selected
  to step out first. (`raw_env` alone ends it through the JAX env instead: the same rewards,
  terminated only.) An action outside `Discrete(num_actions)` raises ValueError, where
  PettingZoo's `AssertOutOfBoundsWrapper` would assert;
- `reset(options={"start": ...})` starts from a position: the game's FEN text (checkers
  `B:W21-32:B1-12`, chess, draughts `W:W31-50:B1-20`) or a State of this env; for checkers also
  a `jaxcheckers.checkers.game.Game` of the same rules (other keys are ignored, as PettingZoo's
  envs ignore them; the seed, None or an int in [0, 2**32), is unused: the built-in games have
  no chance); a finished position starts terminated, its result in `rewards`;
- render modes `human` (prints the board), `ansi` (returns it as text; a plug-in game without
  `text` shows its observation planes as nested lists, `GameSpec.board_text`) and, for
  checkers, `rgb_array` (uint8 (32·n, 32·n, 3), black at the top; chess: drawn with
  matplotlib);
- checkers only, `state()`: the global state PettingZoo defines for centralised training, int8
  (n, n, 5) in the absolute frame, whoever asks: black men, black kings, white men, white kings,
  and a plane of ones when white (`player_1`) is to move; `state_space` is its Box. chess_v6 has
  no `state()`, and neither has the chess env here.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import jax
import numpy as np

from jaxcheckers.adapters.common import (
    PickledAsSettings,
    checked_action,
    checked_seed,
    reset_options,
)
from jaxcheckers.core import State, compiled_method, compiled_step
from jaxcheckers.extras import needed_for
from jaxcheckers.games import DEFAULT, GameSpec, observable_env, spec

with needed_for("the PettingZoo adapter"):
    import gymnasium
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
    from pettingzoo.utils.wrappers.base import BaseWrapper

__all__ = ["env", "raw_env", "AGENTS"]

AGENTS = ("player_0", "player_1")
RESET_OPTIONS = ("start",)  # the keys `reset(options=...)` takes
RENDER_FPS = 2  # as chess_v6


def env(game: str = DEFAULT, **options) -> AECEnv:
    """The AEC environment of `game` in PettingZoo's wrappers: illegal actions lose the game
    (`TerminateIllegalWrapper`), out-of-range ones raise ValueError, calls in order."""
    raw = raw_env(game=game, **options)
    illegal_loses = wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1)
    return wrappers.OrderEnforcingWrapper(ActionsInRange(illegal_loses))


class ActionsInRange(BaseWrapper):
    """Raises ValueError for an action outside the action space, before the illegal-move wrapper
    indexes the mask with it (where −1 would read the last entry). PettingZoo's
    `AssertOutOfBoundsWrapper` asserts instead, and an assert vanishes under `python -O`."""

    def step(self, action) -> None:
        agent = self.agent_selection
        if not (self.terminations[agent] or self.truncations[agent]):
            action = checked_action(action, self.action_space(agent).n)
        super().step(action)


@functools.cache
def _compiled_moves(moves_of_the_position: Callable):
    return jax.jit(moves_of_the_position)


class raw_env(PickledAsSettings, AECEnv):  # noqa: N801 (PettingZoo's name for the unwrapped env)
    """The unwrapped AEC environment; see the module docstring for the interface and rules."""

    REBUILT = ("adapter", "jax_env", "_step_fn", "_observe_fn")

    metadata = {  # of checkers; each instance has its own game's (`metadata["name"]`)
        "render_modes": ["human", "ansi", "rgb_array"],
        "name": "checkers_v3",
        "is_parallelizable": False,
        "render_fps": RENDER_FPS,
    }

    def __init__(self, render_mode: str | None = None, *, game: str = DEFAULT, **options):
        super().__init__()
        self._game = game
        self.adapter: GameSpec = spec(game)
        self.metadata = {
            "render_modes": self.adapter.render_modes,
            "name": self.adapter.adapters.pettingzoo_name or self.adapter.name,
            "is_parallelizable": False,
            "render_fps": RENDER_FPS,
        }
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']} for {game}, "
                f"got {render_mode!r}"
            )
        self.render_mode = render_mode
        self._options = {**self.adapter.adapters.pettingzoo_defaults, **options}
        self._attach()
        num_actions = self.jax_env.num_actions
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        # One space object per agent, so that each agent's sampler is seeded on its own.
        self.observation_spaces = {agent: self._observation_space() for agent in AGENTS}
        self.action_spaces = {agent: spaces.Discrete(num_actions) for agent in AGENTS}
        if self.adapter.adapters.global_state_shape is not None:
            shape = self.adapter.adapters.global_state_shape(self.jax_env)
            self.state_space = spaces.Box(low=0, high=1, shape=shape, dtype=np.int8)
        self._state: State | None = None

    def _attach(self) -> None:
        """The game's spec, env and compiled functions, from its name and options (again after
        unpickling)."""
        self.adapter = spec(self._game)
        self.jax_env = observable_env(self.adapter.name, **self._options)
        self._step_fn = compiled_step(self.jax_env)
        self._observe_fn = compiled_method(self.jax_env, "observe")

    def _observation_space(self) -> spaces.Dict:
        planes = self.jax_env.observation_shape
        dtype = self.adapter.adapters.observation_dtype
        return spaces.Dict(
            {
                "observation": spaces.Box(low=0, high=1, shape=planes, dtype=dtype),
                "action_mask": spaces.Box(
                    low=0, high=1, shape=(self.jax_env.num_actions,), dtype=np.int8
                ),
            }
        )

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    @property
    def jax_state(self) -> State:
        """The JAX State of the game (host numpy arrays); RuntimeError before the first reset."""
        if self._state is None:
            raise RuntimeError("the game has not begun: call reset() first")
        return self._state

    @property
    def game(self):
        """The position as the game's plain Python object (checkers: a `Game`, to print it, list
        its moves in notation, ...); AttributeError for a game without one."""
        return self.adapter.position_object(self.jax_state, self.jax_env)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        # No game here has chance; the seed only matters to the spaces' samplers. Checked all
        # the same, as the CLI and the Gymnasium adapter check it.
        checked_seed(seed)
        start = reset_options(options, RESET_OPTIONS, refuse_unknown=False).get("start")
        state = self.adapter.start_state(start, self.jax_env)
        self.agents = list(AGENTS)
        self.infos = {agent: {} for agent in self.agents}
        self._skip_agent_selection = None
        self._set_state(state)
        self._cumulative_rewards = dict(self.rewards)

    def _set_state(self, state: State) -> None:
        """The game is `state`: its rewards (zero but where a move, or a start, decided it),
        terminations, truncations and agent to move."""
        self._state = jax.device_get(state)
        rewards = zip(AGENTS, self._state.rewards, strict=True)
        self.rewards = {agent: float(r) for agent, r in rewards if agent in self.agents}
        over_by_rules = bool(self._state.terminated)
        cut = bool(self._state.truncated)
        self.terminations = dict.fromkeys(self.agents, over_by_rules)
        self.truncations = dict.fromkeys(self.agents, cut)
        self.agent_selection = AGENTS[int(self._state.current_player)]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if agent not in AGENTS:
            raise ValueError(f"agent must be one of {list(AGENTS)}, got {agent!r}")
        player = AGENTS.index(agent)
        planes = self._observe_fn(self.jax_state, np.int32(player))
        if agent == self.agent_selection:
            mask = self._moves_of_the_position()
        else:
            mask = np.zeros(self.jax_env.num_actions, dtype=np.int8)
        return {
            "observation": np.asarray(planes, dtype=self.adapter.adapters.observation_dtype),
            "action_mask": mask,
        }

    def _moves_of_the_position(self) -> np.ndarray:
        """int8 (num_actions,): the legal moves; once the game has ended, those the game's
        `moves_of_the_position` gives, if it has one (chess_v6 shows them to the selected agent
        after a drawn end, though only `step(None)` is taken), else none."""
        state, extra = self._state, self.adapter.adapters.moves_of_the_position
        if extra is not None and bool(state.terminated | state.truncated):
            return np.asarray(_compiled_moves(extra)(state), dtype=np.int8)
        return np.asarray(state.legal_action_mask, dtype=np.int8)

    def state(self) -> np.ndarray:
        """Checkers: int8 (n, n, 5), the global state in the absolute frame (module docstring)."""
        if self.adapter.adapters.global_state is None:
            raise NotImplementedError(f"{self.metadata['name']} has no global state()")
        return self.adapter.adapters.global_state(self.jax_state)

    def step(self, action) -> None:
        state = self.jax_state  # RuntimeError before the first reset
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action = checked_action(action, self.jax_env.num_actions)
        if not state.legal_action_mask[action]:
            gymnasium.logger.warn(f"{agent} played the illegal action {action}; it loses the game")
        self._cumulative_rewards[agent] = 0.0
        self._set_state(self._step_fn(state, np.int32(action)))
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
            return None
        if self.render_mode == "rgb_array":
            return self.adapter.drawing.rgb(self.jax_state)
        text = self.adapter.board_text(self.jax_state)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        """Nothing to release: the game lives in host memory and compiled functions are shared."""
