"""The agentic setting: the model works in a sandboxed terminal (bash), writes its
program to a file and submits it (settings/environments.py, terminal.py)."""

from __future__ import annotations

from collections.abc import Mapping

from codefrontier.problems.schema import Problem
from codefrontier.settings.environments import AgenticLimits, TerminalEnvironment
from codefrontier.settings.multi_turn import MultiTurnSetting

GUIDANCE = ("You work in a terminal. Your workspace holds problem.md and the examples "
            "(examples/1.in, examples/1.out, ...). Write your program to a file with the bash "
            "tool, run it on an example, then hand it in with the submit tool.")


class AgenticSetting(MultiTurnSetting):
    name = "agentic"
    guidance = GUIDANCE

    def __init__(self, limits: AgenticLimits | None = None) -> None:
        self.limits = limits or AgenticLimits()

    @property
    def max_turns(self) -> int:
        # an accepted submission ends the episode: no turn after the last action
        return self.limits.max_turns

    def environment(self, problems: Mapping[str, Problem], pool=None) -> TerminalEnvironment:
        return TerminalEnvironment(problems, self.limits)
