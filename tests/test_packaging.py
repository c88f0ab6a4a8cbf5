"""The wheel a user installs: every module of the source tree and the shipped networks are in it.

`pyproject.toml` lists the packages by hand (the trainers install from training/ as
jaxcheckers.training), so a new subpackage or data folder is easy to leave out; an editable
install, as the tests run, would not notice. This builds the wheel offline with the setuptools of
the dev extra and reads what it holds.
"""

from __future__ import annotations

import email
import importlib.metadata
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet

from jaxcheckers.agents import pretrained

ROOT = Path(__file__).resolve().parent.parent
# source folder -> where its files land in the wheel
INSTALLED_AS = {"jaxcheckers": "jaxcheckers", "training": "jaxcheckers/training"}


def build_wheel(tmp_path: Path) -> tuple[zipfile.ZipFile, str]:
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for folder in INSTALLED_AS:
        shutil.copytree(
            ROOT / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__")
        )
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"]
    command += ["--no-index", "-v", "-w", str(tmp_path / "dist"), str(source)]
    built = subprocess.run(command, capture_output=True, text=True, check=False)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    (wheel,) = (tmp_path / "dist").glob("jaxcheckers-*.whl")
    return zipfile.ZipFile(wheel), built.stdout + built.stderr


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[zipfile.ZipFile, str]:
    """The wheel (built once for this module's tests) and pip's log."""
    return build_wheel(tmp_path_factory.mktemp("wheel"))


def test_the_wheel_holds_every_module_and_the_shipped_networks(built):
    wheel, log = built
    names = set(wheel.namelist())
    expected = {
        f"{installed}/{path.relative_to(ROOT / folder).as_posix()}"
        for folder, installed in INSTALLED_AS.items()
        for path in (ROOT / folder).rglob("*.py")
        if "__pycache__" not in path.parts
    }
    for name in pretrained.NAMES:
        for game in pretrained.games(name):
            stem = f"jaxcheckers/agents/pretrained/{pretrained.stem(name, game)}"
            expected |= {f"{stem}.msgpack", f"{stem}.json"}
    expected.add("jaxcheckers/agents/pretrained/checksums.json")  # what loading checks them by
    missing = sorted(expected - names)
    assert missing == []
    assert "is absent from the `packages` configuration" not in log


def test_the_adapters_extra_holds_what_every_game_renders_with():
    """Chess's rgb_array frames are drawn by matplotlib: `pip install jaxcheckers[adapters]`
    alone must pass PettingZoo's render_test and Gymnasium's check_env for every game."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
    extras = tomllib.loads(pyproject.read_text())["project"]["optional-dependencies"]
    names = {requirement.split(">")[0].split("<")[0].strip() for requirement in extras["adapters"]}
    assert {"pettingzoo", "gymnasium", "matplotlib"} <= names


def pyproject() -> dict:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_the_wheel_tells_an_index_its_version_pythons_license_and_topics(built):
    wheel, _ = built
    (name,) = [name for name in wheel.namelist() if name.endswith(".dist-info/METADATA")]
    metadata = email.message_from_bytes(wheel.read(name))
    project = pyproject()
    assert metadata["Version"] == project["version"]
    assert metadata["License-Expression"] == "Apache-2.0"
    classifiers = metadata.get_all("Classifier")
    specifier = SpecifierSet(project["requires-python"])
    admitted = [f"3.{minor}" for minor in range(8, 20) if f"3.{minor}" in specifier]
    python = "Programming Language :: Python :: "
    listed = [c.removeprefix(python) for c in classifiers if c.startswith(python + "3.")]
    assert listed == admitted  # the classifiers say exactly what requires-python admits
    assert "Topic :: Scientific/Engineering :: Artificial Intelligence" in classifiers
    assert "Topic :: Games/Entertainment :: Board Games" in classifiers
    keywords = set(metadata["Keywords"].split(","))
    assert {"reinforcement-learning", "jax", "checkers", "chess"} <= keywords
    base = [r for r in metadata.get_all("Requires-Dist") if "extra ==" not in r]
    assert sorted(r.split(">")[0].split("<")[0] for r in base) == ["jax", "msgpack", "numpy"]


def test_the_version_is_the_installed_metadata_s_or_the_source_tree_s(monkeypatch):
    import jaxcheckers

    assert jaxcheckers.__version__ == importlib.metadata.version("jaxcheckers")

    def not_installed(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", not_installed)
    assert jaxcheckers._version() == pyproject()["version"]


def test_the_suite_s_compile_flags_are_ones_the_installed_xla_accepts():
    """jaxlib 0.11's XLA aborts, before pytest can print a word, on a flag it does not know: the
    suite's XLA_FLAGS must be ones the installed jaxlib starts with."""
    from tests.conftest import quick_compile_flags

    flags = quick_compile_flags(importlib.metadata.version("jaxlib"))
    program = "import jax.numpy as jnp; print(int(jnp.add(2, 3)))"
    env = {**os.environ, "XLA_FLAGS": flags}
    ran = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env)
    assert ran.returncode == 0 and ran.stdout.strip() == "5", (flags, ran.stderr[-2000:])


def test_the_installed_jax_is_one_the_project_declares():
    """The suite tests a set a user can get: the installed jax within the declared range."""
    (declared,) = [r for r in pyproject()["dependencies"] if r.startswith("jax")]
    assert SpecifierSet(declared.removeprefix("jax")).contains(importlib.metadata.version("jax"))
