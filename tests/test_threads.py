"""A job's cores: Snakemake's threads, then Slurm's allocation, then the affinity mask,
never the machine's core count; and the libraries held to them."""

import os
import subprocess
import sys

import pytest

from codefrontier.base import threads
from codefrontier.judge.pool import workers_per_process

CLEAN = {k: v for k, v in os.environ.items()
         if k not in (*threads.THREAD_VARIABLES, "SLURM_CPUS_PER_TASK", "GOMP_SPINCOUNT")}


@pytest.fixture
def clean_environment(monkeypatch):
    for name in (*threads.THREAD_VARIABLES, "SLURM_CPUS_PER_TASK", "GOMP_SPINCOUNT"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_snakemakes_threads_come_first_then_slurms_then_the_affinity(clean_environment):
    assert threads.job_cores() == len(os.sched_getaffinity(0))
    clean_environment.setenv("SLURM_CPUS_PER_TASK", "3")
    assert threads.job_cores() == 3
    clean_environment.setenv("OMP_NUM_THREADS", "5")
    assert threads.job_cores() == 5
    clean_environment.setenv("OMP_NUM_THREADS", "zero")  # not a count: the next source
    assert threads.job_cores() == 3


def test_the_judge_pool_sizes_itself_to_the_job(clean_environment):
    clean_environment.setenv("OMP_NUM_THREADS", "3")
    assert workers_per_process() == 3
    clean_environment.setenv("LOCAL_WORLD_SIZE", "2")  # two training processes share them
    assert workers_per_process() == 1


def run(code: str, env: dict, *prefix: str) -> str:
    return subprocess.run([*prefix, sys.executable, "-c", code], env=env, check=True,
                          capture_output=True, text=True).stdout.split()


HELD = ("from codefrontier.base.threads import hold_to_job_cores; hold_to_job_cores(); "
        "import os, torch; print(torch.get_num_threads(), os.environ['MKL_NUM_THREADS'], "
        "os.environ['GOMP_SPINCOUNT'])")


def test_torch_and_the_math_libraries_follow_the_job_not_the_machine():
    # one CPU of the affinity mask: torch's pool and its children's libraries get one
    assert run(HELD, CLEAN, "taskset", "-c", "0") == ["1", "1", "1000"]
    assert run(HELD, {**CLEAN, "SLURM_CPUS_PER_TASK": "1"}) == ["1", "1", "1000"]
    # what the user set keeps its value
    assert run(HELD, {**CLEAN, "OMP_NUM_THREADS": "1", "GOMP_SPINCOUNT": "300000"}) == \
        ["1", "1", "300000"]


def test_a_loaded_torch_is_resized():
    code = ("import torch; torch.set_num_threads(2); "
            "from codefrontier.base.threads import hold_to_job_cores; "
            "print(hold_to_job_cores(), torch.get_num_threads())")
    assert run(code, {**CLEAN, "OMP_NUM_THREADS": "1"}) == ["1", "1"]


def test_the_command_line_holds_its_process_and_main_alone_leaves_the_environment(
        clean_environment):
    from codefrontier.cli import main

    shown = ("import runpy, sys, os; sys.argv = ['codefrontier', '--version']\n"
             "try: runpy.run_module('codefrontier.cli', run_name='__main__')\n"
             "except SystemExit: print(os.environ['MKL_NUM_THREADS'])")
    assert run(shown, CLEAN, "taskset", "-c", "0")[-1] == "1"
    # a command that gets past its arguments (and fails on its missing folders)
    assert main(["compare", "/nonexistent/a", "/nonexistent/b"]) == 2
    assert not any(name in os.environ for name in threads.THREAD_VARIABLES)
