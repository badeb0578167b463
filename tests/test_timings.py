"""Per-stage times from Snakemake benchmark files."""

import pytest

from codefrontier.analysis.timings import render, stage_times

HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


def write(path, seconds, rss, cpu):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + f"{seconds}\t0:00:00\t{rss}\t0\t0\t0\t0\t0\t0\t{cpu}\n")


def test_jobs_of_a_rule_are_summed_and_the_longest_kept(tmp_path):
    write(tmp_path / "sample" / "tiny-reasoning-sft.tsv", 30.0, 400.0, 28.0)
    write(tmp_path / "sample" / "tiny-reasoning-a0.5.tsv", 20.0, 500.0, 19.0)
    write(tmp_path / "frontier.tsv", 2.0, 100.0, 1.5)
    table = stage_times(tmp_path).set_index("stage")
    assert table.loc["sample", "jobs"] == 2
    assert table.loc["sample", "total_wall_s"] == pytest.approx(50.0)
    assert table.loc["sample", "longest_wall_s"] == pytest.approx(30.0)
    assert table.loc["sample", "max_rss_mb"] == pytest.approx(500.0)
    assert "| frontier | 1 | 2 | 2 | 2 | 100 |" in render(stage_times(tmp_path))


def test_no_benchmark_files_is_an_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        stage_times(tmp_path)
