"""Launching training on several processes through `accelerate`, inside a Slurm allocation.

`codefrontier launch --processes N [--accelerate-config F] -- train grpo ...`
runs the given codefrontier command under `accelerate launch` with N processes
per node (GPUs, or CPU processes with --cpu). Inside a multi-node Slurm job the
launcher is started once per node with `srun`, each with its node's rank and
the first node's address (its NodeAddr) as the rendezvous host. The nodes are the
job's, asked of Slurm (`scontrol show job`), not the step's: Snakemake runs each job's
command inside a one-task step (`srun -n1`) whose environment holds the step's node
count and list, and the launcher's own `srun --overlap` spans the job's nodes from
there. A DeepSpeed ZeRO-3 accelerate config for the large models is in
configs/accelerate/zero3.yaml.

SIGTERM and SIGUSR1 sent to the launcher go on to the training processes, which save and
stop at their next step; a launch whose processes stopped that way ends with the
resubmit status (train/submissions.py).
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

from codefrontier.sandbox.procfs import command_line, descendants
from codefrontier.train.submissions import RESUBMIT_EXIT_STATUS, STOP_SIGNALS, stopped_since

RENDEZVOUS_PORT = 29517
TRAINING_MODULE = "codefrontier.cli"  # what a launched training process runs (`-m`)


def first_host(nodelist: str) -> str:
    """The first host of a Slurm node list (compressed forms need scontrol)."""
    if "[" not in nodelist:
        return nodelist.split(",")[0]
    done = subprocess.run(["scontrol", "show", "hostnames", nodelist], capture_output=True,
                          text=True, check=True)
    return done.stdout.split()[0]


def node_address(node: str) -> str:
    """The address other nodes reach `node` at: its NodeAddr in Slurm (the node name
    itself where scontrol cannot say)."""
    try:
        done = subprocess.run(["scontrol", "show", "node", "--oneliner", node],
                              capture_output=True, text=True, check=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return node
    fields = dict(f.split("=", 1) for f in done.stdout.split() if "=" in f)
    return fields.get("NodeAddr") or node


def job_allocation(env: Mapping[str, str]) -> tuple[int, str | None]:
    """The Slurm job's node count and node list ((1, None) outside a job). Inside a job
    they are asked of Slurm: a step's variables describe the step (Snakemake's one-task
    step holds one node) and Snakemake strips most of them from its steps."""
    job = env.get("SLURM_JOB_ID")
    if job:
        try:
            done = subprocess.run(["scontrol", "show", "job", "--oneliner", job],
                                  capture_output=True, text=True, check=True, timeout=30)
            fields = dict(f.split("=", 1) for f in done.stdout.split() if "=" in f)
            return int(fields["NumNodes"].split("-")[0]), fields["NodeList"]
        except (OSError, subprocess.SubprocessError, KeyError, ValueError):
            pass
    nodes = int(env.get("SLURM_JOB_NUM_NODES") or env.get("SLURM_NNODES") or 1)
    return nodes, env.get("SLURM_JOB_NODELIST")


def accelerate_argv(processes_per_node: int, command: list[str], cpu: bool = False,
                    accelerate_config: str | None = None,
                    env: Mapping[str, str] = os.environ) -> list[str]:
    """The command line that runs `codefrontier <command>` on every process of the job."""
    if processes_per_node < 1:
        raise ValueError("--processes must be at least 1")
    nodes, nodelist = job_allocation(env)
    launch = [sys.executable, "-m", "accelerate.commands.launch",
              "--num_processes", str(processes_per_node * nodes), "--num_machines", str(nodes),
              "--dynamo_backend", "no"]
    if accelerate_config:
        launch += ["--config_file", accelerate_config]
    elif processes_per_node > 1 or nodes > 1:
        # torch.distributed.run either way; on CPU the trainer's use_cpu turns the
        # processes into a gloo group (accelerate's --cpu flag alone runs one process)
        launch += ["--multi_gpu", "--mixed_precision", "no" if cpu else "bf16"]
    elif cpu:
        launch += ["--cpu", "--mixed_precision", "no"]
    target = ["-m", TRAINING_MODULE, *command]
    if nodes == 1:
        return [*launch, *target]
    host = node_address(first_host(nodelist))
    per_node = [*launch, "--main_process_ip", host, "--main_process_port", str(RENDEZVOUS_PORT),
                "--machine_rank", "$SLURM_NODEID", *target]
    script = " ".join(shlex.quote(a) if a != "$SLURM_NODEID" else a for a in per_node)
    # srun takes the allocation from the environment, which inside Snakemake's one-node
    # step names that node alone: the job's node list goes in; and --ntasks, as the
    # step's environment says one task, which srun would keep
    return ["env", f"SLURM_JOB_NODELIST={nodelist}", f"SLURM_JOB_NUM_NODES={nodes}",
            "srun", "--overlap", f"--nodes={nodes}", f"--ntasks={nodes}",
            "--ntasks-per-node=1", "bash", "-c", script]


def runs_module(pid: int, module: str) -> bool:
    """Whether the process is `python ... -m module` (the launcher's own command line
    names the module too, after `-m accelerate.commands.launch`)."""
    words = command_line(pid)
    return "-m" in words[:-1] and words[words.index("-m") + 1] == module


def training_processes(launcher_pid: int) -> list[int]:
    """The training processes that `launcher_pid` started (not their judge workers)."""
    return [pid for pid in descendants(launcher_pid) if runs_module(pid, TRAINING_MODULE)]


def forward_stop_signals(launcher: subprocess.Popen) -> None:
    """Pass SIGTERM and SIGUSR1 on to the training processes, which save and stop at their
    next step (train/stopping.py); accelerate's launcher never sees them from here (it
    ends its processes 5 s after a SIGTERM of its own)."""
    def forward(signum, frame) -> None:
        for pid in training_processes(launcher.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signum)

    for signum in STOP_SIGNALS:
        signal.signal(signum, forward)


def run_launched(processes_per_node: int, command: list[str], cpu: bool = False,
                 accelerate_config: str | None = None, work_dir: Path | None = None) -> int:
    """Run the command on every process; its exit status, or RESUBMIT_EXIT_STATUS when its
    processes stopped to be resubmitted (accelerate reports their exit status as 1, so
    the work folder's submission log says so)."""
    argv = accelerate_argv(processes_per_node, command, cpu, accelerate_config)
    print("launching:", shlex.join(argv), file=sys.stderr, flush=True)
    started = time.time()
    launcher = subprocess.Popen(argv)
    forward_stop_signals(launcher)
    status = launcher.wait()
    if status != 0 and work_dir is not None and stopped_since(work_dir, started):
        return RESUBMIT_EXIT_STATUS
    return status
