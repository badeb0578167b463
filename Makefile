# Set-up and the two entry points. Everything installs into .venv.
#   make run    the main job on the embedded default
#   make test   lint and the whole test suite
# CPU installs pin torch==2.13.0 (a local CPU wheel); an unpinned torch pulls a CUDA build.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
TORCH_CPU := torch==2.13.0

.PHONY: install run test bench slurm clean

$(BIN)/codefrontier: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet $(TORCH_CPU) -e '.[dev]'
	touch $@

install: $(BIN)/codefrontier

# the whole DAG (rule all: frontier and ensemble tables, charts), then the report
run: install
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/snakemake -c2
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/snakemake --report results/report.html

# As root on Debian (CI), a single-node Slurm cluster is started for the Slurm test.
test: install
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then bash .ci/slurm-up.sh; \
	else echo "not root on Debian: no Slurm cluster, the Slurm test is skipped"; fi
	$(BIN)/ruff check .
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/snakemake --lint
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python -m pytest

bench: install
	$(BIN)/python benchmarks/judge.py
	$(BIN)/python benchmarks/merge.py

# a single-node Slurm cluster on this machine (Debian, root), for the Slurm tests
slurm:
	bash .ci/slurm-up.sh

clean:
	rm -rf $(VENV) results .pytest_cache .ruff_cache
