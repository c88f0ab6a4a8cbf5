"""The trainer's evaluations: its policy against fixed agents, through the match engine."""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp

from jaxcheckers.agents import make_agent
from jaxcheckers.agents.policy import policy_agent
from jaxcheckers.match import play_games
from jaxcheckers.ratings import summarize

__all__ = [
    "make_policy_evaluator",
    "summarize",
    "check_opponents",
    "make_evaluators",
    "evaluate",
    "play_on",
]


def make_policy_evaluator(
    env,
    apply_fn: Callable,
    opponent: Callable,
    num_games: int,
    opening_plies: int = 0,
    greedy: bool = True,
) -> Callable:
    """A jitted `evaluate(params, key) -> A's scores [num_games]` (1 win, 0.5 draw, 0 loss).

    The policy plays first in the even games and second in the odd ones; `ratings.summarize`
    turns the scores into counts and a confidence interval.
    """
    a_plays_first = jnp.arange(num_games) % 2 == 0

    def evaluate(params, key):
        agent = policy_agent(apply_fn, params, greedy=greedy)
        return play_games(
            env, agent, opponent, key, a_plays_first, opening_plies=opening_plies
        ).a_score

    return jax.jit(evaluate)


def check_opponents(trainer, args) -> None:
    """ValueError for an opponent spec that names no agent, used or not; a note when unused."""

    config = trainer.config
    for spec in getattr(config, "opponents", ()):  # the search trainer has none
        if spec != "snapshot":
            try:
                make_agent(spec, trainer.env)
            except (ValueError, AttributeError, NotImplementedError) as error:
                raise ValueError(f"opponent {spec!r}: {error}") from None
    if getattr(args, "opponents", None) is not None and not getattr(config, "num_opponent_envs", 0):
        print("note: --opponents plays no game while --opponent-fraction is 0")


def make_evaluators(trainer) -> dict:
    """One jitted evaluator per evaluation opponent; ValueError naming a spec that cannot play."""
    config = trainer.config
    if not config.eval_every:
        return {}
    evaluators = {}
    for spec in config.eval_opponents:
        try:
            opponent = make_agent(spec, trainer.env)
        except (ValueError, AttributeError, NotImplementedError) as error:
            # e.g. a typo, or an agent written for checkers only, asked to play another game
            raise ValueError(
                f"evaluation opponent {spec!r}: {error} (choose others with --eval-opponents)"
            ) from None
        evaluators[spec] = make_policy_evaluator(
            trainer.env,
            trainer.network.apply,
            opponent,
            config.eval_games,
            opening_plies=config.eval_opening_plies,
        )
    return evaluators


def play_on(device, evaluators: dict, params, key) -> dict:
    """Each evaluator's scores (`make_policy_evaluator`) for `params`, its games played on
    `device` (None: the default one). With several processes (`--distributed`) each plays them
    with its own copy of the replicated parameters."""
    if not evaluators:
        return {}
    # Read on the host first: with several processes the parameters are a global (replicated)
    # array, which `device_put` to one device refuses and `device_get` reads from this process.
    params = jax.device_get(params)
    with jax.default_device(device):
        params, key = jax.device_put((params, key), device)
        return {
            spec: jax.device_get(evaluator(params, key)) for spec, evaluator in evaluators.items()
        }


def _this_process_copy(x):
    """An array this process can move: a global array replicated over several processes as its
    local copy (`jax.device_put` to one device refuses the global one)."""
    if not isinstance(x, jax.Array) or x.is_fully_addressable:
        return x
    if not x.sharding.is_fully_replicated:
        raise ValueError("evaluating needs the parameters replicated on every process")
    return x.addressable_data(0)


def evaluate(evaluators: dict, params, update: int) -> dict[str, float]:
    """Each evaluator's rates and score for `params`, the games played on the host's CPU
    whatever trains: played move by move, they leave a GPU mostly idle (docs/training.md has
    the figures)."""
    key = jax.random.fold_in(jax.random.PRNGKey(12345), update)
    results = {}
    cpu = jax.local_devices(backend="cpu")[0]  # this process's own (devices() lists them all)
    for spec, scores in play_on(cpu, evaluators, params, key).items():
        outcome = summarize(scores)
        games = max(outcome.games, 1)
        results[f"eval/{spec}/win_rate"] = outcome.wins / games
        results[f"eval/{spec}/draw_rate"] = outcome.draws / games
        results[f"eval/{spec}/loss_rate"] = outcome.losses / games
        results[f"eval/{spec}/score"] = outcome.score
    return results
