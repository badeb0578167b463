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
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from collections.abc import Mapping

RENDEZVOUS_PORT = 29517


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
    target = ["-m", "codefrontier.cli", *command]
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


def run_launched(processes_per_node: int, command: list[str], cpu: bool = False,
                 accelerate_config: str | None = None) -> int:
    argv = accelerate_argv(processes_per_node, command, cpu, accelerate_config)
    print("launching:", shlex.join(argv), file=sys.stderr, flush=True)
    return subprocess.run(argv, check=False).returncode
