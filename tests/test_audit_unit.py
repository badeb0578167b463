"""Provenance records and the audit on small hand-made outputs (no workflow run)."""

import json
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from codefrontier.base.provenance import (
    DISPATCHED_ISA,
    PARQUET_KEY,
    code_version,
    record,
    set_config_slice,
    write_provenance,
)
from codefrontier.cli import main
from codefrontier.pipeline.audit import ELSEWHERE, OFF, audit
from codefrontier.pipeline.workflow import config_slice


def write_output(path, inputs, **fields):
    table = pa.table({"x": [1]})
    metadata = {PARQUET_KEY.encode(): json.dumps(record(inputs, **fields)).encode()}
    pq.write_table(table.replace_schema_metadata(metadata), path)


def test_a_clean_chain_has_no_findings_and_a_changed_input_is_named(tmp_path):
    source = tmp_path / "source.txt"
    source.write_text("v1")
    middle, top = tmp_path / "middle.parquet", tmp_path / "top.parquet"
    write_output(middle, [source], kind="middle")
    write_output(top, [middle], kind="top")
    findings, checked = audit(top)
    assert findings == [] and checked == 3
    source.write_text("v2")
    findings, _ = audit(top)
    assert [str(f) for f in findings] == [f"{middle}: input {source} changed after it was used"]


def test_missing_provenance_and_other_code_are_reported(tmp_path):
    bare = tmp_path / "bare.parquet"
    pq.write_table(pa.table({"x": [1]}), bare)
    old = tmp_path / "old.parquet"
    write_output(old, [bare])
    raw = json.loads(pq.read_schema(old).metadata[PARQUET_KEY.encode()])
    raw["code_version"] = "0" * 16
    pq.write_table(pa.table({"x": [1]}).replace_schema_metadata(
        {PARQUET_KEY.encode(): json.dumps(raw).encode()}), old)
    problems = sorted(f.problem for f in audit(old)[0])
    assert problems == [f"made by code {'0' * 16}, current code is {code_version()}",
                        "no provenance"]


def test_config_slices_are_recorded_and_compared(tmp_path):
    config = {"sampling": {"n": 4}, "judge": {}, "models": {"tiny": {}},
              "settings": ["reasoning"], "data": {}}
    wildcards = {"model": "tiny", "setting": "reasoning"}
    used = {"rule": "sample", "wildcards": wildcards,
            "slice": config_slice(config, "sample", **wildcards)}
    set_config_slice(used)
    try:
        out = tmp_path / "samples.parquet"
        write_output(out, [])
    finally:
        set_config_slice(None)
    assert audit(out, config)[0] == []
    config["sampling"]["n"] = 8
    (finding,) = audit(out, config)[0]
    assert "another config for rule 'sample'" in finding.problem


def build_chain(root):
    """root/data/source.txt -> root/results/middle.parquet -> root/results/top.parquet,
    recorded from inside root as the workflow records them."""
    (root / "data").mkdir(parents=True)
    (root / "results").mkdir()
    (root / "data" / "source.txt").write_text("v1")
    write_output(root / "results" / "middle.parquet", ["data/source.txt"], kind="middle")
    write_output(root / "results" / "top.parquet", ["results/middle.parquet"], kind="top")


def flip_a_byte(path):
    data = bytearray(path.read_bytes())
    data[0] ^= 0xFF
    path.write_bytes(bytes(data))


@pytest.fixture
def moved_tree(tmp_path, monkeypatch):
    """A chain built in tmp_path/original and copied to tmp_path/copy; cwd is tmp_path."""
    original, copy = tmp_path / "original", tmp_path / "copy"
    original.mkdir()
    monkeypatch.chdir(original)
    build_chain(original)
    shutil.copytree(original, copy)
    monkeypatch.chdir(tmp_path)
    return original, copy


def test_inputs_under_the_working_directory_are_recorded_relative_to_it(tmp_path, monkeypatch):
    outside = tmp_path / "outside.txt"
    outside.write_text("hub file")
    (tmp_path / "root" / "data").mkdir(parents=True)
    (tmp_path / "root" / "data" / "a.txt").write_text("a")
    monkeypatch.chdir(tmp_path / "root")
    inputs = record(["data/a.txt", tmp_path / "root" / "data" / "a.txt", outside])["inputs"]
    assert [(i["path"], i.get("relative_to")) for i in inputs] == [
        ("data/a.txt", "root"), ("data/a.txt", "root"), (str(outside.resolve()), None)]


def test_a_copied_tree_is_audited_against_its_own_inputs(moved_tree):
    original, copy = moved_tree
    flip_a_byte(copy / "data" / "source.txt")
    findings, checked = audit(copy / "results" / "top.parquet", root=copy)
    assert checked == 3
    assert [str(f) for f in findings] == [
        f"{copy / 'results' / 'middle.parquet'}: input {copy / 'data' / 'source.txt'} "
        "changed after it was used"]
    assert audit(original / "results" / "top.parquet", root=original)[0] == []


def test_an_untouched_copy_audits_clean_against_its_root(moved_tree):
    _, copy = moved_tree
    assert audit(copy / "results" / "top.parquet", root=copy) == ([], 3)


def test_the_root_defaults_to_the_working_directory(moved_tree, monkeypatch):
    _, copy = moved_tree
    flip_a_byte(copy / "data" / "source.txt")
    monkeypatch.chdir(copy)
    (finding,) = audit("results/top.parquet")[0]
    assert finding.problem == f"input {copy / 'data' / 'source.txt'} changed after it was used"


def test_absolute_input_paths_are_checked_where_they_are_whatever_the_root(tmp_path):
    source = tmp_path / "elsewhere" / "source.txt"
    source.parent.mkdir()
    source.write_text("v1")
    out = tmp_path / "out.parquet"
    write_output(out, [source])  # tmp_path is not under the cwd: recorded absolute
    flip_a_byte(source)
    (finding,) = audit(out, root=tmp_path / "nowhere")[0]
    assert finding.problem == f"input {source.resolve()} changed after it was used"


def test_the_audit_command_checks_a_moved_tree_against_root(moved_tree, capsys):
    _, copy = moved_tree
    flip_a_byte(copy / "data" / "source.txt")
    status = main(["audit", str(copy / "results" / "top.parquet"), "--root", str(copy)])
    assert status == 1
    assert f"input {copy / 'data' / 'source.txt'} changed after it was used" in \
        capsys.readouterr().out


def corrupt_footer(path):
    data = path.read_bytes()
    path.write_bytes(data[:-12] + b"\0" * 12)


def test_a_parquet_with_a_corrupted_footer_is_an_unreadable_finding(tmp_path):
    out = tmp_path / "out.parquet"
    write_output(out, [])
    corrupt_footer(out)
    (finding,) = audit(out)[0]
    assert finding.path == str(out) and finding.problem.startswith("unreadable: ")


def test_a_truncated_input_parquet_is_named_as_unreadable(tmp_path):
    middle, top = tmp_path / "middle.parquet", tmp_path / "top.parquet"
    write_output(middle, [])
    write_output(top, [middle])
    middle.write_bytes(middle.read_bytes()[:20])
    findings = [str(f) for f in audit(top)[0]]
    assert f"{top}: input {middle} changed after it was used" in findings
    assert any(f.startswith(f"{middle}: unreadable: ") for f in findings)


def test_a_provenance_json_that_is_not_json_is_an_unreadable_finding(tmp_path):
    folder = tmp_path / "checkpoint"
    folder.mkdir()
    (folder / "provenance.json").write_text('{"inputs": [')
    (finding,) = audit(folder)[0]
    assert finding.path == str(folder / "provenance.json")
    assert finding.problem.startswith("unreadable: not valid JSON")


def test_the_audit_command_reports_a_corrupted_parquet_with_status_1(tmp_path, capsys):
    out = tmp_path / "out.parquet"
    write_output(out, [])
    corrupt_footer(out)
    assert main(["audit", str(out)]) == 1
    assert f"{out}: unreadable: " in capsys.readouterr().out


def test_the_audit_command_reports_a_provenance_json_that_is_not_json_with_status_1(
        tmp_path, capsys):
    folder = tmp_path / "checkpoint"
    folder.mkdir()
    (folder / "provenance.json").write_text("not json")
    assert main(["audit", str(folder)]) == 1
    assert f"{folder / 'provenance.json'}: unreadable: not valid JSON" in capsys.readouterr().out


def test_the_audit_command_refuses_a_root_that_is_not_a_directory(moved_tree, capsys):
    _, copy = moved_tree
    status = main(["audit", str(copy / "results" / "top.parquet"), "--root", str(copy / "nope")])
    assert status == 2
    assert f"--root {copy / 'nope'} is not a directory" in capsys.readouterr().err


def test_an_input_entry_without_a_path_is_a_finding(tmp_path):
    folder = tmp_path / "checkpoint"
    folder.mkdir()
    (folder / "provenance.json").write_text(json.dumps({"inputs": [{"sha256": "0" * 64}],
                                                        "code_version": code_version()}))
    (finding,) = audit(folder)[0]
    assert finding.problem == f"input entry {{'sha256': '{'0' * 64}'}} lacks a path or sha256"


def test_a_record_names_the_processor_it_was_made_on():
    import platform

    import torch

    found = record([])["machine"]
    assert found["arch"] == platform.machine()
    assert found["cpu"]  # the model name from /proc/cpuinfo, or platform's fallback
    assert set(found["isa"]) <= set(DISPATCHED_ISA)
    assert found["torch_cpu_capability"] == torch.backends.cpu.get_cpu_capability()


def rewrite_record(path, **changes):
    """`path` (write_output's parquet) with its provenance record changed."""
    raw = json.loads(pq.read_schema(path).metadata[PARQUET_KEY.encode()])
    pq.write_table(pa.table({"x": [1]}).replace_schema_metadata(
        {PARQUET_KEY.encode(): json.dumps({**raw, **changes}).encode()}), path)


ANOTHER_PROCESSOR = {"arch": "x86_64", "cpu": "AMD EPYC 7763 64-Core Processor",
                     "isa": ["avx2", "fma"]}


def test_an_output_made_on_another_processor_is_an_informational_finding_of_its_own(tmp_path):
    source = tmp_path / "source.txt"
    source.write_text("v1")
    middle, top = tmp_path / "middle.parquet", tmp_path / "top.parquet"
    write_output(middle, [source])
    write_output(top, [middle])
    here = record([])["machine"]
    rewrite_record(top, machine=ANOTHER_PROCESSOR)  # top's input `middle` is unchanged
    source.write_text("v2")
    findings = audit(top)[0]
    assert [(f.path, f.kind) for f in findings] == [
        (str(top), ELSEWHERE), (str(middle), OFF)]
    assert findings[0].problem == (
        "made on another processor: AMD EPYC 7763 64-Core Processor [avx2, fma] vs this "
        f"machine's {here['cpu']} [{', '.join(here['isa'])}]"
        + (f", torch {here['torch_cpu_capability']}" if "torch_cpu_capability" in here else ""))
    assert findings[1].problem == f"input {source} changed after it was used"


def test_other_library_versions_are_named(tmp_path):
    folder = tmp_path / "checkpoint"
    folder.mkdir()
    write_provenance(folder, record([]))
    recorded = json.loads((folder / "provenance.json").read_text())
    (folder / "provenance.json").write_text(json.dumps({**recorded, "torch_version": "2.0.0"}))
    (finding,) = audit(folder)[0]
    assert finding.kind == ELSEWHERE
    assert finding.problem == (f"made with other library versions: torch 2.0.0 vs "
                               f"{recorded['torch_version']}")


def test_the_audit_command_lists_outputs_made_elsewhere_apart_with_status_0(tmp_path, capsys):
    out = tmp_path / "out.parquet"
    write_output(out, [])
    rewrite_record(out, machine={**record([])["machine"], "isa": ["avx2"]})
    assert main(["audit", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("made elsewhere (informational")
    assert lines[1].startswith("  made on another processor: ") and " [avx2]" in lines[1]
    assert lines[2] == f"    {out}"
    assert lines[3].endswith(": no findings; 1 output made on another processor or with other "
                             "library versions (informational)")


def test_a_processor_no_record_names_is_no_finding(tmp_path):
    """Records written before `machine` was recorded, and entries one side lacks (a
    process that never loaded PyTorch), are not compared."""
    out = tmp_path / "out.parquet"
    write_output(out, [])
    here = record([])["machine"]
    rewrite_record(out, machine={key: here[key] for key in ("arch", "cpu", "isa")})
    assert audit(out)[0] == []
    rewrite_record(out, machine=None)
    assert audit(out)[0] == []
