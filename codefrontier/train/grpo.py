"""GRPO with TRL's GRPOTrainer and a reward computed by the judge.

One run per reward (R_k for a k, R_inf, or a shaping variant). Single-turn completions
are sampled by the evaluation's compacting sampler (train/rollout.py) unless vLLM
samples; multi-turn episodes are played by the evaluation's episode runner
(train/multi_turn.py). The loss scores the rows in micro-batches trimmed of
padding (train/trimmed_rows.py). Completions are
judged in the sandbox by a JudgePool whose workers are fresh processes started
before the trainer touches an accelerator; a hostile or broken completion gets
a verdict, never an exception in the training loop. For R_k only the tests the
reward looks at are run (those shorter than 10^k bytes), which keeps slow
programs from spending the time limit on tests that cannot change the reward.

Per reward call the verdict mix (shares of the four outcomes, and of TLE/MLE
among failures) and the rung disagreements (per adjacent rungs R_j, R_j+1 whose tests
the run judges: the share of judged programs that one accepts and the other rejects)
go to the trainer's logs and to `rewards.jsonl` in the work folder.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import math
import os
import time
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

from codefrontier.judge import JudgePool, Sample
from codefrontier.judge.pool import workers_per_process
from codefrontier.judge.verdicts import OUTCOMES
from codefrontier.problems.schema import Problem, load_problems
from codefrontier.rewards import parse_reward, rung_disagreements, tests_needed
from codefrontier.settings.base import Setting
from codefrontier.settings.multi_turn import MultiTurnSetting
from codefrontier.settings.registry import default_setting, get_setting, repair_setting
from codefrontier.train.common import (
    start_submission,
    train_and_save,
    trainer_config,
    work_dir_for,
)
from codefrontier.train.lm_head import GRPO_OUTPUTS, compact_lm_head
from codefrontier.train.multi_turn import MultiTurnRollout
from codefrontier.train.repair import REPAIR_LOG, RepairOptions, RepairRollout
from codefrontier.train.rollout import SingleTurnRollout
from codefrontier.train.submissions import Submission
from codefrontier.train.trimmed_rows import trimmed

log = logging.getLogger("codefrontier.train.grpo")

REWARD_LOG = "rewards.jsonl"  # in the work folder; a run that restarts from step 0 clears it
# with `log_samples`: every judged sample (its verdicts and CPU time per test, its reward)
JUDGED_LOG = "judged.jsonl"
# what that log keeps of each judged sample (judge.pool.SampleResult)
JUDGED_FIELDS = ("problem_id", "sample_id", "outcome", "verdicts", "input_lens", "cpu_s",
                 "timing_runs", "tle_cause")
DEFAULTS = {
    "learning_rate": 1e-4,
    "num_generations": 8,
    "per_device_train_batch_size": 32,  # completions, i.e. 4 prompts x 8
    "gradient_accumulation_steps": 1,
    "max_completion_length": 512,
    "temperature": 1.0,
    "beta": 0.0,
    "max_steps": 100,
    "logging_steps": 1,
    "save_strategy": "steps",
    "save_steps": 10,
    "save_total_limit": 2,
    "report_to": "none",
    "seed": 0,
    "dataloader_num_workers": 0,
}


def restrict_tests(problem: Problem, bound: float) -> Problem:
    """The problem with only the tests shorter than `bound` (at least the shortest one)."""
    if math.isinf(bound):
        return problem
    ordered = problem.tests_by_input_length()
    kept = tuple(t for t in ordered if t.input_len < bound) or ordered[:1]
    return dataclasses.replace(problem, tests=kept)


class JudgeReward:
    """A TRL reward function: completions -> rewards, through the sandboxed judge."""

    def __init__(self, reward: str, problems: Mapping[str, Problem], pool: JudgePool,
                 max_completion_length: int, log_path: Path | None = None,
                 samples_path: Path | None = None) -> None:
        self.__name__ = f"judge_{reward}"  # TRL names the reward's log columns after it
        self.reward = reward
        self._score = parse_reward(reward)
        bound, self._all_tests = tests_needed(reward)
        self._bound = bound
        self.problems = {pid: restrict_tests(p, bound) for pid, p in problems.items()}
        self.pool = pool
        self.max_completion_length = max_completion_length
        self.log_path = log_path
        self.samples_path = samples_path
        self.calls = 0

    def __call__(self, prompts, completions, completion_ids, problem_id, trainer_state=None,
                 log_metric=None, final_text=None, final_truncated=None, first_reward=None,
                 first_attempt_weight=None, answer_completion=None, answer_code=None,
                 answer_error=None, answer_truncated=None, **_) -> list[float]:
        """`final_text` / `final_truncated` (a repair rollout's fields) name the program
        to judge when the completion holds more than one attempt; `first_reward` (the
        first attempt's, None without one) enters with `first_attempt_weight`. The
        `answer_*` fields (a multi-turn rollout's) are what each episode handed in."""
        if answer_completion is not None:
            samples = [Sample(pid, index, completion=text, code=code,
                              finish_reason="length" if truncated else "stop",
                              episode_error=error)
                       for index, (pid, text, code, error, truncated) in enumerate(zip(
                           problem_id, answer_completion, answer_code, answer_error,
                           answer_truncated, strict=True))]
        elif final_text is not None:
            samples = [Sample(pid, index, completion=text,
                              finish_reason="length" if truncated else "stop")
                       for index, (text, truncated, pid) in enumerate(
                           zip(final_text, final_truncated, problem_id, strict=True))]
        else:
            samples = [self._sample(pid, index, completion, ids)
                       for index, (completion, ids, pid) in enumerate(
                           zip(completions, completion_ids, problem_id, strict=True))]
        start = time.perf_counter()
        results = self.judge(samples)
        rewards = [self.score(r) for r in results]
        if first_reward is not None:
            rewards = [final if first is None else weight * first + (1 - weight) * final
                       for final, first, weight in zip(rewards, first_reward,
                                                       first_attempt_weight, strict=True)]
        self._record(results, rewards, list(problem_id), trainer_state, log_metric,
                     judge_s=time.perf_counter() - start)
        return rewards

    def score(self, result) -> float:
        """The reward of one judged sample (a format error earns 0)."""
        if result.outcome == "format_error":
            return 0.0
        return self._score(result.verdicts, result.input_lens)

    def judge(self, samples: list[Sample]) -> list:
        """Judge samples on the tests this reward looks at."""
        return self.pool.judge(self.problems, samples, all_tests=self._all_tests)

    def _sample(self, problem_id: str, index: int, completion, ids) -> Sample:
        """What the judge gets from a single-turn rollout: the completion's text."""
        truncated = len(ids) >= self.max_completion_length
        return Sample(problem_id, index, completion=_text(completion),
                      finish_reason="length" if truncated else "stop")

    def _record(self, results, rewards, problem_ids, trainer_state, log_metric,
                judge_s: float = 0.0) -> None:
        self.calls += 1
        outcomes = Counter(r.outcome for r in results)
        failing = [r.verdicts[r.first_failure] for r in results if r.first_failure is not None]
        mix = {f"outcome/{name}": outcomes[name] / len(results) for name in OUTCOMES}
        mix["verdict/tle_mle_share_of_failures"] = (
            sum(v in ("TLE", "MLE") for v in failing) / len(failing) if failing else 0.0)
        mix["groups/zero_variance_share"] = zero_variance_share(rewards, problem_ids)
        judged = [(r.verdicts, r.input_lens) for r in results if r.outcome != "format_error"]
        mix |= {f"rungs/{pair}": share
                for pair, share in rung_disagreements(judged, self._bound).items()}
        if log_metric is not None:
            for name, value in mix.items():
                log_metric(name, value)
        step = trainer_state.global_step if trainer_state is not None else None
        if self.log_path is not None:
            entry = {"call": self.calls, "step": step, "reward": self.reward,
                     "mean_reward": sum(rewards) / len(rewards), "samples": len(results),
                     "judge_s": round(judge_s, 3), **mix}
            with self.log_path.open("a") as handle:
                handle.write(json.dumps(entry) + "\n")
        if self.samples_path is not None:
            with self.samples_path.open("a") as handle:
                for result, reward in zip(results, rewards, strict=True):
                    judged = {key: getattr(result, key) for key in JUDGED_FIELDS}
                    handle.write(json.dumps({"call": self.calls, "step": step, "reward": reward,
                                             **judged}) + "\n")


def zero_variance_share(rewards: list[float], problem_ids: list[str]) -> float:
    """The share of prompt groups (completions of one problem) whose rewards are all equal:
    GRPO's advantage is zero there, so they teach nothing."""
    groups: dict[str, set[float]] = {}
    for reward, pid in zip(rewards, problem_ids, strict=True):
        groups.setdefault(pid, set()).add(reward)
    return sum(len(values) == 1 for values in groups.values()) / len(groups) if groups else 0.0


def _text(completion) -> str:
    """TRL passes conversational completions as a list of messages."""
    if isinstance(completion, list):
        return "".join(m.get("content", "") for m in completion if m.get("role") == "assistant")
    return completion


def prompt_dataset(problems: list[Problem], setting: Setting):
    from datasets import Dataset

    return Dataset.from_list([{"prompt": setting.messages(p), "problem_id": p.problem_id}
                              for p in problems])


def engine_for_weight_sync(config):
    """Around the trainer's creation: with vLLM in colocate mode on a CPU, an engine whose
    layers TRL's weight sync reaches (generation/vllm_backend.py); else nothing."""
    if config.use_vllm and config.vllm_mode == "colocate":
        from codefrontier.generation.vllm_backend import trainable_cpu_engine

        return trainable_cpu_engine()
    return contextlib.nullcontext()


def run_grpo(model: str, problems_path: str | os.PathLike, reward: str, out: str | os.PathLike,
             overrides: dict | None = None, work_dir: str | os.PathLike | None = None,
             judge_workers: int | None = None, reward_function=None,
             setting: str | None = None, episode_limits: dict | None = None,
             repair: RepairOptions | None = None, log_samples: bool = False,
             keep_checkpoints: bool = False, submission: Submission | None = None) -> Path:
    """Train `model` with GRPO on the problems under `reward` in `setting`; the result is
    a save_pretrained folder. Multi-turn settings play their episodes with the
    evaluation's episode runner (train/multi_turn.py), rewarded on what the episode
    handed in. `repair` makes it a repair
    run (train/repair.py: first attempt, feedback, second attempt; in the setting where
    repair runs, settings/registry.py). `setting` defaults to the registry's first.
    `reward_function` replaces the judge's reward by any TRL reward function (its result
    is still named `reward` in the provenance). `log_samples` writes every judged sample
    to OUT.work/judged.jsonl (JUDGED_FIELDS and its reward). The trainer checkpoints are
    removed once the result is published, unless `keep_checkpoints`. Stopped before its
    `submission`'s deadline or by a signal, it raises StoppedToResubmit."""
    out = Path(out)
    work = work_dir_for(out, work_dir)
    deadline = start_submission(work, submission)
    problems = list(load_problems(problems_path))
    setting = setting or default_setting()
    runner = get_setting(setting, episode_limits)
    if repair is not None and (setting != repair_setting() or reward_function is not None):
        raise ValueError(f"repair training runs in the {repair_setting()} setting, with the "
                         "judge's reward")
    overrides = dict(overrides or {})
    # Judge workers first: fresh processes, before the trainer creates threads or a CUDA context.
    with JudgePool(workers=workers_per_process(judge_workers)) as pool:
        from trl import GRPOConfig, GRPOTrainer

        from codefrontier.models.checkpoint_io import load_tokenizer

        config = trainer_config(GRPOConfig, DEFAULTS, overrides, work)
        work.mkdir(parents=True, exist_ok=True)
        if reward_function is None:
            reward_function = JudgeReward(reward, {p.problem_id: p for p in problems}, pool,
                                          config.max_completion_length, work / REWARD_LOG,
                                          work / JUDGED_LOG if log_samples else None)
        extra = {}
        if repair is not None:
            extra["rollout_func"] = RepairRollout(problems, runner, reward_function, repair,
                                                  work / REPAIR_LOG)
        elif isinstance(runner, MultiTurnSetting):
            extra["rollout_func"] = MultiTurnRollout(runner, problems, pool)
        elif SingleTurnRollout.serves(config):
            extra["rollout_func"] = SingleTurnRollout()  # the compacting sampler
        with engine_for_weight_sync(config):  # TRL's sync must reach its layers
            trainer = trimmed(GRPOTrainer)(
                model=model, reward_funcs=[reward_function], args=config,
                train_dataset=prompt_dataset(problems, runner),
                processing_class=load_tokenizer(model), **extra)
        compact_lm_head(trainer.model, trainer.temperature, GRPO_OUTPUTS)
        if trainer.ref_model is not None:
            compact_lm_head(trainer.ref_model, trainer.temperature)
        repair_fields = {"repair": dataclasses.asdict(repair)} if repair is not None else {}
        return train_and_save(trainer, work, out, model, [problems_path],
                              run_files=(REWARD_LOG, REPAIR_LOG, JUDGED_LOG),
                              keep_checkpoints=keep_checkpoints, deadline=deadline,
                              kind="rl", reward=reward,
                              setting=setting, episode_limits=episode_limits or {},
                              **repair_fields)
