"""The registry of games: one `GameSpec` per game, the one list every layer reads.

    jaxcheckers.make("chess")                   # builds an env through its spec
    games.spec("checkers").players              # ("black", "white")
    jaxcheckers.register(GameSpec(name="nim", make=Nim))   # a game written elsewhere

A game package declares its spec in a module of its own (`jaxcheckers/checkers/spec.py`); the
registry imports that module only when the game is asked for, so listing the games loads none.
Games come from three places, looked up in this order: `register(spec)` in this process, the
built-in games below, and the entry points of the group `jaxcheckers.games` (an installed
package's `name = "module:SPEC"`), which is how the installed CLI finds a third-party game.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import importlib.metadata
import inspect
import re
import warnings
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import jax
import numpy as np

from jaxcheckers.core import Env, compiled_method, per_rules
from jaxcheckers.records import Dialect, plain_dialect

__all__ = [
    "GameSpec",
    "GameAgent",
    "Drawing",
    "Notation",
    "Adapters",
    "GymnasiumEnv",
    "Defaults",
    "OpeningDeck",
    "register",
    "check_spec",
    "spec",
    "opening_deck",
    "names",
    "make",
    "shared_env",
    "opening",
    "observable_env",
    "ENTRY_POINT_GROUP",
    "DEFAULT",
]

ENTRY_POINT_GROUP = "jaxcheckers.games"

# The built-in games: name -> the module whose `SPEC` describes it. The only list of them.
BUILTIN = {
    "checkers": "jaxcheckers.checkers.spec",
    "chess": "jaxcheckers.chess.spec",
    "draughts": "jaxcheckers.draughts.spec",
    "tictactoe": "jaxcheckers.tictactoe.spec",
}
DEFAULT = "checkers"  # the game wherever none is named (the CLI, PettingZoo, shipped networks)


class OpeningDeck(NamedTuple):
    """Set openings that games start from (checkers' three-move ballots): each opening's name
    and its actions, played from the start position before the players take over."""

    names: tuple[str, ...]  # one per opening, as records name it
    actions: np.ndarray  # int32 [openings, K]  each opening's actions, padded with -1


@dataclasses.dataclass(frozen=True)
class GameAgent:
    """An agent a game brings (`GameSpec.agents`), built by `agents.make_agent("NAME:ARGUMENT",
    env)` for an env of that game. `build` and `move_values` are real functions; one that should
    not load its module before it is asked imports it inside (see `checkers/spec.py`)."""

    build: Callable[[str, Env], Callable]  # (argument, env) -> act(state, key) -> int32 action
    help: str  # one line for the agent listings (`arena --help`): "NAME[:ARGUMENT] what it does"
    # (argument, env) -> values(state) -> (num_actions,) scores of every move, for a student to
    # learn from (`agents.make_move_values`); None: the agent scores no moves.
    move_values: Callable[[str, Env], Callable] | None = None


@dataclasses.dataclass(frozen=True)
class Drawing:
    """A game's text and pictures of one unbatched state (`GameSpec.drawing`)."""

    text: Callable[[Any], str] | None = None  # the board as text
    rgb: Callable[[Any], np.ndarray] | None = None  # uint8 (H, W, 3)
    terminal: Callable[..., list[str]] | None = None  # (state, *, unicode, colour) -> lines


@dataclasses.dataclass(frozen=True)
class Notation:
    """Positions and moves as people write them (`GameSpec.notation`); None: action numbers."""

    from_fen: Callable[..., Any] | None = None  # (text, **options) -> State
    to_fen: Callable[[Any], str] | None = None
    parse_move: Callable[[Env, Any, str], list[int]] | None = None  # typed move -> its actions
    move_name: Callable[[Env, Any, int], str] | None = None  # an action as written
    legal_moves_text: Callable[[Env, Any], str] | None = None  # what `?` prints in `play`
    move_help: str | None = None  # how a person types a move
    mid_move: Callable[[Any], bool] | None = None  # a move under way: the same side moves on
    # (env, state, depth) -> the positions `depth` whole moves on, each move counted once
    # whatever its route, as published counts count (`perft --move-level`). None: the hops of a
    # move folded into one, each route of it a move.
    move_perft: Callable[[Env, Any, int], int] | None = None
    record: Dialect | None = None  # how its games are written down (PDN, PGN)


@dataclasses.dataclass(frozen=True)
class GymnasiumEnv:
    """An extra Gymnasium id a game brings (`Adapters.gymnasium_envs`) beside the learner env
    every game has: `env(**kwargs)` and `vector_env(num_envs, **kwargs)` build it, each
    importing its module only when called (registering must not import Gymnasium envs).
    `metadata` is the env's own, which Gymnasium reads before it builds the env: its
    `render_modes` let `gymnasium.make` check a render mode and offer `rgb_array_list`."""

    env: Callable[..., Any]
    vector_env: Callable[..., Any] | None = None
    metadata: Mapping[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class Adapters:
    """What the PettingZoo and Gymnasium adapters need (`GameSpec.adapters`), besides the env's
    `observe(state, player)`."""

    observation_dtype: type = np.bool_  # of the adapters' observation Box
    pettingzoo_name: str | None = None  # the PettingZoo env whose interface the AEC env keeps
    pettingzoo_defaults: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    start: Callable[[Any, Env], Any] | None = None  # reset(options={"start": x}) -> host State
    global_state: Callable[[Any], np.ndarray] | None = None  # PettingZoo's `state()`
    global_state_shape: Callable[[Env], tuple[int, ...]] | None = None
    # The moves the rules give the side to move even once the game has ended (chess_v6 shows
    # them after a drawn end); jittable, bool (num_actions,). None: the state's own mask.
    moves_of_the_position: Callable[[Any], Any] | None = None
    title: str | None = None  # in its Gymnasium id, jaxcheckers/TITLE-v0 (default: the name)
    # The class of a plain Python object of a position, built by `Class.from_state(state, env)`:
    # the adapters' `game` property (checkers: `checkers.game.Game`).
    game_object: type | None = None
    gymnasium_envs: Mapping[str, GymnasiumEnv] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class Defaults:
    """What the layers above choose for a game unless told (`GameSpec.defaults`)."""

    seats: tuple[str, str] = ("human", "random")  # `play`'s players 0 and 1
    perft_depth: int = 4  # the depth `perft` counts to
    # The fixed agents a trained policy is scored against (`benchmarks.time_to_strength`).
    scored_against: tuple[str, ...] = ("random",)


@dataclasses.dataclass(frozen=True)
class GameSpec:
    """Everything the layers above the games know of one game. Only `name` and `make` are
    required; the optional parts group what one layer reads, and a layer that needs a part a
    game leaves empty (None) refuses that game in one line."""

    name: str  # what `jaxcheckers.make` and `--game` take
    make: Callable[..., Env]  # keyword options -> a new env
    players: tuple[str, str] = ("player 0", "player 1")  # how people call players 0 and 1
    size_option: str | None = None  # the option `--board-size` sets; None: no such option
    drawing: Drawing = Drawing()
    notation: Notation = Notation()
    adapters: Adapters = Adapters()
    # The agents of this game alone, by the name `make_agent` takes ("alphabeta" in
    # "alphabeta:3"); the shared agents (random, ppo, mcts) play every game.
    agents: Mapping[str, GameAgent] = dataclasses.field(default_factory=dict)
    # Opening decks, by the name `--openings` takes: name -> deck(env) (ValueError for an env
    # it does not fit). Without a deck, matches open with `--opening-plies` random turns.
    openings: Mapping[str, Callable[[Env], OpeningDeck]] = dataclasses.field(default_factory=dict)
    # The input of the tactical MLP (network "mlp-tactical"): observation batch [B, *obs] ->
    # float32 [B, F]. None: that network does not play this game.
    tactical_inputs: Callable[[Any], Any] | None = None
    defaults: Defaults = Defaults()

    def __getattr__(self, name: str):
        # Only names no field has reach here: the flat fields of before the parts, for a release.
        if name not in _MOVED_FIELDS:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        part, field = _MOVED_FIELDS[name]
        warnings.warn(_moved_message(name), DeprecationWarning, stacklevel=2)
        return getattr(object.__getattribute__(self, part), field)

    @property
    def render_modes(self) -> list[str]:
        return ["human", "ansi"] + (["rgb_array"] if self.drawing.rgb is not None else [])

    @property
    def gymnasium_id(self) -> str:
        return f"jaxcheckers/{self.adapters.title or self.name.capitalize()}-v0"

    def position_object(self, state, env: Env) -> Any:
        """The `game_object` of `state`; AttributeError for a game that has none."""
        if self.adapters.game_object is None:
            raise AttributeError(f"{self.name} has no plain Python game object")
        return self.adapters.game_object.from_state(state, env)

    def start_state(self, start, env: Env):
        """`reset(options={"start": start})`'s host State: the opening for None; a game's own
        `start` reads anything else (ValueError where it has none)."""
        if start is None:
            return opening(env)
        if self.adapters.start is None:
            refused = "options['start'] is refused"
            raise ValueError(f"{self.name} starts only from its opening: {refused}")
        state = self.adapters.start(start, env)
        env.check_state(state)  # made by this env's rules, else its first step would fail
        return state

    def board_text(self, state) -> str:
        """The board of one state as text: the game's `text`, or, for a game without one, its
        observation planes as nested lists of 0 and 1 (what the adapters' "ansi" mode shows)."""
        if self.drawing.text is not None:
            return self.drawing.text(state)
        return str(np.asarray(state.observation).astype(int).tolist())

    @property
    def dialect(self) -> Dialect:
        """How its games are written down: its own, or moves as action numbers."""
        record = self.notation.record
        return record if record is not None else plain_dialect(self.players)


# The fields a GameSpec had flat until the parts, each now PART.FIELD: still taken by
# `GameSpec(...)` and read as attributes for one release, with a DeprecationWarning.
_MOVED_FIELDS = {
    **{
        field.name: (part, field.name)
        for part, kind in (("drawing", Drawing), ("notation", Notation), ("adapters", Adapters))
        for field in dataclasses.fields(kind)
        if field.name not in ("gymnasium_envs", "move_perft")  # new with the parts or since
    },
    "default_seats": ("defaults", "seats"),
    "perft_depth": ("defaults", "perft_depth"),
}
_PARTS = {"drawing": Drawing, "notation": Notation, "adapters": Adapters, "defaults": Defaults}


def _moved_message(name: str) -> str:
    part, field = _MOVED_FIELDS[name]
    where = f"{part}={_PARTS[part].__name__}({field}=...)"
    return f"GameSpec's {name} moved to GameSpec.{part}.{field} (jaxcheckers.games: {where})"


def _taking_moved_fields(init):
    """The dataclass's `__init__`, also taking the flat fields of before the parts."""

    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        for name in [name for name in kwargs if name in _MOVED_FIELDS]:
            warnings.warn(_moved_message(name), DeprecationWarning, stacklevel=2)
            part, field = _MOVED_FIELDS[name]
            given, kind = kwargs.get(part, _PARTS[part]()), _PARTS[part]
            if not isinstance(given, kind):
                raise ValueError(f"GameSpec: {part} must be a {kind.__name__}, got {given!r}")
            kwargs[part] = dataclasses.replace(given, **{field: kwargs.pop(name)})
        init(self, *args, **kwargs)

    return __init__


GameSpec.__init__ = _taking_moved_fields(GameSpec.__init__)


_REGISTERED: dict[str, GameSpec] = {}


# The optional fields of the parts by what each must be when given (None always may be).
_CALLABLE_FIELDS = (
    "tactical_inputs", "drawing.text", "drawing.rgb", "drawing.terminal", "notation.from_fen",
    "notation.to_fen", "notation.parse_move", "notation.move_name", "notation.legal_moves_text",
    "notation.mid_move", "notation.move_perft", "adapters.start", "adapters.global_state",
    "adapters.global_state_shape", "adapters.moves_of_the_position",
)  # fmt: skip
_TEXT_FIELDS = ("size_option", "notation.move_help", "adapters.pettingzoo_name", "adapters.title")
_MAPPING_FIELDS = ("openings", "agents", "adapters.pettingzoo_defaults", "adapters.gymnasium_envs")


def _read(game: GameSpec, path: str) -> Any:
    """The field at `path` ("notation.from_fen") of `game`."""
    return functools.reduce(getattr, path.split("."), game)


def check_spec(game: Any) -> GameSpec:
    """`game` if it is a GameSpec whose parts are of the kinds the layers use; else ValueError,
    one line naming the field. (A spec is checked where it enters the registry, so that a bad
    one fails there and not in whichever command first reads the field.)"""
    if not isinstance(game, GameSpec):
        raise ValueError(f"register takes a GameSpec, got {type(game).__name__}")
    if not isinstance(game.name, str) or not game.name.isidentifier():
        raise ValueError(f"a game's name is a Python identifier, got {game.name!r}")

    def refuse(path: str, kind: str) -> None:
        value = _read(game, path)
        raise ValueError(f"GameSpec {game.name!r}: {path} must be {kind}, got {value!r}")

    if not callable(game.make):
        refuse("make", "a callable that builds the env")
    for part, kind in _PARTS.items():
        if not isinstance(getattr(game, part), kind):
            refuse(part, f"a jaxcheckers.games.{kind.__name__}")
    for path in ("players", "defaults.seats"):
        pair = _read(game, path)
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
            refuse(path, "two strings")
        if not all(isinstance(item, str) and item for item in pair):
            refuse(path, "two strings")
    for path in _CALLABLE_FIELDS:
        value = _read(game, path)
        if value is not None and not callable(value):
            refuse(path, "None or a callable")
    for path in _TEXT_FIELDS:
        if not isinstance(_read(game, path), (str, type(None))):
            refuse(path, "None or a str")
    against = game.defaults.scored_against
    if not (isinstance(against, (tuple, list)) and against) or not all(
        isinstance(item, str) and item for item in against
    ):
        refuse("defaults.scored_against", "a non-empty tuple of agent names")
    depth = game.defaults.perft_depth
    if not isinstance(depth, (int, np.integer)) or isinstance(depth, bool) or depth < 1:
        refuse("defaults.perft_depth", "an int of 1 or more")
    for path in _MAPPING_FIELDS:
        if not isinstance(_read(game, path), Mapping):
            refuse(path, "a mapping")
    if not all(isinstance(k, str) and callable(v) for k, v in game.openings.items()):
        refuse("openings", "a mapping of names to deck(env) callables")
    if not all(_good_agent(name, agent) for name, agent in game.agents.items()):
        refuse("agents", "a mapping of names (no ':') to GameAgents with callables and help")
    if not all(_good_gymnasium_env(i, e) for i, e in game.adapters.gymnasium_envs.items()):
        refuse("adapters.gymnasium_envs", "a mapping of ids 'NAMESPACE/NAME-vN' to GymnasiumEnvs")
    game_object = game.adapters.game_object
    if game_object is not None and not callable(getattr(game_object, "from_state", 0)):
        refuse("adapters.game_object", "None or a class with from_state(state, env)")
    if game.notation.record is not None and not isinstance(game.notation.record, Dialect):
        refuse("notation.record", "None or a records.Dialect")
    try:
        np.dtype(game.adapters.observation_dtype)
    except TypeError:
        refuse("adapters.observation_dtype", "a numpy dtype")
    return game


def _good_gymnasium_env(env_id: Any, env: Any) -> bool:
    """Whether `env_id: env` is an entry `Adapters.gymnasium_envs` may hold."""
    return (
        isinstance(env_id, str)
        and re.fullmatch(r"[\w.-]+/[\w.-]+-v\d+", env_id) is not None
        and isinstance(env, GymnasiumEnv)
        and callable(env.env)
        and (env.vector_env is None or callable(env.vector_env))
        and isinstance(env.metadata, Mapping)
    )


def _good_agent(name: Any, agent: Any) -> bool:
    """Whether `name: agent` is an entry `GameSpec.agents` may hold."""
    return (
        isinstance(name, str)
        and bool(name)
        and ":" not in name
        and isinstance(agent, GameAgent)
        and callable(agent.build)
        and isinstance(agent.help, str)
        and (agent.move_values is None or callable(agent.move_values))
    )


def register(game: GameSpec) -> GameSpec:
    """Adds `game` to the registry of this process (ValueError if its name is taken by another
    game, or if a field is not of its kind: `check_spec`) and returns it, so a module can write
    `SPEC = register(GameSpec(...))`."""
    check_spec(game)
    if game.name in BUILTIN or game.name in _REGISTERED and _REGISTERED[game.name] is not game:
        raise ValueError(f"a game called {game.name!r} is already registered")
    _REGISTERED[game.name] = game
    return game


def names() -> tuple[str, ...]:
    """Every game's name: the built-in ones, then those registered or installed."""
    found = dict.fromkeys(BUILTIN)
    found.update(dict.fromkeys(_REGISTERED))
    found.update(dict.fromkeys(entry.name for entry in _entry_points()))
    return tuple(found)


def spec(name: str) -> GameSpec:
    """The spec of the game called `name`; ValueError naming the games for any other."""
    if name in _REGISTERED:
        return _REGISTERED[name]
    if name in BUILTIN:
        return _builtin(name)
    for entry in _entry_points():
        if entry.name == name:
            return _registered_entry(entry)
    raise ValueError(f"unknown game {name!r}; available: {', '.join(names())}")


def opening_deck(game: str, deck: str) -> Callable[[Env], OpeningDeck]:
    """The game's opening deck called `deck`, as `deck(env)`; ValueError, one line, naming the
    decks the game has, for any other."""
    decks = spec(game).openings
    if deck not in decks:
        have = f"its decks: {', '.join(decks)}" if decks else "it has no opening deck"
        raise ValueError(f"not a deck of {game} ({have})")
    return decks[deck]


def make(name: str, **options) -> Env:
    """The env of the game `name`, built with keyword `options` (see the game's docstring); an
    option the game does not have is refused with the ones it has (TypeError)."""
    factory = spec(name).make
    _check_options(name, factory, options)
    return factory(**options)


def _check_options(name: str, factory: Callable, options: dict) -> None:
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):  # no signature Python can read: the factory checks its own
        return
    if any(p.kind is p.VAR_KEYWORD for p in parameters):
        return
    known = [p.name for p in parameters if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)]
    unknown = [option for option in options if option not in known]
    if unknown:
        raise TypeError(
            f"{name} has no option {', '.join(map(repr, unknown))}; its options: "
            f"{', '.join(known) or 'none'}"
        )


@per_rules()
def opening(env: Env):
    """The opening State of `env` (host arrays), computed once per set of rules."""
    return jax.device_get(compiled_method(env, "reset")(jax.random.key(0)))


def shared_env(name: str, **options) -> Env:
    """One env per game and set of options, shared by the adapters (an env compiles its start
    position once, and every compiled function is cached per env)."""
    return _shared(name, tuple(sorted(options.items())))


def observable_env(name: str, **options) -> Env:
    """`shared_env`, for the adapters: ValueError unless its env defines `observe(state, player)`
    (each player's view, which PettingZoo and Gymnasium hand to both players)."""
    env = shared_env(name, **options)
    if type(env).observe is Env.observe:
        raise ValueError(f"{name} defines no observe(state, player), which the adapters need")
    return env


@functools.cache
def _shared(name: str, options: tuple) -> Env:
    return make(name, **dict(options))


@functools.cache
def _builtin(name: str) -> GameSpec:
    return importlib.import_module(BUILTIN[name]).SPEC


def _entry_points() -> tuple[importlib.metadata.EntryPoint, ...]:
    return tuple(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP))


def _registered_entry(entry: importlib.metadata.EntryPoint) -> GameSpec:
    """The checked spec an installed package declares; ValueError, one line naming the entry
    point and its package, for one that cannot be loaded (a missing module, a missing name, a
    factory that raises) or is no good spec of that name."""
    package = getattr(entry.dist, "name", None) or "an installed package"
    where = f"the game {entry.name!r} of {package} (entry point {entry.name} = {entry.value})"
    try:
        loaded = entry.load()
        game = loaded() if callable(loaded) and not isinstance(loaded, GameSpec) else loaded
    except Exception as error:  # noqa: BLE001 - a plug-in's own code may raise anything
        reason = " ".join(str(error).split()) or "no message"
        raise ValueError(f"{where} cannot be loaded: {type(error).__name__}: {reason}") from None
    if not isinstance(game, GameSpec) or game.name != entry.name:
        raise ValueError(f"{where} is not the GameSpec of {entry.name!r}")
    try:
        check_spec(game)
    except ValueError as error:
        raise ValueError(f"{where} is refused: {error}") from None
    _REGISTERED.setdefault(game.name, game)
    return _REGISTERED[game.name]
