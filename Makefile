# One place for set-up, so the README, CI and people all run the same thing.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
EXTRAS ?= dev,bench

.PHONY: setup train demo test test-all lint bench docs docs-serve clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=24,<27"
	$(BIN)/python -m pip install --quiet -e ".[$(EXTRAS)]"
	touch $@

train: setup  ## the main job: a few minutes of the GPU recipe where jax sees a GPU, else the quick CPU preset
	$(BIN)/jaxcheckers train --preset auto

demo: setup  ## random games and the env's throughput
	$(BIN)/jaxcheckers demo

test: setup  ## the test suite CI runs (slow tests excluded)
	$(BIN)/python -m pytest -q -n 2 --durations=10

test-all: setup  ## everything, slow tests too
	$(BIN)/python -m pytest -q -n 2 -m ""

lint: setup
	$(BIN)/ruff check jaxcheckers training tests benchmarks

bench: setup
	$(BIN)/python -m benchmarks.throughput
	$(BIN)/python -m benchmarks.perft
	$(BIN)/python -m benchmarks.report

docs: setup  ## the documentation site, into site/ (fails on any warning: broken link or reference)
	$(BIN)/mkdocs build --strict

docs-serve: setup  ## the site at http://127.0.0.1:8000, rebuilt on every edit
	$(BIN)/mkdocs serve

clean:
	rm -rf $(VENV) .pytest_cache build site *.egg-info
