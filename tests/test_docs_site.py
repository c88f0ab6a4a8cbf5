"""The documentation site builds with `mkdocs build --strict`: every page in the nav, every link
between pages and every API reference (mkdocstrings reading the public modules) resolves, or the
build fails. `make docs` runs the same build."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_site_builds_strict(tmp_path):
    site = tmp_path / "site"
    run = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert run.returncode == 0, run.stdout + run.stderr
    # The API reference was generated, not left empty: `make` is documented from its docstring.
    page = (site / "api" / "games" / "index.html").read_text()
    assert "jaxcheckers.games.make" in page
    # The State contract's page lists its fields, each with its dtype and shape.
    core = (site / "api" / "core" / "index.html").read_text()
    for field in ("current_player", "legal_action_mask", "rewards", "terminated", "step_count"):
        assert f"jaxcheckers.core.State.{field}" in core, field
    assert "float32 (2,)" in core
    assert "jaxcheckers.testing.check_game" in core  # the conformance check, on the same page
    assert (site / "index.html").exists()
