"""results/training.parquet and the training curves: every SFT and GRPO run's figures per
step from its work folder's logs, and `report_to` for TensorBoard and trackio."""

import json
import os
import sqlite3
import subprocess
import sys

import pandas as pd
import pytest
from conftest import ENV, require_module

from codefrontier.analysis.training_plots import chart_names, curves, write_training_plots
from codefrontier.train.training_log import TRAINING_SCHEMA, run_rows, write_training


def reward_call(step, mean, samples, no_signal):
    return {"call": 1, "step": step, "reward": "k2", "mean_reward": mean, "samples": samples,
            "outcome/correct": mean, "outcome/optimization_failure": 0.0,
            "outcome/correctness_failure": 1 - mean, "outcome/format_error": 0.0,
            "groups/zero_variance_share": no_signal}


@pytest.fixture
def grpo_run(tmp_path):
    """A GRPO run's folder whose work folder logged two steps: the trainer's log history
    (its closing summary included) and three reward calls, two of them at step 1."""
    out = tmp_path / "results" / "tiny@seed1" / "tool_use" / "rl" / "k2"
    work = out.with_name("k2.work")
    work.mkdir(parents=True)
    history = [{"step": 1, "epoch": 0.5, "loss": 0.25, "learning_rate": 1e-4, "grad_norm": 2.0,
                "kl": 0.01, "entropy": 3.0, "completions/mean_length": 40.0, "reward": 0.625},
               {"step": 2, "epoch": 1.0, "loss": 0.125, "learning_rate": 5e-5, "grad_norm": 1.0,
                "entropy": 2.5, "completions/mean_length": 30.0, "reward": 1.0},
               {"step": 2, "train_loss": 0.19, "train_runtime": 3.0}]
    (work / "trainer_state.json").write_text(json.dumps({"log_history": history}))
    calls = [reward_call(0, 0.5, 8, 1.0), reward_call(0, 1.0, 4, 0.5), reward_call(1, 1.0, 8, 0.0)]
    (work / "rewards.jsonl").write_text("".join(json.dumps(c) + "\n" for c in calls))
    return out


def test_a_grpo_runs_steps_join_the_trainers_and_the_rewards_logs(grpo_run, tmp_path):
    rows = run_rows(grpo_run, first_seed=0)
    assert [(r["model"], r["seed"], r["setting"], r["checkpoint"], r["step"]) for r in rows] == [
        ("tiny", 1, "tool_use", "rl-k2", 1), ("tiny", 1, "tool_use", "rl-k2", 2)]
    first, second = rows
    # the calls logged at global step 0 scored step 1's batch: weighted by their samples
    assert first["mean_reward"] == pytest.approx((0.5 * 8 + 1.0 * 4) / 12) == 2 / 3
    assert first["no_signal_share"] == pytest.approx((8 + 0.5 * 4) / 12)
    assert first["reward_samples"] == 12 and second["reward_samples"] == 8
    assert first["rate_correctness_failure"] == pytest.approx(1 / 3)
    assert (first["loss"], first["kl"], first["mean_completion_length"]) == (0.25, 0.01, 40.0)
    assert second["kl"] is None and second["learning_rate"] == 5e-5
    out = tmp_path / "training.parquet"
    assert write_training([grpo_run], out) == 2
    table = pd.read_parquet(out)
    assert list(table.columns) == TRAINING_SCHEMA.names


def test_a_run_without_a_finished_trainer_state_reads_its_newest_checkpoints(grpo_run):
    work = grpo_run.with_name("k2.work")
    state = work / "trainer_state.json"
    (work / "checkpoint-2").mkdir()
    state.rename(work / "checkpoint-2" / "trainer_state.json")
    assert [r["loss"] for r in run_rows(grpo_run)] == [0.25, 0.125]


def test_a_chart_per_setting_and_one_of_the_sft_runs_without_empty_panels(grpo_run, tmp_path):
    training = tmp_path / "training.parquet"
    write_training([grpo_run], training)
    table = pd.read_parquet(training)
    assert chart_names(table) == ["tool_use"]
    long, panels = curves(table, "tool_use")
    assert "KL" in panels.values() and "token accuracy" not in panels.values()
    assert set(long["run"]) == {"tiny"}
    written = write_training_plots(training, tmp_path / "plots", ["tool_use", "sft"])
    assert sorted(p.name for p in written) == ["sft.html", "sft.png", "tool_use.html",
                                               "tool_use.png"]
    assert "no steps logged" in (tmp_path / "plots" / "sft.html").read_text()


@pytest.mark.slow
def test_the_smoke_runs_table_agrees_with_what_its_trainers_logged(smoke_run):
    results = smoke_run / "results"
    table = pd.read_parquet(results / "training.parquet")
    assert set(table["checkpoint"]) == {"sft", "rl-k2", "rl-kinf"}
    sft = table[table["kind"] == "sft"]
    assert sft["step"].iloc[0] == 1 and sft["setting"].isna().all()  # logging_first_step
    for reward in ("k2", "kinf"):
        work = results / "tiny" / "reasoning" / "rl" / f"{reward}.work"
        logged = [e for e in json.loads((work / "trainer_state.json").read_text())["log_history"]
                  if "loss" in e]
        rows = table[table["checkpoint"] == f"rl-{reward}"].set_index("step")
        assert list(rows.index) == [e["step"] for e in logged]
        for entry in logged:  # the rewards.jsonl step + 1 is the trainer's step
            row = rows.loc[entry["step"]]
            assert row["mean_reward"] == pytest.approx(entry["reward"])
            assert row["rate_format_error"] == pytest.approx(entry["outcome/format_error"])
            assert row["no_signal_share"] == pytest.approx(entry["frac_reward_zero_std"])
    for chart in ("reasoning", "sft"):
        assert (results / "plots" / "training" / f"{chart}.png").stat().st_size > 1000


REPORTERS = {"tensorboard": "tensorboard", "trackio": "trackio"}


@pytest.mark.slow
@pytest.mark.parametrize("reporter", sorted(REPORTERS))
def test_report_to_passes_through_to_the_trainer(reporter, smoke_run, tmp_path):
    """`rl.trl: {report_to: ...}` reaches TRL as `--set report_to=...`: a one-step GRPO run
    logs its loss and reward there (where the package is installed: make test installs
    TensorBoard, the `tracking` extra, and CI requires it)."""
    if reporter == "tensorboard":
        require_module("tensorboard", "pip install -e '.[tracking]'")
    pytest.importorskip(REPORTERS[reporter])
    env = {**ENV, "HF_HUB_OFFLINE": "1", "TENSORBOARD_LOGGING_DIR": str(tmp_path / "tb"),
           "TRACKIO_DIR": str(tmp_path / "trackio")}
    done = subprocess.run(
        [sys.executable, "-m", "codefrontier.cli", "train", "grpo", "--model", "results/tiny/sft",
         "--problems", "results/data/train.parquet", "--reward", "k2", "--judge-workers", "1",
         "--out", str(tmp_path / "rl"), *[f"--set={s}" for s in (
             "max_steps=1", "num_generations=4", "per_device_train_batch_size=4",
             "max_completion_length=16", f"report_to={reporter}")]],
        cwd=smoke_run, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    if reporter == "tensorboard":
        (events,) = (tmp_path / "tb").glob("events.out.tfevents.*")
        assert b"train/reward" in events.read_bytes()
    else:
        (database,) = (tmp_path / "trackio").glob("*.db")
        logged = sqlite3.connect(database).execute("select metrics from metrics").fetchall()
        assert any(b"train/reward" in row[0] for row in logged)
    assert os.path.isdir(tmp_path / "rl")
