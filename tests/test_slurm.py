"""The smoke workflow through a real Slurm cluster (`snakemake --profile slurm`).

CI starts a private single-node cluster first (.ci/slurm-up.sh: its slurm.conf is
$CODEFRONTIER_SLURM_DIR/slurm.conf, default /tmp/codefrontier-slurm) and sets
CODEFRONTIER_REQUIRE_SLURM=1, which turns a missing cluster into a failure. The
test uses that private cluster when it answers, else the one Slurm finds by itself
(SLURM_CONF or the system's slurm.conf). For the private one it passes SLURM_CONF
and $CODEFRONTIER_SLURM_DIR/bin (client wrappers pinned to that slurm.conf) first on
PATH to Snakemake, so that its sbatch/squeue/scancel and the srun inside each job
talk to the same cluster.
"""

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
       "HF_HUB_OFFLINE": "1"}


# the private cluster of .ci/slurm-up.sh (same default directory)
SLURM_DIR = Path(os.environ.get("CODEFRONTIER_SLURM_DIR", "/tmp/codefrontier-slurm"))
PRIVATE_CONF = SLURM_DIR / "slurm.conf"


def cluster_is_up(env: dict) -> bool:
    if shutil.which("sinfo") is None:
        return False
    try:
        done = subprocess.run(["sinfo", "-h", "-o", "%t"], capture_output=True, text=True,
                              timeout=30, env=env)
    except subprocess.TimeoutExpired:
        return False
    return done.returncode == 0 and any(s in done.stdout for s in ("idle", "mix", "alloc"))


@pytest.fixture(scope="module")
def slurm() -> dict:
    """The environment whose SLURM_CONF (if any) points at a cluster that answers."""
    candidates = []
    if PRIVATE_CONF.is_file():
        # SLURM_CONF for sbatch/squeue/scancel; bin/ (wrappers pinned to that slurm.conf)
        # for the srun inside each job, whose environment the jobstep plugin strips of
        # SLURM_* variables, SLURM_CONF included (sbatch passes PATH on: --export=ALL)
        candidates.append({**ENV, "SLURM_CONF": str(PRIVATE_CONF),
                           "PATH": f"{SLURM_DIR / 'bin'}:{ENV['PATH']}"})
    candidates.append(ENV)
    for env in candidates:
        if cluster_is_up(env):
            return env
    if os.environ.get("CODEFRONTIER_REQUIRE_SLURM") == "1":
        pytest.fail(f"no Slurm cluster answers ({PRIVATE_CONF}; start it with .ci/slurm-up.sh)")
    pytest.skip("no Slurm cluster here (.ci/slurm-up.sh starts a private one)")


@pytest.mark.slow
def test_the_smoke_workflow_runs_through_slurm(slurm, tmp_path):
    command = ["timeout", "-s", "INT", "1500", sys.executable, "-m", "snakemake",
               "--profile", "slurm", "results/frontier.parquet",
               f"--configfile={REPO / 'configs' / 'smoke.yaml'}", "-d", str(tmp_path),
               "--slurm-init-seconds-before-status-checks", "5", "--slurm-keep-successful-logs"]
    started = time.time() - 1
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, env=slurm,
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


TWO_NODES = f"extends: {REPO / 'configs' / 'smoke.yaml'}" + """
models:
  tiny:
    rl:
      processes: 1                # per node: two processes in all, a gloo group over two hosts
resources:
  rl: {nodes: 2, threads: 1, slurm_partition: pair}
"""


@pytest.mark.slow
def test_grpo_trains_across_two_nodes(slurm, tmp_path):
    """The `rl` rule with `nodes: 2` through the Slurm profile, on the private cluster's two
    namespaced nodes (partition `pair`): one launcher per node through srun, rendezvous on
    the first node's address, two GRPO steps over gloo."""
    if "pair" not in subprocess.run(["sinfo", "-h", "-o", "%P"], capture_output=True,
                                    text=True, env=slurm).stdout:
        pytest.fail("the private cluster has no partition `pair` (.ci/slurm-up.sh makes it)")
    overlay = tmp_path / "two-nodes.yaml"
    overlay.write_text(TWO_NODES)
    target = "results/tiny/reasoning/rl/kinf"
    command = ["timeout", "-s", "INT", "1500", sys.executable, "-m", "snakemake",
               "--profile", "slurm", target, "-d", str(tmp_path),
               "--slurm-init-seconds-before-status-checks", "5",
               f"--configfile={overlay}"]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, env=slurm,
                          timeout=1600)
    log = tmp_path / "results" / "logs" / "rl" / "tiny-reasoning-kinf.log"
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:] + (
        log.read_text()[-4000:] if log.exists() else "")
    checkpoint = tmp_path / target
    provenance = json.loads((checkpoint / "provenance.json").read_text())
    assert (provenance["nodes"], provenance["processes"]) == (2, 2)
    launched = log.read_text()
    assert "srun --overlap --nodes=2 --ntasks=2" in launched
    assert "--machine_rank $SLURM_NODEID" in launched
    from transformers import AutoModelForCausalLM

    AutoModelForCausalLM.from_pretrained(checkpoint)


def interrupt(run: subprocess.Popen, env: dict, partition: str) -> str:
    """Stop a Snakemake run as a user would, Ctrl-C, then Ctrl-C again (README), and its
    output. Snakemake cancels the jobs it submitted, but its log handler swallows a
    KeyboardInterrupt that arrives while it writes a line (snakemake/logging.py: `except
    (KeyboardInterrupt, SystemExit): pass`), and the test signals just as a job appears
    in the queue, when Snakemake logs its submission: once, in a make test beside other
    tests, the SIGINT passed (no cancel reached slurmctld) and Snakemake went on retrying
    the failed job for five minutes. So a run still alive a minute after a signal gets
    the next one (SIGINT, SIGTERM, SIGKILL), and whatever it left in `partition` is
    cancelled."""
    for stop in (signal.SIGINT, signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
        if run.poll() is not None:
            break
        run.send_signal(stop)
        with contextlib.suppress(subprocess.TimeoutExpired):
            run.communicate(timeout=60)
            break
    output = run.communicate()[0]  # all of it: communicate keeps what earlier calls read
    subprocess.run(["scancel", "-p", partition], env=env, check=False)
    return output


def scontrol_job(job: str, env: dict) -> dict[str, str]:
    """A job's record as `scontrol -o show job` gives it, field by field."""
    shown = subprocess.run(["scontrol", "-o", "show", "job", job], capture_output=True,
                           text=True, env=env).stdout
    return dict(re.findall(r"(\S+?)=(\S*)", shown))


@pytest.mark.slow
def test_a_hub_model_grid_submits_its_rl_job_with_the_account_partition_gpus_and_cores(
        slurm, tmp_path):
    """configs/example-1.5b-4gpu.yaml launched as its docs page says, on the CI cluster:
    its data from the bundled suite (no dataset download here), its default partition and
    sizes made to fit the cluster's nodes (`debug`, 2 cores). The problems job runs in
    partition debug; the first GRPO job is submitted to partition gpu with the grid's
    account, 4 GPUs of type a100 and its cores, which Slurm records; then the run is
    interrupted (the GPUs are not real and the model cannot be fetched here)."""
    grid = yaml.safe_load((REPO / "configs" / "example-1.5b-4gpu.yaml").read_text())
    grid["data"] = {"train": {"source": "bundled", "split": "train", "instances": 1},
                    "eval": {"source": "bundled", "split": "eval", "instances": 1}}
    for entry in grid["resources"].values():
        entry.update(mem_mb=1000, runtime=10, **({"threads": 2} if "threads" in entry else {}))
    grid["resources"]["default"]["slurm_partition"] = "debug"
    config = tmp_path / "grid.yaml"
    config.write_text(yaml.safe_dump(grid))
    target = "results/qwen2.5-coder-1.5b/reasoning/rl/k2"
    command = [sys.executable, "-m", "snakemake", "--profile", "slurm", target,
               f"--configfile={config}", "-d", str(tmp_path),
               "--slurm-init-seconds-before-status-checks", "5"]
    hub_on = {k: v for k, v in slurm.items() if k != "HF_HUB_OFFLINE"}  # as a user's jobs
    run = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, env=hub_on)
    deadline, rl = time.monotonic() + 900, None
    try:
        while rl is None and run.poll() is None and time.monotonic() < deadline:
            queued = subprocess.run(["squeue", "-h", "-p", "gpu", "-o", "%i"],
                                    capture_output=True, text=True, env=slurm).stdout.split()
            rl = scontrol_job(queued[0], slurm) if queued else time.sleep(1)
    finally:
        output = interrupt(run, slurm, partition="gpu")
    assert rl is not None, output[-4000:]
    nodes = set(rl["NumNodes"].split("-"))  # "1-1" (min-max) while pending, "1" running
    assert (rl["Account"], rl["Partition"], rl["NumCPUs"], nodes) == (
        "my_lab", "gpu", "2", {"1"}), rl
    assert "gres:gpu:a100:4" in rl.get("TresPerJob", "") and rl["TimeLimit"] == "00:10:00", rl
    problems = scontrol_job(re.findall(r"SLURM jobid (\d+)", output)[0], slurm)
    assert (problems["Account"], problems["Partition"], problems["JobState"]) == (
        "my_lab", "debug", "COMPLETED"), problems
