"""What a grid can show before it runs (pipeline/power.py): the smallest detectable
difference from stated or measured variance, and the evaluation's design."""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import ENV, REPO

from codefrontier.pipeline import power


def test_more_samples_shrink_only_the_sampling_term():
    figures = power.RateVariance(heterogeneity=0.01, rate=0.5)
    assert figures.components(10, seeds=1).cluster == pytest.approx(0.01 + 2 * 0.25 / 10)
    assert figures.components(10**9, seeds=1).cluster == pytest.approx(0.01)


def test_the_detectable_difference_falls_with_clusters_and_samples():
    variance = {"correct": power.RateVariance(0.01, 0.3)}
    small = power.detectable(power.Design(16, 48, 5), variance)["correct"]
    more_families = power.detectable(power.Design(64, 192, 5), variance)["correct"]
    more_samples = power.detectable(power.Design(16, 48, 50), variance)["correct"]
    assert more_families < more_samples < small
    # (t_.975,15 + t_.80,15) · sqrt((0.01 + 2·0.21/15) / 16)
    assert small == pytest.approx((2.1314 + 0.8662) * np.sqrt((0.01 + 0.42 / 15) / 16),
                                  rel=1e-3)


def cluster_rows(checkpoint: str, rates: np.ndarray, samples: int = 15) -> list[dict]:
    return [{"model": "m", "setting": "reasoning", "seed": 0, "checkpoint": checkpoint,
             "cluster": f"f{index}", "samples": samples,
             "n_correct": round(rate * samples), "n_optimization_failure": 0,
             "n_correctness_failure": samples - round(rate * samples), "n_format_error": 0}
            for index, rate in enumerate(rates)]


def test_a_runs_heterogeneity_is_what_its_sampling_does_not_explain():
    """Two checkpoints whose per-family differences swing ±0.4: a variance of 0.17 (16
    families), of which binomial sampling at p = 0.5 and 15 samples explains 0.033."""
    swing = np.tile([0.4, -0.4], 8)
    rows = cluster_rows("a", np.full(16, 0.5)) + cluster_rows("b", 0.5 + swing / 2)
    found = power.measured_variance(pd.DataFrame(rows))["reasoning"]["correct"]
    observed = np.var(np.round((0.5 + swing / 2) * 15) / 15 - 0.5, ddof=1)
    assert found.rate == pytest.approx(0.5, abs=0.01)
    assert found.heterogeneity == pytest.approx(observed - 2 * 0.25 / 15, rel=0.05)


def test_the_default_evaluation_is_16_families_of_3_instances(tmp_path):
    config = yaml.safe_load((REPO / "config.yaml").read_text())
    assert power.eval_design(config, tmp_path, 500) == (16, 48)
    real = {**config, "data": {**config["data"], "eval": {"source": "livecodebench"}}}
    assert power.eval_design(real, tmp_path, 500) == (500, 500)


@pytest.mark.slow
def test_the_7b_grids_plan_prints_what_each_setting_can_detect(tmp_path):
    done = subprocess.run([sys.executable, "-m", "codefrontier.cli", "plan", "--configfile",
                           str(REPO / "configs" / "qwen2.5-7b.yaml"), "-d", str(tmp_path)],
                          capture_output=True, text=True, cwd=REPO, env=ENV, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "What it can show: the smallest difference between two checkpoints' rates" \
        in done.stdout
    rows = [line for line in done.stdout.splitlines()
            if line.startswith(("| reasoning |", "| tool_use |", "| agentic |"))]
    assert len(rows) == 3
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert cells[1] == cells[2]  # LiveCodeBench: every problem its own cluster
        assert cells[4] == "1"  # seeds
        assert all(0 < float(value) < 0.2 for value in cells[5:9])


def test_a_run_of_several_seeds_measures_the_seed_variance_of_a_difference():
    """Checkpoint b beats a by 0.1 under seed 0 and by 0.3 under seed 1, in every family
    alike (no sampling noise: 1,000 samples a cell): σ_v² of the difference is the
    variance of the two seed means, 0.02; τ² and ι² are ~0."""
    rng = np.random.default_rng(0)
    base = rng.uniform(0.3, 0.6, 16)
    rows = []
    for seed, gain in ((0, 0.1), (1, 0.3)):
        for row in (cluster_rows("a", base, 1000) + cluster_rows("b", base + gain, 1000)):
            rows.append({**row, "seed": seed})
    found = power.measured_variance(pd.DataFrame(rows))["reasoning"]["correct"]
    assert found.seeds_measured
    assert found.seed == pytest.approx(0.02, rel=0.05)
    assert found.heterogeneity < 1e-4 and found.interaction < 1e-3
    # at 3 seeds the seed term dominates what 16 families can detect
    design = power.Design(16, 48, 5, seeds=3)
    one_seed_figures = {"correct": power.RateVariance(found.heterogeneity, found.rate)}
    assert power.detectable(design, {"correct": found})["correct"] > \
        power.detectable(design, one_seed_figures)["correct"] + 0.1
