"""Draughts' alpha-beta agent (`jaxcheckers/draughts/alphabeta.py`) against a plain minimax written
here: no pruning, Python recursion over the env's compiled step, material counted from the board."""

from __future__ import annotations

import functools

import jax
import numpy as np
import pytest

import jaxcheckers
from jaxcheckers import games
from jaxcheckers.agents import make_agent
from jaxcheckers.core import compiled_step
from jaxcheckers.draughts import alphabeta
from tests.draughts import helpers

ENV = jaxcheckers.make("draughts")
STEP = compiled_step(ENV)


def over(state) -> bool:
    return bool(state.terminated) or bool(state.truncated)


def plain_value(state, depth: int) -> int:
    """The minimax value of `state` for its mover, `depth` hops deep: every hop searched."""
    if over(state):
        return int(round(float(state.rewards[int(state.current_player)]))) * alphabeta.WIN
    if depth == 0:
        return leaf_value(state)
    return max(plain_hop_values(state, depth).values())


def leaf_value(state) -> int:
    """Material for the mover of `state`, once a capture under way is played to its end by its
    first legal hops (negated if the turn passed)."""
    done = state
    while int(done.jumper) >= 0 and not over(done):
        done = STEP(done, np.flatnonzero(np.asarray(done.legal_action_mask))[0])
    if over(done):
        value = int(round(float(done.rewards[int(done.current_player)]))) * alphabeta.WIN
    else:
        board = np.where(np.asarray(done.taken), 0, np.asarray(done.board)).astype(int)
        value = int(np.sum(np.sign(board) * np.where(np.abs(board) == 2, 3, 1)))
    return value if int(done.current_player) == int(state.current_player) else -value


def plain_hop_values(state, depth: int) -> dict[int, int]:
    """Each legal hop's value for the mover: its child's value, negated where the turn passes."""
    values = {}
    for action in np.flatnonzero(np.asarray(state.legal_action_mask)):
        child = STEP(state, action)
        same = int(child.current_player) == int(state.current_player)
        value = plain_value(child, depth - 1)
        values[int(action)] = value if same else -value
    return values


@functools.cache
def root_values(depth: int):
    return jax.jit(lambda state: alphabeta.root_values(ENV, state, depth))


def sample_positions(count: int):
    """Live positions of random games, those mid-capture first (the search's hardest case)."""
    states = helpers.random_states("international", *helpers.FAST_SAMPLE)
    order = np.argsort(np.asarray(states.jumper) < 0, kind="stable")  # mid-capture first
    return [jax.tree.map(lambda x, i=i: x[i], states) for i in order[:count]]


# Depth 2 is the slow sample; the agent's test below checks a depth-2 search's best hops fast.
@pytest.mark.parametrize("depth, count", [(1, 12), pytest.param(2, 6, marks=pytest.mark.slow)])
def test_the_best_hops_and_their_values_are_plain_minimaxs(depth, count):
    positions = sample_positions(count)
    assert sum(int(p.jumper) >= 0 for p in positions) >= 3  # captures under way are covered
    for state in positions:
        plain = plain_hop_values(state, depth)
        values = np.asarray(root_values(depth)(state))
        legal = np.flatnonzero(np.asarray(state.legal_action_mask))
        best = max(plain.values())
        assert values[legal].max() == best
        # The best hops come out exact; the others below them (their value, or a bound on it).
        assert {a for a in legal if values[a] == best} == {a for a, v in plain.items() if v == best}


def test_a_finished_game_is_worth_the_movers_result():
    # White to move with no piece that can move: White has lost.
    state = games.spec("draughts").notation.from_fen("W:W46:B37,41")
    assert bool(state.terminated)
    assert int(alphabeta.evaluate(state)) == -alphabeta.WIN


def test_the_agent_plays_a_best_hop_and_ties_fall_at_random():
    # quiet, several equal moves
    state = games.spec("draughts").notation.from_fen("W:W31,32,33:B18,19")
    agent = jax.jit(make_agent("alphabeta:2", ENV))
    plain = plain_hop_values(state, 2)
    best = {a for a, v in plain.items() if v == max(plain.values())}
    chosen = {int(agent(state, jax.random.key(seed))) for seed in range(12)}
    assert chosen <= best and len(chosen) > 1


@pytest.mark.parametrize("spec", ["alphabeta:0", "alphabeta:7", "alphabeta:x"])
def test_bad_depths_are_refused_in_one_line(spec):
    with pytest.raises(ValueError, match="alphabeta"):
        make_agent(spec, ENV)


def test_it_teaches_distillation_the_values_of_its_search():
    from jaxcheckers.agents import make_move_values

    state = sample_positions(1)[0]
    values = np.asarray(jax.jit(make_move_values("alphabeta:1", ENV))(state))
    legal = np.asarray(state.legal_action_mask)
    plain = plain_hop_values(state, 1)
    assert values[~legal].max() < values[legal].min()
    assert {int(a) for a in np.flatnonzero(values == values.max())} == {
        a for a, v in plain.items() if v == max(plain.values())
    }
