"""Aggregation of verdicts into frontier and ensemble rows, on hand-written verdict files."""

import dataclasses
import math

import pytest
from conftest import stdin_problem

from codefrontier.ensemble import ensemble_rows, pools_for
from codefrontier.frontier import Checkpoint, frontier_rows
from codefrontier.judge.files import VERDICTS_SCHEMA
from codefrontier.problems import Test, save_problems
from codefrontier.settings.base import SAMPLES_SCHEMA
from codefrontier.tables import write_records


def verdict(problem_id, sample_id, outcome, cause=None):
    return {"problem_id": problem_id, "sample_id": sample_id, "outcome": outcome, "verdicts": [],
            "input_lens": [], "cpu_s": [], "peak_mb": [], "first_failure": None,
            "max_passed_input_len": None, "format_error_cause": cause, "error": "",
            "isolation": "namespaces"}


def write_checkpoint(root, name, outcomes):
    """outcomes: {problem_id: [outcome, ...]}"""
    folder = root / "results" / "m" / "reasoning" / name
    rows, samples = [], []
    for pid, values in outcomes.items():
        for index, outcome in enumerate(values):
            rows.append(verdict(pid, index, outcome, "truncated" if outcome == "format_error" else None))
            samples.append({"problem_id": pid, "sample_id": index, "setting": "reasoning",
                            "completion": "", "finish_reason": "stop", "prompt_tokens": 5,
                            "completion_tokens": 10 * (index + 1), "turns": 1})
    write_records(rows, folder / "verdicts.parquet", schema=VERDICTS_SCHEMA)
    write_records(samples, folder / "samples.parquet", schema=SAMPLES_SCHEMA)
    return Checkpoint.from_verdicts_path(folder / "verdicts.parquet")


@pytest.fixture
def problems(tmp_path):
    tests = (Test("1 2\n", "3"),)
    path = tmp_path / "eval.parquet"
    hard = dataclasses.replace(stdin_problem("p-hard", tests=tests), difficulty="hard")
    save_problems([stdin_problem("p-easy", tests=tests), hard], path)
    return path


def test_rows_per_difficulty_and_all(tmp_path, problems):
    ckpt = write_checkpoint(tmp_path, "a1.5", {
        "p-easy": ["correct", "correct", "optimization_failure", "format_error"],
        "p-hard": ["correctness_failure", "correctness_failure", "correct", "correct"]})
    rows = {r["difficulty"]: r for r in frontier_rows([ckpt], problems, {"m": ("k2", "kinf")})}
    assert set(rows) == {"easy", "hard", "all"}
    everything = rows["all"]
    assert (everything["kind"], everything["alpha"], everything["reward"]) == ("merge", 1.5, "k2->kinf")

    assert everything["rate_correct"] == 0.5 and everything["rate_format_error"] == 0.125
    assert everything["format_truncated_rate"] == 0.125
    assert everything["pass_at_1"] == pytest.approx(0.5)
    assert everything["mean_completion_tokens"] == pytest.approx(25.0)
    assert rows["easy"]["rate_optimization_failure"] == 0.25 and rows["easy"]["problems"] == 1


def test_the_rl_endpoints_are_the_alpha_curve_at_0_and_1(tmp_path, problems):
    outcomes = {"p-easy": ["correct"], "p-hard": ["correct"]}
    low, high, other = (write_checkpoint(tmp_path, name, outcomes)
                        for name in ("rl-k2", "rl-kinf", "rl-k3"))
    rows = frontier_rows([low, high, other], problems, {"m": ("k2", "kinf")})
    alphas = {r["checkpoint"]: r["alpha"] for r in rows if r["difficulty"] == "all"}
    assert alphas == {"rl-k2": 0.0, "rl-kinf": 1.0, "rl-k3": None}

def test_pools_and_solve_sets(tmp_path):
    def ckpt(name, easy, hard):
        return write_checkpoint(tmp_path, name, {"p-easy": easy, "p-hard": hard})

    fail = ["correctness_failure"] * 4
    checkpoints = [ckpt("sft", ["correct"] * 4, fail), ckpt("rl-k2", ["correct", "correct", *fail[:2]], fail),
                   ckpt("rl-kinf", fail, fail), ckpt("a0.5", ["correct", *fail[:3]], fail),
                   ckpt("a2", fail, ["correct", *fail[:3]])]
    assert pools_for(["a0.5", "a2", "rl-k2", "rl-kinf", "sft"], "k2", "kinf") == {
        "single:a0.5": ["a0.5"], "single:a2": ["a2"], "single:rl-k2": ["rl-k2"],
        "single:rl-kinf": ["rl-kinf"], "single:sft": ["sft"],
        "interpolation": ["rl-k2", "a0.5", "rl-kinf"],  # the endpoints are α = 0 and α = 1
        "interpolation+extrapolation": ["rl-k2", "a0.5", "rl-kinf", "a2"],
        "rl-endpoints": ["rl-k2", "rl-kinf"]}
    rows = ensemble_rows(checkpoints, {"m": ("k2", "kinf")})
    by = {(r["pool"], r["k"]): r for r in rows}
    assert [r["k"] for r in rows if r["pool"] == "single:sft"] == [1, 2, 4]
    assert by[("single:sft", 1)]["pass_at_k"] == pytest.approx(0.5)
    assert by[("best-single", 1)]["members"] == ["sft"]
    # k = 2 over 4 members: two of them, chosen at random, draw one sample each
    easy_miss = (1 / 2 * 3 / 4 + 1 / 2 + 1 / 2 + 3 / 4 + 3 / 4 + 1) / 6
    hard_miss = (3 * 3 / 4 + 3) / 6
    assert by[("interpolation+extrapolation", 2)]["pass_at_k"] == pytest.approx(
        (1 - easy_miss + 1 - hard_miss) / 2)
    assert by[("interpolation+extrapolation", 1)]["solved_beyond_best"] == ["p-hard"]
    only = by[("only-extrapolated", None)]
    assert only["solved"] == ["p-hard"] and only["members"] == ["a2"]
    assert not math.isnan(by[("rl-endpoints", 4)]["pass_at_k"])


@pytest.fixture
def many_problems(tmp_path):
    """40 easy problems, p0 .. p39."""
    path = tmp_path / "many.parquet"
    save_problems([stdin_problem(f"p{i}", tests=(Test("1 2\n", "3"),)) for i in range(40)], path)
    return path


def test_standard_errors_are_clustered_by_problem(tmp_path, many_problems):
    ckpt = write_checkpoint(tmp_path, "sft", {
        "p0": ["correct", "correct", "correct", "correctness_failure"],
        "p1": ["optimization_failure", "optimization_failure"],
        "p2": ["correct", "correctness_failure", "correctness_failure"]})
    row = next(r for r in frontier_rows([ckpt], many_problems) if r["difficulty"] == "all")
    n = (4, 2, 3)

    def by_hand(x):  # x: samples with the outcome in p0, p1, p2
        p = sum(x) / sum(n)
        return math.sqrt(3 / 2 * sum((xi - p * ni) ** 2 for xi, ni in zip(x, n, strict=True))) / sum(n)

    assert row["se_correct"] == pytest.approx(by_hand((3, 0, 1)))
    assert row["se_optimization_failure"] == pytest.approx(by_hand((0, 2, 0)))
    assert row["se_correctness_failure"] == pytest.approx(by_hand((1, 0, 2)))
    assert row["se_format_error"] == 0.0


def test_standard_error_with_one_sample_per_problem_is_the_binomial_one(tmp_path, many_problems):
    outcomes = {f"p{i}": ["correct" if i < 10 else "correctness_failure"] for i in range(40)}
    row = next(r for r in frontier_rows([write_checkpoint(tmp_path, "sft", outcomes)], many_problems)
               if r["difficulty"] == "all")
    assert row["se_correct"] == pytest.approx(math.sqrt(0.25 * 0.75 / 40), rel=0.02)


def test_standard_error_of_a_single_problem_is_nan(tmp_path, problems):
    ckpt = write_checkpoint(tmp_path, "sft", {"p-easy": ["correct", "correctness_failure"],
                                              "p-hard": ["correct", "correct"]})
    rows = {r["difficulty"]: r for r in frontier_rows([ckpt], problems)}
    assert math.isnan(rows["easy"]["se_correct"])
    assert not math.isnan(rows["all"]["se_correct"])


def test_bootstrap_interval_of_equal_differences_is_that_value():
    import numpy as np

    from codefrontier.ensemble import bootstrap_interval

    assert bootstrap_interval(np.full(30, 0.25)) == pytest.approx((0.25, 0.25))
    low, high = bootstrap_interval(np.array([0.0, 1.0] * 20))
    assert low < 0.5 < high and high - low < 0.4


def test_each_pool_reports_its_gain_over_the_best_single_checkpoint(tmp_path):
    def ckpt(name, easy, hard):
        return write_checkpoint(tmp_path, name, {"p-easy": easy, "p-hard": hard})

    fail = ["correctness_failure"] * 2
    checkpoints = [ckpt("rl-k2", ["correct", "correct"], fail),
                   ckpt("rl-kinf", fail, ["correct", "correctness_failure"])]
    rows = ensemble_rows(checkpoints, {"m": ("k2", "kinf")})
    by = {(r["pool"], r["k"]): r for r in rows}
    best = by[("best-single", 1)]  # rl-k2: 0.5, rl-kinf: 0.25
    assert best["members"] == ["rl-k2"] and best["gain_over_best"] == 0.0
    pool = by[("rl-endpoints", 1)]  # one draw from a random member
    assert pool["pass_at_k"] == pytest.approx((0.5 + 0.25) / 2)
    assert pool["gain_over_best"] == pytest.approx(pool["pass_at_k"] - best["pass_at_k"])
    assert pool["gain_low"] <= pool["gain_over_best"] <= pool["gain_high"]
