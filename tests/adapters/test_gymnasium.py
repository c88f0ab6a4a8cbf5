"""The Gymnasium adapters: check_env, registration, agreement with the JAX core, bad input."""

from __future__ import annotations

import jax
import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils import seeding  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402

import jaxcheckers  # noqa: E402
from jaxcheckers.adapters.gymnasium import (  # noqa: E402
    ENV_ID,
    CheckersEnv,
    CheckersVectorEnv,
    LearnerVectorEnv,
)
from jaxcheckers.agents import random_agent  # noqa: E402
from jaxcheckers.core import compiled_step  # noqa: E402
from jaxcheckers.games import opening  # noqa: E402
from jaxcheckers.tictactoe.gym import TicTacToeVectorEnv  # noqa: E402

SIZE = 6  # every test uses the same rules, so each function compiles once
RANDOM_AGENT = jax.jit(random_agent)


class ReferenceLearner:
    """The documented episode, played on the JAX core in plain Python: the learner's hop, then
    the opponent's (a random agent, one key split per hop) until the learner is to move."""

    def __init__(self, key: jax.Array, seat: int | None):
        self.core = jaxcheckers.make("checkers", board_size=SIZE)
        self.step_fn = compiled_step(self.core)
        self.act = RANDOM_AGENT
        seat_key, _, self.key = jax.random.split(key, 3)
        drawn = int(jax.random.randint(seat_key, (), 0, 2))
        self.seat = drawn if seat is None else seat
        self.state = opening(self.core)
        self.reward = self._opponent_turns()

    def _over(self) -> bool:
        return bool(self.state.terminated) or bool(self.state.truncated)

    def _opponent_turns(self) -> float:
        reward = 0.0
        while not self._over() and int(self.state.current_player) != self.seat:
            self.key, act_key = jax.random.split(self.key)
            self.state = jax.device_get(self.step_fn(self.state, self.act(self.state, act_key)))
            reward += float(self.state.rewards[self.seat])
        return reward

    def step(self, action: int) -> None:
        self.state = jax.device_get(self.step_fn(self.state, action))
        self.reward = float(self.state.rewards[self.seat]) + self._opponent_turns()

    def observation(self) -> np.ndarray:
        board = np.asarray(self.state.board)
        if int(self.state.current_player) != self.seat:
            board = -board[::-1]
        planes = [board == 1, board == 2, board == -1, board == -2]
        return np.stack(planes, axis=-1).reshape(SIZE, SIZE, 4).astype(np.float32)

    def check(self, observation, reward, terminated, truncated, info) -> None:
        np.testing.assert_array_equal(observation, self.observation())
        assert reward == self.reward
        assert terminated == bool(self.state.terminated)
        assert truncated == bool(self.state.truncated)
        learners_turn = int(self.state.current_player) == self.seat
        expected_mask = np.asarray(self.state.legal_action_mask) & learners_turn
        np.testing.assert_array_equal(info["action_mask"], expected_mask.astype(np.int8))
        assert info["learner_seat"] == self.seat


def _random_legal(rng: np.random.Generator, mask: np.ndarray) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def test_check_env_box_observations():
    check_env(CheckersEnv(board_size=SIZE))


def test_check_env_dict_observations_through_the_registry():
    env = gymnasium.make(ENV_ID, board_size=SIZE, observation_type="dict", render_mode="ansi")
    check_env(env.unwrapped)
    observation, info = env.reset(seed=3)
    np.testing.assert_array_equal(observation["action_mask"], info["action_mask"])
    assert "to move" in env.render()
    assert env.unwrapped.game.current_player == info["learner_seat"]


@pytest.mark.parametrize("seat", [0, 1, "random"])
def test_random_episodes_agree_step_for_step_with_the_jax_core(seat):
    env = CheckersEnv(board_size=SIZE, learner_seat=seat)
    rng = np.random.default_rng(1)
    for seed in range(2):
        observation, info = env.reset(seed=seed)
        generator, _ = seeding.np_random(seed)
        key = jax.random.key(int(generator.integers(2**31)))
        reference = ReferenceLearner(key, None if seat == "random" else seat)
        reference.check(observation, 0.0, False, False, info)
        terminated = truncated = False
        while not (terminated or truncated):
            action = _random_legal(rng, info["action_mask"])
            observation, reward, terminated, truncated, info = env.step(action)
            reference.step(action)
            reference.check(observation, reward, terminated, truncated, info)
        assert reward in (-1.0, 0.0, 1.0)


def _info_of(infos: dict, i: int) -> dict:
    return {key: value[i] for key, value in infos.items()}


def _episode_keys(seed: int):
    """The keys of the episodes of a `LearnerEnv` reset with `seed`, then reset without one."""
    generator, _ = seeding.np_random(seed)
    while True:
        yield jax.random.key(int(generator.integers(2**31)))


def test_the_vector_env_agrees_with_the_jax_core_across_an_autoreset():
    seeds = [5, 6, 7]
    envs = CheckersVectorEnv(len(seeds), board_size=SIZE)
    assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
    observations, infos = envs.reset(seed=seeds)
    keys = [_episode_keys(s) for s in seeds]
    references = [ReferenceLearner(next(k), None) for k in keys]
    for i, reference in enumerate(references):
        reference.check(observations[i], 0.0, False, False, _info_of(infos, i))
    rng = np.random.default_rng(2)
    done = np.zeros(len(seeds), dtype=bool)
    restarted = np.zeros(len(seeds), dtype=bool)  # each game is followed into its second episode
    while not restarted.all():
        actions = [0 if done[i] else _random_legal(rng, infos["action_mask"][i]) for i in range(3)]
        observations, rewards, terminations, truncations, infos = envs.step(np.array(actions))
        for i in range(len(seeds)):
            if done[i]:  # NEXT_STEP: this step restarted the game and ignored the action
                references[i] = ReferenceLearner(next(keys[i]), None)
                restarted[i] = True
            else:
                references[i].step(actions[i])
            answer = observations[i], rewards[i], terminations[i], truncations[i]
            references[i].check(*answer, _info_of(infos, i))
        done = terminations | truncations


def _assert_same(ours, theirs, path="") -> None:
    """Equal nested answers: dicts key by key, object arrays entry by entry, arrays exactly."""
    if isinstance(theirs, tuple):
        assert len(ours) == len(theirs), path
        for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            _assert_same(a, b, f"{path}[{i}]")
    elif isinstance(theirs, dict):
        assert set(ours) == set(theirs), path
        for key in theirs:
            _assert_same(ours[key], theirs[key], f"{path}/{key}")
    elif isinstance(theirs, np.ndarray) and theirs.dtype == object:
        assert len(ours) == len(theirs), path
        for a, b in zip(ours, theirs, strict=True):
            assert (a is None) == (b is None), path
            if b is not None:
                _assert_same(a, b, path)
    else:
        np.testing.assert_array_equal(ours, theirs, err_msg=path)


@pytest.mark.parametrize("mode", ["NEXT_STEP", "SAME_STEP"])
def test_the_vector_env_plays_what_sync_vector_env_plays(mode):
    """Seeded alike, each game is the one SyncVectorEnv's LearnerEnv plays, episode after
    episode, and the answers (infos and SAME_STEP's final_obs/final_info too) are the same."""
    autoreset = gymnasium.vector.AutoresetMode[mode]
    ours = gymnasium.make_vec(
        ENV_ID,
        num_envs=3,
        vectorization_mode="vector_entry_point",
        autoreset_mode=autoreset,  # Gymnasium passes a vector entry point kwargs only
        board_size=SIZE,
    )
    theirs = gymnasium.vector.SyncVectorEnv(
        [lambda: CheckersEnv(board_size=SIZE)] * 3, autoreset_mode=autoreset
    )
    assert ours.metadata["autoreset_mode"] == autoreset
    answers = ours.reset(seed=11), theirs.reset(seed=11)
    _assert_same(*answers)
    rng = np.random.default_rng(3)
    ended = with_final_obs = 0
    while ended < 4:  # a few episodes end, so restarts are compared too
        masks = answers[1][-1]["action_mask"]
        actions = np.array([_random_legal(rng, m) if m.any() else 0 for m in masks])
        answers = ours.step(actions), theirs.step(actions)
        _assert_same(*answers)
        ended += int((answers[1][2] | answers[1][3]).sum())
        with_final_obs += "final_obs" in answers[1][4]
    assert (with_final_obs > 0) == (mode == "SAME_STEP")


def test_the_vector_env_renders_each_game_as_the_single_env_does():
    envs = CheckersVectorEnv(2, board_size=SIZE, render_mode="rgb_array")
    assert envs.metadata["render_modes"] == ["ansi", "rgb_array"]
    envs.reset(seed=[4, 9])
    frames = envs.render()
    for seed, frame in zip([4, 9], frames, strict=True):
        single = CheckersEnv(board_size=SIZE, render_mode="rgb_array")
        single.reset(seed=seed)
        np.testing.assert_array_equal(frame, single.render())
    texts = CheckersVectorEnv(2, board_size=SIZE, render_mode="ansi")
    texts.reset(seed=0)
    assert len(texts.render()) == 2 and all("to move" in text for text in texts.render())
    with pytest.raises(ValueError, match="render_mode"):
        CheckersVectorEnv(2, board_size=SIZE, render_mode="human")
    with pytest.raises(ValueError, match="autoreset_mode"):
        CheckersVectorEnv(2, board_size=SIZE, autoreset_mode="disabled")


def test_an_illegal_action_loses_and_the_episode_must_be_reset():
    env = CheckersEnv(board_size=SIZE, learner_seat=0)
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(0)  # square 0 holds no piece
    assert (reward, terminated) == (-1.0, True) and not info["action_mask"].any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


@pytest.mark.parametrize("action", [4 * SIZE * SIZE, -1, 1.0, None, np.array([1, 2])])
def test_an_action_out_of_range_raises(action):
    env = CheckersEnv(board_size=SIZE)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="an action is an int"):
        env.step(action)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"learner_seat": 2}, "learner_seat"),
        ({"observation_type": "image"}, "observation_type"),
        ({"opponent": "no-such-agent"}, "unknown agent"),
        ({"board_size": 7}, "board_size"),
    ],
)
def test_bad_options_raise(options, message):
    with pytest.raises(ValueError, match=message):
        CheckersEnv(**options)


def test_the_vector_env_rejects_bad_actions():
    envs = CheckersVectorEnv(3, board_size=SIZE)
    envs.reset(seed=0)
    with pytest.raises(ValueError, match="3 ints"):
        envs.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match="lie in"):
        envs.step(np.array([0, 1, 4 * SIZE * SIZE]))
    with pytest.raises(ValueError, match="3 ints"):
        envs.step(np.array([0.0, 1.0, 2.0]))


def test_make_vec_builds_the_jax_batched_env():
    envs = gymnasium.make_vec(
        ENV_ID, num_envs=3, vectorization_mode="vector_entry_point", board_size=SIZE
    )
    assert isinstance(envs.unwrapped, LearnerVectorEnv)
    assert envs.unwrapped.adapter.name == "checkers"
    observations, infos = envs.reset(seed=0)
    assert observations.shape == (3, SIZE, SIZE, 4) and infos["action_mask"].shape == (3, 144)


def test_action_masks_are_the_learners_legal_actions():
    env = CheckersEnv(board_size=SIZE, learner_seat=0)
    _, info = env.reset(seed=0)
    masks = env.action_masks()
    assert masks.dtype == np.bool_ and masks.shape == (4 * SIZE * SIZE,) and masks.any()
    np.testing.assert_array_equal(masks, info["action_mask"].astype(bool))
    _, _, terminated, _, info = env.step(0)  # illegal: the game is lost
    assert terminated and not env.action_masks().any()
    envs = CheckersVectorEnv(3, board_size=SIZE)
    _, infos = envs.reset(seed=0)
    np.testing.assert_array_equal(envs.action_masks(), infos["action_mask"].astype(bool))


def test_reset_mask_restarts_only_the_masked_games():
    envs = CheckersVectorEnv(3, board_size=SIZE, learner_seat=0)
    _, infos = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(3):
        actions = np.array([_random_legal(rng, m) if m.any() else 0 for m in infos["action_mask"]])
        observations, _, _, _, infos = envs.step(actions)
    before = jax.device_get(envs.jax_state)
    assert (before.step_count > 0).all()
    mask = np.array([False, True, False])
    again, infos = envs.reset(options={"reset_mask": mask})
    after = jax.device_get(envs.jax_state)
    np.testing.assert_array_equal(after.step_count, [before.step_count[0], 0, before.step_count[2]])
    for field_before, field_after in zip(
        jax.tree.leaves(before), jax.tree.leaves(after), strict=True
    ):
        np.testing.assert_array_equal(field_after[~mask], field_before[~mask])
    np.testing.assert_array_equal(again[~mask], observations[~mask])
    fresh, _ = CheckersEnv(board_size=SIZE, learner_seat=0).reset(seed=0)
    np.testing.assert_array_equal(again[1], fresh)
    np.testing.assert_array_equal(infos["_action_mask"], mask)
    envs.step(np.array([_random_legal(rng, m) for m in infos["action_mask"]]))  # all go on


@pytest.mark.parametrize(
    "mask", [np.zeros(3, dtype=bool), np.ones(3, dtype=np.int8), [True, False, True]]
)
def test_a_bad_reset_mask_raises(mask):
    envs = CheckersVectorEnv(3, board_size=SIZE)
    envs.reset(seed=0)
    with pytest.raises(ValueError, match="reset_mask"):
        envs.reset(options={"reset_mask": mask})


def test_rgb_array_frames_follow_the_game():
    env = gymnasium.make(ENV_ID, board_size=SIZE, learner_seat=0, render_mode="rgb_array")
    assert "rgb_array" in env.metadata["render_modes"]
    _, info = env.reset(seed=0)
    first = env.render()
    assert first.dtype == np.uint8 and first.shape == (32 * SIZE, 32 * SIZE, 3)
    np.testing.assert_array_equal(env.render(), first)
    env.step(_random_legal(np.random.default_rng(0), info["action_mask"]))
    assert (env.render() != first).any()  # pieces moved: pixels changed


def test_async_make_vec_with_fork_is_refused_at_once():
    with pytest.raises(RuntimeError, match="'context': 'spawn'"):
        gymnasium.make_vec(
            ENV_ID,
            num_envs=2,
            vectorization_mode="async",
            vector_kwargs={"context": "fork"},
            board_size=SIZE,
        )


@pytest.mark.parametrize("vector_env", [CheckersVectorEnv, TicTacToeVectorEnv])
@pytest.mark.parametrize("num_envs", [0, -2, 2.0, True, "3", None])
def test_both_vector_envs_refuse_a_num_envs_that_is_not_a_positive_int(vector_env, num_envs):
    with pytest.raises(ValueError, match="num_envs must be a positive int"):
        vector_env(num_envs)


def test_a_numpy_num_envs_is_taken():
    assert TicTacToeVectorEnv(np.int64(2)).num_envs == 2
