"""Jobs that Slurm preempted and cancelled, put back in the queue while the workflow runs.

snakemake-executor-plugin-slurm leaves a PREEMPTED job to Slurm and waits for it. Under
PreemptMode=REQUEUE Slurm runs it again; under PreemptMode=CANCEL nothing would, and the
workflow would wait forever. So a `--profile slurm` run's main process looks at its jobs
every POLL_SECONDS and requeues each one that Slurm reports PREEMPTED (`scontrol requeue`
takes a finished job too); the job runs again under its id, and training resumes from
its last checkpoint. (A job that exits within its preemption's GraceTime, as a trainer
that saved does, ends FAILED instead, and the workflow's retries submit it again.)
"""

from __future__ import annotations

import logging
import subprocess
import threading
import time
from pathlib import Path

log = logging.getLogger("codefrontier.pipeline")

POLL_SECONDS = 60
# squeue's fields for a job: id, working directory, comment (the plugin's `rule_<name>...`)
SQUEUE_FORMAT = "%i|%Z|%k"
WORKFLOW_JOB_COMMENT = "rule_"


def preempted_jobs(squeue_lines: str, workdir: Path) -> list[str]:
    """The ids, in `squeue --states=PREEMPTED -o SQUEUE_FORMAT` output, of the workflow's
    jobs: those that the plugin submitted from `workdir`."""
    found = []
    for line in squeue_lines.splitlines():
        job, _, rest = line.strip().partition("|")
        folder, _, comment = rest.partition("|")
        if job and Path(folder) == workdir and comment.startswith(WORKFLOW_JOB_COMMENT):
            found.append(job)
    return found


def requeue_preempted(workdir: Path) -> list[str]:
    """Requeue the workflow's preempted jobs; the ids requeued."""
    try:
        listed = subprocess.run(["squeue", "--me", "-h", "--states=PREEMPTED",
                                 f"--format={SQUEUE_FORMAT}"], capture_output=True, text=True,
                                timeout=60, check=True).stdout
    except (OSError, subprocess.SubprocessError) as error:
        log.warning("could not list preempted jobs: %s", error)
        return []
    requeued = []
    for job in preempted_jobs(listed, workdir):
        done = subprocess.run(["scontrol", "requeue", job], capture_output=True, text=True,
                              timeout=60)
        if done.returncode == 0:
            requeued.append(job)
            log.warning("Slurm job %s was preempted and cancelled: requeued", job)
        else:
            log.warning("Slurm job %s was preempted and cancelled, and could not be "
                        "requeued (%s): the workflow waits for it", job, done.stderr.strip())
    return requeued


def watch_preemptions(workdir: Path, interval: float = POLL_SECONDS) -> threading.Thread:
    """Requeue the workflow's preempted jobs every `interval` seconds, in a daemon thread
    (it ends with the workflow's process)."""
    def loop() -> None:
        while True:
            time.sleep(interval)
            requeue_preempted(workdir)

    thread = threading.Thread(target=loop, name="requeue-preempted", daemon=True)
    thread.start()
    return thread


def uses_slurm(workflow) -> bool:
    plugin = getattr(workflow, "executor_plugin", None)
    return plugin is not None and getattr(plugin, "name", "").endswith("slurm")


def requeue_preempted_jobs(workflow) -> None:
    """The Snakefile's `onstart`: in a run through the Slurm plugin, watch its jobs."""
    if uses_slurm(workflow):
        watch_preemptions(Path(workflow.workdir_init))
