# Set-up and the two entry points. Everything installs into .venv.
#   make run    the main job on the embedded default
#   make test   lint and the whole test suite
# CPU installs pin torch==2.13.0 (a local CPU wheel); an unpinned torch pulls a CUDA build.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
TORCH_CPU := torch==2.13.0

.PHONY: install run test bench clean

$(BIN)/codefrontier: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet $(TORCH_CPU) -e '.[dev]'
	touch $@

install: $(BIN)/codefrontier

run: install
	$(BIN)/codefrontier judge --problems examples/problems.jsonl \
		--samples examples/samples.jsonl --out results/example/verdicts.parquet

test: install
	$(BIN)/ruff check .
	$(BIN)/python -m pytest

bench: install
	$(BIN)/python benchmarks/judge.py

clean:
	rm -rf $(VENV) results .pytest_cache .ruff_cache
