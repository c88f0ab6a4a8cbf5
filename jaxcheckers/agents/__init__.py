"""Agents: pure functions `act(state, key) -> action` for one game; `jax.vmap` them for many.

`make_agent(spec, env)` builds one from a short name such as "random" or "alphabeta:3".
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable

import jax
import jax.numpy as jnp

import jaxcheckers
from jaxcheckers.agents.random import random_agent

Agent = Callable[[object, jax.Array], jax.Array]  # (state, key) -> int32 () action

__all__ = [
    "Agent",
    "make_agent",
    "make_move_values",
    "random_agent",
    "game_by_game",
    "act_where",
    "AGENT_SPECS",
    "MAX_ALPHABETA_DEPTH",
]

AGENT_SPECS = {
    "random": "a uniformly random legal action",
    "alphabeta": "alphabeta[:DEPTH] alpha-beta minimax to DEPTH turns (default 3, at most 8; "
    "chess: DEPTH plies, material evaluation, default 2, at most 4)",
    "sarsa": "sarsa:WEIGHTS the linear SARSA player with weights from a JSON file",
    "ppo": "ppo:RUN the policy of a `jaxcheckers train` run (greedy; ppo-sample:RUN samples); "
    "ppo:pretrained the game's policy that ships with the package (checkers: a PPO run's; "
    "chess: distilled from alpha-beta) (ppo:pretrained-alphazero the shipped AlphaZero "
    "network's raw policy, checkers)",
    "perfect": "perfect 3×3 tic-tac-toe (solved game tree, random among the best moves)",
    "mcts": "mcts:RUN[:SIMS] Gumbel MuZero search (mctx) guided by a trained network, SIMS "
    "simulations a move (default 64); mcts:pretrained[:SIMS] with the shipped AlphaZero "
    "network; mcts:ppo:pretrained[:SIMS] with the shipped PPO network's policy and value "
    "(mcts:ppo:RUN with a PPO run's); mcts:uniform[:SIMS] searches with flat priors",
}


def game_by_game(agent: Agent) -> Agent:
    """Marks `agent` as a search best asked one game at a time on a CPU: one whose work depends
    on the position (loops that stop at a cut-off: under `vmap` every game of a batch waits for
    the slowest one), or one whose batched form costs more per game than it saves (mctx's
    trees). `act_where` then runs it one game at a time, and only in the games that need it."""
    agent.game_by_game = True
    return agent


def act_where(agent: Agent, states, keys: jax.Array, needed: jax.Array) -> jax.Array:
    """int32 actions [B] of `agent` for a batch of games: its move where `needed` [B] holds, 0
    elsewhere. It does no work when no game needs it; an agent marked `game_by_game` is, on a
    CPU, asked game by game and only where needed (on an accelerator it is vmapped like any)."""

    def act(state, key):
        return agent(state, key).astype(jnp.int32)

    if getattr(agent, "game_by_game", False) and jax.default_backend() == "cpu":

        def one_game(args):
            state, key, need = args
            return jax.lax.cond(need, act, lambda *_: jnp.int32(0), state, key)

        return jax.lax.map(one_game, (states, keys, needed))

    def every_game(_):
        return jnp.where(needed, jax.vmap(act)(states, keys), 0)

    return jax.lax.cond(
        needed.any(), every_game, lambda _: jnp.zeros(needed.shape, jnp.int32), None
    )


# The deepest alpha-beta search `make_agent` builds: its cost multiplies with every turn of
# depth (beyond this one a move takes minutes; docs/performance.md), and a depth in the hundreds
# exhausts Python's recursion while the search is traced.
MAX_ALPHABETA_DEPTH = 8


# Agents that play some games only: name -> the modules that build it. Each module declares the
# games it takes (`GAMES`, names in the registry) and builds the agent with
# `from_spec(argument, env)`; the first that takes the env's game is used.
GAME_AGENTS = {
    "alphabeta": ("jaxcheckers.agents.alphabeta", "jaxcheckers.agents.chess_alphabeta"),
    "sarsa": ("jaxcheckers.agents.sarsa",),
    "perfect": ("jaxcheckers.agents.perfect",),
}


def _game_agent(name: str, argument: str, env) -> Agent:
    """The agent `name` built by the module that takes `env`'s game; ValueError, naming the
    games it plays, for any other."""
    modules = [importlib.import_module(module) for module in GAME_AGENTS[name]]
    for module in modules:
        if env.id in module.GAMES:
            return module.from_spec(argument, env)
    games = " and ".join(game for module in modules for game in module.GAMES)
    raise ValueError(f"{name} plays {games}, not {env.id}")


def make_move_values(spec: str, env) -> Callable[[object], jax.Array]:
    """`values(state) -> (num_actions,)` scores of every legal move (higher is better for the
    side to move; illegal moves score below every legal one) of the search agent `spec`, for a
    student to learn from (`jaxcheckers.training.distill`). ValueError for an agent that does
    not score moves of `env`'s game (only the agents whose module has `values_from_spec`)."""
    name, _, argument = spec.partition(":")
    for module in map(importlib.import_module, GAME_AGENTS.get(name, ())):
        if env.id in module.GAMES and hasattr(module, "values_from_spec"):
            return module.values_from_spec(argument, env)
    raise ValueError(f"{spec!r} scores no moves of {env.id}: no search agent that scores them")


def depth_argument(name: str, argument: str, default: int) -> int:
    """The depth in `name:DEPTH` (`default` when not given); ValueError unless a positive int."""
    if not argument:
        return default
    if not (argument.isascii() and argument.isdigit()):
        raise ValueError(f"{name} takes a depth (a positive int), got {argument!r}")
    return int(argument)


def no_argument(name: str, argument: str) -> None:
    if argument:
        raise ValueError(f"the {name} agent takes no argument")


def make_agent(spec: str, env) -> Agent:
    """The agent named by `spec` ("name" or "name:argument") for `env`."""
    name, _, argument = spec.partition(":")
    if name == "random":
        no_argument(name, argument)
        return random_agent
    if name in GAME_AGENTS:
        return _game_agent(name, argument, env)
    if name in ("ppo", "ppo-sample"):
        from jaxcheckers.agents.policy import load_policy

        if not argument:
            raise ValueError(f"{name} needs a run directory or checkpoint: {name}:PATH")
        agent, options = load_policy(argument, greedy=name == "ppo", game=env.id)
        trained_on = jaxcheckers.make(**options)
        if trained_on.num_actions != env.num_actions:
            raise ValueError(f"{argument} was trained on {trained_on}, not on {env}")
        return agent
    if name == "mcts":
        return _search_agent(argument, env)
    known = ", ".join(AGENT_SPECS)
    raise ValueError(f"unknown agent {spec!r}; known: {known}")


DEFAULT_SIMULATIONS = 64


def _search_agent(argument: str, env) -> Agent:
    """mcts:RUN[:SIMS], mcts:ppo:RUN[:SIMS] or mcts:uniform[:SIMS].

    `ppo:RUN` names the network as the `ppo` agent does: `ppo:pretrained` is the shipped PPO
    network (its value head is the mover's expected outcome, as the search wants), where a bare
    `pretrained` is the shipped AlphaZero network.
    """
    source, _, simulations = argument.rpartition(":")
    if not source or not re.fullmatch(r"[+-]?[0-9]+", simulations):  # no count: a path alone
        source, simulations = argument, str(DEFAULT_SIMULATIONS)
    as_named_by_ppo = source.startswith("ppo:")
    if as_named_by_ppo:
        source = source.removeprefix("ppo:")
    if not source:
        raise ValueError("mcts needs a run directory or 'uniform': mcts:RUN[:SIMS]")
    if not 1 <= int(simulations) <= 100_000:
        raise ValueError(f"mcts simulations must lie in [1, 100000], got {simulations}")
    from jaxcheckers.agents import search

    if source == "uniform":
        evaluate, params = search.uniform_evaluator(env.num_actions), None
    else:
        from jaxcheckers.agents import pretrained

        if source == pretrained.NAME and not as_named_by_ppo:  # the network trained to search
            source = pretrained.SEARCH_NAME
        from jaxcheckers.agents.policy import load_params

        params, network, settings = load_params(source, game=env.id)
        trained_on = jaxcheckers.make(settings["game"], **settings.get("env_options", {}))
        if trained_on.num_actions != env.num_actions:
            raise ValueError(f"{source} was trained on {trained_on}, not on {env}")
        evaluate = search.network_evaluator(network.apply)
    return search.search_agent(env, evaluate, params, num_simulations=int(simulations))
