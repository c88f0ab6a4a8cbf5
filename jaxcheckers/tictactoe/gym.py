"""A Gymnasium tic-tac-toe environment in the manner of tictactoe-gym, on the JAX game.

    import gymnasium, jaxcheckers.tictactoe.gym  # the import registers the id
    env = gymnasium.make("jaxcheckers/TicTacToeGym-v0", size=3)  # k=... for k in a row
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
text: X, O and '.'), "human" (prints it) or "rgb_array" (uint8 (32·n, 32·n, 3)).
`action_masks()` gives the empty squares as bool (n²,), as sb3-contrib's MaskablePPO asks.

`TicTacToeVectorEnv` (`gymnasium.make_vec(ENV_ID, num_envs=..., size=..., k=...,
vectorization_mode="vector_entry_point")`) plays `num_envs` of these games in one jitted step,
with the same observations, rewards and infos (`history` left out) batched, and Gymnasium's
NEXT_STEP autoreset: the step after a game ends restarts it, ignoring its action (reward 0);
`reset(options={"reset_mask": mask})` restarts only the games where `mask` is True.

The game runs on the CPU: one jitted `step` per board setting, shared by every environment and
clone; numpy in and out.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from jaxcheckers.adapters import registration
from jaxcheckers.adapters.common import checked_action, checked_seed, reset_options
from jaxcheckers.argtypes import checked_positive_int
from jaxcheckers.core import compiled_step
from jaxcheckers.extras import needed_for
from jaxcheckers.tictactoe import TicTacToe, TicTacToeState, drawing, gym_board
from jaxcheckers.tictactoe.spec import GYM_ID, GYM_METADATA

with needed_for("the Gymnasium adapter"):
    import gymnasium
    from gymnasium import spaces
    from gymnasium.vector import AutoresetMode, VectorEnv
    from gymnasium.vector.utils import batch_space

__all__ = ["TicTacToeGymEnv", "TicTacToeVectorEnv", "register", "ENV_ID"]

ENV_ID = GYM_ID
SYMBOLS = {1: "X", -1: "O", 0: "."}
PLAYER_SIGNS = (1, -1)  # tictactoe-gym's names of player ids 0 and 1


@functools.cache
def _game(size: int, k: int | None) -> tuple[TicTacToe, TicTacToeState, Callable]:
    """The JAX game of one setting, its start on the CPU and its jitted step (built once)."""
    env = TicTacToe(size=size, k=k)
    cpu = jax.devices("cpu")[0]
    # A state committed to the CPU keeps the jitted step there, even where an accelerator exists.
    start = jax.device_put(jax.jit(env.reset)(jax.random.key(0)), cpu)
    return env, start, compiled_step(env)


class TicTacToeGymEnv(gymnasium.Env):
    """n×n tic-tac-toe for two players taking turns in one env; see the module docstring."""

    metadata = GYM_METADATA

    def __init__(self, render_mode: str | None = None, *, size: int = 3, k: int | None = None):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}"
            )
        registration.refuse_forked_workers()
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
        reset_options(options, ())  # it takes none: a key given is refused, not ignored
        super().reset(seed=checked_seed(seed))  # the game is deterministic; this seeds np_random
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

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
            return None
        if self.render_mode == "rgb_array":
            return drawing.board_rgb(self._observation())
        text = (
            "\n".join("".join(SYMBOLS[int(v)] for v in row) for row in self._observation()) + "\n"
        )
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def action_masks(self) -> np.ndarray:
        """bool (n²,): the empty squares, all False once the game is over (for MaskablePPO)."""
        return np.array(self._host.legal_action_mask, dtype=bool)

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


class TicTacToeVectorEnv(VectorEnv):
    """`num_envs` games of `TicTacToeGymEnv` in one jitted step, numpy in and out; see the module
    docstring. The game has no chance, so `seed` only seeds the action space's sampler."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self, num_envs: int, *, size: int = 3, k: int | None = None, render_mode: str | None = None
    ):
        if render_mode is not None:
            raise ValueError("TicTacToeVectorEnv does not render; use TicTacToeGymEnv")
        self.num_envs = checked_positive_int(num_envs, "num_envs")
        self.render_mode = None
        self.jax_env, start, _ = _game(size, k)
        n = self.size = self.jax_env.size
        self.single_observation_space = spaces.Box(low=-1, high=1, shape=(n, n), dtype=np.int8)
        self.single_action_space = spaces.Discrete(n * n)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._starts = jax.tree.map(lambda x: np.stack([x] * self.num_envs), start)
        self._step = _batched_step(size, k)
        self._state: TicTacToeState | None = None  # host arrays
        self._needs_reset = np.zeros(self.num_envs, dtype=bool)

    def reset(self, *, seed: int | list[int] | None = None, options: dict | None = None):
        """All games anew, or those where `options["reset_mask"]` (bool (num_envs,)) is True."""
        seeds = seed if isinstance(seed, (list, tuple)) else [seed]
        checked = [checked_seed(each) for each in seeds]
        mask = reset_options(options, ("reset_mask",)).get("reset_mask")
        super().reset(seed=checked[0])
        if mask is None:
            mask = np.ones(self.num_envs, dtype=bool)
        elif (
            not isinstance(mask, np.ndarray)
            or mask.dtype != np.bool_
            or mask.shape != (self.num_envs,)
            or not mask.any()
        ):
            raise ValueError(
                f"options['reset_mask'] must be a bool numpy array of shape ({self.num_envs},), "
                "True somewhere"
            )
        elif self._state is None:
            raise RuntimeError("reset_mask needs the games begun: call reset() without it first")
        previous = self._starts if self._state is None else self._state
        self._state = jax.tree.map(
            lambda fresh, old: np.where(mask.reshape((-1,) + (1,) * (old.ndim - 1)), fresh, old),
            self._starts,
            previous,
        )
        self._needs_reset &= ~mask
        return self._observation(), self._info(flagged=mask)

    def step(self, actions):
        if self._state is None:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(
                f"actions must be {self.num_envs} ints, got shape {actions.shape}, {actions.dtype}"
            )
        if ((actions < 0) | (actions >= self.jax_env.num_actions)).any():
            raise ValueError(f"actions must lie in [0, {self.jax_env.num_actions})")
        self._state = jax.device_get(
            self._step(self._state, actions.astype(np.int32), self._needs_reset)
        )
        terminated = np.asarray(self._state.terminated, dtype=bool)
        self._needs_reset = terminated.copy()
        rewards = self._winner().astype(np.float64)
        truncated = np.zeros(self.num_envs, dtype=bool)
        return self._observation(), rewards, terminated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """bool (num_envs, n²): each game's empty squares (for MaskablePPO)."""
        state = self._starts if self._state is None else self._state
        return np.asarray(state.legal_action_mask, dtype=bool)

    def _observation(self) -> np.ndarray:
        return np.asarray(self._state.board, dtype=np.int8).reshape(-1, self.size, self.size)

    def _winner(self) -> np.ndarray:
        rewards = np.asarray(self._state.rewards)
        return np.sign(rewards[:, 0] - rewards[:, 1]).astype(np.int64)

    def _info(self, flagged: np.ndarray | None = None) -> dict:
        everywhere = np.ones(self.num_envs, dtype=bool) if flagged is None else flagged
        player = np.where(np.asarray(self._state.current_player) == 0, 1, -1)
        info = {
            "player": player,
            "winner": self._winner(),
            "action_mask": np.asarray(self._state.legal_action_mask, dtype=np.int8),
            "rewards": np.asarray(self._state.rewards, dtype=np.float32),
        }
        for key in list(info):
            info["_" + key] = everywhere
        return info


@functools.cache
def _batched_step(size: int, k: int | None) -> Callable:
    """NEXT_STEP autoreset over a batch: a game that ended last step restarts, ignoring its
    action; jitted once per board setting (on the CPU, where the start state lives)."""
    env, start, _ = _game(size, k)

    def step(state, action, needs_reset):
        fresh = jax.tree.map(lambda s, x: jnp.broadcast_to(s, x.shape), start, state)
        played = jax.vmap(env.step)(state, action)
        return tree_where_rows(needs_reset, fresh, played)

    return jax.jit(step)


def tree_where_rows(mask: jax.Array, on_true, on_false):
    """Per game (leading axis): `on_true`'s row where `mask`, else `on_false`'s."""
    return jax.tree.map(
        lambda a, b: jnp.where(mask.reshape((-1,) + (1,) * (a.ndim - 1)), a, b), on_true, on_false
    )


def register() -> None:
    """Registers every jaxcheckers id with Gymnasium (`registration.register_envs`)."""
    registration.register_envs()
