"""A Gymnasium tic-tac-toe environment in the manner of tictactoe-gym, on the JAX game.

    import gymnasium, jaxcheckers.adapters.tictactoe_gym  # the import registers the id
    env = gymnasium.make("jaxcheckers/TicTacToe-v0", size=3)  # k=... for k in a row
    observation, info = env.reset(seed=0)
    while True:
        observation, reward, terminated, truncated, info = env.step(env.unwrapped.get_actions()[0])
        if terminated:
            break

Both players act through the same environment, one after the other: player 1 (X, who moves
first) makes the first `step`, player 2 (O) the second, and so on; `info["player"]` says who is
to move (1 or −1).

Rules: those of `jaxcheckers.tictactoe` (`jaxcheckers.make("tictactoe", size=n, k=k)`): an n×n
board, 3 ≤ n ≤ 19, k marks in a row (row, column or diagonal) win, k = n by default; a full board
without a line is a draw.
- Observation: int8 (n, n), tictactoe-gym's view: 1 for player 1's marks, −1 for player 2's,
  0 for an empty square; absolute, whoever is to move (`get_observation(player)` gives a
  player's own view, own marks +1).
- Action: Discrete(n²), the square row·n + column.
- Reward, as in tictactoe-gym, the winner: +1 when player 1 has won, −1 when player 2 has won,
  0 otherwise (every step before the end, and a draw); `get_result(player)` gives it for a player.
- An occupied square loses the game at once for the player who chose it (reward: the other
  player's win). tictactoe-gym instead ignores such a move; here it follows the JAX game, whose
  rewards (−1 for the mover, 0 for the other) are in `info["rewards"]`. An action outside
  Discrete(n²) raises ValueError; a `step` after the game is over raises RuntimeError (call
  `reset`), as the checkers Gymnasium adapter does: the call is out of order, not its value.
- `info`: "history" (the squares played), "player" (to move: 1 or −1; once the game is over,
  the one who would have moved next), "winner" (as the reward),
  "action_mask" (int8 (n²,)), "rewards" (float32 (2,), the JAX game's, player 1 first).
- Never truncated: a game lasts at most n² steps.

Counterparts of tictactoe-gym's methods: `get_actions()`, `get_observation(player)`,
`get_result(player)`, `clone()`, and `render()` with `render_mode` "ansi" (returns the board as
text: X, O and '.') or "human" (prints it).

The game runs on the CPU: one jitted `step` per board setting, shared by every environment and
clone; numpy in and out.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable

import gymnasium
import jax
import numpy as np
from gymnasium import spaces

from jaxcheckers.adapters.game import checked_action
from jaxcheckers.tictactoe import TicTacToe, TicTacToeState, gym_board

__all__ = ["TicTacToeGymEnv", "register", "ENV_ID"]

ENV_ID = "jaxcheckers/TicTacToe-v0"
SYMBOLS = {1: "X", -1: "O", 0: "."}
PLAYER_SIGNS = (1, -1)  # tictactoe-gym's names of player ids 0 and 1


@functools.cache
def _game(size: int, k: int | None) -> tuple[TicTacToe, TicTacToeState, Callable]:
    """The JAX game of one setting, its start on the CPU and its jitted step (built once)."""
    env = TicTacToe(size=size, k=k)
    cpu = jax.devices("cpu")[0]
    # A state committed to the CPU keeps the jitted step there, even where an accelerator exists.
    start = jax.device_put(jax.jit(env.reset)(jax.random.key(0)), cpu)
    return env, start, jax.jit(env.step)


class TicTacToeGymEnv(gymnasium.Env):
    """n×n tic-tac-toe for two players taking turns in one env; see the module docstring."""

    metadata = {"render_modes": ["human", "ansi"], "render_fps": 1}

    def __init__(self, render_mode: str | None = None, *, size: int = 3, k: int | None = None):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}"
            )
        self.render_mode = render_mode
        self.jax_env, self._start, self._step = _game(size, k)
        n = self.size = self.jax_env.size
        self.observation_space = spaces.Box(low=-1, high=1, shape=(n, n), dtype=np.int8)
        self.action_space = spaces.Discrete(n * n)
        self._state: TicTacToeState = self._start
        self._host: TicTacToeState = jax.device_get(self._start)
        self._history: list[int] = []

    # -- the Gymnasium API -----------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)  # the game itself is deterministic; this seeds np_random
        self._state = self._start
        self._history = []
        self._host = jax.device_get(self._state)
        return self._observation(), self._info()

    def step(self, action):
        action = checked_action(action, self.jax_env.num_actions)
        if self._over:
            raise RuntimeError("the game is over; call reset() first")
        self._state = self._step(self._state, np.int32(action))
        self._host = jax.device_get(self._state)
        self._history.append(action)
        if self.render_mode == "human":
            self.render()
        terminated = bool(self._host.terminated)
        return self._observation(), float(self._winner()), terminated, False, self._info()

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
            return None
        text = (
            "\n".join("".join(SYMBOLS[int(v)] for v in row) for row in self._observation()) + "\n"
        )
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    # -- tictactoe-gym's helpers -----------------------------------------------------------------

    def get_actions(self) -> list[int]:
        """The legal actions (empty squares) of the player to move; [] once the game is over."""
        return np.flatnonzero(self._host.legal_action_mask).tolist()

    def get_observation(self, player: int) -> np.ndarray:
        """int8 (n, n): the board as `player` (1 or −1) sees it, own marks +1."""
        if player not in PLAYER_SIGNS:
            raise ValueError(f"player must be 1 or -1, got {player!r}")
        return self._observation() * np.int8(player)

    def get_result(self, player: int) -> int:
        """`player`'s result: 1 won, −1 lost, 0 a draw or a game still going."""
        if player not in PLAYER_SIGNS:
            raise ValueError(f"player must be 1 or -1, got {player!r}")
        return self._winner() * player

    def clone(self) -> TicTacToeGymEnv:
        """An independent copy: same game, history and random state; the jitted step is shared."""
        twin = copy.copy(self)
        twin._history = list(self._history)
        twin._np_random = copy.deepcopy(self._np_random)
        return twin  # the JAX states are immutable, so sharing them is safe

    @property
    def state(self) -> TicTacToeState:
        """The JAX State of the game (host arrays)."""
        return self._host

    # -- views of the state ----------------------------------------------------------------------

    @property
    def _over(self) -> bool:
        return bool(self._host.terminated)

    def _observation(self) -> np.ndarray:
        return np.array(gym_board(self._host), dtype=np.int8)  # a fresh copy every call

    def _winner(self) -> int:
        """+1 when player 1's result beats player 2's, −1 the other way round, 0 if equal."""
        rewards = self._host.rewards
        return int(np.sign(rewards[0] - rewards[1]))

    def _info(self) -> dict:
        return {
            "history": list(self._history),
            "player": PLAYER_SIGNS[int(self._host.current_player)],
            "winner": self._winner(),
            "action_mask": self._host.legal_action_mask.astype(np.int8),
            # + 0.0 turns a −0.0 (the negated one-hot of a forfeit) into 0.0.
            "rewards": np.array(self._host.rewards, dtype=np.float32) + np.float32(0.0),
        }


def register() -> None:
    """Registers `jaxcheckers/TicTacToe-v0` with Gymnasium (options: size, k, render_mode)."""
    if ENV_ID in gymnasium.registry:
        return
    gymnasium.register(id=ENV_ID, entry_point="jaxcheckers.adapters.tictactoe_gym:TicTacToeGymEnv")


register()
