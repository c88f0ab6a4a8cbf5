"""The networks that ship with the package, so trained players play right after install.

    jaxcheckers play --white ppo:pretrained                  # the checkers PPO policy, no search
    jaxcheckers play --white mcts:pretrained                 # the AlphaZero network with search
    jaxcheckers play --game chess --white ppo:pretrained     # the chess network, no search
    jaxcheckers play --game chess --white mcts:ppo:pretrained-distilled:256  # chess, searching

Each game ships its own: `pretrained` is the game's raw policy (checkers: the `hour` preset's PPO
run, then PPO against the 3- and 4-ply alpha-beta, at the end from the ballots; chess: a network
distilled from the 2-ply alpha-beta, training/distill.py, then trained on by PPO against random
and the 1-ply alpha-beta), `pretrained-hour` the checkers network as the `hour` preset left it
(checkers only; it shipped as `pretrained` before), `pretrained-alphazero` an AlphaZero run's
network (the better one to search with; checkers only), `pretrained-distilled` the chess network
as distilled, before PPO (chess only: its value head, fitted to alpha-beta's scores, judges a
position, so it is the one to search with, where PPO's value learnt only how its games against
weak opponents ended). `mcts:pretrained` searches with `pretrained-alphazero`, `mcts:ppo:NAME`
with the network NAME (search needs mctx, the `training` extra). Each is a run's network
parameters (<stem>.msgpack, flax's msgpack layout) and the run's settings (<stem>.json: the
trainer, the game, its options and the network's shape), in files named after the game. Reading
and playing them needs jax, numpy and msgpack only (`jaxcheckers.agents.inference` applies the
network). They are written by `jaxcheckers.training.checkpoints.export_network(run_dir, name)`
from a `jaxcheckers train` run, which also records both files' digests in checksums.json
(`jaxcheckers.checkpoints.tree_digest`, as a training checkpoint's): a network whose weights or
settings were altered since, or whose weights are not finite, is refused in one line.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import msgpack
import numpy as np

from jaxcheckers.agents.inference import PlainNetwork, plain_network
from jaxcheckers.checkpoints import CHECKSUM_FILE, tree_digest
from jaxcheckers.games import DEFAULT

__all__ = [
    "NAME", "SEARCH_NAME", "DISTILLED_NAME", "HOUR_NAME", "NAMES", "DIRECTORY", "stem", "games",
    "load", "read_params", "record_checksums", "verify",
]  # fmt: skip

NAME = "pretrained"
SEARCH_NAME = "pretrained-alphazero"
DISTILLED_NAME = "pretrained-distilled"
HOUR_NAME = "pretrained-hour"
DIRECTORY = Path(__file__).parent
# name -> its file stem in DIRECTORY for a game (<stem>.msgpack: the params, <stem>.json: the
# settings)
NAMES = {
    NAME: "{game}",
    SEARCH_NAME: "{game}-alphazero",
    DISTILLED_NAME: "{game}-distilled",
    HOUR_NAME: "{game}-hour",
}

_NDARRAY = 1  # flax.serialization's msgpack extension code for an array


def stem(name: str, game: str = DEFAULT) -> str:
    """The file stem of the network `name` of `game`."""
    return NAMES[name].format(game=game)


def games(name: str = NAME, directory: Path = DIRECTORY) -> list[str]:
    """The games for which a network called `name` ships."""
    found = []
    for path in sorted(Path(directory).glob("*.json")):
        try:
            game = json.loads(path.read_text()).get("game")
        except (OSError, ValueError, AttributeError):  # damaged (`[]`): `load` says how
            continue
        if isinstance(game, str) and path.stem == stem(name, game):
            found.append(game)
    return found


def load(
    name: str = NAME, directory: Path = DIRECTORY, game: str = DEFAULT
) -> tuple[Any, PlainNetwork, dict]:
    """(params, network, settings) of the shipped network called `name` for `game`: the network
    as a `PlainNetwork` (`network.apply(params, observation)`), built from the settings beside
    the params. ValueError (one line) naming the games it ships for when there is none for
    `game`, or if the two files do not fit."""
    directory = Path(directory)
    settings_path = directory / f"{stem(name, game)}.json"
    if not settings_path.is_file():
        shipped = ", ".join(games(name, directory)) or "none"
        raise ValueError(f"no {name} network ships for {game} (it ships for: {shipped})")
    settings = json.loads(settings_path.read_text())
    path = settings_path.with_suffix(".msgpack")
    params = read_params(path)
    verify(directory, stem(name, game), params, settings)
    network, env = plain_network(settings)
    try:
        network.check(params, tuple(env.observation_shape), env.num_actions)
    except ValueError as error:
        raise ValueError(f"{path} does not fit {settings_path.name}: {error}") from None
    return params, network, settings


def read_params(path: str | Path) -> Any:
    """The params tree saved by `flax.serialization.to_bytes` at `path`: nested dicts of numpy
    arrays, as `flax.serialization.msgpack_restore` reads them, without flax."""

    def array(code: int, data: bytes) -> Any:
        if code != _NDARRAY:
            raise ValueError(f"{path} holds a msgpack extension ({code}) that is not an array")
        shape, dtype, buffer = msgpack.unpackb(data, raw=True)
        return np.frombuffer(buffer, dtype=jnp.dtype(dtype.decode())).reshape(shape, order="C")

    try:
        return msgpack.unpackb(
            Path(path).read_bytes(), ext_hook=array, raw=False, strict_map_key=False
        )
    except (msgpack.UnpackException, ValueError, TypeError) as error:
        raise ValueError(f"{path} is not a params file: {error}") from None


def _digests(params: Any, settings: dict) -> dict[str, str]:
    # The settings as canonical JSON: the same text on every platform (a tree digest would
    # hash their ints at the platform's default width).
    text = json.dumps(settings, sort_keys=True, separators=(",", ":"))
    return {"params": tree_digest(params), "settings": hashlib.sha256(text.encode()).hexdigest()}


def record_checksums(directory: Path, stem: str) -> None:
    """Records the digests of the network `stem` (its params as `read_params` reads them, and
    its settings) in `directory`/checksums.json, beside those of the other networks there."""
    directory = Path(directory)
    params = read_params(directory / f"{stem}.msgpack")
    settings = json.loads((directory / f"{stem}.json").read_text())
    path = directory / CHECKSUM_FILE
    recorded = json.loads(path.read_text()) if path.exists() else {}
    recorded[stem] = _digests(params, settings)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(recorded, indent=2, sort_keys=True) + "\n")
    temporary.replace(path)


def verify(directory: Path, stem: str, params: Any, settings: dict) -> None:
    """ValueError, one line naming the file, unless the network `stem` is as it was exported:
    its digests match checksums.json's (a folder without that file, written before checksums
    existed, is not checked for them), and its weights are finite."""
    directory = Path(directory)
    path = directory / CHECKSUM_FILE
    if path.exists():
        try:
            expected = json.loads(path.read_text())[stem]
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise ValueError(f"{path} holds no checksum for {stem} ({error!r})") from None
        found = _digests(params, settings)
        for item, suffix in (("params", ".msgpack"), ("settings", ".json")):
            if not isinstance(expected, dict) or found[item] != expected.get(item):
                raise ValueError(
                    f"{directory / (stem + suffix)} is damaged: it does not match its checksum "
                    f"in {path.name} (altered since it was exported)"
                )
    for leaf in jax.tree_util.tree_leaves(params):
        if np.asarray(leaf).dtype.kind == "f" and not np.isfinite(leaf).all():
            raise ValueError(f"{directory / (stem + '.msgpack')} holds non-finite weights")
