"""The smoke config's workflow killed with SIGKILL to its whole process group at ten
moments spread over its stages, and resumed after each the way the README says
(`snakemake --unlock`, then the same command): it ends equal to the uninterrupted run
(`codefrontier compare`: identical), its audit is clean, and no process of a killed run
outlives the kill.

Each kill waits for a job of its stage (or a later one, should the stage be over) to be
running, then a random fraction of a second more (the seed is printed with each kill,
so a failure can be replayed with it)."""

import os
import random
import signal
import subprocess
import sys
import time

import pytest
from conftest import ENV, REPO, SMOKE

from codefrontier.sandbox.procfs import command_line, descendants

STAGES = ("sft", "rl", "merge", "sample", "judge", "tables")
KILLS = ("sft", "sft", "rl", "rl", "merge", "sample", "sample", "judge", "judge", "tables")
LATEST_KILL_S = 1.5  # after a job of the stage is seen; the tables' chain of jobs runs longer
# a job's command (`codefrontier [--provenance ...] SUBCOMMAND ...`) and its stage; the
# training table and charts run beside the merges, from the RL runs' logs: no kill aims
# at them, and they are not "later" than any stage
TABLE_COMMANDS = {"frontier", "ensemble", "plots", "claims"}
TRAINING_COMMANDS = {"training", "training-plots"}
GONE_WITHIN_S = 10  # after the kill, for the kernel to end every process of the group


def stage_of(words: list[str]) -> str | None:
    """The stage of a process running one of the workflow's commands (None for the
    shells around them, Snakemake itself and anything else)."""
    if "train" in words:
        following = words[words.index("train") + 1:][:1]
        return {"sft": "sft", "grpo": "rl"}.get(following[0]) if following else None
    for stage in ("merge", "sample", "judge"):
        if stage in words:
            return stage
    if TRAINING_COMMANDS & set(words):
        return "training"
    return "tables" if TABLE_COMMANDS & set(words) else None


def running_stages(workflow: subprocess.Popen) -> set[str]:
    return {stage for pid in descendants(workflow.pid)
            if (stage := stage_of(command_line(pid))) is not None}


def alive(pid: int) -> bool:
    """Whether the process exists and is not a zombie waiting to be reaped."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def workflow_command(workdir) -> list[str]:
    return [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "-d",
            str(workdir), "-c2", "--rerun-incomplete", "--configfile", str(SMOKE)]


def start(workdir) -> subprocess.Popen:
    """The README's command for a run, in a process group of its own (a terminal's job)."""
    return subprocess.Popen(workflow_command(workdir), env=ENV, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)


def kill_during(stage: str, workdir, rng: random.Random) -> str:
    """Run the workflow until a job of `stage` or a later one runs, wait a random moment,
    SIGKILL its process group; the stages running at the kill. Fails if a process of the
    group is still there GONE_WITHIN_S later."""
    wanted = set(STAGES[STAGES.index(stage):])
    workflow = start(workdir)
    try:
        while not (running := running_stages(workflow)) & wanted:
            assert workflow.poll() is None, f"the run ended before a job of {sorted(wanted)} ran"
            time.sleep(0.05)
        time.sleep(rng.uniform(0, LATEST_KILL_S))
        running = running_stages(workflow) or running
        processes = [workflow.pid, *descendants(workflow.pid)]
        os.killpg(workflow.pid, signal.SIGKILL)
    finally:
        workflow.kill()
        workflow.wait()
    end = time.monotonic() + GONE_WITHIN_S
    while (left := [pid for pid in processes if alive(pid)]) and time.monotonic() < end:
        time.sleep(0.1)
    for pid in left:  # so that a failure leaves nothing behind either
        os.kill(pid, signal.SIGKILL)
    assert not left, f"processes of the killed run outlived it: {left}"
    return ",".join(sorted(running))


def unlock(workdir) -> None:
    done = subprocess.run([*workflow_command(workdir), "--unlock"], env=ENV,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.mark.slow
def test_a_run_killed_ten_times_and_resumed_equals_the_uninterrupted_run(smoke_run, tmp_path):
    seed = int(os.environ.get("CODEFRONTIER_KILL_SEED", random.randrange(10**6)))
    rng = random.Random(seed)
    workdir = tmp_path / "killed"
    for number, stage in enumerate(KILLS, 1):
        hit = kill_during(stage, workdir, rng)
        print(f"kill {number} (seed {seed}): aimed at {stage}, running: {hit}")
        unlock(workdir)
    done = subprocess.run(workflow_command(workdir), env=ENV, capture_output=True, text=True,
                          timeout=1800)
    assert done.returncode == 0, done.stderr[-5000:]
    compared = subprocess.run([sys.executable, "-m", "codefrontier.cli", "compare",
                               str(smoke_run), str(workdir)], env=ENV, capture_output=True,
                              text=True, timeout=600)
    assert compared.returncode == 0, compared.stdout[-5000:]
    assert compared.stdout.rstrip().endswith("identical"), compared.stdout[-3000:]
    audit = subprocess.run([sys.executable, "-m", "codefrontier.cli", "audit",
                            "results/frontier.parquet", "--configfile", str(SMOKE)], cwd=workdir,
                           env=ENV, capture_output=True, text=True, timeout=600)
    assert audit.returncode == 0 and "no findings" in audit.stdout, audit.stdout[-3000:]
