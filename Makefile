# One place for set-up, so the README, CI and people all run the same thing.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
EXTRAS ?= dev,bench
comma := ,
# A venv's stamp names the extras installed into it, so `make docs` needs only the docs extra.
stamp = $(VENV)/.installed-$(subst $(comma),+,$(1))

# The core tests that `make test-oldest` runs on the oldest declared set (.ci/oldest.txt): the
# games' rules and envs, which need jax alone (chess's perft is the one jax 0.7.1 got wrong).
CORE_TESTS = tests/test_core.py tests/chess/test_perft.py tests/checkers/test_rules.py \
	tests/tictactoe/test_env.py tests/checkers/test_fen_pdn.py
TEST_TOOLS = "pytest>=8,<10" "pytest-xdist>=3.5,<4" "hypothesis>=6.100,<7" "chess>=1.10,<2"

.PHONY: setup train demo test test-all test-newest test-oldest lint bench docs docs-serve clean

setup: $(call stamp,$(EXTRAS))

$(VENV)/.installed-%: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=24,<27"
	$(BIN)/python -m pip install --quiet -e ".[$(subst +,$(comma),$*)]"
	touch $@

train: setup  ## the main job: a few minutes of the GPU recipe where jax sees a GPU, else the quick CPU preset
	$(BIN)/jaxcheckers train --preset auto

demo: setup  ## random games and the env's throughput
	$(BIN)/jaxcheckers demo

# A test file runs in one worker (--dist loadfile): its tests share what that process traced and
# compiled, where tests of one file spread over both workers traced everything twice.
test: setup  ## the test suite CI runs (slow tests excluded)
	$(BIN)/python -m pytest -q -n 2 --dist loadfile --durations=10

test-all: setup  ## everything, slow tests too
	$(BIN)/python -m pytest -q -n 2 --dist loadfile -m ""

test-newest:  ## the suite on the newest JAX and its family, with a Python 3.12+ (jax >= 0.11 needs it)
	$(MAKE) test PYTHON="$$(.ci/newest-python)" VENV=.venv-newest

test-oldest:  ## the core tests on the oldest jax, jaxlib, numpy and chex the project declares
	$(PYTHON) -m venv .venv-oldest
	.venv-oldest/bin/python -m pip install --quiet --upgrade "pip>=24,<27"
	.venv-oldest/bin/python -m pip install --quiet -c .ci/oldest.txt \
		jax jaxlib numpy chex msgpack $(TEST_TOOLS)
	.venv-oldest/bin/python -m pip install --quiet --no-deps -e .
	.venv-oldest/bin/python -m pytest -q -n 2 $(CORE_TESTS)

lint: setup
	$(BIN)/ruff check jaxcheckers training tests benchmarks

bench: setup
	$(BIN)/python -m benchmarks.throughput
	$(BIN)/python -m benchmarks.perft
	$(BIN)/python -m benchmarks.report

docs: $(call stamp,docs)  ## the documentation site, into site/ (fails on any warning: broken link or reference)
	$(BIN)/mkdocs build --strict

docs-serve: $(call stamp,docs)  ## the site at http://127.0.0.1:8000, rebuilt on every edit
	$(BIN)/mkdocs serve

clean:
	rm -rf $(VENV) .venv-newest .venv-oldest .pytest_cache build site *.egg-info
