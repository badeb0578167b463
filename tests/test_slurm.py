"""The smoke workflow through a real Slurm cluster (`snakemake --profile slurm`).

CI starts a single-node cluster first (.ci/slurm-up.sh) and sets
CODEFRONTIER_REQUIRE_SLURM=1, which turns a missing cluster into a failure.
"""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
       "HF_HUB_OFFLINE": "1"}


def cluster_is_up() -> bool:
    if shutil.which("sinfo") is None:
        return False
    done = subprocess.run(["sinfo", "-h", "-o", "%t"], capture_output=True, text=True, timeout=30)
    return done.returncode == 0 and any(s in done.stdout for s in ("idle", "mix", "alloc"))


@pytest.fixture(scope="module")
def slurm():
    if not cluster_is_up():
        if os.environ.get("CODEFRONTIER_REQUIRE_SLURM") == "1":
            pytest.fail("no Slurm cluster answers (start one with .ci/slurm-up.sh)")
        pytest.skip("no Slurm cluster here (.ci/slurm-up.sh starts one)")


@pytest.mark.slow
def test_the_smoke_workflow_runs_through_slurm(slurm, tmp_path):
    command = ["timeout", "-s", "INT", "1500", sys.executable, "-m", "snakemake",
               "--profile", "slurm", "results/frontier.parquet",
               f"--configfile={REPO / 'configs' / 'smoke.yaml'}", "-d", str(tmp_path),
               "--slurm-init-seconds-before-status-checks", "5", "--slurm-keep-successful-logs"]
    started = time.time() - 1
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, env=ENV,
                          timeout=1600)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-5000:]
    frontier = pd.read_parquet(tmp_path / "results" / "frontier.parquet")
    assert set(frontier["checkpoint"]) == {"sft", "rl-k2", "rl-kinf", "a-0.5", "a0.5", "a1.5"}
    # every job ran as a Slurm job: the plugin keeps one log per job (with the flag above)
    slurm_logs = [log for root in (tmp_path, REPO)
                  for log in (root / ".snakemake" / "slurm_logs").rglob("*.log")
                  if log.stat().st_mtime >= started]
    assert len(slurm_logs) >= 20, slurm_logs
