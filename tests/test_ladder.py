"""Ladder: the Elo fit on synthetic results with known answers, its prior, and the command."""

from __future__ import annotations

import dataclasses
import json
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from jaxcheckers import ladder
from jaxcheckers import match as engine
from jaxcheckers.cli import main
from jaxcheckers.ratings import (
    PairResult,
    choose_anchor,
    expected_score,
    fit_ratings,
    markdown_table,
    separated_tiers,
    tiers_note,
)
from tests.cli_helpers import assert_one_line_error, run_cli

TRUE = {"random": 0.0, "weak": 150.0, "mid": 400.0, "strong": 700.0}


def exact_results(ratings: dict, games: int, draw_share: float = 0.2) -> list[PairResult]:
    """Every pair's counts with exactly the expected score of the rating gap (real counts may
    be fractional here: the fit takes points, not integers)."""
    names = list(ratings)
    results = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            score = expected_score(ratings[a] - ratings[b])
            draws = draw_share * games * min(score, 1 - score) * 2
            wins = score * games - draws / 2
            results.append(PairResult(a, b, wins, draws, games - wins - draws))
    return results


def sampled_results(ratings: dict, games: int, rng, draw_share: float = 0.2) -> list:
    names = list(ratings)
    results = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            score = float(expected_score(ratings[a] - ratings[b]))
            p_draw = draw_share * min(score, 1 - score) * 2
            p_win = score - p_draw / 2
            wins, draws, losses = rng.multinomial(games, [p_win, p_draw, 1 - p_win - p_draw])
            results.append(PairResult(a, b, int(wins), int(draws), int(losses)))
    return results


def by_agent(ratings):
    return {r.agent: r for r in ratings}


def test_expected_score_is_the_logistic_elo_curve():
    assert expected_score(0) == 0.5
    assert expected_score(400) == pytest.approx(10 / 11)
    assert expected_score(-400) == pytest.approx(1 / 11)


def test_the_fit_recovers_known_ratings_from_their_expected_results():
    fitted = by_agent(fit_ratings(list(TRUE), exact_results(TRUE, 1000), prior_draws=0))
    for name, rating in TRUE.items():
        assert fitted[name].rating == pytest.approx(rating, abs=0.01)
    # The weak prior (one virtual draw with the anchor) moves them by a few points at most.
    with_prior = by_agent(fit_ratings(list(TRUE), exact_results(TRUE, 1000)))
    for name, rating in TRUE.items():
        assert abs(with_prior[name].rating - rating) < 3


def test_the_fit_lands_near_the_truth_on_sampled_games_and_the_ci_covers_it():
    rng = np.random.default_rng(0)
    fitted = fit_ratings(list(TRUE), sampled_results(TRUE, 2000, rng))
    for r in fitted:
        assert abs(r.rating - TRUE[r.agent]) < 20, r
        assert r.low <= TRUE[r.agent] <= r.high, r
        assert r.games == 3 * 2000


def test_the_anchor_is_random_and_holds_at_zero_with_no_interval():
    names = ["strong", "random", "mid"]  # random anywhere in the field
    fitted = by_agent(fit_ratings(names, exact_results({n: TRUE[n] for n in names}, 100)))
    assert fitted["random"].rating == 0 and fitted["random"].se == 0
    assert fitted["random"].low == fitted["random"].high == 0
    field = ["mid", "strong", "weak"]
    fitted = by_agent(fit_ratings(field, exact_results({n: TRUE[n] for n in field}, 2000)))
    assert fitted["mid"].rating == 0  # the first agent anchors when random does not play
    assert fitted["strong"].rating == pytest.approx(300, abs=2)
    assert fitted["weak"].rating == pytest.approx(-250, abs=2)
    assert choose_anchor(["a", "b", "random"]) == "random"


def test_swapping_sides_of_a_result_changes_nothing_and_mirroring_it_mirrors_the_ratings():
    result = PairResult("random", "b", wins=30, draws=10, losses=60)
    swapped = PairResult("b", "random", wins=60, draws=10, losses=30)
    one = fit_ratings(["random", "b"], [result])[1]
    two = fit_ratings(["random", "b"], [swapped])[1]
    assert one.rating == pytest.approx(two.rating) and one.se == pytest.approx(two.se)
    mirrored = PairResult("random", "b", wins=60, draws=10, losses=30)
    three = fit_ratings(["random", "b"], [mirrored])[1]
    assert three.rating == pytest.approx(-one.rating)
    assert three.se == pytest.approx(one.se)
    assert one.rating > 100  # b scored 65%: rated above the anchor
    # Three agents: exchanging two agents' names exchanges their ratings.
    results = exact_results({"random": 0, "x": 100, "y": 300}, 200)
    renamed = [
        PairResult(*({"x": "y", "y": "x"}.get(n, n) for n in (r.a, r.b)), r.wins, r.draws, r.losses)
        for r in results
    ]
    first = by_agent(fit_ratings(["random", "x", "y"], results))
    second = by_agent(fit_ratings(["random", "x", "y"], renamed))
    assert second["x"].rating == pytest.approx(first["y"].rating)
    assert second["y"].rating == pytest.approx(first["x"].rating)


def test_perfect_records_are_finite_under_the_prior_and_refused_without_it():
    results = [
        PairResult("random", "a", 0, 0, 40),  # a won every game
        PairResult("random", "b", 20, 0, 20),
        PairResult("a", "b", 40, 0, 0),
    ]
    fitted = by_agent(fit_ratings(["random", "a", "b"], results))
    assert np.isfinite(fitted["a"].rating) and np.isfinite(fitted["a"].high)
    assert fitted["a"].rating > 400 + fitted["b"].rating  # clearly on top, still finite
    assert fitted["a"].score == 1.0 and fitted["a"].games == 80
    with pytest.raises(ValueError, match="no finite ratings"):
        fit_ratings(["random", "a", "b"], results, prior_draws=0)
    # The loser of every game is finite too, below the anchor.
    loser = by_agent(fit_ratings(["random", "z"], [PairResult("random", "z", 10, 0, 0)]))
    assert -1000 < loser["z"].rating < -200
    # More virtual draws pull a perfect record closer to the anchor.
    stronger_prior = by_agent(fit_ratings(["random", "a", "b"], results, prior_draws=4))
    assert stronger_prior["a"].rating < fitted["a"].rating


def test_tiers_split_the_field_where_one_side_won_every_game():
    results = [
        PairResult("random", "a", 0, 0, 40),
        PairResult("random", "b", 20, 0, 20),
        PairResult("a", "b", 40, 0, 0),
        PairResult("c", "a", 5, 0, 0),  # c beat a (and so b and random, through a)
        PairResult("c", "random", 3, 0, 0),
    ]
    assert separated_tiers(["random", "a", "b", "c"], results) == [
        ["c"],
        ["a"],
        ["random", "b"],
    ]
    note = tiers_note([["c"], ["a"], ["random", "b"]], 1.0)
    assert "{`c`} > {`a`} > {`random`, `b`}" in note and "lower bound" in note
    # One draw links two agents both ways: a single tier, and a finite fit without a prior.
    linked = [*results, PairResult("c", "b", 0, 1, 0), PairResult("b", "a", 0, 1, 0)]
    assert separated_tiers(["random", "a", "b", "c"], linked) == [["random", "a", "b", "c"]]
    assert tiers_note([["random", "a", "b", "c"]], 1.0) == ""
    assert np.isfinite(
        [r.rating for r in fit_ratings(list("abc") + ["random"], linked, prior_draws=0)]
    ).all()


def test_the_interval_shrinks_with_more_games():
    small = by_agent(fit_ratings(list(TRUE), exact_results(TRUE, 100)))
    large = by_agent(fit_ratings(list(TRUE), exact_results(TRUE, 400)))
    for name in ("weak", "mid", "strong"):
        width_small = small[name].high - small[name].low
        width_large = large[name].high - large[name].low
        assert width_large < width_small
        assert width_large / width_small == pytest.approx(0.5, abs=0.03)  # 1/sqrt(4)


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError, match="distinct"):
        fit_ratings(["a", "a"], [])
    with pytest.raises(ValueError, match="not in the field"):
        fit_ratings(["a", "b"], [PairResult("a", "c", 1, 0, 0)])
    with pytest.raises(ValueError, match="anchor"):
        fit_ratings(["a", "b"], [], anchor="c")


def test_the_table_is_sorted_best_first():
    ratings = fit_ratings(list(TRUE), exact_results(TRUE, 100))
    table = markdown_table(ratings)
    rows = [line.split("|")[1].strip() for line in table.splitlines()[2:]]
    assert rows == ["`strong`", "`mid`", "`weak`", "`random`"]
    assert "anchor" in table.splitlines()[-1]


def test_the_report_shows_the_fit_without_the_prior_when_it_is_finite():
    weakly_linked = [  # the strong pair lost 1 game of 200 to the weak pair: the prior matters
        PairResult("random", "weak", 40, 20, 40),
        PairResult("strong", "better", 45, 10, 45),
        PairResult("random", "strong", 0, 0, 100),
        PairResult("weak", "better", 1, 0, 99),
    ]
    report = {"agents": ["random", "weak", "strong", "better"], "prior_draws": 1.0}
    report["pairs"] = [dataclasses.asdict(r) for r in weakly_linked]
    fitted, text = ladder.fit_report(report)
    penalised = {r["agent"]: r["rating"] for r in fitted["ratings"]}
    plain = {r["agent"]: r["rating"] for r in fitted["ratings_without_prior"]}
    assert plain == {
        r.agent: r.rating for r in fit_ratings(report["agents"], weakly_linked, prior_draws=0)
    }
    assert plain["strong"] - penalised["strong"] > 50  # the prior's pull, shown rather than hidden
    row = next(line for line in text.splitlines() if line.startswith("| `strong`"))
    assert f"| {plain['strong']:+.0f} |" in row and "Elo, no prior" in text
    # Without a finite maximum there is no such column (and no claim of one).
    report["pairs"] = report["pairs"][:3]
    fitted, text = ladder.fit_report(report)
    assert fitted["ratings_without_prior"] is None and "no prior" not in text


def test_the_command_writes_the_table_json_and_plot(capsys, tmp_path):
    out = tmp_path / "ladder"
    argv = ["ladder", "--game", "tictactoe", "random", "perfect", "--games", "8"]
    assert main([*argv, "--opening-plies", "0", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "| `perfect` |" in printed
    report = json.loads((out / "ladder.json").read_text())
    ratings = {r["agent"]: r for r in report["ratings"]}
    assert ratings["random"]["rating"] == 0
    assert ratings["perfect"]["rating"] > 100 and ratings["perfect"]["games"] == 8
    pair = report["pairs"][0]
    assert pair["wins"] + pair["draws"] + pair["losses"] == 8
    assert "| `perfect` |" in (out / "ladder.md").read_text()
    assert (out / "ladder.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # A saved ladder refits without replaying: the same ratings.
    refit, text = ladder.fit_report({k: v for k, v in report.items() if k != "ratings"})
    assert refit["ratings"] == report["ratings"] and "| `perfect` |" in text


def test_the_games_options_are_played_recorded_and_in_the_rerun_command(capsys, tmp_path):
    out = tmp_path / "ladder"
    argv = ["ladder", "--game", "tictactoe", "random", "perfect", "--games", "4"]
    argv += ["--option", "max_steps=4", "--opening-plies", "0", "--out", str(out)]
    assert main(argv) == 0
    report = json.loads((out / "ladder.json").read_text())
    assert report["options"] == {"max_steps": 4}
    assert "--game tictactoe --option max_steps=4 " in report["command"]
    assert "tictactoe, max_steps=4," in (out / "ladder.md").read_text()
    # No one wins tic-tac-toe in four plies: every game was cut short, a draw.
    assert report["pairs"][0]["draws"] == 4


def test_the_command_refuses_a_single_agent(capsys):
    assert main(["ladder", "random", "random", "--games", "2"]) == 2
    assert "two different agents" in capsys.readouterr().err


def test_without_matplotlib_the_command_says_so_in_one_line_before_playing(
    capsys, tmp_path, monkeypatch
):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` now fails
    out = tmp_path / "ladder"
    assert main(["ladder", "random", "alphabeta:1", "--games", "2", "--out", str(out)]) == 1
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "matplotlib" in error and "--no-plot" in error
    assert not out.exists()  # refused before any game was played or file written


def test_the_games_are_kept_when_the_fit_fails(tmp_path, capsys):
    """perfect wins both games (seed 2): with no prior there is no finite rating."""
    from jaxcheckers.cli import main

    args = ["ladder", "--game", "tictactoe", "random", "perfect", "--games", "2", "--seed", "2"]
    status = main([*args, "--prior-draws", "0", "--out", str(tmp_path), "--no-plot"])
    err = capsys.readouterr().err
    assert status == 1
    assert "the rating fit failed (no finite ratings" in err and "ladder-games.json" in err
    kept = json.loads((tmp_path / "ladder-games.json").read_text())
    (pair,) = kept["pairs"]
    assert (pair["wins"], pair["draws"], pair["losses"]) == (0, 0, 2)


def test_a_stopped_ladder_or_a_neighbours_one_plays_the_games_of_the_whole_ladder(
    tmp_path, capsys, monkeypatch
):
    argv = ["ladder", "--game", "tictactoe", "random", "perfect", "mcts:uniform:2"]
    argv += ["--games", "4", "--opening-plies", "1", "--no-plot", "--out"]
    assert main([*argv, str(tmp_path / "whole")]) == 0
    whole = json.loads((tmp_path / "whole" / "ladder.json").read_text())
    assert not (tmp_path / "whole" / ladder.GAMES_FILE).exists()  # the report holds every pair
    counts = lambda report: [  # noqa: E731
        (p["a"], p["b"], p["wins"], p["draws"], p["losses"]) for p in report["pairs"]
    ]

    # Neighbours only: the pairs one apart, each with the games it played in the whole ladder.
    assert main([*argv, str(tmp_path / "near"), "--neighbours", "1"]) == 0
    near = json.loads((tmp_path / "near" / "ladder.json").read_text())
    assert counts(near) == [counts(whole)[0], counts(whole)[2]]
    assert near["pairs_planned"] == 2 and "--neighbours 1" in near["command"]
    crosstable = (tmp_path / "near" / "ladder.md").read_text()
    assert "each agent against the 1 listed after it" in crosstable and " ·" in crosstable

    played = engine.round_robin  # where the ladder looks it up

    def stopped_after_one_pair(*args, **kwargs):
        yield next(played(*args, **kwargs))
        raise KeyboardInterrupt

    out = tmp_path / "stopped"
    monkeypatch.setattr(engine, "round_robin", stopped_after_one_pair)
    assert main([*argv, str(out)]) == 130
    assert "stopped after 1 of 3 pairs, kept in" in capsys.readouterr().err
    kept = json.loads((out / ladder.GAMES_FILE).read_text())
    assert len(kept["pairs"]) == 1 and kept["pairs_planned"] == 3
    monkeypatch.setattr(engine, "round_robin", played)

    # Run again without --resume, it would write over them: refused in one line.
    assert main([*argv, str(out)]) == 2
    assert "holds a stopped ladder's games: add --resume" in capsys.readouterr().err
    # Another ladder's command is refused in one line, before any game.
    assert main([*argv, str(out), "--seed", "1", "--resume"]) == 2
    assert "holds another ladder" in capsys.readouterr().err

    # A file of this command's that is damaged, or holds pairs out of order: refused in one line.
    saved = out / ladder.GAMES_FILE
    good = saved.read_text()
    swapped = json.loads(good)
    swapped["pairs"][0].update(a=swapped["pairs"][0]["b"], b=swapped["pairs"][0]["a"])
    damaged = [  # each read before any game is played (they died in the fit, after them)
        (["pairs", 0, "wins"], "1", "wins must be an integer from 0 to 4, got '1'"),
        (["pairs", 0, "wins"], 10**400, "wins must be an integer from 0 to 4, got 1000"),
        (["pairs", 0, "wins"], 4, "random vs perfect has 8 games, not 4"),  # random never wins
        (["wall_seconds"], None, "wall_seconds must be a number of seconds"),
    ]
    for text, message in [
        (good[: len(good) // 2], "is not a ladder's saved games"),
        (json.dumps(swapped), "holds pairs this ladder does not play in that order"),
        *((_changed(good, where, value), message) for where, value, message in damaged),
    ]:
        saved.write_text(text)
        assert main([*argv, str(out), "--resume"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err, err
    saved.write_text(good)

    # The folder spelt another way is the same folder (it was "another ladder").
    assert main([*argv, f"{out}/./", "--resume"]) == 0
    assert "resuming: 1 of 3 pairs played" in capsys.readouterr().err
    resumed = json.loads((out / "ladder.json").read_text())
    assert counts(resumed) == counts(whole) and resumed["ratings"] == whole["ratings"]
    assert not (out / ladder.GAMES_FILE).exists()


def _changed(text: str, where: list, value) -> str:
    """The JSON `text` with the field at the path `where` set to `value`."""
    data = json.loads(text)
    inner = data
    for step in where[:-1]:
        inner = inner[step]
    inner[where[-1]] = value
    return json.dumps(data)


def test_a_second_ladder_into_a_folder_in_use_or_finished_is_refused(tmp_path, capsys):
    """Two ladders on one --out both finished, the first's report lost; a ladder over a
    finished one replaced it. A real second process holds the folder here, stopped (SIGSTOP)
    while the other tries, so that neither finishes first by chance."""
    out = tmp_path / "out"
    argv = ["ladder", "--game", "tictactoe", "random", "perfect", "--games", "2", "--no-plot"]
    command = [sys.executable, "-m", "jaxcheckers.cli", *argv, "--out", str(out)]
    first = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lock = out / ladder.LOCK_FILE
    deadline = time.monotonic() + 120
    while not lock.exists():
        assert first.poll() is None and time.monotonic() < deadline, first.communicate()
        time.sleep(0.02)
    first.send_signal(signal.SIGSTOP)
    try:
        status, _, err = run_cli([*argv, "--out", str(out)], capsys)
    finally:
        first.send_signal(signal.SIGCONT)
    assert_one_line_error(status, err, f"{out} is in use: process {first.pid}")
    _, first_err = first.communicate(timeout=120)
    assert first.returncode == 0, first_err
    report = (out / "ladder.json").read_text()
    assert not lock.exists()  # released

    status, _, err = run_cli([*argv, "--out", f"{out}/"], capsys)
    assert_one_line_error(status, err, "holds a finished ladder", "give another --out")
    assert (out / "ladder.json").read_text() == report
    status, _, err = run_cli([*argv, "--out", str(out), "--resume"], capsys)
    assert_one_line_error(status, err, "holds a finished ladder: nothing to resume")


def test_resume_needs_the_folder_a_ladder_saved_to(tmp_path, capsys):
    assert main(["ladder", "random", "alphabeta:1", "--games", "2", "--resume"]) == 2
    assert "--resume needs --out DIR" in capsys.readouterr().err
    argv = ["ladder", "random", "alphabeta:1", "--games", "2", "--no-plot", "--resume"]
    assert main([*argv, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not exist" in err


def test_a_neighbours_schedule_keeps_each_pairs_place_among_all_pairs():
    from jaxcheckers.match import scheduled_pairs

    assert scheduled_pairs(4) == [(0, 0, 1), (1, 0, 2), (2, 0, 3), (3, 1, 2), (4, 1, 3), (5, 2, 3)]
    assert scheduled_pairs(4, 1) == [(0, 0, 1), (3, 1, 2), (5, 2, 3)]
    assert scheduled_pairs(4, 3) == scheduled_pairs(4)
