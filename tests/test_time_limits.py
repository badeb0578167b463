"""Training that outlives its time limit, a signal, a requeue or a preemption, and loses no
step: it saves at a step boundary, exits with the resubmit status, and the next submission
resumes (train/stopping.py, train/submissions.py, pipeline/preemption.py).

The local tests train a real tiny GRPO run in this process (the imports are paid once);
the Slurm tests run on the private CI cluster of .ci/slurm-up.sh (tests/test_slurm.py).
"""

import json
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from test_slurm import slurm  # noqa: F401 (the fixture)
from test_training import FAST_SUM, SLOW_SUM, SPEC, answer, sum_problem

from codefrontier.base.tables import write_records
from codefrontier.cli import main
from codefrontier.models.embedded import init_embedded_model
from codefrontier.pipeline import preemption
from codefrontier.pipeline import resources as res
from codefrontier.problems.schema import save_problems
from codefrontier.settings import reasoning
from codefrontier.train import deadline, stopping, submissions
from codefrontier.train.rollout import RolloutCalls

REPO = Path(__file__).resolve().parents[1]
RESUBMIT = submissions.RESUBMIT_EXIT_STATUS


# --- the decisions, without a trainer -------------------------------------------------------

def test_a_step_that_would_leave_too_little_time_to_save_and_exit_stops_the_run():
    margin = stopping.EXIT_SECONDS
    assert not stopping.must_stop(seconds_left=margin + 31, next_step_seconds=20, save_seconds=10)
    assert stopping.must_stop(seconds_left=margin + 29, next_step_seconds=20, save_seconds=10)


def test_the_deadline_is_the_earlier_of_slurms_end_time_and_the_time_limit(monkeypatch):
    assert deadline.parse_end_time("N/A") is None and deadline.parse_end_time("UNLIMITED") is None
    end = deadline.parse_end_time("2026-12-07T10:28:23\n")
    assert end == time.mktime((2026, 12, 7, 10, 28, 23, 0, 0, -1))
    assert deadline.run_deadline(None, env={}) is None
    assert deadline.run_deadline(2, started=1000.0, env={}) == 1120.0
    monkeypatch.setattr(deadline, "slurm_end_time", lambda job: 1100.0)
    assert deadline.run_deadline(2, started=1000.0, env={"SLURM_JOB_ID": "7"}) == 1100.0
    assert deadline.run_deadline(1, started=1000.0, env={"SLURM_JOB_ID": "7"}) == 1060.0


def test_a_retry_starts_only_if_the_submission_before_it_made_progress(tmp_path):
    start = {"event": "start", "time": 100.0, "attempt": 1, "step": 40}
    stop = {"event": "stop", "time": 160.0, "step": 90}
    submissions.check_progress([], 2, None)  # nothing known: it starts
    submissions.check_progress([start], 1, None)  # a first attempt always starts
    submissions.check_progress([start, stop], 2, None)  # it stopped to be resubmitted
    submissions.check_progress([start], 2, checkpoint_time=150.0)  # killed after a save
    with pytest.raises(submissions.NoProgressError, match="attempt 2: the previous submission"):
        submissions.check_progress([start], 2, checkpoint_time=90.0)
    # the log is the work folder's, and a launcher reads the stops of its own processes
    submissions.append_log(tmp_path, "start", attempt=1, step=0)
    since = time.time()
    assert not submissions.stopped_since(tmp_path, since)
    submissions.append_log(tmp_path, "stop", step=5, reason="deadline")
    assert submissions.stopped_since(tmp_path, since)
    assert [e["event"] for e in submissions.read_log(tmp_path)] == ["start", "stop"]


def test_training_rules_retry_and_learn_their_attempt_and_the_others_do_not():
    config = {"models": {"m": {}}, "resources": {"rl": {"runtime": 120}}}
    for rule in res.RESUMING:
        assert res.rule_retries(rule) == res.TRAINING_RETRIES
        assert res.rule_resources(config, rule)["attempt"]({}, attempt=3) == 3
    assert res.rule_retries("sample") is None
    assert "attempt" not in res.rule_resources(config, "sample")
    train_rules = (REPO / "rules" / "train.smk").read_text()
    assert train_rules.count("--attempt {resources.attempt}") == 2
    assert train_rules.count('"exec {params.launcher}') == 2


def test_rollout_calls_are_numbered_as_in_a_run_from_step_0():
    def at(step):
        return SimpleNamespace(state=SimpleNamespace(global_step=step))

    fresh, resumed = RolloutCalls(), RolloutCalls()
    assert [fresh.next(at(step)) for step in range(5)] == [1, 2, 3, 4, 5]
    assert [resumed.next(at(step)) for step in range(3, 5)] == [4, 5]


def test_the_workflows_preempted_jobs_are_found_in_squeue_output(tmp_path):
    lines = (f"11|{tmp_path}|rule_rl_wildcards_tiny_reasoning_k2\n"
             f"12|{tmp_path}/other|rule_rl_wildcards_tiny_reasoning_k2\n"
             f"13|{tmp_path}|my own job\n")
    assert preemption.preempted_jobs(lines, tmp_path) == ["11"]


# --- a real tiny GRPO run -------------------------------------------------------------------

LOCAL_STEPS = 40


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """Train here on one thread, as the reference and the Slurm job do: the same weights
    bit for bit."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """Two sum problems, the tiny model SFT'd on them until GRPO's rewards vary (an
    untrained model's rewards are all 0, its gradients too, and every run's weights equal)."""
    folder = tmp_path_factory.mktemp("tiny")
    problems = [sum_problem("sum-a"), sum_problem("sum-b")]
    save_problems(problems, folder / "train.parquet")
    write_records([{"problem_id": p.problem_id, "variant": variant,
                    "prompt": reasoning.messages(p),
                    "completion": [{"role": "assistant", "content": answer(program)}]}
                   for p in problems for variant, program in (("efficient", FAST_SUM),
                                                              ("slow", SLOW_SUM))],
                  folder / "sft.parquet")
    init_embedded_model(folder / "init", [folder / "train.parquet", folder / "sft.parquet"], SPEC)
    status = main(["train", "sft", "--model", str(folder / "init"), "--data",
                   str(folder / "sft.parquet"), "--out", str(folder / "sft"),
                   "--set", "max_steps=200", "--set", "learning_rate=3e-3",
                   "--set", "per_device_train_batch_size=4"])
    assert status == 0
    return folder


def grpo_options(folder: Path, steps: int) -> list[str]:
    """The options of the workflow's rl command for `tiny` (configs/smoke.yaml's GRPO, a
    completion budget the SFT'd model answers within, and `steps` steps)."""
    sets = {"learning_rate": 0.0001, "max_completion_length": 48, "max_steps": steps,
            "num_generations": 4, "per_device_train_batch_size": 8, "save_steps": 100000,
            "seed": 0}
    return ["train", "grpo", "--model", str(folder / "sft"), "--problems",
            str(folder / "train.parquet"), "--reward", "k2", "--setting", "reasoning",
            "--judge-workers", "1", *[w for k, v in sets.items() for w in ("--set", f"{k}={v}")]]


def weights(folder: Path) -> dict:
    from safetensors.torch import load_file

    return load_file(str(folder / "model.safetensors"))


def same_weights(a: Path, b: Path) -> bool:
    import torch

    first, second = weights(a), weights(b)
    return first.keys() == second.keys() and all(torch.equal(first[k], second[k]) for k in first)


def trained_steps(work: Path) -> list[int]:
    """The step of every reward call, in order: each trained step once, if none was lost
    or trained twice (rewards.jsonl is appended to across submissions)."""
    return [json.loads(line)["step"] for line in (work / "rewards.jsonl").open()]


ONE_THREAD = {"OMP_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}


@pytest.fixture(scope="module")
def reference(tiny, tmp_path_factory):
    """The uninterrupted run of LOCAL_STEPS steps, and its fastest step times (their 10th
    percentile), a one-thread process of its own as the Slurm job is. Paces measured
    otherwise gave runs the job finished within one submission: inside pytest's process
    (0.14 s a step against the job's 0.07 s), and two copies training at once, as the job
    trains beside its twin (their median)."""
    out = tmp_path_factory.mktemp("reference") / "rl"
    subprocess.run([sys.executable, "-m", "codefrontier.cli", *grpo_options(tiny, LOCAL_STEPS),
                    "--out", str(out)], env={**os.environ, **ONE_THREAD}, check=True,
                   capture_output=True)
    state = json.loads((out.with_name("rl.work") / "trainer_state.json").read_text())
    step_s = statistics.quantiles([e["step_time"] for e in state["log_history"]
                                   if "step_time" in e], n=10)[0]
    return out, step_s


def signal_after(lines: int, rewards: Path, signum: int) -> threading.Thread:
    """Send `signum` to this process once `rewards` holds `lines` lines (steps trained)."""
    def watch() -> None:
        while not rewards.exists() or len(rewards.read_text().splitlines()) < lines:
            time.sleep(0.05)
        os.kill(os.getpid(), signum)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


@pytest.mark.slow
def test_grpo_stopped_by_its_deadline_and_by_a_signal_resumes_to_the_uninterrupted_weights(
        tiny, reference, tmp_path):
    out, work = tmp_path / "rl", tmp_path / "rl.work"
    command = [*grpo_options(tiny, LOCAL_STEPS), "--out", str(out)]
    # a signal that came late must not end pytest (the trainer restores this handler)
    previous = signal.signal(signal.SIGUSR1, lambda *_: None)
    try:
        # 12 s from its start: too little for a step, a save and the exit past the first step
        assert main([*command, "--stop-after", "0.2"]) == RESUBMIT
        first = submissions.read_log(work)[-1]
        assert first["event"] == "stop" and first["reason"] == "deadline", first
        assert 1 <= first["step"] < LOCAL_STEPS and first["seconds_left"] > 0
        assert (work / f"checkpoint-{first['step']}" / "trainer_state.json").is_file()
        signal_after(first["step"] + 5, work / "rewards.jsonl", signal.SIGUSR1)
        assert main([*command, "--attempt", "2"]) == RESUBMIT
        second = submissions.read_log(work)[-1]
        assert second["reason"] == "signal SIGUSR1" and second["seconds_since_signal"] < 10
        assert main([*command, "--attempt", "3"]) == 0
    finally:
        signal.signal(signal.SIGUSR1, previous)
    log = submissions.read_log(work)
    assert [(e["event"], e["step"]) for e in log] == [
        ("start", 0), ("stop", first["step"]), ("start", first["step"]), ("stop", second["step"]),
        ("start", second["step"])]
    assert trained_steps(work) == list(range(LOCAL_STEPS))  # none lost, none twice
    assert same_weights(out, reference[0])


def test_a_retry_after_a_failure_without_progress_fails_before_loading_anything(tmp_path,
                                                                                capsys):
    out = tmp_path / "rl"  # no model, no problems: the check comes first
    submissions.append_log(tmp_path / "rl.work", "start", attempt=1, step=0)  # then it failed
    assert main([*grpo_options(tmp_path, LOCAL_STEPS), "--out", str(out), "--attempt", "2"]) == 2
    assert "attempt 2: the previous submission" in capsys.readouterr().err
    assert main([*grpo_options(tmp_path, LOCAL_STEPS), "--out", str(out), "--attempt", "1"]) == 2
    assert "attempt 2" not in capsys.readouterr().err  # a first attempt starts (and finds no model)


# --- through Slurm: a 2-minute time limit, a requeue, a preemption ----------------------------

TIME_LIMIT_MINUTES = 2
REQUEUE_AT_STEP = 30


def slurm_run_steps(step_s: float) -> int:
    """Steps that outlast one submission of TIME_LIMIT_MINUTES at `step_s` a step by half,
    a submission's startup taken as short as 15 s, on top of those trained before the
    requeue: at least one stop at the deadline (a job up to 1.5 times as fast as the
    reference's fastest steps), at the job's usual pace (0.07-0.1 s beside its twin)
    two or three submissions after the requeue. The test runs with the machine to itself
    (mark `alone`): beside other tests the job's pace varied threefold."""
    window = 60 * TIME_LIMIT_MINUTES - stopping.EXIT_SECONDS - 15
    return REQUEUE_AT_STEP + int(1.5 * window / step_s)


def wait_for(condition, timeout: float, what: str):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        found = condition()
        if found:
            return found
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}")


def job_state(job: str, env: dict) -> str:
    return subprocess.run(["squeue", "-h", "--states=all", "-j", job, "-o", "%T"],
                          capture_output=True,
                          text=True, env=env).stdout.strip()


def release(job: str, env: dict) -> None:
    """Start a requeued job now: Slurm holds one for two minutes before it may start again."""
    wait_for(lambda: job_state(job, env) == "PENDING", 120, f"job {job} to be requeued")
    subprocess.run(["scontrol", "update", f"JobId={job}", "StartTime=now"], check=True, env=env)


@pytest.mark.slow
@pytest.mark.alone
def test_a_grpo_job_past_its_time_limit_and_requeued_trains_every_step_once(
        slurm, tiny, reference, tmp_path):  # noqa: F811 (slurm: the fixture)
    """The rl job, 2 minutes a submission, is requeued while it trains (scontrol requeue:
    SIGTERM, then SIGKILL after KillWait): it saves at its next step and Slurm runs it again;
    that submission stops before its time limit and exits with the resubmit status; the
    workflow submits it again and it finishes. Its weights equal those of the same run
    trained without interruption (beside it, on this machine)."""
    steps = slurm_run_steps(reference[1])
    run = tmp_path / "run"
    (run / "results" / "data").mkdir(parents=True)
    (run / "results" / "data" / "train.parquet").write_bytes((tiny / "train.parquet").read_bytes())
    overlay = run / "overlay.yaml"
    overlay.write_text(yaml.safe_dump({
        "extends": str(REPO / "configs" / "smoke.yaml"),
        "models": {"tiny": {"sft_checkpoint": str(tiny / "sft"), "rl": {"trl": {
            "max_steps": steps, "save_steps": 100000, "num_generations": 4,
            "per_device_train_batch_size": 8, "max_completion_length": 48}}}},
        "resources": {"rl": {"runtime": TIME_LIMIT_MINUTES}}}))
    single = {**slurm, **ONE_THREAD}
    uninterrupted = subprocess.Popen(
        [sys.executable, "-m", "codefrontier.cli", *grpo_options(tiny, steps),
         "--out", str(tmp_path / "uninterrupted")], env=single, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    workflow = subprocess.Popen(
        [sys.executable, "-m", "snakemake", "--profile", "slurm", "results/tiny/reasoning/rl/k2",
         "-d", str(run), f"--configfile={overlay}", "--slurm-init-seconds-before-status-checks",
         "5"], cwd=REPO, env=slurm, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    work = run / "results" / "tiny" / "reasoning" / "rl" / "k2.work"
    try:
        wait_for(lambda: (work / "rewards.jsonl").exists() and len(trained_steps(work))
                 >= REQUEUE_AT_STEP, 300, "the first steps")
        job = submissions.read_log(work)[0]["slurm_job"]
        subprocess.run(["scontrol", "requeue", job], check=True, env=slurm)
        release(job, slurm)
        output = workflow.communicate(timeout=900)[0]
    finally:
        workflow.kill()
    assert workflow.returncode == 0, output[-4000:]
    assert uninterrupted.wait(timeout=600) == 0
    stops = [e for e in submissions.read_log(work) if e["event"] == "stop"]
    starts = [e for e in submissions.read_log(work) if e["event"] == "start"]
    assert stops[0]["reason"] == "signal SIGTERM" and stops[0]["seconds_since_signal"] < 30
    assert "deadline" in [stop["reason"] for stop in stops[1:]], stops
    # every submission resumed the step the one before it stopped at: none lost, none twice
    assert [start["step"] for start in starts[1:]] == [stop["step"] for stop in stops]
    assert trained_steps(work) == list(range(steps))
    assert all(stop["seconds_left"] > 0 for stop in stops if stop["reason"] == "deadline")
    assert starts[-1]["attempt"] >= 2 and starts[1]["slurm_job"] == job  # resubmitted, requeued
    assert same_weights(run / "results" / "tiny" / "reasoning" / "rl" / "k2",
                        tmp_path / "uninterrupted")


@pytest.mark.slow
def test_a_job_preempted_and_cancelled_is_requeued_by_the_workflow(
        slurm, tmp_path, monkeypatch):  # noqa: F811 (slurm: the fixture)
    """PreemptMode=CANCEL (partition spot-cancel): the job ends PREEMPTED, which the Slurm
    plugin waits on forever; the workflow's watch requeues it (pipeline/preemption.py)."""
    job = subprocess.run(
        ["sbatch", "--parsable", "-p", "spot-cancel", "-c", "2", "--mem", "500", "-t", "5",
         "-D", str(tmp_path), "--comment", "rule_rl_wildcards_tiny_reasoning_k2", "-o",
         "/dev/null", "--wrap", "sleep 300"], capture_output=True, text=True, check=True,
        env=slurm).stdout.strip()
    try:
        wait_for(lambda: job_state(job, slurm) == "RUNNING", 60, "the job to run")
        subprocess.run(["sbatch", "-p", "urgent", "-c", "2", "--mem", "500", "-t", "1", "-o",
                        "/dev/null", "--wrap", "true"], check=True, env=slurm,
                       capture_output=True)
        wait_for(lambda: job_state(job, slurm) == "PREEMPTED", 120, "the preemption")
        for name in ("PATH", "SLURM_CONF"):  # requeue_preempted's squeue and scontrol
            monkeypatch.setenv(name, slurm.get(name, ""))
        assert preemption.requeue_preempted(tmp_path) == [job]
        assert job_state(job, slurm) == "PENDING"
    finally:
        subprocess.run(["scancel", job], env=slurm)
