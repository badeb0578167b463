"""`codefrontier compare`: two small hand-made runs, written with provenance by the
library's own writers (no workflow run)."""

import json
import shutil

import numpy as np
import pytest
from safetensors.numpy import save_file

from codefrontier.base import layout
from codefrontier.base.provenance import (
    PROVENANCE_FILE,
    parquet_metadata,
    read_provenance,
    record,
    write_provenance,
)
from codefrontier.base.tables import read_records, write_records
from codefrontier.cli import main
from codefrontier.merge.run import write_merge_record
from codefrontier.pipeline.compare import STAGES, output_hash

SFT = layout.SFT_FOLDER.fill(model="tiny")
RL = layout.RL_FOLDER.fill(model="tiny", setting="reasoning", reward="k2")
MERGE = layout.MERGE_FOLDER.fill(model="tiny", setting="reasoning", alpha="0.5")
MERGE_RECORD = layout.MERGE_RECORD.fill(model="tiny", setting="reasoning", alpha="0.5")
SAMPLES = layout.SAMPLES.fill(model="tiny", setting="reasoning", ckpt="rl-k2")
VERDICTS = layout.VERDICTS.fill(model="tiny", setting="reasoning", ckpt="rl-k2")
ANOTHER_MACHINE = {"arch": "x86_64", "cpu": "AMD EPYC 7763 64-Core Processor",
                   "isa": ["avx2", "fma"], "torch_cpu_capability": "AVX2"}


def write_table(path, rows, inputs=(), **fields):
    write_records(rows, path, metadata=parquet_metadata(record(list(inputs), **fields)))


def write_checkpoint(folder, weights, inputs, **fields):
    folder.mkdir(parents=True)
    save_file({"w": np.asarray(weights, dtype=np.float32)}, str(folder / "model.safetensors"))
    (folder / "config.json").write_text(json.dumps({"hidden_size": len(weights)}))
    write_provenance(folder, record(inputs, **fields))


def write_verdicts(path, outcome, cpu_s):
    write_table(path, [{"problem_id": "p1", "outcome": outcome, "cpu_s": [cpu_s],
                        "peak_mb": [9.5], "timing_runs": [1]}], [SAMPLES], kind="verdicts")


def frontier_rows(rate):
    return [{"model": "tiny", "setting": "reasoning", "checkpoint": checkpoint,
             "difficulty": "all", "rate_correct": value}
            for checkpoint, value in (("sft", 0.25), ("rl-k2", rate))]


def build_run(root, monkeypatch):
    """A run in `root`: problems, SFT data, SFT checkpoint, an RL run, a merge and its
    record, the RL run's samples and verdicts, the frontier table, recorded from inside
    root as the workflow records them."""
    root.mkdir()
    monkeypatch.chdir(root)
    write_table(layout.DATA.fill(split="train"), [{"problem_id": "p1"}], kind="problems")
    write_table(layout.DATA.fill(split="sft"), [{"problem_id": "p1", "text": "..."}],
                kind="sft-data")
    write_checkpoint(root / SFT, [1.0, 2.0], [layout.DATA.fill(split="sft")], kind="sft")
    write_checkpoint(root / RL, [1.5, 2.5], [SFT, layout.DATA.fill(split="train")], kind="rl")
    write_checkpoint(root / MERGE, [1.25, 2.25], [SFT, RL], kind="merge")
    write_merge_record(MERGE, MERGE_RECORD)
    write_table(SAMPLES, [{"problem_id": "p1", "completion": "print(1)"}], [RL], kind="samples")
    write_verdicts(VERDICTS, "correct", cpu_s=0.11)
    write_table(layout.FRONTIER, frontier_rows(0.5), [VERDICTS], kind="frontier")


@pytest.fixture
def runs(tmp_path, monkeypatch):
    """Run a, and run b: a copy of it (cwd: tmp_path)."""
    build_run(tmp_path / "a", monkeypatch)
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    monkeypatch.chdir(tmp_path)
    return tmp_path / "a", tmp_path / "b"


def retrain_sft_elsewhere(run):
    """Run b's SFT checkpoint as if trained on another processor, with another torch:
    other weights, and a record naming that machine."""
    folder = run / SFT
    save_file({"w": np.asarray([1.0, 2.0000002], dtype=np.float32)},
              str(folder / "model.safetensors"))
    provenance = read_provenance(folder)
    provenance.update(machine=ANOTHER_MACHINE, torch_version="2.12.0")
    (folder / PROVENANCE_FILE).write_text(json.dumps(provenance))


def change_frontier(run, rate):
    path = run / layout.FRONTIER
    provenance = read_provenance(path)
    rows = read_records(path)
    rows[1]["rate_correct"] = rate
    write_records(rows, path, metadata=parquet_metadata(provenance))


def test_identical_runs_compare_equal_with_status_0(runs, capsys):
    a, b = runs
    assert main(["compare", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "no output both runs have differs" in out
    assert "frontier: 2 and 2 rows, 0 differ" in out
    assert out.rstrip().endswith(f"compared 9 outputs of {a} and {b}: identical")


def test_the_first_stage_that_differs_is_named_with_hashes_machines_and_versions(runs, capsys):
    a, b = runs
    retrain_sft_elsewhere(b)
    change_frontier(b, 0.75)  # what the other weights led to
    assert main(["compare", str(a), str(b)]) == 1
    lines = capsys.readouterr().out.splitlines()
    first = lines.index("first difference: SFT checkpoint, 1 of 1 outputs")
    assert lines[first + 1] == f"  {SFT}"
    made_on_a = read_provenance(a / SFT)["machine"]
    assert lines[first + 2].startswith(f"    A: {output_hash(a / SFT)}  made on "
                                       f"{made_on_a['cpu']} [")
    assert lines[first + 3] == (f"    B: {output_hash(b / SFT)}  made on AMD EPYC 7763 64-Core "
                                f"Processor [avx2, fma], torch AVX2")
    assert output_hash(a / SFT) != output_hash(b / SFT)
    assert "torch " in lines[first + 4] and lines[first + 4].endswith(" vs 2.12.0")
    assert "differing later: tables (1 of 1)" in lines
    assert "frontier: 2 and 2 rows, 1 differ" in lines
    assert "    model=tiny, setting=reasoning, checkpoint=rl-k2, difficulty=all" in lines


def test_equal_rows_made_on_another_machine_are_equal(runs, capsys):
    """A table's hash is its rows': the provenance in its footer (the machine) is not."""
    a, b = runs
    path = b / layout.FRONTIER
    provenance = read_provenance(path)
    write_records(read_records(path), path,
                  metadata=parquet_metadata({**provenance, "machine": ANOTHER_MACHINE}))
    assert path.read_bytes() != (a / layout.FRONTIER).read_bytes()
    assert main(["compare", str(a), str(b)]) == 0


def test_verdicts_differ_by_what_they_decide_not_by_what_they_measured(runs, capsys,
                                                                         monkeypatch):
    a, b = runs
    monkeypatch.chdir(b)  # where its inputs are recorded from
    write_verdicts(VERDICTS, "correct", cpu_s=0.13)  # the same program, timed again
    assert main(["compare", str(a), str(b)]) == 0
    write_verdicts(VERDICTS, "optimization_failure", cpu_s=0.13)
    assert main(["compare", str(a), str(b)]) == 1
    assert "first difference: verdicts, 1 of 1 outputs" in capsys.readouterr().out


def test_differing_rows_and_outputs_only_one_run_has_are_listed(runs, capsys):
    a, b = runs
    change_frontier(b, 0.75)
    shutil.rmtree(b / RL)
    assert main(["compare", str(a), str(b)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert "first difference: tables, 1 of 1 outputs" in lines
    assert f"only in {a}: {RL}" in lines
    assert "frontier: 2 and 2 rows, 1 differ" in lines


def test_the_stages_follow_the_workflow(runs):
    a, _ = runs
    second = {name: template.fill(model="tiny", setting="reasoning", ckpt="rl-k2")
              for name, template in (("samples", layout.SECOND_ATTEMPT_SAMPLES),
                                     ("verdicts", layout.SECOND_ATTEMPT_VERDICTS))}
    for path in second.values():
        write_table(a / path, [{"problem_id": "p1"}])
    (a / layout.DATA.fill(split=".eval.parquet.tmp-1")).write_bytes(b"")  # being written
    found = {stage.name: stage.outputs(a) for stage in STAGES}
    assert found["problems"] == [layout.DATA.fill(split="train")]
    assert found["SFT data"] == [layout.DATA.fill(split="sft")]
    assert [found[name] for name in ("SFT checkpoint", "RL runs", "samples", "verdicts")] == \
        [[SFT], [RL], [SAMPLES], [VERDICTS]]
    assert found["merges"] == [MERGE, MERGE_RECORD]
    assert output_hash(a / MERGE_RECORD) == output_hash(a / MERGE)  # the folder it names
    assert found["second-attempt samples"] == [second["samples"]]
    assert found["second-attempt verdicts"] == [second["verdicts"]]
    assert found["tables"] == [layout.FRONTIER]


def test_a_folder_that_is_not_a_workflow_root_is_status_2(runs, capsys):
    a, b = runs
    assert main(["compare", str(a), str(b / "nope")]) == 2
    assert f"{b / 'nope'} holds no results/" in capsys.readouterr().err
