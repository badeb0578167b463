"""`codefrontier rl-log`: a GRPO run's logs per window of steps."""

import json

from codefrontier.train.rl_log import run_summary


def write_log(path, entries):
    path.write_text("".join(json.dumps(entry) + "\n" for entry in entries))


def reward_call(step, mean, samples=4):
    return {"call": step + 1, "step": step, "reward": "kinf", "mean_reward": mean,
            "samples": samples, "outcome/correct": mean, "outcome/optimization_failure": 0.0,
            "outcome/correctness_failure": 1 - mean, "outcome/format_error": 0.0}


def repair_call(step, correct, fresh=4, replayed=0, seconds=2):
    return {"call": step + 1, "step": step, "rows": fresh + replayed, "replayed_rows": replayed,
            "fresh_rows": fresh, "first/correct": correct, "first/optimization_failure": 1,
            "first/correctness_failure": fresh - correct - 1, "first/format_error": 0,
            "second_attempts": seconds, "buffer": 3}


def test_windows_average_rewards_and_sum_repairs(tmp_path):
    work = tmp_path / "rl.work"
    work.mkdir()
    write_log(work / "rewards.jsonl", [reward_call(0, 0.25), reward_call(1, 0.75),
                                       reward_call(2, 0.5)])
    write_log(work / "repair.jsonl", [repair_call(0, 1), repair_call(1, 3, replayed=4),
                                      repair_call(2, 2)])
    table = run_summary(tmp_path / "rl", window=2)
    rows = [line for line in table.splitlines() if line.startswith("| 1") or line.startswith("| 3")]
    assert rows[0] == "| 1–2 | 0.500 | 0.500 | 0.000 | 0.500 | 0.000 | 0.500 | 0.250 | 4 | 4 |"
    assert rows[1].startswith("| 3–3 | 0.500 |")
    assert "(kinf)" in table


def test_a_run_without_logs_says_so(tmp_path):
    assert "no rewards.jsonl" in run_summary(tmp_path / "rl", window=5)


def test_rung_disagreements_are_averaged_per_window(tmp_path):
    work = tmp_path / "rl.work"
    work.mkdir()
    calls = [reward_call(0, 0.5), reward_call(1, 0.5)]
    calls[0] |= {"rungs/R_1≠R_2": 0.0, "rungs/R_2≠R_3": 0.5}
    calls[1] |= {"rungs/R_1≠R_2": 0.25, "rungs/R_2≠R_3": 0.0}
    write_log(work / "rewards.jsonl", calls)
    table = run_summary(tmp_path / "rl", window=2)
    assert "R_1≠R_2 | R_2≠R_3 |" in table
    assert table.splitlines()[-1].endswith("| 0.125 | 0.250 |")
