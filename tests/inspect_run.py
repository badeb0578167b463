"""A finished run to look inside: the smoke run's results (reasoning; its tiny model writes
no program), plus a tool_use checkpoint whose episodes are known, judged by the real judge
and counted into the frontier table: one episode calls the python tool and answers with the
family's efficient program (correct), one writes a tool call the parser could not read
(a format error). Shared by the Inspect export and browser tests."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from codefrontier.analysis.frontier import write_frontier
from codefrontier.base.layout import DATA, FRONTIER, SAMPLES, VERDICTS
from codefrontier.base.tables import write_records
from codefrontier.judge.files import judge_files
from codefrontier.problems.schema import load_problems
from codefrontier.settings.base import SAMPLES_SCHEMA
from codefrontier.settings.environments import MALFORMED_TOOL_CALL, tool_call_text
from codefrontier.settings.examples import statement_examples
from codefrontier.settings.registry import get_setting
from codefrontier.suite.build import instances

PROBLEM = "bundled/balanced-brackets/eval-0"
SETTING, CHECKPOINT = "tool_use", "rl-kinf"
MALFORMED = '<tool_call>\n{"name": "python", "arguments": {"code": print(1)}\n</tool_call>'


@dataclass(frozen=True)
class LookedRun:
    root: Path           # the workflow root: it holds results/
    program: str         # the correct episode's program
    tool_input: str      # the stdin of its python tool call
    tool_result: str     # that call's result

    @property
    def results(self) -> Path:
        return self.root / "results"


def efficient_program(problem_id: str) -> str:
    slug = problem_id.split("/")[1]
    (instance,) = [i for i in instances("eval", 1, families=[slug]) if i.problem_id == problem_id]
    return instance.efficient


def tool_use_samples(problem, program: str, tool_input: str, tool_result: str) -> list[dict]:
    """Two episodes as the tool_use setting records them (settings/episodes.py)."""
    user = get_setting(SETTING).messages(problem)[-1]
    answer = f"```python\n{program.rstrip()}\n```"
    call = tool_call_text({"name": "python", "arguments": {"code": program,
                                                           "stdin": tool_input}})
    correct = {"problem_id": problem.problem_id, "sample_id": 0, "setting": SETTING,
               "completion": answer, "finish_reason": "stop", "prompt_tokens": 400,
               "completion_tokens": 120, "turns": 2, "tool_calls": 1,
               "transcript": [user, {"role": "assistant",
                                     "content": f"Let me run it on the first example.\n{call}"},
                              {"role": "tool", "content": tool_result},
                              {"role": "assistant", "content": answer}],
               "episode_error": None, "code": None, "answer_source": "final_turn"}
    malformed = {**correct, "sample_id": 1, "completion": MALFORMED, "turns": 1,
                 "tool_calls": 0, "completion_tokens": 30,
                 "transcript": [user, {"role": "assistant", "content": MALFORMED}],
                 "episode_error": MALFORMED_TOOL_CALL, "answer_source": "none"}
    return [correct, malformed]


def looked_run(smoke_results: Path, root: Path) -> LookedRun:
    """The smoke run's results copied under `root`, with the tool_use checkpoint added and
    the frontier table remade from every checkpoint's verdicts."""
    results = root / "results"
    shutil.copytree(smoke_results, results)
    problems_path = results.parent / DATA.fill(split="eval")
    problem = load_problems(problems_path)[PROBLEM]
    program = efficient_program(PROBLEM)
    tool_input, expected = statement_examples(problem.statement)[0]
    tool_result = f"exit status: 0 (ok, 0.0 s CPU)\nstdout:\n{expected.strip()}"
    samples = root / SAMPLES.fill(model="tiny", setting=SETTING, ckpt=CHECKPOINT)
    samples.parent.mkdir(parents=True)
    write_records(tool_use_samples(problem, program, tool_input, tool_result), samples,
                  schema=SAMPLES_SCHEMA)
    verdicts = root / VERDICTS.fill(model="tiny", setting=SETTING, ckpt=CHECKPOINT)
    judge_files(problems_path, samples, verdicts, workers=1, progress=False)
    every = sorted(p for p in results.rglob("verdicts.parquet") if VERDICTS.parse(p))
    write_frontier(every, problems_path, {"tiny": ("k2", "kinf")}, root / FRONTIER)
    return LookedRun(root, program, tool_input, tool_result)
