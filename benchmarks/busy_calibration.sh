#!/usr/bin/env bash
# The suite's calibration test beside busy loops: its margins are checked in the
# calibrating machine's seconds (codefrontier/suite/speed.py), so it must pass on a busy
# machine as on a quiet one (issue 48).
#
#   bash benchmarks/busy_calibration.sh [LOOPS_PER_CORE]
#
# Starts LOOPS_PER_CORE (default 2) busy-looping processes per core, runs
# tests/test_suite.py::test_limits_are_calibrated_with_the_judge with the checkout's
# .venv (PYTHON overrides), and prints its speed line and result.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-.venv/bin/python}
loops_per_core=${1:-2}
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
for _ in $(seq $(($(nproc) * loops_per_core))); do (while :; do :; done) & done
"$python" -m pytest -q -s -p no:cacheprovider tests/test_suite.py \
  -k test_limits_are_calibrated_with_the_judge 2>&1 | grep -E "^machine speed|passed|failed"
