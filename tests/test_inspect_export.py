"""`codefrontier export inspect`: one Inspect log per model × setting × checkpoint of a
finished run (the smoke run, plus a known tool_use checkpoint: tests/inspect_run.py)."""

import importlib.metadata
import json
import sys

import pandas as pd
import pytest
from inspect_run import CHECKPOINT, MALFORMED, PROBLEM, SETTING

from codefrontier.cli import main
from codefrontier.judge.verdicts import OUTCOMES
from codefrontier.settings.environments import split_tool_calls, tool_call_text


def read_log(path):
    from inspect_ai.log import read_eval_log

    return read_eval_log(str(path))


def log_of(logs, setting, checkpoint):
    (path,) = [p for p in logs if p.parent.name.endswith(f"-{setting}")
               and p.stem.split("-", 1)[1] == checkpoint]
    return read_log(path)


def sample_of(log, epoch):
    (sample,) = [s for s in log.samples if s.id == PROBLEM and s.epoch == epoch]
    return sample


@pytest.mark.slow
def test_one_log_per_checkpoint_listed_by_setting_then_checkpoint(inspect_logs):
    out, logs = inspect_logs
    names = [str(p.relative_to(out)) for p in logs]
    assert names == ["tiny/1-reasoning/01-sft.eval", "tiny/1-reasoning/02-rl-k2.eval",
                     "tiny/1-reasoning/03-rl-kinf.eval", "tiny/1-reasoning/04-a-0.5.eval",
                     "tiny/1-reasoning/05-a0.5.eval", "tiny/1-reasoning/06-a1.5.eval",
                     "tiny/2-tool_use/03-rl-kinf.eval"]
    assert sorted(names) == names
    # the viewer lists a folder newest first: the first log is the newest
    times = [p.stat().st_mtime for p in logs]
    assert times == sorted(times, reverse=True) and len(set(times)) == len(times)
    first = read_log(logs[0])
    assert (first.eval.task, first.eval.model, first.status) == ("reasoning", "tiny/sft",
                                                                 "success")
    assert len({read_log(p).eval.task_id for p in logs}) == len(logs)  # no log a "retry"


@pytest.mark.slow
def test_each_logs_metrics_are_its_checkpoints_frontier_rates(inspect_logs, looked):
    _, logs = inspect_logs
    frontier = pd.read_parquet(looked.results / "frontier.parquet")
    frontier = frontier[frontier["difficulty"] == "all"].set_index(["setting", "checkpoint"])
    for path in logs:
        log = read_log(path)
        (score,) = log.results.scores
        row = frontier.loc[(log.eval.task, log.eval.metadata["checkpoint"])]
        assert {name: metric.value for name, metric in score.metrics.items()} == \
            {o: row[f"rate_{o}"] for o in OUTCOMES}
        assert log.results.total_samples == row["samples"] == len(log.samples)


@pytest.mark.slow
def test_a_tool_use_episode_is_its_prompt_tool_calls_results_and_judged_program(inspect_logs,
                                                                               looked):
    _, logs = inspect_logs
    log = log_of(logs, SETTING, CHECKPOINT)
    sample = sample_of(log, 1)
    roles = [m.role for m in sample.messages]
    assert roles == ["system", "user", "assistant", "tool", "assistant"]
    assert [m.role for m in sample.input] == ["system", "user"]
    assert "python tool" in sample.input[1].text
    call_turn, result = sample.messages[2], sample.messages[3]
    assert call_turn.text == "Let me run it on the first example."
    (call,) = call_turn.tool_calls
    assert (call.function, call.arguments) == (
        "python", {"code": looked.program, "stdin": looked.tool_input})
    assert (result.tool_call_id, result.function, result.text) == (
        call.id, "python", looked.tool_result)
    score = sample.scores["judge"]
    assert score.value == "correct" and score.answer == looked.program
    verdicts = score.metadata["verdicts"]
    assert verdicts == ["AC"] * len(verdicts) and len(score.metadata["input_lens"]) == \
        len(verdicts) == len(score.metadata["cpu_s"]) == len(score.metadata["peak_mb"])
    assert score.metadata["time_limit_s"] > 0 and score.metadata["memory_limit_mb"] > 0
    assert "| 1 |" in score.explanation and "CPU s (limit" in score.explanation
    assert sample.metadata["title"] and sample.metadata["difficulty"] in ("easy", "medium",
                                                                          "hard")
    assert sample.metadata["tool_calls"] == 1 and sample.metadata["turns"] == 2
    usage = sample.model_usage["tiny/rl-kinf"]
    assert (usage.input_tokens, usage.output_tokens) == (400, 120)


@pytest.mark.slow
def test_a_malformed_tool_call_stays_text_and_scores_a_format_error(inspect_logs):
    _, logs = inspect_logs
    sample = sample_of(log_of(logs, SETTING, CHECKPOINT), 2)
    turn = sample.messages[-1]
    assert turn.role == "assistant" and turn.text == MALFORMED and not turn.tool_calls
    score = sample.scores["judge"]
    assert (score.value, score.answer) == ("format_error", None)
    assert score.metadata["format_error_cause"] == "malformed_tool_call"


@pytest.mark.slow
def test_a_reasoning_sample_is_the_settings_prompt_and_one_answer(inspect_logs, looked):
    _, logs = inspect_logs
    sample = sample_of(log_of(logs, "reasoning", "sft"), 1)
    samples = pd.read_parquet(looked.results / "tiny" / "reasoning" / "sft" / "samples.parquet")
    completion = samples[(samples["problem_id"] == PROBLEM) & (samples["sample_id"] == 0)]
    assert [m.role for m in sample.messages] == ["system", "user", "assistant"]
    assert "```python code block" in sample.messages[1].text
    assert sample.messages[2].text == completion["completion"].iloc[0]
    assert sample.output.stop_reason == "max_tokens"  # the smoke run's 32 tokens ran out


@pytest.mark.slow
def test_a_logs_metadata_holds_its_checkpoints_provenance(inspect_logs):
    _, logs = inspect_logs
    merge = log_of(logs, "reasoning", "a0.5").eval.metadata
    assert (merge["kind"], merge["alpha"], merge["reward"]) == ("merge", 0.5, "k2->kinf")
    assert merge["merge_endpoints"] == {"low": "k2", "high": "kinf"}
    assert merge["checkpoint_provenance"]["weights"] == [0.5, 0.5]
    assert merge["samples_provenance"]["model"] == "results/tiny/reasoning/merge/a0.5"
    assert merge["frontier"]["rate_format_error"] == 1.0
    endpoint = log_of(logs, "reasoning", "rl-kinf").eval.metadata
    assert (endpoint["kind"], endpoint["reward"], endpoint["alpha"]) == ("rl", "kinf", 1.0)
    assert endpoint["checkpoint_provenance"]["reward"] == "kinf"
    json.dumps(merge)  # plain JSON, no NaN


def test_without_inspect_ai_the_command_names_the_extra(monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, "inspect_ai", None)  # as if not installed
    assert main(["export", "inspect", str(tmp_path), str(tmp_path / "out")]) == 2
    assert "pip install -e '.[inspect]'" in capsys.readouterr().err


def test_the_base_install_leaves_inspect_ai_and_playwright_to_their_extras():
    requirements = importlib.metadata.requires("codefrontier")
    for package, extra in (("inspect-ai", "inspect"), ("playwright", "browser")):
        named = [r for r in requirements if r.startswith(package)]
        assert named and all(f'extra == "{extra}"' in r for r in named)


def test_tool_calls_written_into_a_turn_split_back_out():
    calls = [{"function": {"name": "bash", "arguments": {"command": "ls\n</tool_call>"}}},
             {"name": "submit", "arguments": {"path": "solution.py"}}]
    written = "\n".join(["Look first.", *map(tool_call_text, calls)])
    assert split_tool_calls(written, 2) == ("Look first.", [
        {"name": "bash", "arguments": {"command": "ls\n</tool_call>"}},
        {"name": "submit", "arguments": {"path": "solution.py"}}])
    text, last = split_tool_calls(written, 1)  # one tool result followed the turn
    assert text.startswith("Look first.\n<tool_call>") and [c["name"] for c in last] == ["submit"]
    assert split_tool_calls(MALFORMED, 1) == (MALFORMED, [])  # not JSON: stays text
    assert split_tool_calls(written, 0) == (written, [])
