"""Seeds as a grid axis (config `seeds`): a run per model and seed, tables with a `seed`
column, and findings that read every seed at once."""

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import REPO, dry_run_jobs, snakemake, stdin_problem
from test_frontier import family_ids, write_checkpoint

from codefrontier.analysis.clusters import cluster_rows, rate_cells
from codefrontier.analysis.distance import cluster_resamples, crossed_resamples
from codefrontier.analysis.ensemble import ensemble_rows
from codefrontier.analysis.findings import DISTANCES, findings_table
from codefrontier.analysis.frontier import frontier_rows
from codefrontier.analysis.pooled import _with_distances, pooled_rows
from codefrontier.analysis.stats import estimate_mean
from codefrontier.base.layout import VERDICTS, run_name, split_run
from codefrontier.pipeline import workflow
from codefrontier.pipeline.checks import seeds as seed_check
from codefrontier.pipeline.configfiles import typed_override
from codefrontier.pipeline.places import Places
from codefrontier.problems.schema import Test, save_problems

DEFAULT = yaml.safe_load((REPO / "config.yaml").read_text())


def test_the_first_seeds_run_is_the_model_and_every_other_is_marked():
    assert run_name("tiny", 0, first_seed=0) == "tiny"
    assert run_name("tiny", 2, first_seed=0) == "tiny@seed2"
    assert split_run("tiny") == ("tiny", None)
    assert split_run("tiny@seed2") == ("tiny", 2)
    assert split_run("qwen2.5-7b@seed-1") == ("qwen2.5-7b", -1)
    with pytest.raises(ValueError, match="<model>@seed<integer>"):
        split_run("tiny@seedx")


def test_seeds_make_runs_that_share_the_models_sft_and_train_under_their_seed():
    config = {**DEFAULT, "seeds": [3, 4]}
    assert workflow.runs(config) == ["tiny", "tiny@seed4"]
    assert workflow.run_seed(config, "tiny") == 3 and workflow.run_seed(config, "tiny@seed4") == 4
    assert workflow.sft_folder(config, "tiny@seed4") == "results/tiny/sft"
    assert workflow.rl_start(config, "tiny@seed4", "k2") == "results/tiny/sft"
    assert workflow.rl_trl(config, "tiny@seed4", "reasoning")["seed"] == 4
    assert workflow.sft_fields(config, "tiny")["seed"] == 3
    assert workflow.setting_sampling(config, "reasoning", "tiny@seed4")["seed"] == 4
    assert "results/tiny@seed4/reasoning/a-0.5/verdicts.parquet" in workflow.verdict_files(config)
    # `seed` is the one-seed form
    assert workflow.runs({**DEFAULT, "seed": 7}) == ["tiny"]
    assert workflow.run_seed({**DEFAULT, "seed": 7}, "tiny") == 7


def test_seed_and_seeds_must_agree():
    here = Places.here()
    assert list(seed_check({"seed": 1, "seeds": [1, 2]}, here)) == []
    [found] = list(seed_check({"seed": 0, "seeds": [1, 2]}, here))
    assert found.severity == "error" and "disagree" in str(found.problem)


def test_config_lists_from_the_command_line_take_yamls_types():
    assert typed_override(["0", "1"]) == [0, 1]
    assert typed_override({"a": ["0.5", "x"]}) == {"a": [0.5, "x"]}


@pytest.mark.slow
def test_two_seeds_plan_twice_the_grpo_runs_from_one_sft(tmp_path):
    one = dry_run_jobs(snakemake(tmp_path, "-n", "-p", config=REPO / "config.yaml").stdout)
    done = snakemake(tmp_path, "-n", "-p", "--config", "seeds=[0,1]",
                     config=REPO / "config.yaml")
    assert done.returncode == 0, done.stderr[-3000:]
    two = dry_run_jobs(done.stdout)

    def count(jobs, rule):
        return sum(job["rule"] == rule for job in jobs)
    assert count(two, "rl") == 2 * count(one, "rl") > 0
    assert count(two, "sample") == 2 * count(one, "sample")
    assert count(two, "sft") == count(one, "sft") == 1
    seed_one = [job for job in two if job["rule"] == "rl"
                and job["wildcards"]["model"] == "tiny@seed1"]
    assert len(seed_one) == count(one, "rl")
    for job in seed_one:
        assert "--model results/tiny/sft" in job["shell"] and "seed=1" in job["shell"]


# --- the tables over two seeds -----------------------------------------------------------

FAMILIES = 4


@pytest.fixture
def two_seeds(tmp_path):
    """Model m's runs under seeds 0 and 1 (m, m@seed1): endpoints rl-k2 and rl-kinf and a
    merge a0.5 each, on 4 families × 3 instances, 4 samples per problem; seed 1's low
    endpoint fails one more sample per problem by correctness."""
    ids = family_ids(FAMILIES, 3)
    path = tmp_path / "eval.parquet"
    save_problems([stdin_problem(pid, tests=(Test("1 2\n", "3"),)) for pid in ids], path)
    shapes = {"rl-k2": ["optimization_failure"] * 2 + ["correct"] * 2,
              "a0.5": ["optimization_failure", "correctness_failure"] + ["correct"] * 2,
              "rl-kinf": ["correctness_failure"] * 2 + ["correct"] * 2}
    checkpoints = []
    for seed, run in ((0, "m"), (1, "m@seed1")):
        for name, outcomes in shapes.items():
            if seed == 1 and name == "rl-k2":
                outcomes = ["optimization_failure"] * 2 + ["correctness_failure", "correct"]
            checkpoint = write_checkpoint(tmp_path, name, {pid: outcomes for pid in ids},
                                          run=run)
            checkpoints.append(type(checkpoint).from_verdicts_path(checkpoint.verdicts))
    return checkpoints, path


def test_each_runs_rows_carry_its_seed(two_seeds):
    checkpoints, problems = two_seeds
    assert VERDICTS.parse(checkpoints[-1].verdicts)["model"] == "m@seed1"
    rows = pd.DataFrame(frontier_rows(checkpoints, problems, {"m": ("k2", "kinf")}))
    assert set(rows["model"]) == {"m"} and sorted(set(rows["seed"])) == [0, 1]
    clusters = pd.DataFrame(cluster_rows(checkpoints, problems))
    assert sorted(set(clusters["seed"])) == [0, 1] and set(clusters["model"]) == {"m"}
    # each seed's distances against its own curve: the endpoints lie on it
    ends = rows[(rows["difficulty"] == "all") & rows["checkpoint"].str.startswith("rl-")]
    assert (ends["frontier_distance"].abs() < 1e-12).all()


def test_pooled_rows_are_one_per_checkpoint_with_seed_variance_in_their_errors(two_seeds):
    checkpoints, problems = two_seeds
    rows = pd.DataFrame(frontier_rows(checkpoints, problems, {"m": ("k2", "kinf")}))
    clusters = pd.DataFrame(cluster_rows(checkpoints, problems))
    pooled = pooled_rows(rows[rows["difficulty"] == "all"], clusters)
    assert sorted(pooled["checkpoint"]) == ["a0.5", "rl-k2", "rl-kinf"]
    assert (pooled["seeds"] == 2).all() and pooled["seed"].isna().all()
    low = pooled.set_index("checkpoint").loc["rl-k2"]
    assert low["rate_correct"] == pytest.approx((0.5 + 0.25) / 2)
    assert low["samples"] == 2 * FAMILIES * 3 * 4
    # every family alike, the seeds apart: the SE is the seed term's
    expected = estimate_mean(rate_cells(clusters, "rl-k2", "correct"))
    assert expected.seeds == 2 and expected.se > 0
    assert low["se_correct"] == pytest.approx(expected.se)
    assert not pd.isna(low["frontier_distance_lo"])


def test_one_seed_reads_as_the_frontier_table(two_seeds):
    checkpoints, problems = two_seeds
    first = [c for c in checkpoints if c.seed == 0]
    rows = pd.DataFrame(frontier_rows(first, problems, {"m": ("k2", "kinf")}))
    alls = rows[rows["difficulty"] == "all"]
    clusters = pd.DataFrame(cluster_rows(first, problems))
    pooled = pooled_rows(alls, clusters)
    assert pooled.drop(columns="seeds").equals(alls)
    # and the pooled distances, computed on the cluster table with one seed, are the
    # frontier table's: the same counts and the same bootstrap draws
    recomputed = _with_distances(alls.reset_index(drop=True).copy(), clusters)
    for column in DISTANCES:
        assert recomputed[column].to_numpy() == pytest.approx(alls[column].to_numpy()), column


def test_crossed_resamples_with_one_seed_are_the_cluster_bootstrap():
    cells = [f"f{g}" for g in range(5)]
    assert np.array_equal(crossed_resamples(cells, [0] * 5, 50, seed=3),
                          cluster_resamples(5, 50, seed=3))
    two = crossed_resamples(cells * 2, [0] * 5 + [1] * 5, 400, seed=3)
    # a seed drawn twice doubles its cells, a seed not drawn removes them
    per_seed = two[:, :5].sum(axis=1), two[:, 5:].sum(axis=1)
    assert set(np.unique(np.round(per_seed[0] / (per_seed[0] + per_seed[1]), 6))) <= {0, 0.5, 1}


def test_the_ensemble_pools_each_seeds_checkpoints_and_averages_over_seeds(two_seeds):
    checkpoints, _ = two_seeds
    rows = ensemble_rows(checkpoints, {"m": ("k2", "kinf")})
    by = {(r["pool"], r["k"]): r for r in rows}
    assert by[("single:rl-k2", 1)]["pass_at_k"] == pytest.approx((0.5 + 0.25) / 2)
    assert by[("single:rl-k2", 1)]["problems"] == FAMILIES * 3
    assert by[("best-single", 1)]["members"] in (["a0.5"], ["rl-kinf"])


def test_findings_read_every_seed_at_once(two_seeds):
    checkpoints, problems = two_seeds
    frontier = pd.DataFrame(frontier_rows(checkpoints, problems, {"m": ("k2", "kinf")}))
    clusters = pd.DataFrame(cluster_rows(checkpoints, problems))
    ensemble = pd.DataFrame(ensemble_rows(checkpoints, {"m": ("k2", "kinf")}))
    table = findings_table(frontier, clusters, ensemble)
    first = [line for line in table.splitlines() if line.startswith("| 1.")]
    assert len(first) == 1 and "m / reasoning" in first[0]


def test_plots_draw_a_panel_row_per_seed(two_seeds):
    from codefrontier.analysis.plots import frontier_chart, panels_per_seed

    checkpoints, problems = two_seeds
    frontier = pd.DataFrame(frontier_rows(checkpoints, problems, {"m": ("k2", "kinf")}))
    panels = panels_per_seed(frontier)
    assert set(panels["model"]) == {"m · seed 0", "m · seed 1"}
    assert panels_per_seed(frontier[frontier["seed"] == 0])["model"].eq("m").all()
    frontier_chart(panels).to_dict()  # draws


def test_claims_name_the_seeds_they_pool(two_seeds):
    from codefrontier.analysis.claims import check

    checkpoints, problems = two_seeds
    report, _ = check(pd.DataFrame(frontier_rows(checkpoints, problems, {"m": ("k2", "kinf")})),
                      pd.DataFrame(cluster_rows(checkpoints, problems)),
                      pd.DataFrame(ensemble_rows(checkpoints, {"m": ("k2", "kinf")})), {})
    assert "## m / reasoning (2 training seeds pooled)" in report


def test_the_ensemble_tells_the_seeds_apart_whichever_comes_first(tmp_path):
    """seeds: [1, 0]: the model's own run is seed 1 and m@seed0 is seed 0; with the
    grid's first seed given, the ensemble keeps both seeds' cells (rl-k2 solves 1 of 2
    samples under one, none under the other: 0.25 over both)."""
    from codefrontier.analysis.ensemble import write_ensemble

    ids = family_ids(2, 2)
    paths = []
    for run, outcomes in (("m", ["correct", "correctness_failure"]),
                          ("m@seed0", ["correctness_failure"] * 2)):
        for name in ("rl-k2", "rl-kinf"):
            paths.append(write_checkpoint(tmp_path, name, {pid: outcomes for pid in ids},
                                          run=run).verdicts)
    out = tmp_path / "ensemble.parquet"
    write_ensemble(paths, {"m": ("k2", "kinf")}, [], out, first_seed=1)
    rows = pd.read_parquet(out).set_index(["pool", "k"])
    assert rows.loc[("single:rl-k2", 1), "pass_at_k"] == pytest.approx(0.25)
