"""Agents: pure functions `act(state, key) -> action` for one game; `jax.vmap` them for many.

`make_agent(spec, env)` builds one from a short name such as "random" or "alphabeta:3": the
agents here play every game; a game brings its own through its spec (`GameSpec.agents`), so
"alphabeta:3" is checkers' alpha-beta in a checkers env and chess's in a chess env.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import jax
import jax.numpy as jnp

import jaxcheckers
from jaxcheckers import games
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
    "SHARED_AGENTS",
    "agent_specs",
    "MAX_ALPHABETA_DEPTH",
]

# The agents that play every game, and what each takes; each game's own are in its spec.
AGENT_SPECS = {
    "random": "a uniformly random legal action",
    "ppo": "ppo:RUN the policy of a `jaxcheckers train` run (greedy; ppo-sample:RUN samples); "
    "ppo:pretrained the game's policy that ships with the package (checkers: a PPO run's; "
    "chess: distilled from alpha-beta) (ppo:pretrained-alphazero the shipped AlphaZero "
    "network's raw policy, checkers)",
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


# The names of the agents above (make_agent builds them); a game's agent of the same name is
# never reached.
SHARED_AGENTS = ("random", "ppo", "ppo-sample", "mcts")


def _own_agents(game: str) -> dict[str, games.GameAgent]:
    """The agents the game called `game` brings; none for an env no spec describes."""
    try:
        return dict(games.spec(game).agents)
    except ValueError:  # an env built outside the registry, or a plug-in that cannot load
        return {}


def _not_here(spec: str, game: str, known: list[str]) -> ValueError:
    """The error for `spec`, whose name no agent of `game` has: the games whose agent it is
    ("alphabeta plays checkers and chess, not tictactoe"), or else the names `game` knows."""
    name = spec.partition(":")[0]
    elsewhere = [other for other in games.names() if other != game and name in _own_agents(other)]
    if elsewhere:
        listed = " and ".join(filter(None, [", ".join(elsewhere[:-1]), elsewhere[-1]]))
        return ValueError(f"{name} plays {listed}, not {game}")
    return ValueError(f"unknown agent {spec!r}; known: {', '.join(known)}")


def agent_specs() -> dict[str, str]:
    """Every agent name `make_agent` takes -> one line of help: the shared agents, then those of
    every game that can be loaded (a name several games have, once, its help game by game; a
    game's agent named as a shared one, which `make_agent` never reaches, left out)."""
    helps: dict[str, list[str]] = {}
    for game in games.names():
        for name, agent in _own_agents(game).items():
            if name not in SHARED_AGENTS:
                helps.setdefault(name, []).append(f"{game}: {agent.help}")
    return {**AGENT_SPECS, **{name: "; ".join(lines) for name, lines in helps.items()}}


def make_move_values(spec: str, env) -> Callable[[object], jax.Array]:
    """`values(state) -> (num_actions,)` scores of every legal move (higher is better for the
    side to move; illegal moves score below every legal one) of the search agent `spec`, for a
    student to learn from (`jaxcheckers.training.distill`). ValueError for an agent that does
    not score moves of `env`'s game (only the game's agents with `move_values`)."""
    name, _, argument = spec.partition(":")
    agent = _own_agents(env.id).get(name)
    if agent is not None and agent.move_values is not None:
        return agent.move_values(argument, env)
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
    """The agent named by `spec` ("name" or "name:argument") for `env`: one of the shared agents
    (SHARED_AGENTS), else one of the agents `env`'s game brings (`GameSpec.agents`). ValueError,
    one line, for any other: the games that have it, or the names this game knows."""
    name, _, argument = spec.partition(":")
    if name == "random":
        no_argument(name, argument)
        return random_agent
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
    own = _own_agents(env.id)
    if name in own:
        return own[name].build(argument, env)
    raise _not_here(spec, env.id, [*SHARED_AGENTS, *own])


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
