"""Provenance records and the audit on small hand-made outputs (no workflow run)."""

import json

import pyarrow as pa
import pyarrow.parquet as pq

from codefrontier.audit import audit
from codefrontier.provenance import PARQUET_KEY, code_version, record, set_config_slice
from codefrontier.workflow import config_slice


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
    config = {"sampling": {"n": 4}, "judge": {}, "models": {}, "settings": ["reasoning"],
              "data": {}}
    used = {"rule": "sample", "wildcards": {"setting": "reasoning"},
            "slice": config_slice(config, "sample", setting="reasoning")}
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
