"""Adapters from the JAX environments to other ecosystems, each in its own module.

Nothing is imported here, so `import jaxcheckers.adapters` pulls in no optional dependency:

- `jaxcheckers.adapters.pettingzoo`: `env(game=...)` / `raw_env`, a PettingZoo AEC environment
  with the interface of PettingZoo's checkers_v3 or chess_v6 (needs
  `pip install jaxcheckers[adapters]`).
- `jaxcheckers.adapters.gymnasium`: `CheckersEnv` and `ChessEnv` (one learner against an
  opponent agent, registered as `jaxcheckers/Checkers-v0` and `jaxcheckers/Chess-v0`) and
  `CheckersVectorEnv`, `ChessVectorEnv` (many of them batched in JAX) (needs
  `pip install jaxcheckers[adapters]`).
- `jaxcheckers.games`: the registry: what those adapters need to know of each game, one spec a game.
- `jaxcheckers.tictactoe.gym` (in the game's folder): tic-tac-toe for Gymnasium, both players
  in one env (`TicTacToeGymEnv`) or many batched in JAX (`TicTacToeVectorEnv`), registered as
  `jaxcheckers/TicTacToeGym-v0` (needs `pip install jaxcheckers[adapters]`).
- `jaxcheckers.adapters.registration`: registers every Gymnasium id without importing the envs;
  `gymnasium.make("jaxcheckers.adapters.registration:jaxcheckers/Checkers-v0")` imports it.
- `jaxcheckers.rgb`: the boards drawn as uint8 RGB frames with numpy (`rgb_array`).
"""
