"""Every code block of README.md and docs/*.md runs here (sybil parses the Markdown): ```python
blocks in one namespace per file, in order, and ```bash blocks line by line in a shell, with this
checkout's `jaxcheckers` command. A block that must not run (a training run, a person at the
terminal, an install from the package index) is marked just before it with
`<!-- skip: next "not run: REASON" -->`; a mark without a reason fails. The README's table of
games is checked against the registry and the envs."""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
from pathlib import Path
from unittest import SkipTest

import pytest
from markdown_it import MarkdownIt
from sybil import Sybil
from sybil.example import NotEvaluated
from sybil.parsers.markdown import CodeBlockParser, PythonCodeBlockParser, SkipParser

from jaxcheckers import games

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL_TIMEOUT_S = 120


def run_shell(example) -> None:
    """Runs a ```bash block, each line a command, with this checkout's package and command."""
    env = {**os.environ, "PYTHONPATH": str(ROOT),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    run = subprocess.run(["bash", "-euo", "pipefail", "-c", example.parsed], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=SHELL_TIMEOUT_S)
    if run.returncode:
        raise AssertionError(f"exit {run.returncode}:\n{run.stdout}\n{run.stderr}")


PARSERS = [PythonCodeBlockParser(), CodeBlockParser(language="bash", evaluator=run_shell),
           SkipParser()]


def _examples(path: Path):
    return list(Sybil(PARSERS).parse(path))


@pytest.mark.parametrize("path", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_code_block_runs(path):
    ran, skipped = 0, []
    for example in _examples(path):
        try:
            example.evaluate()
            if isinstance(example.parsed, tuple):  # a skip mark, not a block
                continue
        except (SkipTest, NotEvaluated) as reason:
            skipped.append(f"line {example.line}: {reason}")
            continue
        except Exception as error:
            raise AssertionError(f"{path.name}, the block at line {example.line}: {error!r}") \
                from error
        ran += 1
    print(f"{path.name}: {ran} examples ran; skipped: {skipped}")


SKIP_MARK = re.compile(r"<!--\s*skip:\s*next(.*?)-->")


@pytest.mark.parametrize("path", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_skipped_block_says_why(path):
    for mark in SKIP_MARK.finditer(path.read_text()):
        assert re.fullmatch(r'\s*"not run: [^"]{8,}"\s*', mark.group(1)), (
            f"{path.name}: {mark.group(0)!r} needs a reason: <!-- skip: next \"not run: ...\" -->")


DATA_LANGUAGES = {"toml", "text", "yaml", "json"}  # shown, not run: not code


@pytest.mark.parametrize("path", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_block_is_fenced_python_bash_or_data(path):
    """The runner sees fenced python and bash blocks only: an indented block, or one in another
    language, would be passed over without a word."""
    tokens = MarkdownIt("commonmark").parse(path.read_text())
    indented = [t.map[0] + 1 for t in tokens if t.type == "code_block"]
    assert not indented, f"{path.name}: indented code blocks at lines {indented}; fence them"
    other = {(t.info.strip(), t.map[0] + 1) for t in tokens if t.type == "fence"
             and t.info.strip() not in {"python", "bash"} | DATA_LANGUAGES}
    assert not other, f"{path.name}: blocks in no language the runner knows: {other}"


def _games_table() -> dict[str, list[str]]:
    """README's table of games: the name in `make(...)` -> the row's cells."""
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("\n## Games\n"):]
    section = section[:section.index("\n## ", 1)]
    rows = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        name = re.fullmatch(r'`"(\w+)"`', cells[0])
        if line.startswith("|") and name:
            rows[name.group(1)] = cells
    return rows


def _keywords(function) -> set[str]:
    return {name for name, p in inspect.signature(function).parameters.items()
            if p.kind is inspect.Parameter.KEYWORD_ONLY}


@pytest.mark.parametrize("name", games.BUILTIN)
def test_the_readme_games_table_is_the_registry(name):
    row = _games_table()[name]
    spec = games.spec(name)
    env = spec.make()
    n = getattr(env, "board_size", None)
    observation, actions, options, ids = row[1], row[2], row[3], row[4]
    shape = str(tuple(env.observation_shape))  # the Env contract's; bool in every game
    if n is not None:  # the table writes the board's side as n
        shape = shape.replace(str(n), "n")
    assert observation.startswith(f"bool {shape}"), (observation, shape)
    formula = actions.replace("·", "*").replace("n²", "n**2")
    assert eval(formula, {"n": n}) == env.num_actions, actions
    named = set(re.findall(r"`(\w+)`", options))
    accepted = _keywords(type(env).__init__) | _keywords(spec.make)
    assert named == accepted, f"missing {accepted - named}, not options {named - accepted}"
    assert ids == f"`{spec.adapters.pettingzoo_name}` / `{spec.gymnasium_id}`"


def test_the_readme_is_short_and_in_the_order_a_reader_asks():
    """What it is and the two commands, install, ten lines, the games, speed, training, agents,
    adapters, links: the rest belongs on the docs site."""
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 200
    first_block = readme.split("```bash\n", 1)[1].split("```", 1)[0]
    assert [line.split()[:2] for line in first_block.splitlines()] == [
        ["make", "train"], ["make", "test"]]
    headings = re.findall(r"^## (\w+)", readme, re.M)
    assert headings == ["Install", "Quickstart", "Games", "Speed", "Training", "Agents",
                        "Adapters", "Documentation"]
