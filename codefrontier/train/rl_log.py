"""What a GRPO run's logs say (`codefrontier rl-log`): the reward, the outcome mix and
the rung disagreements (R_j≠R_j+1: the share of judged programs that adjacent rungs
judge differently, for the rungs whose tests the run judged) per reward call from
`OUT.work/rewards.jsonl`, and for a repair run the first attempts' outcomes and the
second attempts from `OUT.work/repair.jsonl`, summed over windows of steps."""

from __future__ import annotations

import json
from pathlib import Path

from codefrontier.judge.verdicts import OUTCOMES
from codefrontier.train.grpo import REWARD_LOG
from codefrontier.train.repair import REPAIR_LOG


def read_log(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def windows(entries: list, size: int) -> list[list]:
    """Consecutive windows of `size` entries (the last one may be shorter)."""
    return [entries[i:i + size] for i in range(0, len(entries), size)]


RUNG_PREFIX = "rungs/"


def rung_pairs(calls: list[dict]) -> list[str]:
    """The rung pairs (`R_2≠R_3`, ...) the calls logged, in the order first logged
    (logs written before rung disagreements were logged have none)."""
    return list(dict.fromkeys(key[len(RUNG_PREFIX):] for call in calls for key in call
                              if key.startswith(RUNG_PREFIX)))


def reward_row(calls: list[dict]) -> dict:
    """Mean reward, outcome mix and rung disagreements over reward calls, weighted by
    their samples."""
    samples = sum(c["samples"] for c in calls)

    def mean(key: str) -> float:
        return sum(c.get(key, 0.0) * c["samples"] for c in calls) / samples

    return {"mean_reward": mean("mean_reward"), **{o: mean(f"outcome/{o}") for o in OUTCOMES},
            **{pair: mean(RUNG_PREFIX + pair) for pair in rung_pairs(calls)}}


def repair_row(calls: list[dict]) -> dict:
    """First attempts' outcome shares (of the fresh rows), second attempts, replayed rows."""
    fresh = sum(c["fresh_rows"] for c in calls)
    return {"fresh": fresh, "replayed": sum(c["replayed_rows"] for c in calls),
            "second_attempts": sum(c["second_attempts"] for c in calls),
            **{f"first_{o}": sum(c[f"first/{o}"] for c in calls) / fresh if fresh else 0.0
               for o in OUTCOMES}}


def run_summary(run: Path, window: int) -> str:
    """A Markdown table of one run's logs, `window` reward calls a row."""
    work = run.with_name(run.name + ".work") if not run.name.endswith(".work") else run
    rewards, repairs = read_log(work / REWARD_LOG), read_log(work / REPAIR_LOG)
    if not rewards:
        return f"### {run}\n\nno {REWARD_LOG} in {work}\n"
    pairs = rung_pairs(rewards)
    header = ["steps", "mean reward", *(o.replace("_", " ") for o in OUTCOMES), *pairs]
    if repairs:
        header += ["first attempts correct", "first attempts optimization failure",
                   "second attempts", "replayed rows"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    repair_windows = windows(repairs, window) if repairs else []
    for index, calls in enumerate(windows(rewards, window)):
        row = reward_row(calls)
        cells = [f"{index * window + 1}–{index * window + len(calls)}",
                 f"{row['mean_reward']:.3f}", *(f"{row[o]:.3f}" for o in OUTCOMES),
                 *(f"{row.get(pair, 0.0):.3f}" for pair in pairs)]
        if index < len(repair_windows):
            more = repair_row(repair_windows[index])
            cells += [f"{more['first_correct']:.3f}", f"{more['first_optimization_failure']:.3f}",
                      str(more["second_attempts"]), str(more["replayed"])]
        lines.append("| " + " | ".join(cells) + " |")
    return f"### {run} ({rewards[0].get('reward')})\n\n" + "\n".join(lines) + "\n"
