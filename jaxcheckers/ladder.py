"""A strength ladder: a round-robin among agents, then Elo ratings fitted jointly with 95% CIs.

    jaxcheckers ladder random alphabeta:1 alphabeta:2 alphabeta:3 --games 100 --out DIR
    jaxcheckers ladder --game tictactoe random perfect mcts:uniform:8 --games 20
    jaxcheckers ladder random alphabeta:3 ppo:pretrained --openings ballots --out DIR
    jaxcheckers ladder random alphabeta:1 ... alphabeta:8 --neighbours 4 --out DIR --resume

Every pair plays `--games` games through `arena.play_match` (seats swapped every other game,
`--opening-plies` random turns first, or with `--openings ballots` every checkers three-move
ballot with both colours: 312 games a pair); with `--neighbours K` only the pairs at most K
apart in the order given (weakest first: the results far apart are foregone). The ratings
maximise the logistic-Elo (Bradley–Terry) likelihood: A scores against B with expectation
E = 1 / (1 + 10^((r_B − r_A) / 400)), a draw counts as half a win, and every pair's points
enter as a binomial log-likelihood s·log E + (n − s)·log(1 − E). The anchor (`random` if it
plays, else the first agent) is fixed at 0; the rest are found by Newton's method (the
log-likelihood is concave).

Perfect records: when an agent (or a group) won every game against the rest, the maximum of the
likelihood lies at infinity. Chosen here: a prior, `prior_draws` virtual drawn games (default 1)
between every other agent and the anchor, which keeps every rating finite (ratings are then the
maximum a posteriori). It pulls every rating toward the anchor: by a few points when each agent's
games tie it well to the anchor, by much more when they barely do (docs/experiments.md shows
a checkers ladder where it does). So the table shows the fit without the prior beside it
whenever that one is finite. The gap the prior gives an unbeaten group is a floor, not a
measurement: `separated_tiers` finds such groups and the command says so under the table. With
`prior_draws=0`, results with no finite maximum are refused with ValueError.

95% intervals: r ± 1.96·se, with se from the observed Fisher information (the negative Hessian
of the log-penalised likelihood at the fit, anchor fixed, inverted). They are intervals for the
gap to the anchor, and conservative when games are drawn (draws make points vary less than the
binomial assumes), like the arena's Wilson intervals.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import platform
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import jax
import numpy as np

from jaxcheckers import files, memory
from jaxcheckers.agents import make_agent
from jaxcheckers.arena import (
    Z_95,
    add_agents_argument,
    round_robin,
    round_robin_table,
    scheduled_pairs,
)
from jaxcheckers.argtypes import (
    add_game_arguments,
    add_opening_arguments,
    check_openings,
    check_writable_folder,
    env_from_arguments,
    games_count,
    non_negative_float,
    openings_from_arguments,
    positive_int,
    seed,
)
from jaxcheckers.extras import pyplot

__all__ = [
    "ELO_SCALE",
    "PairResult",
    "Rating",
    "expected_score",
    "choose_anchor",
    "fit_ratings",
    "separated_tiers",
    "markdown_table",
    "tiers_note",
    "fit_report",
    "games_played",
    "write_report",
    "plot_ratings",
    "add_arguments",
    "run",
]

ELO_SCALE = 400.0 / math.log(10.0)  # Elo points per natural-log odds unit (≈173.7)
DEFAULT_PRIOR_DRAWS = 1.0
GAMES_FILE = "ladder-games.json"  # the pairs played so far, kept until the report is written
REPORT_FILES = ("ladder.json", "ladder.md", "ladder.png")  # a finished ladder's, never overwritten
LOCK_FILE = "ladder.lock"  # in --out while a ladder plays into it: "HOST PID"


@dataclasses.dataclass(frozen=True)
class PairResult:
    """The games of `a` against `b`, counted from a's side."""

    a: str
    b: str
    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def a_points(self) -> float:
        return self.wins + self.draws / 2


@dataclasses.dataclass(frozen=True)
class Rating:
    """One agent's fitted rating (Elo points over the anchor) and its 95% interval."""

    agent: str
    rating: float
    low: float
    high: float
    se: float  # standard error; 0 for the anchor
    games: int  # real games played (the prior's virtual games not counted)
    score: float  # points / games over all its real games


def expected_score(difference: float | np.ndarray) -> float | np.ndarray:
    """A's expected score when A is rated `difference` Elo points above B."""
    return 1.0 / (1.0 + np.power(10.0, -np.asarray(difference, dtype=np.float64) / 400.0))


def choose_anchor(agents: Sequence[str]) -> str:
    """`random` when it plays, else the first agent."""
    return "random" if "random" in agents else agents[0]


def fit_ratings(
    agents: Sequence[str],
    results: Sequence[PairResult],
    *,
    anchor: str | None = None,
    prior_draws: float = DEFAULT_PRIOR_DRAWS,
    tolerance: float = 1e-9,
    max_iterations: int = 200,
) -> list[Rating]:
    """Maximum (penalised) likelihood Elo ratings of `agents`, anchor at 0, in `agents`' order.

    results: any number of PairResult per pair, in either orientation. prior_draws: virtual
    drawn games between each non-anchor agent and the anchor (see the module docstring).
    ValueError for an unknown agent, a negative prior, or (prior 0) results without a finite fit.
    """
    agents = list(agents)
    if len(set(agents)) != len(agents) or len(agents) < 2:
        raise ValueError(f"need two or more distinct agents, got {agents}")
    anchor = choose_anchor(agents) if anchor is None else anchor
    if anchor not in agents:
        raise ValueError(f"the anchor {anchor!r} is not one of the agents")
    if not (prior_draws >= 0 and math.isfinite(prior_draws)):
        raise ValueError(f"prior_draws must be 0 or more, got {prior_draws}")
    games, points = _tables(agents, results)
    k = len(agents)
    index = {name: i for i, name in enumerate(agents)}
    real_games = games.sum(axis=1)
    real_score = np.divide(points.sum(axis=1), real_games, out=np.zeros(k), where=real_games > 0)

    a = index[anchor]
    if prior_draws > 0:
        for i in range(k):
            if i != a:
                games[i, a] += prior_draws
                games[a, i] += prior_draws
                points[i, a] += prior_draws / 2
                points[a, i] += prior_draws / 2
    elif len(_tiers(games, points)) > 1:
        raise ValueError(
            "no finite ratings: some agents won (or lost) every game against the rest; "
            "use a prior (prior_draws > 0)"
        )

    free = [i for i in range(k) if i != a]
    theta = np.zeros(k)  # ratings in natural-log odds units; theta[a] stays 0
    objective = _log_likelihood(theta, games, points)
    for _ in range(max_iterations):
        gradient, information = _gradient_and_information(theta, games, points)
        step = np.linalg.solve(information[np.ix_(free, free)], gradient[free])
        # Newton on a concave function: halve the step until the likelihood does not fall.
        scale = 1.0
        while True:
            candidate = theta.copy()
            candidate[free] += scale * step
            value = _log_likelihood(candidate, games, points)
            if value >= objective - 1e-12 or scale < 1e-6:
                break
            scale /= 2
        theta, objective = candidate, value
        if np.max(np.abs(scale * step)) < tolerance:
            break
    else:
        raise ValueError("the rating fit did not converge")

    _, information = _gradient_and_information(theta, games, points)
    covariance = np.zeros((k, k))
    covariance[np.ix_(free, free)] = np.linalg.inv(information[np.ix_(free, free)])
    ratings = []
    for i, name in enumerate(agents):
        rating = ELO_SCALE * theta[i]
        se = ELO_SCALE * math.sqrt(max(covariance[i, i], 0.0))
        ratings.append(
            Rating(
                agent=name,
                rating=float(rating),
                low=float(rating - Z_95 * se),
                high=float(rating + Z_95 * se),
                se=float(se),
                games=int(round(real_games[i])),
                score=float(real_score[i]),
            )
        )
    return ratings


def _log_likelihood(theta: np.ndarray, games: np.ndarray, points: np.ndarray) -> float:
    difference = theta[:, None] - theta[None, :]
    # log E = −log(1 + e^−d), log(1 − E) = −log(1 + e^d); each pair counted from both sides.
    value = -(points * np.logaddexp(0.0, -difference)).sum()
    value -= ((games - points) * np.logaddexp(0.0, difference)).sum()
    return float(value / 2)


def _gradient_and_information(theta, games, points):
    """Gradient of the log-likelihood and the observed information (−Hessian), natural units."""
    difference = theta[:, None] - theta[None, :]
    expected = 1.0 / (1.0 + np.exp(-difference))
    gradient = (points - games * expected).sum(axis=1)
    weight = games * expected * (1.0 - expected)
    information = -weight
    np.fill_diagonal(information, weight.sum(axis=1) - np.diag(weight))
    return gradient, information


def _tables(agents: Sequence[str], results: Sequence[PairResult]):
    """games[i, j] (symmetric) and points[i, j] (i's points against j) over all results."""
    index = {name: i for i, name in enumerate(agents)}
    k = len(agents)
    games = np.zeros((k, k))
    points = np.zeros((k, k))
    for r in results:
        if r.a not in index or r.b not in index:
            raise ValueError(f"a result names an agent not in the field: {r.a} vs {r.b}")
        if r.a == r.b:
            continue  # self-play tells nothing about ratings
        if min(r.wins, r.draws, r.losses) < 0:
            raise ValueError(f"negative counts in {r}")
        i, j = index[r.a], index[r.b]
        games[i, j] += r.games
        games[j, i] += r.games
        points[i, j] += r.a_points
        points[j, i] += r.games - r.a_points
    return games, points


def separated_tiers(agents: Sequence[str], results: Sequence[PairResult]) -> list[list[str]]:
    """The field split where the results alone cannot place agents: best tier first.

    Each tier is a set of agents linked both ways by points scored (directly or through others);
    every game between tiers that met was won by the higher one. One tier: the maximum-likelihood
    ratings are finite (Ford's condition). Several: the gaps between tiers are set by the prior,
    not by the games; read a higher tier's lead as a lower bound.
    """
    games, points = _tables(list(agents), results)
    return [[agents[i] for i in tier] for tier in _tiers(games, points)]


def _tiers(games: np.ndarray, points: np.ndarray) -> list[list[int]]:
    """Strongly connected components of "i scored points against j", the strongest first."""
    k = len(games)
    reach = ((points > 0) & (games > 0)) | np.eye(k, dtype=bool)
    for m in range(k):  # transitive closure (Warshall)
        reach |= reach[:, m : m + 1] & reach[m : m + 1, :]
    tiers, seen = [], set()
    for i in range(k):
        if i not in seen:
            tier = [j for j in range(k) if reach[i, j] and reach[j, i]]
            seen.update(tier)
            tiers.append(tier)
    # A stronger tier reaches (scored against) every tier below it: order by how far it reaches.
    return sorted(tiers, key=lambda tier: -int(reach[tier[0]].sum()))


# -- output ------------------------------------------------------------------------------------


def _elo(value: float) -> str:
    return f"{value:+.0f}" if round(value) != 0 else "0"


def markdown_table(ratings: Sequence[Rating], without_prior: Sequence[Rating] | None = None) -> str:
    """The ratings best first: agent, rating, 95% CI, games, score; and with `without_prior`
    (the same agents fitted with no prior), that fit's rating in a column of its own."""
    plain = {r.agent: _elo(r.rating) for r in without_prior or ()}
    extra = " Elo, no prior |" if without_prior else ""
    lines = [f"| agent | Elo | 95% CI |{extra} games | score |", "|---" * (5 + bool(extra)) + "|"]
    for r in sorted(ratings, key=lambda r: -r.rating):
        interval = "anchor" if r.se == 0 else f"[{_elo(r.low)}, {_elo(r.high)}]"
        cell = f" {plain[r.agent]} |" if without_prior else ""
        lines.append(
            f"| `{r.agent}` | {_elo(r.rating)} | {interval} |{cell} {r.games} | {r.score:.3f} |"
        )
    return "\n".join(lines)


def tiers_note(tiers: Sequence[Sequence[str]], prior_draws: float) -> str:
    """A sentence for the table when the games leave tiers apart (empty when they do not)."""
    if len(tiers) < 2:
        return ""
    chain = " > ".join("{" + ", ".join(f"`{a}`" for a in tier) + "}" for tier in tiers)
    return (
        f"Tiers: {chain}. Every game between two tiers was won by the higher one, so the gaps "
        f"between tiers are set by the prior ({prior_draws:g} virtual draw(s) of each agent "
        "against the anchor), not measured: read a higher tier's lead as a lower bound."
    )


def plot_ratings(ratings: Sequence[Rating], path: str | os.PathLike, title: str = "") -> None:
    """A PNG: one row per agent, best on top, rating with its 95% interval as an error bar."""
    plt = pyplot("the ladder's plot")

    ordered = sorted(ratings, key=lambda r: r.rating)
    y = np.arange(len(ordered))
    values = np.array([r.rating for r in ordered])
    errors = np.array([[r.rating - r.low for r in ordered], [r.high - r.rating for r in ordered]])
    figure, axes = plt.subplots(figsize=(7, 1.2 + 0.5 * len(ordered)))
    axes.errorbar(values, y, xerr=errors, fmt="o", capsize=4, color="tab:blue")
    axes.set_yticks(y, [r.agent for r in ordered])
    axes.axvline(0, color="grey", linewidth=0.8, linestyle=":")
    axes.set_xlabel("Elo (anchor = 0), 95% CI")
    axes.grid(axis="x", alpha=0.3)
    if title:
        axes.set_title(title, fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


# -- the command ---------------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_agents_argument(parser)
    add_game_arguments(parser)
    parser.add_argument(
        "--games",
        type=games_count,
        default=None,
        help="games per pair (default 100; with --openings, every opening with both colours)",
    )
    add_opening_arguments(parser, default_plies=2)
    parser.add_argument(
        "--neighbours",
        type=positive_int,
        default=None,
        metavar="K",
        help="each agent plays only the K agents listed after it (list them weakest first): "
        "fewer games where the result is foregone; default every pair",
    )
    parser.add_argument("--seed", type=seed, default=0)
    parser.add_argument("--batch-size", type=positive_int, default=None, help="games at once")
    parser.add_argument(
        "--prior-draws",
        type=non_negative_float,
        default=DEFAULT_PRIOR_DRAWS,
        help="virtual draws of each agent against the anchor, keeping perfect records finite",
    )
    parser.add_argument("--out", metavar="DIR", default=None, help="write ladder.md/json/png here")
    parser.add_argument("--no-plot", action="store_true", help="skip the PNG (no matplotlib)")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="play the pairs a stopped ladder left (same command; it saves to --out after a pair)",
    )


def run(args: argparse.Namespace) -> int:
    names = list(dict.fromkeys(args.agents))
    if len(names) < 2:
        print("ladder: give at least two different agents", file=sys.stderr)
        return 2
    if args.resume and args.out is None:
        print(
            "ladder: --resume needs --out DIR, the folder the stopped ladder saved to",
            file=sys.stderr,
        )
        return 2
    if args.out is not None and not args.no_plot:
        try:
            import matplotlib  # noqa: F401
        except ModuleNotFoundError:
            print(
                "ladder: the plot needs matplotlib (pip install 'jaxcheckers[training]'), "
                "or pass --no-plot",
                file=sys.stderr,
            )
            return 1
    if args.out is None:
        return _play(args, names, None)
    out = check_writable_folder(args.out)  # before the games: a read-only --out costs nothing
    with files.lock(out / LOCK_FILE, out, "playing a ladder into it"):  # one ladder a folder
        return _play(args, names, out)


def _play(args: argparse.Namespace, names: list[str], out: Path | None) -> int:
    """Plays the ladder (the rest of a stopped one with --resume), writes its report to `out`."""
    check_openings(args)  # before the env: a typo costs nothing
    env = env_from_arguments(args)
    deck, games, opening_plies = openings_from_arguments(args, env)
    memory.check_batch(env, games, args.batch_size)
    args.games, args.opening_plies = games, opening_plies  # as played, for the report
    command = _command_line(args)
    saved = out / GAMES_FILE if out else None
    if saved is not None and not args.resume:
        if saved.exists():
            raise ValueError(
                f"{saved} holds a stopped ladder's games: add --resume to play the rest "
                "(the same command), or remove the file to start again"
            )
        files.refuse_finished([out / name for name in REPORT_FILES], "a finished ladder", "--out")
    schedule = [(names[i], names[j]) for _, i, j in scheduled_pairs(len(names), args.neighbours)]
    pairs, spent = _played_so_far(saved, command, schedule, games) if args.resume else ([], 0.0)
    agents = {name: make_agent(name, env) for name in names}

    started = time.perf_counter() - spent
    entrants = [(name, agents[name]) for name in names]
    try:
        for a, b, _, s, seconds in round_robin(
            env,
            entrants,
            games,
            jax.random.key(args.seed),
            opening_plies=opening_plies,
            batch_size=args.batch_size,
            deck=deck,
            first_pair=len(pairs),
            neighbours=args.neighbours,
        ):
            pair = PairResult(a, b, s.wins, s.draws, s.losses)
            pairs.append({**dataclasses.asdict(pair), "seconds": round(seconds, 2)})
            print(
                f"{a} vs {b}: {s.wins} / {s.draws} / {s.losses} (score {s.score:.3f}), "
                f"{seconds:.1f} s",
                file=sys.stderr,
                flush=True,
            )
            if saved is not None:  # a stopped ladder keeps every pair it finished
                report = _games_report(args, command, names, pairs, time.perf_counter() - started)
                _write_json(saved, report)
    except KeyboardInterrupt:
        if saved is None:
            raise
        print(
            f"ladder: stopped after {len(pairs)} of {len(schedule)} pairs, kept in {saved} "
            "(--resume plays the rest)",
            file=sys.stderr,
        )
        return 130

    report = _games_report(args, command, names, pairs, time.perf_counter() - started)
    try:
        report, text = fit_report(report)
    except (ValueError, np.linalg.LinAlgError) as error:
        # The games cost minutes to hours: they are kept whatever the fit does.
        kept = _keep_games(report, out)
        print(
            f"ladder: the rating fit failed ({error}); the games are kept in {kept}",
            file=sys.stderr,
        )
        return 1
    print(text, flush=True)
    if out is not None:
        write_report(report, out, plot=not args.no_plot)
        saved.unlink(missing_ok=True)  # ladder.json holds every pair now
        print(f"written to {out}/", file=sys.stderr)
    return 0


def _games_report(args, command: str, names: list[str], pairs: list[dict], wall: float) -> dict:
    """The ladder's games before the fit: the settings, the machine and every pair played."""
    machine = f"{platform.machine()}, {os.cpu_count()} CPU cores, jax {jax.__version__}"
    machine += f" on {jax.devices()[0].platform}"
    return {
        "command": command,
        "game": args.game,
        "board_size": args.board_size,
        "games_per_pair": args.games,
        "openings": args.openings,
        "opening_plies": args.opening_plies,
        "neighbours": args.neighbours,
        "seed": args.seed,
        "prior_draws": args.prior_draws,
        "wall_seconds": round(wall, 1),
        "machine": machine,
        "agents": names,
        "pairs_planned": len(scheduled_pairs(len(names), args.neighbours)),
        "pairs": pairs,
    }


def _played_so_far(saved: Path, command: str, schedule: list[tuple[str, str]], games: int):
    """(the pairs a stopped ladder saved, its wall time), when `saved` holds this command's
    first pairs of `schedule` (the (a, b) of each pair to play, in order), each of `games`
    games; ValueError, one line, when it does not exist, is not such a file, or holds another
    ladder: checked before any game, so a damaged file never costs the games after it."""
    if not saved.exists():
        if any((saved.parent / name).exists() for name in REPORT_FILES):
            raise ValueError(f"--resume: {saved.parent} holds a finished ladder: nothing to resume")
        raise ValueError(f"--resume: {saved} does not exist (no stopped ladder there)")
    try:
        report = json.loads(saved.read_text(encoding="utf-8"))
        pairs, wall = report["pairs"], files.saved_seconds(report["wall_seconds"], "wall_seconds")
        played = [(p["a"], p["b"]) for p in pairs]
        for p in pairs:
            counts = [files.saved_count(p[f], f, games) for f in ("wins", "draws", "losses")]
            if sum(counts) != games:
                raise ValueError(f"{p['a']} vs {p['b']} has {sum(counts)} games, not {games}")
            files.saved_seconds(p["seconds"], "seconds")
    except (OSError, ValueError, TypeError, KeyError) as error:  # JSON errors are ValueErrors
        raise ValueError(f"--resume: {saved} is not a ladder's saved games ({error})") from None
    if _without_out(report.get("command")) != _without_out(command):
        raise ValueError(f"--resume: {saved} holds another ladder: {report.get('command')}")
    if played != schedule[: len(played)]:
        raise ValueError(f"--resume: {saved} holds pairs this ladder does not play in that order")
    print(f"resuming: {len(pairs)} of {len(schedule)} pairs played", file=sys.stderr)
    return pairs, wall


def _without_out(command) -> str | None:
    """The command less its --out (the last option): the folder the file was found in is the
    one asked for, however it was spelt (`d`, `./d/`, an absolute path)."""
    return command.split(" --out ")[0] if isinstance(command, str) else None


def _write_json(path: Path, report: dict) -> None:
    files.write_whole(path, json.dumps(report, indent=2) + "\n")


def _keep_games(report: dict, out: Path | None) -> str:
    """Writes the played games (the report before its fit) to OUT/ladder-games.json, or to a
    file in the working directory without --out; returns where."""
    path = (out or Path(".")) / GAMES_FILE
    try:
        _write_json(path, report)
    except OSError:
        print(json.dumps(report, indent=2), flush=True)
        return "the JSON printed above"
    return str(path)


def fit_report(report: dict) -> tuple[dict, str]:
    """Adds the fit (anchor, ratings, tiers) to a report of played pairs; returns it and the
    table (with the tiers note) as text. Refitting a saved ladder.json needs no games."""
    names = report["agents"]
    fields = ("a", "b", "wins", "draws", "losses")
    results = [PairResult(*(pair[f] for f in fields)) for pair in report["pairs"]]
    anchor = choose_anchor(names)
    ratings = fit_ratings(names, results, anchor=anchor, prior_draws=report["prior_draws"])
    without_prior = _fit_without_prior(names, results, anchor) if report["prior_draws"] else None
    tiers = separated_tiers(names, results)
    report = {
        **report,
        "anchor": anchor,
        "interval": "95%, rating ± 1.96·se, se from the observed Fisher information",
        "ratings": [dataclasses.asdict(r) for r in ratings],
        "ratings_without_prior": without_prior and [dataclasses.asdict(r) for r in without_prior],
        "tiers": tiers,
    }
    note = tiers_note(tiers, report["prior_draws"])
    return report, markdown_table(ratings, without_prior) + (f"\n\n{note}" if note else "")


def _fit_without_prior(names, results, anchor) -> list[Rating] | None:
    """The maximum-likelihood fit, or None when the results leave it at infinity."""
    try:
        return fit_ratings(names, results, anchor=anchor, prior_draws=0)
    except ValueError:
        return None


def write_report(report: dict, out: str | os.PathLike, *, plot: bool = True) -> None:
    """DIR/ladder.md (header, table, tiers, crosstable, command), ladder.json, ladder.png."""
    out = Path(out)
    ratings = [Rating(**r) for r in report["ratings"]]
    without_prior = report.get("ratings_without_prior")
    without_prior = without_prior and [Rating(**r) for r in without_prior]
    size = report["board_size"]
    header = (
        f"Elo ratings, anchor `{report['anchor']}` = 0, 95% CIs from the observed information; "
        f"{report['game']}"
        + (f" {size}×{size}" if size else "")
        + f", {games_played(report)}, "
        + f"prior: {report['prior_draws']:g} virtual draw(s) against the anchor.\n"
    )
    note = tiers_note(report["tiers"], report["prior_draws"])
    scores = [
        {**p, "score": (p["wins"] + p["draws"] / 2) / max(p["wins"] + p["draws"] + p["losses"], 1)}
        for p in report["pairs"]
    ]
    (out / "ladder.md").write_text(
        f"{header}\n{markdown_table(ratings, without_prior)}\n\n"
        + (f"{note}\n\n" if note else "")
        + "Scores (row against column):\n\n```\n"
        + f"{round_robin_table(report['agents'], scores)}\n```\n\n"
        + f"`{report['command']}`: {report['wall_seconds']:.0f} s ({report['machine']})\n",
        encoding="utf-8",
    )
    (out / "ladder.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    if plot:
        title = (
            f"{report['game']}, {report['games_per_pair']} games a pair, anchor {report['anchor']}"
        )
        plot_ratings(ratings, out / "ladder.png", title=title)


def games_played(report: dict) -> str:
    """Which games a ladder's report holds, in words: how many a pair, how they opened, which
    pairs met."""
    if report.get("openings"):
        opening = f"openings from the {report['openings']} deck (each with both colours)"
    else:
        opening = f"{report['opening_plies']} random opening turns"
    k = report.get("neighbours")
    pairs = "every pair" if k is None else f"each agent against the {k} listed after it"
    return f"{report['games_per_pair']} games a pair, both seats, {opening}, {pairs}"


def _command_line(args: argparse.Namespace) -> str:
    """The command that reruns this ladder (every setting that changes the games)."""
    words = ["jaxcheckers", "ladder", *args.agents, "--game", args.game]
    if args.board_size is not None:
        words += ["--board-size", str(args.board_size)]
    words += ["--games", str(args.games)]
    if args.openings:
        words += ["--openings", args.openings]
    else:
        words += ["--opening-plies", str(args.opening_plies)]
    if args.neighbours is not None:
        words += ["--neighbours", str(args.neighbours)]
    words += ["--seed", str(args.seed)]
    if args.batch_size is not None:  # it splits the keys, so it changes a random agent's games
        words += ["--batch-size", str(args.batch_size)]
    if args.prior_draws != DEFAULT_PRIOR_DRAWS:
        words += ["--prior-draws", f"{args.prior_draws:g}"]
    if args.out is not None:
        words += ["--out", os.path.normpath(args.out)]
    return " ".join(words)
