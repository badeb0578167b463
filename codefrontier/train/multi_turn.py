"""Multi-turn GRPO rollouts played by the evaluation's own episode runner.

TRL's tool loop samples each turn with `model.generate` on CPU and GPU alike: every
turn prefills the whole conversation again, and every row waits for the longest. Here
GRPOTrainer gets a `rollout_func` instead that plays the episodes with
`settings.episodes.run_episodes` (the same environments, tool calls, turn budget and
episode endings as at evaluation) through `PolicyBackend`, the policy being trained
seen as a generation backend: the compacting sampler of generation/decode.py, with the
prefix cache, so that a turn prefills only the tool results since the last one.

The tokens are TRL's: each conversation is rendered once; a later turn's prompt is
the earlier prompt, the tokens sampled, and the tool results rendered by the chat
template between them (`rollout.next_turn_ids`), never a new rendering of the whole
conversation, so the trained tokens are exactly those sampled. The tool results' tokens
carry no loss (`env_mask` 0). As in TRL's loop, `max_completion_length` bounds a whole
episode's completion, tool results included: a turn samples at most what is left, and
an episode whose tool results would not fit ends there (a truncated episode, which
earns no reward). An episode ends as at evaluation: without a tool call, at a
submission (agentic), at a malformed call or at the turn budget.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from codefrontier.generation.base import Backend, Generation, SamplingSettings
from codefrontier.problems.schema import Problem
from codefrontier.settings.environments import end_episode
from codefrontier.settings.episodes import Episode, run_episodes
from codefrontier.settings.multi_turn import MultiTurnSetting
from codefrontier.train.rollout import (
    RolloutCalls,
    next_turn_ids,
    policy_sampler,
    render_prompt,
)

# seeds: a rollout's turns use attempt numbers below this (policy_sampler's formula)
MAX_ROUNDS = 32


@dataclass
class TokenRow:
    """One episode's tokens as GRPOTrainer takes them."""

    prompt_ids: list[int]
    completion_ids: list[int] = field(default_factory=list)
    env_mask: list[int] = field(default_factory=list)  # 1: sampled by the policy
    logprobs: list[float] = field(default_factory=list)
    messages_seen: int = 0  # of the conversation, the ones these tokens hold
    full: bool = False      # no room for another turn

    def extend(self, ids: list[int], sampled: bool, logprobs=None) -> None:
        self.completion_ids += ids
        self.env_mask += [int(sampled)] * len(ids)
        self.logprobs += list(logprobs) if logprobs is not None else [0.0] * len(ids)


class PolicyBackend(Backend):
    """The policy being trained, as the generation backend of `run_episodes` (module
    docstring): conversations are tracked by identity, each episode's message list
    growing in place from turn to turn."""

    name = "policy"

    def __init__(self, trainer, seed_base: int) -> None:
        self.tokenizer = trainer.processing_class
        self.budget = trainer.args.max_completion_length
        self._sample = policy_sampler(trainer, self.tokenizer, seed_base * MAX_ROUNDS,
                                      reuse_prefixes=True)
        self._rows: dict[int, TokenRow] = {}
        self._round = 0
        self.engine_logprobs = False  # whether the sampler gave log-probabilities (vLLM)

    def row(self, conversation: list[dict]) -> TokenRow:
        return self._rows[id(conversation)]

    def generate(self, conversations: list[list[dict]], settings: SamplingSettings,
                 progress: bool = True, tools: list | None = None) -> list[list[Generation]]:
        if self._round >= MAX_ROUNDS:
            raise ValueError(f"an episode of more than {MAX_ROUNDS} turns")
        rows = [self._catch_up(conversation, tools) for conversation in conversations]
        room = [0 if row.full else self.budget - len(row.completion_ids) for row in rows]
        asked = [i for i, left in enumerate(room) if left > 0]
        contexts = {i: rows[i].prompt_ids + rows[i].completion_ids for i in asked}
        new_ids, logprobs = self._sample([contexts[i] for i in asked], self._round,
                                         max((room[i] for i in asked), default=None))
        self._round += 1
        self.engine_logprobs = logprobs is not None
        generations = [self._overflow(row) for row in rows]
        for k, i in enumerate(asked):
            ids = list(new_ids[k])[:room[i]]
            rows[i].extend(ids, sampled=True,
                           logprobs=logprobs[k][:room[i]] if logprobs is not None else None)
            generations[i] = self._generation(ids, contexts[i])
        return [[generation] for generation in generations]

    def _catch_up(self, conversation: list[dict], tools: list | None) -> TokenRow:
        """The episode's tokens up to the opening of its next turn: its prompt the first
        time, then the tool results since the turn last sampled."""
        row = self._rows.get(id(conversation))
        if row is None:
            row = self._rows[id(conversation)] = TokenRow(
                render_prompt(self.tokenizer, conversation, tools), messages_seen=len(conversation))
            return row
        # the first new message is the assistant turn the tokens already hold
        turn = conversation[row.messages_seen]
        results = [m for m in conversation[row.messages_seen + 1:] if m["role"] == "tool"]
        row.messages_seen = len(conversation)
        suffix = next_turn_ids(self.tokenizer, results, self.tokenizer.decode(row.completion_ids[-1:]),
                               tool_calls=turn.get("tool_calls"))
        if len(row.completion_ids) + len(suffix) >= self.budget:
            row.full = True  # the results do not fit: the episode ends here, truncated
        else:
            row.extend(suffix, sampled=False)
        return row

    def _generation(self, ids: list[int], context: list[int]) -> Generation:
        stopped = bool(ids) and ids[-1] in self._sample.stop_ids
        kept = ids[:-1] if stopped else ids
        return Generation(text=self.tokenizer.decode(kept, skip_special_tokens=True),
                          finish_reason="stop" if stopped else "length",
                          prompt_tokens=len(context), completion_tokens=len(ids),
                          token_ids=tuple(ids), prompt_token_ids=tuple(context))

    @staticmethod
    def _overflow(row: TokenRow) -> Generation:
        """A turn with no room left: the episode ends truncated."""
        return Generation(text="", finish_reason="length", prompt_tokens=len(row.prompt_ids),
                          completion_tokens=0, token_ids=(), prompt_token_ids=())


class MultiTurnRollout:
    """GRPOTrainer's `rollout_func` for the multi-turn settings (module docstring). Its
    `answer_*` fields give the reward what each episode handed in."""

    def __init__(self, setting: MultiTurnSetting, problems: list[Problem], pool) -> None:
        self.__name__ = f"{setting.name}_rollout"
        self.setting = setting
        self.problems = {p.problem_id: p for p in problems}
        self.pool = pool
        self._by_prompt = {setting.messages(p)[-1]["content"]: p.problem_id for p in problems}
        if len(self._by_prompt) != len(problems):
            raise ValueError("two problems have the same prompt")
        self.calls = RolloutCalls()

    def __call__(self, prompts: list[list[dict]], trainer) -> dict:
        call = self.calls.next(trainer)
        episodes = []
        for index, messages in enumerate(prompts):
            problem_id = self._by_prompt[messages[-1]["content"]]
            environment = self.setting.environment(self.problems, self.pool)
            environment.reset(problem_id=problem_id)
            episodes.append(Episode(problem_id, index, [dict(m) for m in messages], environment))
        backend = PolicyBackend(trainer, seed_base=call)
        args = trainer.args
        sampling = SamplingSettings(n=1, temperature=args.temperature, top_p=args.top_p,
                                    max_new_tokens=args.max_completion_length, seed=args.seed)
        try:
            run_episodes(backend, episodes, sampling, self.setting.max_turns, progress=False)
            answers = [e.answer() for e in episodes]
        finally:
            for episode in episodes:
                end_episode(episode.environment)
        rows = [backend.row(e.messages) for e in episodes]
        return {"prompt_ids": [r.prompt_ids for r in rows],
                "completion_ids": [r.completion_ids for r in rows],
                "logprobs": [r.logprobs for r in rows] if backend.engine_logprobs else None,
                "env_mask": [r.env_mask for r in rows],
                "answer_completion": [a.completion for a in answers],
                "answer_code": [a.code for a in answers],
                "answer_error": [a.episode_error for a in answers],
                "answer_truncated": [e.finish_reason == "length" for e in episodes],
                "turns": [e.turns for e in episodes],
                "tool_calls": [e.tool_calls for e in episodes]}
