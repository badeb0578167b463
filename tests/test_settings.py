"""The multi-turn settings: examples, workspaces, episodes and their records.

The episodes here are played by a scripted policy (fixed assistant turns, tokenized
with a real embedded tokenizer and parsed by TRL's response parser) against the real
environments: the judge's sandbox for the python tool, a bubblewrap terminal for the
agentic setting. What the model would write is fixed; everything else runs for real.
"""

from __future__ import annotations

import json
import os

import pytest
from conftest import call_problem

from codefrontier.generation.base import Backend, Generation, SamplingSettings
from codefrontier.models.embedded import train_tokenizer
from codefrontier.problems.schema import Problem, Test
from codefrontier.settings.base import SAMPLES_SCHEMA, SampleRecord
from codefrontier.settings.environments import (
    NO_SUBMISSION,
    TURN_BUDGET_EXHAUSTED,
    AgenticLimits,
    workspace_files,
)
from codefrontier.settings.examples import statement_examples
from codefrontier.settings.registry import get_setting

SUM_STATEMENT = ("Print a + b.\n\nExample 1\nInput:\n2 3\nExpected output:\n5\n\n"
                 "Example 2\nInput:\n10 -4\nExpected output:\n6")
SUM_PROGRAM = "a, b = map(int, input().split())\nprint(a + b)"


def sum_problem() -> Problem:
    return Problem("sum", "Sum", SUM_STATEMENT, "easy", "test", "stdin",
                   tests=(Test("2 3\n", "5"), Test("10 -4\n", "6"), Test("7 8\n", "15")))


def call(name: str, **arguments) -> str:
    return f"<tool_call>\n{json.dumps({'name': name, 'arguments': arguments})}\n</tool_call>"


def fenced(program: str) -> str:
    return f"```python\n{program}\n```"


class ScriptedBackend(Backend):
    """Plays fixed assistant turns: turn k of every episode is script[k]."""

    name = "scripted"

    def __init__(self, tokenizer, script: list[str]) -> None:
        self.tokenizer = tokenizer
        self.script = script
        self.end = tokenizer.convert_tokens_to_ids("<|im_end|>")

    def generate(self, conversations, settings: SamplingSettings, progress=True, tools=None):
        out = []
        for conversation in conversations:
            turn = sum(m["role"] == "assistant" for m in conversation)
            prompt = self.tokenizer.apply_chat_template(conversation, tools=tools,
                                                        add_generation_prompt=True)
            prompt = prompt["input_ids"] if hasattr(prompt, "keys") else prompt
            ids = self.tokenizer(self.script[turn], add_special_tokens=False).input_ids
            ids = ids[:settings.max_new_tokens]
            stopped = len(ids) < settings.max_new_tokens
            ids = [*ids, self.end] if stopped else ids
            out.append([Generation(self.tokenizer.decode(ids, skip_special_tokens=True),
                                   "stop" if stopped else "length", len(prompt), len(ids),
                                   tuple(ids), tuple(prompt))])
        return out


@pytest.fixture(scope="module")
def tokenizer():
    texts = [SUM_STATEMENT, SUM_PROGRAM, call("python", code=SUM_PROGRAM, stdin="2 3\n"),
             "exit status stdout stderr submitted solution.py examples"] * 20
    return train_tokenizer(iter(texts), vocab_size=600)


def play(tokenizer, setting, script, problems=None, pool=None, n=1, max_new_tokens=400):
    problems = problems or [sum_problem()]
    backend = ScriptedBackend(tokenizer, script)
    sampling = SamplingSettings(n=n, temperature=0.0, max_new_tokens=max_new_tokens)
    return setting.run(backend, problems, sampling, progress=False, pool=pool)


# ---------------------------------------------------------------- examples, workspace


def test_statement_examples_in_every_bundled_framing_and_atcoder():
    assert statement_examples(SUM_STATEMENT) == [("2 3\n", "5\n"), ("10 -4\n", "6\n")]
    framed = "Task.\n\nExample 1\nSample input:\n1\nSample output:\n2"
    assert statement_examples(framed) == [("1\n", "2\n")]
    called = "Task.\n\nExample 1\nArguments (one JSON value per line):\n[1, 2]\n3\nReturns: [0, 1]"
    assert statement_examples(called) == [("[1, 2]\n3\n", "[0, 1]\n")]
    atcoder = "Sample Input 1\n3\n1 2 3\n\nSample Output 1\n6\n\nSample Input 2\n1\n5\n\n" \
              "Sample Output 2\n5\n"
    assert statement_examples(atcoder) == [("3\n1 2 3\n", "6\n"), ("1\n5\n", "5\n")]
    assert statement_examples("No examples here.") == []


def test_workspace_holds_statement_and_examples_never_hidden_tests():
    files = workspace_files(sum_problem())
    assert files["problem.md"].startswith("Print a + b.")
    assert (files["examples/1.in"], files["examples/2.out"]) == ("2 3\n", "6\n")
    assert not any("7 8" in text for text in files.values())  # the hidden test
    assert "harness.py" in workspace_files(call_problem())


# --------------------------------------------------------------------- tool use


def test_tool_use_episode_runs_python_then_answers(tokenizer, judge):
    setting = get_setting("tool_use")
    script = [f"I test it. {call('python', code=SUM_PROGRAM, stdin='2 3')}",
              f"It prints 5.\n\n{fenced(SUM_PROGRAM)}"]
    [record] = play(tokenizer, setting, script, pool=judge)
    assert (record.turns, record.tool_calls, record.episode_error) == (2, 1, None)
    assert SUM_PROGRAM in record.completion and record.answer_source == "final_turn"
    roles = [m["role"] for m in record.transcript]
    assert roles == ["user", "assistant", "tool", "assistant"]
    observation = record.transcript[2]["content"]
    assert observation.startswith("exit status: 0 (ok") and "\n5" in observation


def test_tool_use_shows_errors_and_cuts_huge_output(tokenizer, judge):
    setting = get_setting("tool_use", {"max_tool_calls": 2, "output_chars": 200})
    script = [call("python", code="raise ValueError('boom')"),
              call("python", code="print('x' * 100000)"),
              fenced(SUM_PROGRAM)]
    [record] = play(tokenizer, setting, script, pool=judge)
    first, second = record.transcript[2]["content"], record.transcript[4]["content"]
    assert "exit status: 1" in first and "ValueError: boom" in first
    assert len(second) < 600 and "cut" in second
    assert record.tool_calls == 2 and record.episode_error is None


def test_tool_use_budget_and_malformed_calls_are_format_errors(tokenizer, judge):
    setting = get_setting("tool_use", {"max_tool_calls": 1})
    looping = play(tokenizer, setting, [call("python", code="print(1)")] * 3, pool=judge)[0]
    assert (looping.episode_error, looping.turns) == (TURN_BUDGET_EXHAUSTED, 2)
    broken = play(tokenizer, setting, ['<tool_call>\n{"name": "python", "arguments": {\n'
                                       '</tool_call>'], pool=judge)[0]
    assert broken.episode_error == "malformed_tool_call" and broken.tool_calls == 0


def test_tool_use_call_problem_runs_the_method(tokenizer, judge):
    problem = Problem("add", "Add", "Add.\n\nExample 1\nArguments (one JSON value per line):\n"
                      "1\n2\nReturns: 3", "easy", "test", "call", tests=(Test("1\n2", "3"),),
                      func_name="add")
    program = "class Solution:\n    def add(self, a: int, b: int) -> int:\n        return a + b"
    script = [call("python", code=program, stdin="1\n2\n"), fenced(program)]
    [record] = play(tokenizer, get_setting("tool_use"), script, [problem], pool=judge)
    assert "\n3" in record.transcript[2]["content"]


def test_unknown_tool_and_bad_arguments_are_told_to_the_model(tokenizer, judge):
    script = [call("shell", command="ls"), call("python", source="x"), fenced(SUM_PROGRAM)]
    [record] = play(tokenizer, get_setting("tool_use"), script, pool=judge)
    assert "no tool named 'shell'" in record.transcript[2]["content"]
    assert "error" in record.transcript[4]["content"]


# ---------------------------------------------------------------------- agentic


def write_and_run(program: str = SUM_PROGRAM) -> str:
    command = f"cat > solution.py << 'EOF'\n{program}\nEOF\npython solution.py < examples/1.in"
    return call("bash", command=command)


def test_agentic_episode_submits_the_file(tokenizer):
    script = [write_and_run(), call("submit", path="solution.py"), "never generated"]
    [record] = play(tokenizer, get_setting("agentic"), script)
    assert record.code.strip() == SUM_PROGRAM and record.answer_source == "submitted:solution.py"
    # the accepted submission ends the episode: no closing turn
    assert (record.turns, record.tool_calls, record.episode_error) == (2, 2, None)
    assert record.transcript[-1] == {"role": "tool", "content": "submitted solution.py"}
    ran = record.transcript[2]["content"]
    assert ran.startswith("exit code 0\n5\n") and "turns left" in ran


def test_agentic_without_submission_is_a_format_error(tokenizer):
    [ended] = play(tokenizer, get_setting("agentic"), [write_and_run(), "I am done."])
    assert ended.episode_error == NO_SUBMISSION and ended.code is None
    limits = {"max_turns": 2}
    [spent] = play(tokenizer, get_setting("agentic", limits), [call("bash", command="ls")] * 4)
    assert spent.episode_error == TURN_BUDGET_EXHAUSTED and spent.turns == 2


def test_agentic_refuses_a_missing_file_and_a_second_submission(tokenizer):
    script = [call("submit", path="nothing.py"), write_and_run(),
              call("submit", path="solution.py"), call("submit", path="solution.py")]
    [record] = play(tokenizer, get_setting("agentic"), script)
    assert "no such file" in record.transcript[2]["content"]
    assert record.code is not None and record.turns == 3  # the accepted submission ends it


@pytest.mark.slow
@pytest.mark.parametrize("command", [
    "rm -rf / --no-preserve-root 2>&1; echo survived",
    "(setsid sleep 300 &) ; nohup sleep 300 & echo started",
    "kill -9 $PPID; kill -9 -1; echo after",
    "bomb() { bomb | bomb & }; bomb",
    "python -c \"import socket; socket.create_connection(('127.0.0.1', PORT), timeout=2)\"",
    "head -c 200000000 /dev/zero > big; ls -la",
])
def test_hostile_agent_commands_are_contained(tokenizer, listener, command):
    from conftest import processes_with_uid

    from codefrontier.sandbox.workspace import TERMINAL_UID_BASE, UIDS_PER_PROCESS

    ours = TERMINAL_UID_BASE + (os.getpid() % 2**22) * UIDS_PER_PROCESS  # this process's block
    command = command.replace("PORT", str(listener.getsockname()[1]))
    script = [call("bash", command=command), write_and_run(), call("submit", path="solution.py"),
              "Submitted."]
    [record] = play(tokenizer, get_setting("agentic", {"command_wall_s": 5}), script)
    assert record.code is not None and record.code.strip() == SUM_PROGRAM  # the episode went on
    assert record.transcript[2]["role"] == "tool"
    # nothing outlived the episode, nothing reached the host's network
    assert not processes_with_uid(lambda uid: ours <= uid < ours + UIDS_PER_PROCESS)
    with pytest.raises(BlockingIOError):
        listener.accept()
    assert os.path.exists(__file__)  # rm -rf / deleted nothing of the host


@pytest.mark.slow
@pytest.mark.parametrize("program", [
    "import os\nfor _ in range(10000):\n    os.fork()\n",
    "import os\nos.kill(os.getppid(), 9)\nos.kill(-1, 9)\n",
    "import shutil\nshutil.rmtree('/', ignore_errors=True)\nopen('/tmp/x', 'w')\n",
    "import os\nif os.fork() == 0:\n    os.setsid()\n    import time\n    time.sleep(300)\n",
])
def test_hostile_tool_code_is_contained(tokenizer, judge, program):
    from conftest import processes_with_uid

    from codefrontier.judge.worker import SANDBOX_UID_BASE

    uids = {SANDBOX_UID_BASE + pid for pid in judge.worker_pids}
    script = [call("python", code=program), call("python", code=SUM_PROGRAM, stdin="2 3"),
              fenced(SUM_PROGRAM)]
    [record] = play(tokenizer, get_setting("tool_use"), script, pool=judge)
    assert record.transcript[4]["content"].startswith("exit status: 0")  # the episode went on
    assert not processes_with_uid(uids.__contains__)  # nothing outlived the calls


# ----------------------------------------------------------------- records, rollouts


def test_records_fit_the_samples_schema(tokenizer, judge):
    import pyarrow as pa

    records = play(tokenizer, get_setting("tool_use"), [fenced(SUM_PROGRAM)], pool=judge, n=2)
    assert [r.sample_id for r in records] == [0, 1]
    from dataclasses import asdict

    table = pa.Table.from_pylist([asdict(r) for r in records], schema=SAMPLES_SCHEMA)
    assert table.column("tool_calls").to_pylist() == [0, 0]
    assert isinstance(records[0], SampleRecord)


def test_settings_reject_limits_of_another_setting():
    with pytest.raises(ValueError, match=r"no episode limit max_turns .*max_tool_calls"):
        get_setting("tool_use", {"max_turns": 3})
    with pytest.raises(ValueError, match=r"no episode limit max_turns \(its limits: none\)"):
        get_setting("reasoning", {"max_turns": 3})
    with pytest.raises(ValueError, match="unknown setting"):
        get_setting("chat")
    agentic = get_setting("agentic", {"max_turns": 3})
    assert agentic.max_turns == 3
    tool_use = get_setting("tool_use", {"max_tool_calls": 1})
    assert tool_use.max_turns == 2
    assert AgenticLimits().max_turns == 4


def test_tool_results_extend_a_rollout_by_the_template_s_own_tokens(tokenizer):
    """Between a turn that called a tool and the next turn: the tool's result and the
    next turn's opening, exactly as the chat template renders the whole conversation."""
    from codefrontier.train.rollout import next_turn_ids, render_prompt

    call = {"type": "function", "function": {"name": "python", "arguments": {"code": "1"}}}
    turn = [{"role": "user", "content": "add"},
            {"role": "assistant", "content": "", "tool_calls": [call]}]
    results = [{"role": "tool", "name": "python", "content": "exit status: 0"}]
    whole = render_prompt(tokenizer, [*turn, *results])
    rendered_turn = tokenizer(tokenizer.apply_chat_template(turn, tokenize=False),
                              add_special_tokens=False)["input_ids"]
    end = len(rendered_turn) - rendered_turn[::-1].index(tokenizer.eos_token_id)
    suffix = next_turn_ids(tokenizer, results, tokenizer.eos_token, tool_calls=[call])
    assert rendered_turn[:end] + suffix == whole
    assert "exit status: 0" in tokenizer.decode(suffix)
