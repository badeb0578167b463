"""The tool-use setting: the model may run Python in the judge's sandbox, on inputs it
chooses, before it answers with one fenced program (settings/environments.py)."""

from __future__ import annotations

from collections.abc import Mapping

from codefrontier.problems.schema import Problem
from codefrontier.settings.environments import PythonToolEnvironment, ToolUseLimits
from codefrontier.settings.multi_turn import MultiTurnSetting

GUIDANCE = ("You may test a program with the python tool, for instance on an example input. "
            "Then give your final program in one ```python code block.")


class ToolUseSetting(MultiTurnSetting):
    name = "tool_use"
    guidance = GUIDANCE

    def __init__(self, limits: ToolUseLimits | None = None) -> None:
        self.limits = limits or ToolUseLimits()

    @property
    def max_turns(self) -> int:
        return self.limits.max_tool_calls + 1  # the calls, then the answer

    def needs_judge_pool(self) -> bool:
        return True

    def environment(self, problems: Mapping[str, Problem], pool=None) -> PythonToolEnvironment:
        if pool is None:
            raise ValueError("the tool_use setting runs programs in a judge pool: give one")
        return PythonToolEnvironment(pool, problems, self.limits)
