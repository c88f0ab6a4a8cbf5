"""README.md's and BENCHMARKS.md's figures are what `python -m benchmarks.report` makes of
benchmarks/results/*.json: a figure edited by hand, or a result re-measured without the report
re-run, fails here."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchmarks import report

RESULTS = report.RESULTS_DIR


def test_readme_and_benchmarks_agree_with_the_results():
    behind = report.stale(RESULTS, report.ROOT)
    assert behind == [], f"{behind} disagree with the results: run python -m benchmarks.report"


@pytest.fixture
def results_copy(tmp_path):
    copy = tmp_path / "results"
    shutil.copytree(RESULTS, copy, ignore=shutil.ignore_patterns("*.png", "*.md"))
    return copy


def _edit(path: Path, change) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def test_a_new_checkers_speed_makes_both_files_stale(results_copy):
    _edit(results_copy / "throughput.json",
          lambda d: d["headline"].update(ours_best=d["headline"]["ours_best"] * 1.5))
    assert report.stale(results_copy, report.ROOT) == ["BENCHMARKS.md", "README.md"]


def test_a_new_ladder_makes_the_readme_stale(results_copy):
    def swap_top_two(d):
        first, second = sorted(d["ratings"], key=lambda r: -r["rating"])[:2]
        first["rating"], second["rating"] = second["rating"], first["rating"]
    _edit(results_copy / "ladder" / "ladder.json", swap_top_two)
    assert report.stale(results_copy, report.ROOT) == ["README.md"]


def test_the_speed_table_shows_draughts_at_its_fastest_run(results_copy):
    """Of the draughts_speed runs, the one whose draughts went fastest is the row; made faster,
    the 1,024 run takes its place."""
    table = report.speed_table(results_copy)
    assert "`draughts_speed_4096.json`" in table and "(batch 4,096)" in table

    def faster(d):
        for entry in d["jax"]:
            if entry["name"] == "jaxcheckers draughts":
                entry["steps_per_s"] *= 10

    _edit(results_copy / "draughts_speed.json", faster)
    table = report.speed_table(results_copy)
    assert "`draughts_speed.json`" in table and "(batch 1,024)" in table


def test_the_training_table_has_a_row_for_each_variant_of_an_ab(results_copy):
    table = report.training_table(results_copy)
    rows = [line for line in table.splitlines() if "training_ab_h200.json" in line]
    variants = json.loads((results_copy / "training_ab_h200.json").read_text())["variants"]
    assert len(rows) == len(variants) == 2
    for row, variant in zip(rows, variants, strict=True):
        assert f"({variant['variant']})" in row and "NVIDIA H200" in row
        assert report.rate(variant["training_steps_per_s"]) in row
    assert "bfloat16" in rows[1] and "bfloat16" not in rows[0]


def test_the_readme_tables_carry_the_json_figures():
    """The generated parts hold the figures themselves, not only agree with a re-render."""
    readme = (report.ROOT / "README.md").read_text()
    headline = json.loads((RESULTS / "throughput.json").read_text())["headline"]
    assert f"**{headline['ratio_vs_openspiel']:.1f}×**" in readme
    ladder = json.loads((RESULTS / "ladder" / "ladder.json").read_text())
    best = max(ladder["ratings"], key=lambda r: r["rating"])
    assert f"| `{best['agent']}` | {best['rating']:+.0f} |" in readme


def test_a_readme_without_the_markers_is_refused(tmp_path):
    with pytest.raises(ValueError, match="report:speed"):
        report.fill_readme("# a README with no generated tables\n", RESULTS)


def test_a_run_on_a_jax_outside_the_pin_says_so(monkeypatch):
    assert report.jax_pin() in (report.ROOT / "pyproject.toml").read_text()
    assert report.within("0.10.2", ">=0.4.35,<0.11") and not report.within("0.11.2", "<0.11")
    assert report.within("0.4.35", ">=0.4.35") and not report.within("0.4.34", ">=0.4.35")
    monkeypatch.setattr(report, "jax_pin", lambda: ">=0.4.35,<0.11")
    info = {"cpu": "some CPU", "cores": 2, "device": "cpu:0", "jax_backend": "cpu",
            "date_utc": "2026-11-28 10:00"}
    assert "outside" not in report._machine({**info, "jax": "0.10.2"})
    assert "outside this package's pin, jax>=0.4.35,<0.11" in report._machine(
        {**info, "jax": "0.11.2"})
