"""Repair training: GRPO on episodes of first attempt -> feedback -> second attempt.

A TRL `rollout_func` (GRPOTrainer's seam for rollouts of one's own) plays the episodes
with the policy being trained. The rows of a GRPO batch come in groups, one problem per
group (TRL repeats each prompt `num_generations` times). A group is either

* fresh: each row is an episode. The policy writes a first attempt in the reasoning
  format and the judge runs it on the reward's tests. An optimization or correctness
  failure gets the feedback that a second attempt at evaluation gets (feedback.py: the same
  renderer and token cap) as a user turn, and the policy answers once more. The
  completion is first attempt + feedback + second attempt; the feedback's tokens carry
  no loss (the rollout's `env_mask`, which TRL treats as the tool mask of the multi-turn
  settings). A first attempt that passes, or has no program, ends the episode. Every
  repairable failure enters the replay buffer;
* replayed (`replay_share` of the groups, as far as the buffer holds failures): the
  group's problem gives way to the newest failure in the buffer, of whatever problem.
  The policy answers the second-attempt conversation of evaluation
  (evaluate.second_attempt.second_attempt_conversation)
  around that failure of the policy itself. The row's prompt is the failure's task; its
  completion is the failed program and the feedback, which carry no loss, then the
  second attempt; the rows' `problem_id` (which the reward reads) is the failure's.

The reward (grpo.JudgeReward) judges each row's final program, the second attempt where
there is one, with the run's reward (R_inf or an R_k); with `first_attempt_weight` w an
episode earns w·R(first attempt) + (1 − w)·R(final program) (replayed rows, which hold no
first attempt, earn R(final)). Each call appends what happened
(groups, first-attempt outcomes, repairs, buffer size) to `repair.jsonl` in the work
folder.
"""

from __future__ import annotations

import json
import random
from collections import Counter, deque
from dataclasses import asdict, dataclass
from pathlib import Path

from codefrontier.base.options import option
from codefrontier.evaluate.feedback import MAX_FEEDBACK_TOKENS, judged_feedback
from codefrontier.evaluate.second_attempt import (
    SECOND_ATTEMPT_OUTCOMES,
    second_attempt_conversation,
    token_counter,
)
from codefrontier.judge import Sample
from codefrontier.judge.extract import extract_code
from codefrontier.judge.verdicts import OUTCOMES
from codefrontier.problems.schema import Problem
from codefrontier.train.rollout import (
    RolloutCalls,
    next_turn_ids,
    policy_sampler,
    render_prompt,
)

REPAIR_LOG = "repair.jsonl"  # in the work folder, beside rewards.jsonl


@dataclass(frozen=True)
class RepairOptions:
    """What a repair run adds to GRPO (`train grpo --repair`; the config's `rl.repair`)."""

    replay_share: float = option(0.25, "share of each batch's problems that replay a recent "
                                       "failure of the policy")
    buffer_size: int = option(64, "recent failures kept for replay (oldest dropped first)")
    max_feedback_tokens: int = option(MAX_FEEDBACK_TOKENS,
                                      "the feedback message's cap, as at evaluation")
    # 0 rewards the final program alone, so a repaired first attempt earns as much as a
    # correct one
    first_attempt_weight: float = option(0.0, "w: an episode earns w·R(first attempt) + "
                                              "(1 − w)·R(final program)")

    def __post_init__(self) -> None:
        for name in ("replay_share", "first_attempt_weight"):
            if not 0 <= getattr(self, name) <= 1:
                raise ValueError(f"{name} must be in [0, 1], got {getattr(self, name)}")
        if self.buffer_size < 1 or self.max_feedback_tokens < 1:
            raise ValueError("buffer_size and max_feedback_tokens must be at least 1")


@dataclass(frozen=True)
class Failure:
    """A failed first attempt of the policy and the feedback it got."""

    problem_id: str
    program: str
    feedback: str
    step: int


class ReplayBuffer:
    """The policy's recent failures, at most `capacity` (the oldest go first); a replay
    takes the newest out."""

    def __init__(self, capacity: int) -> None:
        self._failures: deque[Failure] = deque(maxlen=capacity)

    def __len__(self) -> int:
        return len(self._failures)

    def add(self, failure: Failure) -> None:
        self._failures.append(failure)

    def take(self) -> Failure:
        return self._failures.pop()


def row_groups(problem_ids: list[str]) -> list[range]:
    """The runs of consecutive rows with one problem (TRL's repeated prompts)."""
    groups, start = [], 0
    for index in range(1, len(problem_ids) + 1):
        if index == len(problem_ids) or problem_ids[index] != problem_ids[start]:
            groups.append(range(start, index))
            start = index
    return groups


def replay_groups(groups: int, buffered: int, share: float, rng: random.Random) -> list[int]:
    """Which of `groups` groups replay a failure: round(share x groups) of them, drawn at
    random, at most one per buffered failure."""
    wanted = min(round(share * groups), buffered)
    return sorted(rng.sample(range(groups), wanted))


class RepairRollout:
    """GRPOTrainer's `rollout_func` for repair training (module docstring)."""

    def __init__(self, problems: list[Problem], setting, reward, options: RepairOptions,
                 log_path: Path | None = None) -> None:
        self.__name__ = "repair_rollout"
        self.setting = setting            # the reasoning setting: prompts and answer format
        self.reward = reward              # grpo.JudgeReward: the reward's tests and pool
        self.options = options
        self.log_path = log_path
        self.buffer = ReplayBuffer(options.buffer_size)
        self.problems = {p.problem_id: p for p in problems}
        self._by_prompt: dict[str, str] = {}
        for problem in problems:
            key = self._prompt_key(setting.messages(problem))
            if self._by_prompt.setdefault(key, problem.problem_id) != problem.problem_id:
                raise ValueError(f"two problems have the same prompt: {problem.problem_id}")
        self.calls = RolloutCalls()

    @staticmethod
    def _prompt_key(messages: list[dict]) -> str:
        return messages[-1]["content"]

    def __call__(self, prompts: list[list[dict]], trainer) -> dict:
        call = self.calls.next(trainer)
        step = trainer.state.global_step
        rng = random.Random(trainer.args.seed * 1_000_003 + call)
        tokenizer = trainer.processing_class
        problem_ids = [self._by_prompt[self._prompt_key(p)] for p in prompts]
        groups = row_groups(problem_ids)
        contexts = list(prompts)
        is_replay = [False] * len(prompts)
        for group in replay_groups(len(groups), len(self.buffer), self.options.replay_share,
                                   rng):
            failure = self.buffer.take()
            conversation = second_attempt_conversation(self.problems[failure.problem_id],
                                               failure.program, failure.feedback)
            for row in groups[group]:
                contexts[row], problem_ids[row], is_replay[row] = \
                    conversation, failure.problem_id, True

        generate = policy_sampler(trainer, tokenizer, seed_base=call, reuse_prefixes=True)
        prompt_ids = [render_prompt(tokenizer, c) for c in contexts]
        firsts, first_logprobs = generate(prompt_ids, 0)
        completion_ids = [list(ids) for ids in firsts]
        env_mask = [[1] * len(ids) for ids in firsts]
        # vLLM's log-probability of each completion token; 0 where the rollout wrote it
        logprobs = [list(lp) for lp in first_logprobs] if first_logprobs is not None else None
        final_ids = [list(ids) for ids in firsts]

        fresh = [i for i in range(len(prompts)) if not is_replay[i]]
        first_results = self.reward.judge([self._sample(problem_ids[i], i, firsts[i], tokenizer,
                                                        generate.stop_ids)
                                           for i in fresh])
        repairs, second_prompts = [], []
        count_tokens = token_counter(tokenizer)
        for i, result in zip(fresh, first_results, strict=True):
            if result.outcome not in SECOND_ATTEMPT_OUTCOMES:
                continue
            problem = self.problems[problem_ids[i]]
            program = extract_code(self._text(tokenizer, firsts[i]))
            feedback = judged_feedback(self.reward.pool, problem, program, asdict(result),
                                       self.options.max_feedback_tokens, count_tokens)
            self.buffer.add(Failure(problem.problem_id, program, feedback, step))
            turn = next_turn_ids(tokenizer, [{"role": "user", "content": feedback}],
                                 tokenizer.decode(firsts[i][-1:]))
            repairs.append((i, turn))
            second_prompts.append(prompt_ids[i] + firsts[i] + turn)
        seconds, second_logprobs = generate(second_prompts, 1)
        attempts = [1] * len(prompts)
        for index, ((i, turn), second) in enumerate(zip(repairs, seconds, strict=True)):
            attempts[i] = 2
            completion_ids[i] += turn + second
            env_mask[i] += [0] * len(turn) + [1] * len(second)
            final_ids[i] = list(second)
            if logprobs is not None:
                logprobs[i] += [0.0] * len(turn) + list(second_logprobs[index])

        for i in (i for i in range(len(prompts)) if is_replay[i]):
            prompt_ids[i], context = self._split_replay(tokenizer, contexts[i], prompt_ids[i])
            completion_ids[i] = context + completion_ids[i]
            env_mask[i] = [0] * len(context) + env_mask[i]
            if logprobs is not None:
                logprobs[i] = [0.0] * len(context) + logprobs[i]

        first_reward: list[float | None] = [None] * len(prompts)
        for i, result in zip(fresh, first_results, strict=True):
            first_reward[i] = self.reward.score(result)
        self._log(step, is_replay, first_results, len(repairs))
        return {"prompt_ids": prompt_ids, "completion_ids": completion_ids, "logprobs": logprobs,
                "env_mask": env_mask,
                "final_text": [self._text(tokenizer, ids) for ids in final_ids],
                "final_truncated": [not ids or ids[-1] not in generate.stop_ids
                                    for ids in final_ids],
                "attempts": attempts, "problem_id": problem_ids,
                "first_reward": first_reward,
                "first_attempt_weight": self.options.first_attempt_weight}

    @staticmethod
    def _split_replay(tokenizer, conversation: list[dict],
                      ids: list[int]) -> tuple[list[int], list[int]]:
        """A replayed row's rendered repair conversation split into the task prompt and
        the failed program with its feedback, which go to the completion with no loss.
        The loss is the same as with all of it in the prompt, but TRL pads every prompt
        to the longest and every completion to the longest: the replayed rows' long
        prompts made every row of the batch half again as long."""
        task = render_prompt(tokenizer, conversation[:-2])  # the problem's own prompt
        if ids[:len(task)] != task:
            return ids, []  # the template renders the task otherwise here: keep it whole
        return task, ids[len(task):]

    @staticmethod
    def _text(tokenizer, ids: list[int]) -> str:
        return tokenizer.decode(ids, skip_special_tokens=True)

    def _sample(self, problem_id: str, index: int, ids: list[int], tokenizer,
                stop_ids: set[int]) -> Sample:
        truncated = not ids or ids[-1] not in stop_ids
        return Sample(problem_id, index, completion=self._text(tokenizer, ids),
                      finish_reason="length" if truncated else "stop")

    def _log(self, step: int, is_replay: list[bool], first_results, repaired_rows: int) -> None:
        if self.log_path is None:
            return
        outcomes = Counter(r.outcome for r in first_results)
        entry = {"call": self.calls.count, "step": step, "rows": len(is_replay),
                 "replayed_rows": sum(is_replay), "fresh_rows": len(first_results),
                 **{f"first/{name}": outcomes[name] for name in OUTCOMES},
                 "second_attempts": repaired_rows, "buffer": len(self.buffer)}
        with self.log_path.open("a") as handle:
            handle.write(json.dumps(entry) + "\n")
