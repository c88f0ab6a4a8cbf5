"""Scores, Elo and their intervals: a match's summary, and ratings fitted jointly to a round-robin.

    summary = summarize(match.a_score)          # wins, draws, losses, score, Elo, 95% CIs
    ratings = fit_ratings(agents, [PairResult("random", "alphabeta:1", 3, 10, 87), ...])

A match's score = (wins + draws / 2) / games, from A's side. The 95% interval is the Wilson
score interval on that score (a draw counted as half a win: conservative, since draws make the
score vary less than wins and losses do). Elo difference = −400·log10(1/score − 1), with the
interval mapped through the same formula; it is ±inf at a score of 1 or 0.

Ratings maximise the logistic-Elo (Bradley–Terry) likelihood: A scores against B with
expectation E = 1 / (1 + 10^((r_B − r_A) / 400)), a draw counts as half a win, and every pair's
points enter as a binomial log-likelihood s·log E + (n − s)·log(1 − E). The anchor (`random` if
it plays, else the first agent) is fixed at 0; the rest are found by Newton's method (the
log-likelihood is concave).

Perfect records: when an agent (or a group) won every game against the rest, the maximum of the
likelihood lies at infinity. Chosen here: a prior, `prior_draws` virtual drawn games (default 1)
between every other agent and the anchor, which keeps every rating finite (ratings are then the
maximum a posteriori). It pulls every rating toward the anchor: by a few points when each agent's
games tie it well to the anchor, by much more when they barely do (docs/experiments.md shows
a ladder where it does). So the `ladder` command shows the fit without the prior beside it
whenever that one is finite. The gap the prior gives an unbeaten group is a floor, not a
measurement: `separated_tiers` finds such groups (`tiers_note` says so under a table). With
`prior_draws=0`, results with no finite maximum are refused with ValueError.

95% intervals of the ratings: r ± 1.96·se, with se from the observed Fisher information (the
negative Hessian of the log-penalised likelihood at the fit, anchor fixed, inverted). They are
intervals for the gap to the anchor, and conservative when games are drawn (draws make points
vary less than the binomial assumes), like the Wilson intervals of a match.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Sequence

import numpy as np

from jaxcheckers.extras import pyplot

__all__ = [
    "Z_95",
    "ELO_SCALE",
    "DEFAULT_PRIOR_DRAWS",
    "Summary",
    "elo_difference",
    "wilson_interval",
    "summarize",
    "describe",
    "finite_json",
    "PairResult",
    "Rating",
    "expected_score",
    "choose_anchor",
    "fit_ratings",
    "separated_tiers",
    "markdown_table",
    "tiers_note",
    "round_robin_table",
    "plot_ratings",
]

Z_95 = 1.959964  # two-sided 95% quantile of the standard normal
ELO_SCALE = 400.0 / math.log(10.0)  # Elo points per natural-log odds unit (≈173.7)
DEFAULT_PRIOR_DRAWS = 1.0


# -- a match's score -------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Summary:
    """A match from A's side: the counts, the score and the Elo difference, each with its 95%
    interval (±inf for Elo at a score of 1 or 0)."""

    games: int
    wins: int
    draws: int
    losses: int
    score: float
    score_low: float
    score_high: float
    elo: float
    elo_low: float
    elo_high: float

    @property
    def win_rate(self) -> float:
        return self.wins / max(self.games, 1)


def elo_difference(score: float) -> float:
    """Elo points of A over B that make `score` the expected score (±inf at 1 and 0)."""
    if score >= 1.0:
        return math.inf
    if score <= 0.0:
        return -math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def wilson_interval(score: float, games: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval (low, high) of a score over `games` games; (0, 1) for none."""
    if games == 0:
        return 0.0, 1.0
    denominator = 1 + z * z / games
    centre = (score + z * z / (2 * games)) / denominator
    half = z / denominator * math.sqrt(score * (1 - score) / games + z * z / (4 * games * games))
    # At a score of exactly 0 or 1 that end of the interval is exact; rounding must not move it.
    low = 0.0 if score <= 0 else max(0.0, centre - half)
    high = 1.0 if score >= 1 else min(1.0, centre + half)
    return low, high


def summarize(a_scores: np.ndarray) -> Summary:
    """The Summary of A's scores, one a game (1 win, 0.5 draw or cut, 0 loss)."""
    a_scores = np.asarray(a_scores, dtype=np.float64)
    games = len(a_scores)
    score = float(a_scores.mean()) if games else 0.5
    low, high = wilson_interval(score, games)
    return Summary(
        games=games,
        wins=int((a_scores == 1).sum()),
        draws=int((a_scores == 0.5).sum()),
        losses=int((a_scores == 0).sum()),
        score=score,
        score_low=low,
        score_high=high,
        elo=elo_difference(score),
        elo_low=elo_difference(low),
        elo_high=elo_difference(high),
    )


def _elo_text(value: float) -> str:
    return f"{round(value):+d}" if math.isfinite(value) else ("+inf" if value > 0 else "-inf")


def describe(a: str, b: str, summary: Summary, seconds: float) -> str:
    """A match as the arena prints it: the counts, the score and the Elo difference with their
    intervals, and the seconds it took."""
    s = summary
    return (
        f"{a} vs {b}: {s.games} games, {s.wins} wins, {s.draws} draws, {s.losses} losses "
        f"(for {a})\n"
        f"score {s.score:.3f}  95% CI [{s.score_low:.3f}, {s.score_high:.3f}]\n"
        f"Elo difference {_elo_text(s.elo)}  95% CI [{_elo_text(s.elo_low)}, "
        f"{_elo_text(s.elo_high)}]\n"
        f"{seconds:.1f} s"
    )


def finite_json(result: dict) -> dict:
    """JSON has no infinity: an infinite Elo difference is written as the string "inf"/"-inf"."""
    return {
        key: (
            ("inf" if value > 0 else "-inf")
            if isinstance(value, float) and math.isinf(value)
            else value
        )
        for key, value in result.items()
    }


# -- ratings fitted to a round-robin ------------------------------------------------------------


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


def round_robin_table(names: list[str], results: list[dict]) -> str:
    """Each row agent's score against each column agent (· where they did not meet), and its
    mean over the agents it met."""
    score = {(r["a"], r["b"]): r["score"] for r in results}
    score.update({(r["b"], r["a"]): 1 - r["score"] for r in results})
    width = max(8, *(len(name) for name in names))
    lines = [" " * width + "".join(f" {name[:width]:>{width}}" for name in names) + "    total"]
    for row in names:
        cells = []
        for column in names:
            played = score.get((row, column))
            cells.append("-" if row == column else "·" if played is None else f"{played:.3f}")
        total = np.mean([score[(row, c)] for c in names if (row, c) in score])
        row_text = "".join(f" {c:>{width}}" for c in cells)
        lines.append(f"{row:<{width}}{row_text}    {total:.3f}")
    return "\n".join(lines)


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
