"""How many cores a job may use, and holding torch, the math libraries and the judge to it.

A job's cores, first found of:

1. `OMP_NUM_THREADS`: Snakemake sets it (with MKL_NUM_THREADS, OPENBLAS_NUM_THREADS, ...)
   to the rule's `threads` for every shell command it runs, locally and inside a Slurm
   job;
2. `SLURM_CPUS_PER_TASK`: a command run by hand inside a Slurm allocation;
3. the CPUs this process may run on (its affinity mask, which cgroups and `taskset`
   narrow), never the machine's core count.

`hold_to_job_cores()` runs once when the command line starts, before torch is imported:
it exports the count to the math libraries' variables (so that subprocesses follow it),
shortens how long OpenMP's idle threads spin before they sleep (GNU OpenMP's
GOMP_SPINCOUNT, 300,000 by default, to the 1,000 it takes itself when it knows the CPUs
are oversubscribed: on a machine shared with other work, threads that spin at a barrier
burn the time their siblings need; benchmarks/README.md, "SFT on a busy machine"),
and sizes torch's intra-op pool, which reads OMP_NUM_THREADS when torch loads. (Its
inter-op pool ignores both, but starts no thread until a `torch.jit.fork`, which nothing
here calls.) A variable the user set keeps its value.
"""

from __future__ import annotations

import os
import sys

# the math libraries' thread counts, as Snakemake's shell sets them
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                    "GOTO_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")
SPIN_COUNT = ("GOMP_SPINCOUNT", "1000")


def _positive(value: str | None) -> int | None:
    try:
        number = int(value or "")
    except ValueError:
        return None
    return number if number > 0 else None


def job_cores() -> int:
    """The cores this job may use (module docstring), at least one."""
    for variable in ("OMP_NUM_THREADS", "SLURM_CPUS_PER_TASK"):
        count = _positive(os.environ.get(variable))
        if count:
            return count
    return max(1, len(os.sched_getaffinity(0)))


def hold_to_job_cores() -> int:
    """Export the job's core count and OpenMP's spin count to this process's libraries
    and its children (torch, loaded later, reads them); size torch's intra-op pool if it
    is loaded already. Returns the count."""
    cores = job_cores()
    for variable in THREAD_VARIABLES:
        os.environ.setdefault(variable, str(cores))
    os.environ.setdefault(*SPIN_COUNT)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
    return cores
