"""Multi-turn episodes at evaluation: model turn -> tool results -> model turn ...

Every active episode gets one model turn per round, all rounds batched through the
generation backend. A turn is parsed with the tokenizer's response parser (TRL's
`parse_response`, the one GRPOTrainer uses in training); its tool calls go to the
episode's environment (settings/environments.py) and their results come back as
`tool` messages. An episode ends when the model answers without a tool call, when a
turn runs out of tokens, when a tool call cannot be parsed, or when the turn budget
is spent, or (agentic) when a submission is accepted.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field, replace

from tqdm import tqdm

from codefrontier.generation import Backend, SamplingSettings
from codefrontier.settings.environments import (
    MALFORMED_TOOL_CALL,
    TRUNCATED,
    TURN_BUDGET_EXHAUSTED,
    Answer,
    episode_answer,
    tool_call_text,
)

TOOL_CALL_OPEN = "<tool_call>"


@dataclass
class Episode:
    problem_id: str
    sample_id: int
    messages: list[dict]              # the conversation so far, prompt included
    environment: object
    turns: int = 0
    tool_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str = "stop"
    ended_by: str | None = None       # the episode's own format error, if any
    done: bool = False
    final_text: str = ""
    transcript: list[dict] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.transcript = [m for m in self.messages if m["role"] != "system"]

    def answer(self) -> Answer:
        return episode_answer(self.environment, self.final_text, self.ended_by)


def environment_tools(environment) -> list:
    """The environment's public methods but `reset`: the tools the model sees (as in TRL)."""
    return [getattr(environment, name) for name, _ in
            inspect.getmembers(type(environment), predicate=inspect.isfunction)
            if not name.startswith("_") and name not in ("reset", "get_reward")]


def call_tool(environment, call: dict) -> str:
    """Run one parsed tool call; a bad name or bad arguments is the model's error,
    shown to it as the tool's result."""
    function = call.get("function", {})
    name, arguments = function.get("name"), function.get("arguments")
    tools = {tool.__name__: tool for tool in environment_tools(environment)}
    if name not in tools:
        return f"error: no tool named {name!r}; available: {', '.join(sorted(tools))}"
    if not isinstance(arguments, dict):
        return "error: the arguments must be a JSON object"
    try:
        return str(tools[name](**arguments))
    except TypeError as error:
        return f"error: {error}"


def parse_turn(tokenizer, generation, tools: list) -> dict:
    """The turn as a message: its content and parsed tool calls ({} for no tokens)."""
    from trl.chat_template_utils import parse_response

    if not generation.token_ids:
        return {}
    return parse_response(tokenizer, list(generation.token_ids),
                          prefix=list(generation.prompt_token_ids), tools=tools)


def run_episodes(backend: Backend, episodes: list[Episode], sampling: SamplingSettings,
                 max_turns: int, progress: bool = True) -> list[Episode]:
    """Play every episode to its end; `sampling.max_new_tokens` bounds each model turn,
    `max_turns` the model turns of an episode."""
    from trl.chat_template_utils import add_response_schema

    tokenizer = backend.tokenizer
    if getattr(tokenizer, "response_template", None) is None and \
            getattr(tokenizer, "response_schema", None) is None:
        add_response_schema(tokenizer)
    bar = tqdm(total=len(episodes), desc="episodes", unit="episode", disable=not progress)
    round_number = 0
    while active := [e for e in episodes if not e.done]:
        tools = environment_tools(active[0].environment)
        turn_sampling = replace(sampling, n=1, seed=sampling.seed * 1_000 + round_number)
        generations = backend.generate([e.messages for e in active], turn_sampling,
                                       progress=False, tools=tools)
        for episode, (generation,) in zip(active, generations, strict=True):
            _take_turn(episode, generation, parse_turn(tokenizer, generation, tools), max_turns)
            if episode.done:
                bar.update()
        round_number += 1
    bar.close()
    return episodes


def _take_turn(episode: Episode, generation, parsed: dict, max_turns: int) -> None:
    episode.turns += 1
    episode.prompt_tokens = episode.prompt_tokens or generation.prompt_tokens
    episode.completion_tokens += generation.completion_tokens
    calls = parsed.get("tool_calls") or []
    content = parsed.get("content") or ""
    written = "\n".join([content, *map(tool_call_text, calls)]).strip()
    episode.transcript.append({"role": "assistant", "content": written})
    if generation.finish_reason == "length":
        _end(episode, content, TRUNCATED, "length")
    elif not calls:
        # a call the parser could not read stays in the text
        _end(episode, content, MALFORMED_TOOL_CALL if TOOL_CALL_OPEN in content else None)
    else:
        episode.messages.append({"role": "assistant", "content": content, "tool_calls": calls})
        for call in calls:
            episode.tool_calls += 1
            result = call_tool(episode.environment, call)
            name = call.get("function", {}).get("name") or "tool"
            episode.messages.append({"role": "tool", "name": name, "content": result})
            episode.transcript.append({"role": "tool", "content": result})
        if getattr(episode.environment, "submitted", None) is not None:
            # a submission ends the task: no closing turn is generated (GRPO rollouts
            # still get one from TRL's loop, which only stops on a turn without calls)
            _end(episode, content, None)
        elif episode.turns >= max_turns:
            _end(episode, content, TURN_BUDGET_EXHAUSTED)


def _end(episode: Episode, final_text: str, ended_by: str | None,
         finish_reason: str = "stop") -> None:
    episode.final_text = final_text
    episode.ended_by = ended_by
    episode.finish_reason = finish_reason
    episode.done = True
