"""One judged sample as an Inspect sample (`inspect_ai.log.EvalSample`): the prompt the
model saw, its whole episode as chat messages, the judged program as the score's answer,
the outcome as the score's value with every test's verdict, input length, CPU time and
peak memory against the problem's limits, and the problem's title, difficulty and limits.

A problem's samples are an Inspect sample's epochs (id: the problem, epoch: sample_id + 1).
Episodes come from samples.parquet's `transcript` (settings/episodes.py): a multi-turn
setting's tool calls, written into the assistant's text, become `ToolCall`s with their
results as tool messages; a call the parser could not read stays text. A reasoning sample
keeps no transcript: its prompt is the setting's for the problem, its episode one answer.
inspect_ai is imported by the functions that need it (the `inspect` extra).
"""

from __future__ import annotations

from codefrontier.judge import extract_code
from codefrontier.problems.schema import Problem
from codefrontier.settings.environments import split_tool_calls
from codefrontier.settings.registry import get_setting

SCORER = "judge"  # the scorer's name in the logs: the score of every sample and the metrics
STOP_REASONS = {"stop": "stop", "length": "max_tokens"}  # finish_reason -> Inspect's


def prompt_messages(setting: str, problem: Problem, transcript: list[dict]) -> list[dict]:
    """The system and user messages the model was given: the setting's prompt for the
    problem, its user turn as the transcript recorded it where there is one."""
    prompt = [dict(m) for m in get_setting(setting).messages(problem)]
    if transcript and transcript[0]["role"] == "user":
        prompt[-1]["content"] = transcript[0]["content"]
    return prompt


def episode_messages(sample: dict) -> list[dict]:
    """What followed the prompt, as {"role", "content", "tool_calls"?, "tool_call_id"?,
    "function"?} messages: the transcript's turns, or the one answer of a sample without
    a transcript."""
    transcript = list(sample.get("transcript") or [])
    if not transcript:
        return [{"role": "assistant", "content": sample["completion"]}]
    messages, pending = [], []  # pending: the calls whose results come next, in order
    turns = transcript[1:] if transcript[0]["role"] == "user" else transcript
    for index, turn in enumerate(turns):
        if turn["role"] == "assistant":
            results = _results_after(turns, index)
            text, calls = split_tool_calls(turn["content"], results)
            pending = [{"id": f"call-{index}-{n}", **call} for n, call in enumerate(calls)]
            messages.append({"role": "assistant", "content": text, "tool_calls": pending[:]})
        elif turn["role"] == "tool":
            call = pending.pop(0) if pending else {"id": None, "name": None}
            messages.append({"role": "tool", "content": turn["content"],
                             "tool_call_id": call["id"], "function": call["name"]})
        else:
            messages.append({"role": turn["role"], "content": turn["content"]})
    return messages


def _results_after(turns: list[dict], index: int) -> int:
    """How many tool messages follow turn `index` before the next other turn."""
    count = 0
    for turn in turns[index + 1:]:
        if turn["role"] != "tool":
            break
        count += 1
    return count


def judged_program(sample: dict) -> str | None:
    """The program the judge ran: the one the setting handed in, else the last fenced
    block of the answer (judge.pool); None for a format error without one."""
    return sample["code"] if sample.get("code") is not None else extract_code(
        sample.get("completion") or "")


def tests_run(verdict: dict) -> list[dict]:
    """Each test the judge ran, in the order run (ascending input length)."""
    return [{"test": number + 1, "input_bytes": length, "verdict": outcome,
             "cpu_s": cpu, "peak_mb": peak}
            for number, (length, outcome, cpu, peak) in enumerate(zip(
                verdict["input_lens"], verdict["verdicts"], verdict["cpu_s"],
                verdict["peak_mb"], strict=False))]


def explanation(verdict: dict, problem: Problem) -> str:
    """The verdicts as a Markdown table, CPU time and memory against the limits."""
    rows = tests_run(verdict)
    cause = verdict.get("format_error_cause") or verdict.get("tle_cause")
    lines = [f"**{verdict['outcome'].replace('_', ' ')}**" + (f" ({cause})" if cause else "")]
    if rows:
        lines += ["", f"| test | input bytes | verdict | CPU s (limit {problem.time_limit_s:g}) "
                      f"| peak MB (limit {problem.memory_limit_mb} + interpreter) |",
                  "|---|---|---|---|---|"]
        lines += [f"| {r['test']} | {r['input_bytes']} | {r['verdict']} | {r['cpu_s']:.3f} "
                  f"| {r['peak_mb']:.1f} |" for r in rows]
    not_run = len(verdict["input_lens"]) - len(rows)
    if not_run:
        lines += ["", f"{not_run} longer tests not run"]
    if verdict.get("error"):
        lines += ["", "```", verdict["error"].strip(), "```"]
    return "\n".join(lines)


def score_metadata(verdict: dict, problem: Problem) -> dict:
    return {"verdicts": list(verdict["verdicts"]), "input_lens": list(verdict["input_lens"]),
            "cpu_s": list(verdict["cpu_s"]), "peak_mb": list(verdict["peak_mb"]),
            "time_limit_s": problem.time_limit_s, "memory_limit_mb": problem.memory_limit_mb,
            **{key: verdict.get(key) for key in ("first_failure", "max_passed_input_len",
                                                 "format_error_cause", "tle_cause")}}


def sample_metadata(sample: dict, problem: Problem) -> dict:
    return {"title": problem.title, "difficulty": problem.difficulty, "source": problem.source,
            "kind": problem.kind, "time_limit_s": problem.time_limit_s,
            "memory_limit_mb": problem.memory_limit_mb,
            **{key: sample.get(key) for key in (
                "finish_reason", "prompt_tokens", "completion_tokens", "turns", "tool_calls",
                "answer_source", "episode_error")}}


def chat_message(message: dict, model: str):
    """An Inspect chat message of a {"role", "content", ...} message."""
    from inspect_ai.model import (
        ChatMessageAssistant,
        ChatMessageSystem,
        ChatMessageTool,
        ChatMessageUser,
    )
    from inspect_ai.tool import ToolCall

    role, content = message["role"], message["content"]
    if role == "assistant":
        calls = [ToolCall(id=c["id"], function=str(c["name"]),
                          arguments=c["arguments"] if isinstance(c["arguments"], dict) else {},
                          parse_error=None if isinstance(c["arguments"], dict)
                          else "the arguments are not a JSON object")
                 for c in message.get("tool_calls") or []]
        return ChatMessageAssistant(content=content, tool_calls=calls or None, model=model,
                                    source="generate")
    if role == "tool":
        return ChatMessageTool(content=content, tool_call_id=message.get("tool_call_id"),
                               function=message.get("function"))
    if role == "system":
        return ChatMessageSystem(content=content)
    return ChatMessageUser(content=content)


def eval_sample(sample: dict, verdict: dict, problem: Problem, model: str):
    """The Inspect sample of one judged sample (`model`: the name the log gives the
    checkpoint)."""
    from inspect_ai.log import EvalSample
    from inspect_ai.model import ModelOutput, ModelUsage
    from inspect_ai.scorer import Score

    prompt = prompt_messages(sample["setting"], problem, list(sample.get("transcript") or []))
    inputs = [chat_message(m, model) for m in prompt]
    episode = [chat_message(m, model) for m in episode_messages(sample)]
    usage = ModelUsage(input_tokens=sample["prompt_tokens"],
                       output_tokens=sample["completion_tokens"],
                       total_tokens=sample["prompt_tokens"] + sample["completion_tokens"])
    score = Score(value=verdict["outcome"], answer=judged_program(sample),
                  explanation=explanation(verdict, problem),
                  metadata=score_metadata(verdict, problem))
    return EvalSample(
        id=problem.problem_id, epoch=sample["sample_id"] + 1, input=inputs, target="",
        messages=[*inputs, *episode],
        output=ModelOutput.from_content(model, sample["completion"], stop_reason=STOP_REASONS.get(
            sample.get("finish_reason"), "unknown")),
        scores={SCORER: score}, metadata=sample_metadata(sample, problem),
        model_usage={model: usage})
