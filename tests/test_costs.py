"""What a grid's jobs take (pipeline/calibration.py, pipeline/measured_runs.py,
pipeline/plan.py): the estimator fitted to the published runs and checked by leaving each
one out, both estimates and the runtime warning in `codefrontier plan`, and a measured
run of this trainer joining the fit through --calibrate."""

import json
import math
import re
import shutil
import subprocess
import sys

import pandas as pd
import pytest
import yaml
from conftest import ENV, REPO

from codefrontier.pipeline import calibration
from codefrontier.pipeline.configfiles import ConfigError, compose, validate
from codefrontier.pipeline.costs import parameters_of_config
from codefrontier.pipeline.measured_runs import measured_run

EXAMPLE = REPO / "configs" / "example-1.5b-4gpu.yaml"
# A real GRPO run made on a CPU here, of tests/test_training.py's 91K-parameter embedded
# model (SPEC) on its two sum problems (sum_problem("sum-a"), sum_problem("sum-b")):
#   codefrontier train grpo --model MODEL --problems train.parquet --reward kinf \
#     --judge-workers 1 --set max_steps=3 --set num_generations=4 \
#     --set per_device_train_batch_size=4 --set max_completion_length=16 \
#     --set save_steps=1 --out rl
# kept: its work folder's run.json and trainer_state.json, its output's config.json.
TINY_RUN = REPO / "tests" / "data" / "tiny-grpo-run"
# the fitted runs that the fit without them misses by more than 2x (docs/cluster.md, "How
# the estimate is fitted", says why), and the runs that state no mean completion length
MISSED = {"areal-v0.1-1.5b-1node", "simplerl-zoo-qwen2.5-32b",
          "nemo-rl-v0.5-llama3.1-8b-grpo-step"}
NOT_FITTED = {"deepcoder-14b-stage1-16k", "deepcoder-14b-stage2-32k", "deepcoder-14b"}


# --- the fit, left one out ------------------------------------------------------------

def test_each_published_run_is_predicted_within_2x_by_the_fit_without_it_but_three():
    fitted = [check for check in calibration.leave_one_out_rl() if check.in_fit]
    assert len(fitted) == 12
    assert {check.name for check in fitted if not 0.5 <= check.ratio <= 2} == MISSED
    assert all(1 / 3.5 < check.ratio < 3.5 for check in fitted)
    # with every completion at its cap the estimate covers every fitted run's time but one
    assert {check.name for check in fitted
            if check.predicted_at_caps < check.published} == {"areal-v0.1-1.5b-1node"}


def test_runs_without_a_mean_length_are_predicted_at_their_kinds_fill_and_not_fitted():
    checks = {check.name: check for check in calibration.leave_one_out_rl()}
    assert {name for name, check in checks.items() if not check.in_fit} == NOT_FITTED
    # DeepCoder (code RL) took longer than even its caps at the fitted pace
    assert all(checks[name].predicted_at_caps < checks[name].published for name in NOT_FITTED)


def test_each_sampling_benchmark_is_predicted_within_2x_from_the_others_of_its_regime():
    checks = calibration.leave_one_out_sampling()
    assert len(checks) == 12
    assert all(0.5 <= check.ratio <= 2 for check in checks)


def test_docs_show_the_leave_one_out_checks_the_code_computes():
    assert calibration.leave_one_out_markdown() in (REPO / "docs" / "cluster.md").read_text(), \
        "docs/cluster.md is stale: python -m codefrontier.pipeline.calibration"


def test_the_default_fills_are_the_median_share_of_the_cap_per_kind():
    table = pd.read_csv(calibration.RL_RUNS).dropna(
        subset=["mean_completion_tokens", "max_completion_tokens"])
    table = table.drop_duplicates(["model", "max_completion_tokens", "mean_completion_tokens"])
    share = table.mean_completion_tokens / table.max_completion_tokens
    reasoning = table.model.str.contains("R1-Distill|Qwen3")
    fills = calibration.default_fills()
    assert fills == {"reasoning": pytest.approx(share[reasoning].median()),
                     "instruct": pytest.approx(share[~reasoning].median())}
    assert fills["reasoning"] > 2 * fills["instruct"]


def test_a_model_is_reasoning_distilled_by_its_name():
    assert calibration.model_kind("deepseek-ai/DeepSeek-R1-Distill-Qwen-7B") == "reasoning"
    assert calibration.model_kind("Qwen/QwQ-32B") == "reasoning"
    assert calibration.model_kind("Qwen/Qwen2.5-7B-Instruct") == "instruct"
    assert calibration.model_kind("embedded") == "instruct"


def test_a_grid_sets_a_models_fill_and_the_schema_bounds_it(tmp_path):
    values = yaml.safe_load(EXAMPLE.read_text())
    model = "qwen2.5-coder-1.5b"
    assert calibration.model_fill(values, model) == calibration.Fill(
        calibration.default_fills()["instruct"], "the instruct default")
    for fill, valid in ((0.5, True), (1.5, False), (0, False)):
        values["models"][model]["fill"] = fill
        path = tmp_path / "grid.yaml"
        path.write_text(yaml.safe_dump(values))
        if valid:
            validate(compose([path], path), REPO)
            assert calibration.model_fill(values, model) == calibration.Fill(
                0.5, f"models.{model}.fill")
        else:
            with pytest.raises(ConfigError, match=re.escape(f"models.{model}.fill")):
                validate(compose([path], path), REPO)


# --- a measured run ---------------------------------------------------------------------

def logged_steps(state: dict) -> list[dict]:
    return [entry for entry in state["log_history"] if "step_time" in entry]


def test_a_trainer_log_gives_the_runs_steps_lengths_and_time():
    state = json.loads((TINY_RUN / "rl.work" / "trainer_state.json").read_text())
    runtime = state["log_history"][-1]["train_runtime"]
    for given in (TINY_RUN / "rl", TINY_RUN / "rl.work"):
        run = measured_run(given, "h100")
        assert (run.steps, run.completions_per_step, run.gpus) == (3, 4, 1)
        assert run.mean_completion_tokens == 16 == run.max_completion_tokens  # all cut at 16
        assert run.prompt_tokens == state["num_input_tokens_seen"] / 12 - 16
        seconds = sum(entry["step_time"] for entry in logged_steps(state))
        assert run.gpu_hours * 3600 == pytest.approx(max(seconds, runtime))
        config = json.loads((TINY_RUN / "rl" / "config.json").read_text())
        assert run.parameters == parameters_of_config(config)
        assert not run.separate_generation and run.time_source == "measured"


def test_a_checkpoints_log_serves_while_the_run_trains(tmp_path):
    """Before the run ends only its checkpoints hold a trainer_state.json (without the
    final train_runtime), and the output folder does not exist yet."""
    work = tmp_path / "rl.work"
    checkpoint = work / "checkpoint-3"
    checkpoint.mkdir(parents=True)
    shutil.copy(TINY_RUN / "rl.work" / "run.json", work)
    shutil.copy(TINY_RUN / "rl" / "config.json", checkpoint)
    state = json.loads((TINY_RUN / "rl.work" / "trainer_state.json").read_text())
    state["log_history"] = logged_steps(state)
    (checkpoint / "trainer_state.json").write_text(json.dumps(state))
    run = measured_run(checkpoint, "a100")
    assert run.steps == 3 and run.gpu == "a100"
    assert run.gpu_hours * 3600 == pytest.approx(sum(e["step_time"] for e in state["log_history"]))


def test_each_logged_entry_counts_the_steps_since_the_one_before(tmp_path):
    """logging_steps=2: an entry averages two steps."""
    work = tmp_path / "rl.work"
    work.mkdir()
    shutil.copy(TINY_RUN / "rl.work" / "run.json", work)
    (tmp_path / "rl").mkdir()
    shutil.copy(TINY_RUN / "rl" / "config.json", tmp_path / "rl")
    entries = [{"step": 2, "step_time": 1.0, "completions/mean_length": 10.0, "num_tokens": 400},
               {"step": 4, "step_time": 3.0, "completions/mean_length": 14.0, "num_tokens": 800}]
    (work / "trainer_state.json").write_text(json.dumps({"log_history": entries}))
    run = measured_run(work, "h100")
    assert run.steps == 4 and run.gpu_hours * 3600 == pytest.approx(2 * 1.0 + 2 * 3.0)
    assert run.mean_completion_tokens == 12.0 and run.prompt_tokens == 800 / 16 - 12.0


def test_a_folder_that_is_not_a_grpo_runs_is_refused_with_the_reason(tmp_path):
    with pytest.raises(ValueError, match="no such work folder"):
        measured_run(tmp_path / "nothing", "h100")
    work = tmp_path / "rl.work"
    work.mkdir()
    with pytest.raises(ValueError, match=r"no readable run\.json"):
        measured_run(work, "h100")
    shutil.copy(TINY_RUN / "rl.work" / "run.json", work)
    with pytest.raises(ValueError, match=r"no trainer_state\.json"):
        measured_run(work, "h100")
    (work / "trainer_state.json").write_text(json.dumps({"log_history": [{"loss": 1.0}]}))
    with pytest.raises(ValueError, match="no 'step_time'"):
        measured_run(work, "h100")


def test_a_measured_run_sets_the_estimates_level_and_the_published_runs_the_rest():
    run = measured_run(TINY_RUN / "rl", "h100")
    published, measured = calibration.rl_fit(), calibration.rl_fit((run,))
    assert measured.utilisation(run.parameters, False) == pytest.approx(run.utilisation())
    assert (measured.intercept, measured.slope, measured.separate) == pytest.approx(
        (published.intercept, published.slope, published.separate))


# --- the plan ------------------------------------------------------------------------------

def plan(tmp_path, config, *more) -> tuple[str, dict]:
    """`codefrontier plan` of one grid: its report and its JSON (the models sized from
    their names: an empty Hub cache)."""
    done = subprocess.run([sys.executable, "-m", "codefrontier.cli", "plan", "--configfile",
                           config, "-d", tmp_path, "--json", tmp_path / "plan.json", *more],
                          capture_output=True, text=True, cwd=REPO, timeout=600,
                          env={**ENV, "HF_HUB_CACHE": str(tmp_path / "hub")})
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout, json.loads((tmp_path / "plan.json").read_text())


def rows(summary: dict) -> dict:
    return {row["rule"]: row for row in summary["rules"]}


@pytest.mark.slow
def test_plan_prints_both_estimates_and_warns_of_a_runtime_below_the_estimate(tmp_path):
    values = yaml.safe_load(EXAMPLE.read_text())
    values["resources"]["rl"]["runtime"] = 60
    config = tmp_path / "short.yaml"
    config.write_text(yaml.safe_dump(values))
    report, summary = plan(tmp_path, config)
    for header in ("| h/job | h/job estimated |", "| GPU-h estimated | GPU-h at full budgets |"):
        assert header in report
    rl = rows(summary)["rl"]
    assert 0 < rl["estimated_gpu_hours"] < rl["full_budget_gpu_hours"]
    hours = rl["estimated_gpu_hours"] / rl["jobs"] / 4  # 4 GPUs a job, all alike
    assert rl["estimated_hours"] == f"{hours:.1f}"
    assert (f"Warning: rl qwen2.5-coder-1.5b: 12 of 12 jobs request 1 h but need about "
            f"{hours:.1f} h on their 4 GPUs at the expected completion lengths: they would "
            f"hit their time limit; `resources.rl.runtime: {math.ceil(hours * 60)}` fits."
            ) in report
    assert summary["warnings"] and len(summary["warnings"]) == 1  # the sample jobs fit
    # the band the published runs fell in around the fit's predictions, left out of it
    fitted = [1 / check.ratio for check in calibration.leave_one_out_rl() if check.in_fit]
    spread = summary["calibration"]["grpo_spread"]
    assert (spread["least"], spread["most"], spread["runs"]) == (min(fitted), max(fitted), 12)
    assert spread["within_2x"] == 12 - len(MISSED)
    assert (f"Each published GRPO run, left out of the fit, took {min(fitted):.2f} to "
            f"{max(fitted):.2f} times the GPU-hours it predicts for it") in report


@pytest.mark.slow
def test_plan_calibrated_on_a_measured_run_takes_its_pace(tmp_path):
    report, summary = plan(tmp_path, EXAMPLE)
    assert "Warning" not in report and summary["warnings"] == []  # the shipped grid fits
    calibrated, measured = plan(tmp_path, EXAMPLE, "--calibrate", TINY_RUN / "rl",
                                "--calibrate-gpu", "h100")
    assert "Measured: " in calibrated and "1 measured, at the measured runs' level" in calibrated
    # a CPU run measured against an H100's peak: far slower than any published run
    assert rows(measured)["rl"]["estimated_gpu_hours"] > 10 * rows(summary)["rl"][
        "estimated_gpu_hours"]
    assert rows(measured)["sample"] == rows(summary)["sample"]  # sampling keeps its own fit
    assert "Warning: rl qwen2.5-coder-1.5b" in calibrated
