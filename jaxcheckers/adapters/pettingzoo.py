"""A PettingZoo AEC environment with the interface of PettingZoo's (retired) classic checkers_v3.

    from jaxcheckers.adapters import pettingzoo as checkers
    env = checkers.env(render_mode="ansi")          # board_size=6, no_moves="pass", ... also work
    env.reset(seed=0)
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else env.action_space(agent).sample(
            observation["action_mask"])
        env.step(action)

Rules and options: every step is `jaxcheckers.make("checkers", ...).step` (American checkers,
tournament rules, by default), jitted once per set of options. The keyword options of `env()` /
`raw_env` are those of the JAX environment: `board_size` (8), `no_moves` ("lose"), `forty_move_draw`
(True), `repetition_draw` (True), `max_steps` (1000 hops, then both agents are truncated).

Interface, as checkers_v3 (generalised to n×n):
- agents `player_0` (black, moves first) and `player_1`;
- observation `{"observation": int8 (n, n, 4), "action_mask": int8 (4·n²,)}`; the planes are own
  men, own kings, opponent men, opponent kings, in the observing agent's own frame (the board is
  turned around for `player_1`); the mask is all zeros for the agent not to move;
- `Discrete(4·n²)` actions: `direction · n² + square`, mover's frame (see the rules doc);
- each hop of a multi-jump is one step, and the same agent is selected again after it;
- rewards +1 / −1 to the winner / loser on the step that ends the game, 0 both on a draw;
- an illegal action (masked out) ends the game, −1 for its agent and 0 for the other (PettingZoo's
  illegal-move rule); an action outside `Discrete(4·n²)` raises ValueError instead;
- `reset(options={"start": game})` starts from a position: a `jaxcheckers.adapters.game.Game` or a
  `CheckersState` of the same rules (other option keys are ignored; the seed is unused, the game
  has no chance);
- render modes `human` (prints the board), `ansi` (returns it as text) and `rgb_array` (uint8
  (32·n, 32·n, 3), black at the top);
- `state()`: the global state PettingZoo defines for centralised training, int8 (n, n, 5) in the
  absolute frame (black at the top), whoever asks: black men, black kings, white men, white
  kings, and a plane of ones when white (`player_1`) is to move; `state_space` is its Box.
"""

from __future__ import annotations

import gymnasium
import jax
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from jaxcheckers.adapters.game import (
    Game,
    _env_from_options,
    checked_action,
    opening,
)
from jaxcheckers.adapters.rgb import checkers_rgb
from jaxcheckers.checkers import CheckersState, render
from jaxcheckers.checkers.positions import absolute_board
from jaxcheckers.core import compiled_step

__all__ = ["env", "raw_env", "AGENTS"]

AGENTS = ("player_0", "player_1")


def env(**options) -> AECEnv:
    """The checkers AEC environment wrapped in PettingZoo's `OrderEnforcingWrapper`."""
    return wrappers.OrderEnforcingWrapper(raw_env(**options))


def _planes(board: np.ndarray, n: int) -> np.ndarray:
    """int8 (n, n, 4) from a board in the observer's frame (+1/+2 own, −1/−2 opponent)."""
    return (
        np.stack([board == 1, board == 2, board == -1, board == -2], axis=-1)
        .reshape(n, n, 4)
        .astype(np.int8)
    )


class raw_env(AECEnv):  # noqa: N801 (PettingZoo's name for the unwrapped environment)
    """The unwrapped AEC environment; see the module docstring for the interface and rules."""

    metadata = {
        "render_modes": ["human", "ansi", "rgb_array"],
        "name": "checkers_v3",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(self, render_mode: str | None = None, **options):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}"
            )
        self.render_mode = render_mode
        self.jax_env = _env_from_options(**options)
        self._step_fn = compiled_step(self.jax_env)
        n = self.jax_env.board_size
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        observation_space = spaces.Dict(
            {
                "observation": spaces.Box(low=0, high=1, shape=(n, n, 4), dtype=np.int8),
                "action_mask": spaces.Box(
                    low=0, high=1, shape=(self.jax_env.num_actions,), dtype=np.int8
                ),
            }
        )
        self.observation_spaces = {
            agent: observation_space if i == 0 else _copy_space(observation_space)
            for i, agent in enumerate(AGENTS)
        }
        self.action_spaces = {agent: spaces.Discrete(self.jax_env.num_actions) for agent in AGENTS}
        self.state_space = spaces.Box(low=0, high=1, shape=(n, n, 5), dtype=np.int8)
        self._state: CheckersState | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    @property
    def jax_state(self) -> CheckersState:
        """The JAX State of the game (host numpy arrays)."""
        return self._state

    @property
    def game(self) -> Game:
        """The position as a `Game` (to print it, list its moves in notation, ...)."""
        return Game.from_state(self._state, self.jax_env)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        del seed  # checkers has no chance; the seed only matters to the spaces' samplers
        state = self._start_state((options or {}).get("start"))
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.infos = {agent: {} for agent in self.agents}
        self._skip_agent_selection = None
        self._set_state(state)

    def _start_state(self, start: Game | CheckersState | None) -> CheckersState:
        if start is None:
            return opening(self.jax_env)
        if isinstance(start, Game):
            if repr(start.env) != repr(self.jax_env):
                raise ValueError(
                    f"options['start'] is a game of {start.env!r}, not {self.jax_env!r}"
                )
            return start.state
        if not isinstance(start, CheckersState) or np.shape(start.board) != (
            self.jax_env.board_size**2,
        ):
            raise ValueError(
                "options['start'] must be a Game or an unbatched CheckersState of this env"
            )
        return start

    def _set_state(self, state: CheckersState) -> None:
        self._state = jax.device_get(state)
        over_by_rules = bool(self._state.terminated)
        cut = bool(self._state.truncated)
        self.terminations = dict.fromkeys(self.agents, over_by_rules)
        self.truncations = dict.fromkeys(self.agents, cut)
        self.agent_selection = AGENTS[int(self._state.current_player)]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        n = self.jax_env.board_size
        board = np.asarray(self._state.board)
        is_mover = AGENTS.index(agent) == int(self._state.current_player)
        own_frame = board if is_mover else -board[::-1]
        mask = np.asarray(self._state.legal_action_mask, dtype=np.int8)
        if not (is_mover and agent == self.agent_selection):
            mask = np.zeros_like(mask)
        return {"observation": _planes(own_frame, n), "action_mask": mask}

    def state(self) -> np.ndarray:
        """int8 (n, n, 5): the global state, absolute frame (see the module docstring)."""
        board = absolute_board(self._state)
        to_move = np.full(board.shape, int(self._state.current_player), dtype=bool)
        planes = [board == 1, board == 2, board == -1, board == -2, to_move]
        return np.stack(planes, axis=-1).astype(np.int8)

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action = checked_action(action, self.jax_env.num_actions)
        if not self._state.legal_action_mask[action]:
            gymnasium.logger.warn(f"{agent} played the illegal action {action}; it loses the game")
        self._cumulative_rewards[agent] = 0.0
        self._set_state(self._step_fn(self._state, np.int32(action)))
        self.rewards = {
            a: float(r)
            for a, r in zip(AGENTS, self._state.rewards, strict=True)
            if a in self.agents
        }
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
            return None
        if self.render_mode == "rgb_array":
            return checkers_rgb(absolute_board(self._state))
        text = render.render_text(self._state)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        """Nothing to release: the game lives in host memory and compiled functions are shared."""


def _copy_space(space: spaces.Dict) -> spaces.Dict:
    """A separate but equal space, so that each agent's sampler is seeded on its own."""
    return spaces.Dict(
        {key: spaces.Box(s.low, s.high, s.shape, s.dtype) for key, s in space.items()}
    )
