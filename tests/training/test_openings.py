"""How training games open: random turns, and a game's opening deck (training/openings.py)."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from jaxcheckers.training.openings import random_opening_reset, training_reset

import jaxcheckers
from jaxcheckers.checkers import ballots
from jaxcheckers.core import compiled_step
from jaxcheckers.tictactoe import TicTacToe

KEYS = jax.random.split(jax.random.key(0), 400)


def _opened(env, turns):
    return jax.device_get(jax.jit(jax.vmap(random_opening_reset(env, turns)))(KEYS))


def test_no_opening_turns_is_the_plain_reset():
    env = TicTacToe()
    assert random_opening_reset(env, 0) == env.reset


def test_tictactoe_opens_with_zero_to_three_marks_each_as_often():
    states = _opened(TicTacToe(), 3)
    marks = np.abs(states.board).sum(axis=1)
    np.testing.assert_array_equal(marks, states.step_count)  # one mark a turn
    counts = np.bincount(marks, minlength=5)
    assert counts[4] == 0
    assert counts[:4].min() > 70  # 100 expected of each of 0..3 in 400 games
    # The marks alternate: player 0 has as many marks as player 1, or one more.
    balance = states.board.sum(axis=1)
    np.testing.assert_array_equal(balance, marks % 2)
    np.testing.assert_array_equal(states.current_player, marks % 2)
    assert len({row.tobytes() for row in states.board}) > 50  # random, not one line


def test_an_opening_that_ends_the_game_starts_it_again():
    # Nine random turns end many 3×3 games (a line, or a full board): those start afresh.
    states = _opened(TicTacToe(), 9)
    assert not states.terminated.any() and not states.truncated.any()
    assert states.legal_action_mask.any(axis=1).all()
    marks = np.abs(states.board).sum(axis=1)
    assert (marks == 0).sum() > 40  # the plain starts (40 expected if none ended)
    assert marks.max() <= 8


def test_checkers_opens_with_whole_turns_of_legal_moves():
    env = jaxcheckers.make("checkers")
    states = _opened(env, 4)
    assert not states.terminated.any()
    start = jax.device_get(env.reset(jax.random.key(0)))
    at_start = (states.observation == start.observation).all(axis=(1, 2, 3))
    assert 40 < at_start.sum() < 130  # a fifth open with no random turn (80 expected)
    assert (states.jumper == -1).all()  # no game left in the middle of a multi-jump
    assert states.step_count.max() >= 4 and states.step_count.min() == 0
    # Four turns of one hop each, the most without a capture, change at most 8 squares (the
    # start looks the same from either side, so the mover's frame does not matter).
    changed = (states.observation != start.observation).any(axis=3).sum(axis=(1, 2))
    assert changed[states.step_count <= 4].max() <= 8
    assert changed.max() >= 4


def test_the_ppo_trainer_starts_its_games_after_random_turns():
    from jaxcheckers.training.config import TrainConfig
    from jaxcheckers.training.ppo import make_trainer

    config = TrainConfig(
        game="tictactoe", num_envs=64, rollout_length=4, total_steps=64 * 4, hidden_sizes=(8,)
    )
    marks = {}
    for turns in (0, 3):
        trainer = make_trainer(config.replace(opening_plies=turns))
        state = jax.jit(trainer.init)(jax.random.key(1))
        marks[turns] = np.abs(np.asarray(state.env_state.board)).sum(axis=1)
    assert marks[0].max() == 0
    assert set(marks[3].tolist()) == {0, 1, 2, 3}


def _ballot_positions(env) -> set[bytes]:
    """The observation after each of the 156 ballots, played hop by hop from the start."""
    step, positions = compiled_step(env), set()
    for actions in ballots.deck(env).actions:
        state = env.reset(jax.random.key(0))
        for action in actions[actions >= 0]:
            state = step(state, np.int32(action))
        positions.add(np.asarray(state.observation).tobytes())
    return positions


def test_checkers_training_games_open_from_the_ballots():
    env = jaxcheckers.make("checkers")
    positions = _ballot_positions(env)
    assert len(positions) == 156
    states = jax.device_get(jax.jit(jax.vmap(training_reset(env, "checkers", "ballots", 0)))(KEYS))
    opened = [row.tobytes() for row in states.observation]
    assert set(opened) <= positions
    assert len(set(opened)) > 110  # 400 draws of 156 ballots: about 146 distinct expected
    assert (states.step_count >= 3).all() and (states.jumper == -1).all()
    # Random turns after the ballot: some games leave the deck's positions, none is over.
    turned = jax.device_get(jax.jit(jax.vmap(training_reset(env, "checkers", "ballots", 2)))(KEYS))
    left = sum(row.tobytes() not in positions for row in turned.observation)
    assert 200 < left < 400  # two thirds take one or two turns (267 expected)
    assert not turned.terminated.any()


@pytest.mark.parametrize(
    ("game", "deck", "message"),
    [
        ("checkers", "nope", "not a deck of checkers (its decks: ballots)"),
        ("tictactoe", "ballots", "not a deck of tictactoe (it has no opening deck)"),
    ],
)
def test_a_deck_the_game_lacks_is_refused(game, deck, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        training_reset(jaxcheckers.make(game), game, deck, 0)


def test_the_ppo_trainer_opens_its_games_from_the_ballots():
    from jaxcheckers.training.config import TrainConfig
    from jaxcheckers.training.ppo import make_trainer

    config = TrainConfig(num_envs=64, rollout_length=4, total_steps=64 * 4, openings="ballots")
    state = jax.jit(make_trainer(config).init)(jax.random.key(1))
    positions = _ballot_positions(jaxcheckers.make("checkers"))
    # The learner moves first in every game (no opponents): the start is the ballot's position.
    opened = {row.tobytes() for row in np.asarray(state.env_state.observation)}
    assert opened <= positions and len(opened) > 30
