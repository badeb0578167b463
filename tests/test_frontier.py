"""Aggregation of verdicts into frontier and ensemble rows, on hand-written verdict files."""

import dataclasses
import math

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import stdin_problem

from codefrontier.analysis.ensemble import ensemble_rows, pools_for
from codefrontier.analysis.frontier import FORMAT_CAUSES, FRONTIER_SCHEMA, Checkpoint, frontier_rows
from codefrontier.base.tables import read_records, write_records
from codefrontier.judge.files import VERDICTS_SCHEMA
from codefrontier.problems.schema import Test, save_problems
from codefrontier.settings.base import SAMPLES_SCHEMA


def verdict(problem_id, sample_id, outcome, cause=None):
    return {"problem_id": problem_id, "sample_id": sample_id, "outcome": outcome, "verdicts": [],
            "input_lens": [], "cpu_s": [], "peak_mb": [], "first_failure": None,
            "max_passed_input_len": None, "format_error_cause": cause, "error": "",
            "isolation": "namespaces"}


# The samples columns of multi-turn settings (docs/results.md), added to whatever the
# settings module's schema has so far.
EPISODE_FIELDS = [("tool_calls", pa.int64()),
                  ("transcript", pa.list_(pa.struct([("role", pa.string()),
                                                     ("content", pa.string())]))),
                  ("episode_error", pa.string()), ("code", pa.string())]
EPISODE_SAMPLES_SCHEMA = pa.schema([*SAMPLES_SCHEMA,
                                    *[f for f in EPISODE_FIELDS if f[0] not in SAMPLES_SCHEMA.names]])
# samples.parquet as written before turns and the episode columns
OLD_SAMPLES_SCHEMA = pa.schema([f for f in SAMPLES_SCHEMA if f.name != "turns"])


def write_checkpoint(root, name, outcomes, setting="reasoning", causes=None, episodes=None,
                     samples_schema=SAMPLES_SCHEMA, run="m"):
    """outcomes: {problem_id: [outcome, ...]}; causes: the format-error causes in order of
    the format errors (default: all `truncated`); episodes: (turns, tool_calls) per sample
    in order, written with the episode columns; run: model m's run (m@seed1: seed 1's)."""
    folder = root / "results" / run / setting / name
    rows, samples = [], []
    causes, episodes = iter(causes or []), iter(episodes or [])
    for pid, values in outcomes.items():
        for index, outcome in enumerate(values):
            cause = next(causes, "truncated") if outcome == "format_error" else None
            rows.append(verdict(pid, index, outcome, cause))
            samples.append({"problem_id": pid, "sample_id": index, "setting": setting,
                            "completion": "", "finish_reason": "stop", "prompt_tokens": 5,
                            "completion_tokens": 10 * (index + 1), "turns": 1})
            if samples_schema is EPISODE_SAMPLES_SCHEMA:
                turns, calls = next(episodes)
                samples[-1] |= {"turns": turns, "tool_calls": calls, "code": None,
                                "episode_error": cause if cause != "truncated" else None,
                                "transcript": [{"role": "user", "content": "solve"}] + [
                                    {"role": "assistant", "content": "call"}] * turns}
    write_records(rows, folder / "verdicts.parquet", schema=VERDICTS_SCHEMA)
    write_records(samples, folder / "samples.parquet", schema=samples_schema)
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


def test_a_checkpoint_with_second_attempts_pools_its_episodes_at_two_samples_each(tmp_path):
    from codefrontier.analysis.frontier import episode_counts

    fail = "correctness_failure"
    first = write_checkpoint(tmp_path, "sft", {"p-easy": ["correct", fail, fail, fail],
                                               "p-hard": [fail] * 4})
    other = write_checkpoint(tmp_path, "rl-kinf", {"p-easy": ["correct"] * 2 + [fail] * 2,
                                                   "p-hard": [fail] * 4})
    firsts = read_records(first.verdicts)
    # repairs: p-easy's samples 1 and 2 and p-hard's sample 0 are repaired
    seconds = [{"problem_id": pid, "sample_id": sid, "outcome": outcome}
               for pid, sid, outcome in [("p-easy", 1, "correct"), ("p-easy", 2, "correct"),
                                         ("p-easy", 3, fail), ("p-hard", 0, "correct"),
                                         ("p-hard", 1, fail)]]
    counts = episode_counts(firsts, seconds)
    assert counts == {"p-easy": (4, 3), "p-hard": (4, 1)}
    rows = ensemble_rows([first, other], {"m": ("k2", "kinf")},
                         {("m", "reasoning", "sft"): {(0, pid): c for pid, c in counts.items()}})
    second = {r["k"]: r for r in rows if r["pool"] == "second-attempt:sft"}
    assert second[1]["pass_at_k"] is None  # one sample buys no episode
    # k = 2: one episode; k = 4: two episodes of four (pass@2 of 3 and of 1 solved)
    assert second[2]["pass_at_k"] == pytest.approx((3 / 4 + 1 / 4) / 2)
    assert second[4]["pass_at_k"] == pytest.approx((1 + (1 - 3 / 6)) / 2)
    best = {r["k"]: r for r in rows if r["pool"] == "best-single"}
    assert second[2]["gain_over_best"] == pytest.approx(
        second[2]["pass_at_k"] - best[2]["pass_at_k"])
    assert second[2]["solved_beyond_best"] == ["p-hard"]


def test_every_row_has_its_distance_from_the_alpha_curve(tmp_path, many_problems):
    # per problem of 40: 4 samples; the curve k2 (α 0) -> a0.5 -> kinf (α 1) trades
    # optimization for correctness failures; sft fails less in both, a1.5 more in both
    mixes = {"rl-k2": ["correct", "optimization_failure", "optimization_failure", "correct"],
             "a0.5": ["correct", "optimization_failure", "correctness_failure", "correct"],
             "rl-kinf": ["correct", "correctness_failure", "correctness_failure", "correct"],
             "sft": ["correct", "correct", "correctness_failure", "correct"],
             "a1.5": ["optimization_failure", "correctness_failure", "correctness_failure",
                      "correct"]}
    ckpts = [write_checkpoint(tmp_path, name, {f"p{i}": mix for i in range(40)})
             for name, mix in mixes.items()]
    rows = {r["checkpoint"]: r for r in frontier_rows(ckpts, many_problems, {"m": ("k2", "kinf")})
            if r["difficulty"] == "all"}
    assert rows["a0.5"]["frontier_distance"] == pytest.approx(0.0)
    # the curve: (0, 0.5) -> (0.25, 0.25) -> (0.5, 0); sft (0.25, 0) reaches it at the
    # middle of the second segment, (0.375, 0.125), 0.125 up in both rates; a1.5
    # (0.5, 0.25) lies as far the other way
    assert rows["sft"]["frontier_distance"] == pytest.approx(0.125 * math.sqrt(2))
    assert rows["a1.5"]["frontier_distance"] == pytest.approx(-0.125 * math.sqrt(2))
    for row in rows.values():  # identical problems: the bootstrap cannot move the rates
        assert row["frontier_distance_lo"] == pytest.approx(row["frontier_distance"])
        assert row["frontier_distance_hi"] == pytest.approx(row["frontier_distance"])


def test_without_an_alpha_curve_the_distance_is_null(tmp_path, problems):
    ckpt = write_checkpoint(tmp_path, "sft", {"p-easy": ["correct"], "p-hard": ["correct"]})
    row = frontier_rows([ckpt], problems)[-1]
    assert row["frontier_distance"] is None and row["frontier_distance_hi"] is None


@pytest.fixture
def many_problems(tmp_path):
    """40 easy problems, p0 .. p39."""
    path = tmp_path / "many.parquet"
    save_problems([stdin_problem(f"p{i}", tests=(Test("1 2\n", "3"),)) for i in range(40)], path)
    return path


def test_a_problem_outside_a_family_is_its_own_cluster(tmp_path, many_problems):
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


def family_ids(families, instances):
    return [f"bundled/f{g}/eval-{i}" for g in range(families) for i in range(instances)]


@pytest.fixture
def family_problems(tmp_path):
    """4 bundled families of 3 instances each: bundled/f0/eval-0 .. bundled/f3/eval-2."""
    path = tmp_path / "families.parquet"
    save_problems([stdin_problem(pid, tests=(Test("1 2\n", "3"),)) for pid in family_ids(4, 3)],
                  path)
    return path


def test_standard_errors_are_clustered_by_family(tmp_path, family_problems):
    # a family's instances share its task: families 0 and 1 solve every sample, 2 and 3 none
    outcomes = {pid: ["correct" if pid.startswith(("bundled/f0/", "bundled/f1/"))
                      else "correctness_failure"] * 2 for pid in family_ids(4, 3)}
    row = next(r for r in frontier_rows([write_checkpoint(tmp_path, "sft", outcomes)],
                                        family_problems) if r["difficulty"] == "all")

    def clustered(x, n):  # the cluster-robust SE over clusters with (n_g, x_g)
        p, g = sum(x) / sum(n), len(n)
        return math.sqrt(g / (g - 1) * sum((xi - p * ni) ** 2
                                           for xi, ni in zip(x, n, strict=True))) / sum(n)

    by_family = clustered([6, 6, 0, 0], [6] * 4)
    by_instance = clustered([2] * 6 + [0] * 6, [2] * 12)
    assert row["se_correct"] == pytest.approx(by_family)
    assert row["se_correct"] > 1.5 * by_instance


def test_resamples_take_whole_families():
    import numpy as np

    from codefrontier.analysis.ensemble import resample_shares

    shares = resample_shares([(0, pid) for pid in family_ids(2, 3)])
    assert np.allclose(shares.sum(axis=1), 1)
    # two families: a resample draws f0 twice, f1 twice, or one of each
    assert {tuple(np.round(row, 9)) for row in shares} == {
        tuple(np.round(row, 9)) for row in ([1 / 3] * 3 + [0] * 3, [0] * 3 + [1 / 3] * 3,
                                            [1 / 6] * 6)}


def test_the_best_single_checkpoint_is_chosen_in_each_resample():
    import numpy as np

    from codefrontier.analysis.ensemble import best_single_in_each_resample, gain_interval

    singles = np.array([[1.0, 0.0], [0.0, 1.0]])  # checkpoint a solves problem 0, b problem 1
    shares = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
    assert best_single_in_each_resample(singles, shares).tolist() == [1.0, 1.0, 0.5]
    values = np.full(2, 0.25)
    best = best_single_in_each_resample(np.column_stack([values, values]), shares)
    assert gain_interval(values, best, shares) == pytest.approx((0.0, 0.0))


def test_the_gain_interval_includes_choosing_the_best_checkpoint(tmp_path):
    """rl-k2 solves families 0 and 1, rl-kinf families 2 and 3: equal on all problems
    (rl-kinf is best by name), but a resample with more of families 0 and 1 makes rl-k2
    the best. Holding rl-kinf fixed would centre the pool's gain on 0; choosing the best
    in each resample puts every resample's gain at or below 0."""
    import numpy as np

    from codefrontier.analysis.ensemble import resample_shares

    ids = family_ids(4, 3)
    first_half = {pid: pid.startswith(("bundled/f0/", "bundled/f1/")) for pid in ids}
    checkpoints = [write_checkpoint(tmp_path, name, {
        pid: ["correct" if first_half[pid] == solves_first else "correctness_failure"]
        for pid in ids}) for name, solves_first in (("rl-k2", True), ("rl-kinf", False))]
    by = {(r["pool"], r["k"]): r for r in ensemble_rows(checkpoints, {"m": ("k2", "kinf")})}
    assert by[("best-single", 1)]["members"] == ["rl-kinf"]
    assert (by[("best-single", 1)]["gain_low"], by[("best-single", 1)]["gain_high"]) == (0, 0)
    own = by[("single:rl-kinf", 1)]
    assert own["gain_over_best"] == 0 and own["gain_low"] < 0
    assert own["gain_high"] == pytest.approx(0, abs=1e-12)
    pool = by[("rl-endpoints", 1)]  # 0.5 on every problem
    assert pool["gain_over_best"] == pytest.approx(0) and pool["gain_high"] <= 1e-12
    fixed = resample_shares([(0, pid) for pid in ids]) @ np.array(
        [0.5 - (not first_half[pid]) for pid in ids])
    assert np.percentile(fixed, 97.5) > 0.1, "the fixed-best interval would reach above 0"


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


def test_rows_of_two_settings_carry_their_own_causes_turns_and_tool_calls(tmp_path, problems):
    reasoning = write_checkpoint(tmp_path, "sft", {
        "p-easy": ["correct", "format_error"], "p-hard": ["correctness_failure", "correct"]})
    tool_use = write_checkpoint(
        tmp_path, "sft", {"p-easy": ["format_error", "format_error"],
                          "p-hard": ["format_error", "correct"]},
        setting="tool_use", causes=["malformed_tool_call", "turn_budget_exhausted", "truncated"],
        episodes=[(2, 1), (5, 4), (4, 3), (1, 0)], samples_schema=EPISODE_SAMPLES_SCHEMA)
    rows = {(r["setting"], r["difficulty"]): r
            for r in frontier_rows([reasoning, tool_use], problems)}
    assert set(rows) == {(s, d) for s in ("reasoning", "tool_use") for d in ("easy", "hard", "all")}
    assert all(list(r) == FRONTIER_SCHEMA.names for r in rows.values())
    first = rows[("reasoning", "all")]
    assert (first["mean_turns"], first["mean_tool_calls"]) == (1.0, 0.0)
    assert first["format_truncated_rate"] == 0.25 and first["format_no_submission_rate"] == 0.0
    tools = rows[("tool_use", "all")]
    assert tools["rate_format_error"] == 0.75 and tools["rate_correct"] == 0.25
    assert tools["format_malformed_tool_call_rate"] == 0.25
    assert tools["format_turn_budget_exhausted_rate"] == 0.25
    assert tools["format_truncated_rate"] == 0.25
    assert sum(tools[f"format_{c}_rate"] for c in FORMAT_CAUSES) == tools["rate_format_error"]
    assert tools["mean_turns"] == pytest.approx(3.0) and tools["mean_tool_calls"] == 2.0
    easy = rows[("tool_use", "easy")]  # the first two samples only
    assert (easy["mean_turns"], easy["mean_tool_calls"]) == (3.5, 2.5)


def test_the_frontier_schema_appends_the_new_columns():
    names = FRONTIER_SCHEMA.names
    assert names[-14:] == ["format_truncated_rate", "format_no_code_block_rate",
                           "format_malformed_tool_call_rate", "format_turn_budget_exhausted_rate",
                           "format_no_submission_rate", "mean_turns", "mean_tool_calls",
                           "trained_in", "frontier_distance", "frontier_distance_lo",
                           "frontier_distance_hi", "interpolation_distance",
                           "interpolation_distance_lo", "interpolation_distance_hi"]
    assert names.index("mean_completion_tokens") == names.index("format_truncated_rate") - 1


def test_samples_written_before_the_episode_columns_still_aggregate(tmp_path, problems):
    ckpt = write_checkpoint(tmp_path, "rl-k2", {"p-easy": ["correct", "format_error"],
                                                "p-hard": ["correct"]},
                            samples_schema=OLD_SAMPLES_SCHEMA)
    assert "turns" not in pq.read_schema(ckpt.samples).names
    row = next(r for r in frontier_rows([ckpt], problems) if r["difficulty"] == "all")
    assert (row["mean_turns"], row["mean_tool_calls"]) == (1.0, 0.0)
    assert row["mean_completion_tokens"] == pytest.approx(40 / 3)
    assert row["format_truncated_rate"] == pytest.approx(1 / 3)


def test_without_a_samples_file_the_sample_means_are_nan(tmp_path, problems):
    ckpt = write_checkpoint(tmp_path, "sft", {"p-easy": ["correct"]})
    ckpt.samples.unlink()
    (row, _) = frontier_rows([ckpt], problems)
    assert math.isnan(row["mean_turns"]) and math.isnan(row["mean_completion_tokens"])


def test_an_unknown_format_error_cause_is_an_error(tmp_path, problems):
    ckpt = write_checkpoint(tmp_path, "sft", {"p-easy": ["format_error"]}, causes=["gremlins"])
    with pytest.raises(ValueError, match=r"format-error causes \['gremlins'\]"):
        frontier_rows([ckpt], problems)


def test_samples_of_another_setting_in_a_setting_folder_are_an_error(tmp_path, problems):
    ckpt = write_checkpoint(tmp_path, "sft", {"p-easy": ["correct"]})
    moved = tmp_path / "results" / "m" / "agentic" / "sft"
    moved.mkdir(parents=True)
    for path in (ckpt.verdicts, ckpt.samples):
        path.rename(moved / path.name)
    with pytest.raises(ValueError, match=r"samples of setting \['reasoning'\]"):
        frontier_rows([Checkpoint.from_verdicts_path(moved / "verdicts.parquet")], problems)


def test_ensembles_pool_checkpoints_of_one_setting_only(tmp_path):
    fail = ["correctness_failure"] * 2
    reasoning = [write_checkpoint(tmp_path, "rl-k2", {"p-easy": ["correct", "correct"],
                                                      "p-hard": fail}),
                 write_checkpoint(tmp_path, "rl-kinf", {"p-easy": fail, "p-hard": fail})]
    agentic = [write_checkpoint(tmp_path, name, {"p-easy": fail, "p-hard": outcome},
                                setting="agentic")
               for name, outcome in (("rl-k2", fail), ("rl-kinf", ["correct", "correct"]))]
    rows = ensemble_rows([*agentic, *reasoning], {"m": ("k2", "kinf")})
    assert list(dict.fromkeys(r["setting"] for r in rows)) == ["reasoning", "agentic"]
    best = {r["setting"]: r for r in rows if (r["pool"], r["k"]) == ("best-single", 1)}
    assert best["reasoning"]["members"] == ["rl-k2"] and best["agentic"]["members"] == ["rl-kinf"]
    pooled = {r["setting"]: r for r in rows if (r["pool"], r["k"]) == ("rl-endpoints", 2)}
    assert pooled["reasoning"]["solved"] == ["p-easy"] and pooled["agentic"]["solved"] == ["p-hard"]


@pytest.mark.parametrize("sampled, expected", [
    ("results/m/reasoning/rl/kinf", "reasoning"),   # trained in reasoning, evaluated in tool_use
    ("results/m/reasoning/merge/a0.5", "reasoning"),
    ("results/m/tool_use/rl/kinf", "tool_use"),
    ("/models/elsewhere/kinf", "tool_use"),          # outside the layout: the row's own
])
def test_trained_in_comes_from_the_folder_the_samples_were_drawn_from(
        tmp_path, problems, sampled, expected):
    import json

    from codefrontier.base.provenance import PARQUET_KEY

    name = "a0.5" if "merge" in sampled else "rl-kinf"
    ckpt = write_checkpoint(tmp_path, name, {"p-easy": ["correct"]}, setting="tool_use")
    table = pq.read_table(ckpt.samples)
    metadata = {PARQUET_KEY: json.dumps({"kind": "samples", "model": sampled})}
    pq.write_table(table.replace_schema_metadata(metadata), ckpt.samples)
    sft = write_checkpoint(tmp_path, "sft", {"p-easy": ["correct"]}, setting="tool_use")
    rows = frontier_rows([ckpt, sft], problems, {"m": ("k2", "kinf")})
    assert {(r["checkpoint"], r["trained_in"]) for r in rows} == {(name, expected), ("sft", None)}
