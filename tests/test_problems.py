import json

import pytest

from codefrontier.problems.schema import Problem, Test, load_problems, save_problems


def make(**overrides):
    fields = dict(problem_id="p", title="t", statement="s", difficulty="easy", source="x",
                  kind="stdin", tests=(Test("1 2", "3"),))
    fields.update(overrides)
    return Problem(**fields)


@pytest.mark.parametrize("suffix", [".parquet", ".jsonl"])
def test_round_trip(tmp_path, suffix):
    problems = [make(problem_id="a"), make(problem_id="b", kind="call", func_name="f",
                                           tests=(Test("[1]\n2", "3"),))]
    path = tmp_path / f"problems{suffix}"
    save_problems(problems, path)
    loaded = load_problems(path)
    assert [loaded[p.problem_id] for p in problems] == problems


def test_tests_sort_by_input_bytes_keeping_ties_in_order():
    problem = make(tests=(Test("long input", "1"), Test("é", "2"), Test("ab", "3"), Test("xy", "4")))
    assert [t.output for t in problem.tests_by_input_length()] == ["2", "3", "4", "1"]
    assert Test("é", "").input_len == 2  # bytes, not characters


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"difficulty": "trivial"}, "difficulty"),
        ({"kind": "interactive"}, "kind"),
        ({"kind": "call"}, "func_name"),
        ({"tests": ()}, "no tests"),
        ({"time_limit_s": 0}, "time_limit_s"),
        ({"kind": "call", "func_name": "f", "tests": (Test("not json", "1"),)}, "JSON"),
    ],
)
def test_invalid_problems_are_rejected(overrides, message):
    with pytest.raises(ValueError, match=message):
        make(**overrides)


def test_duplicate_ids_are_rejected(tmp_path):
    path = tmp_path / "p.jsonl"
    record = make().to_record()
    path.write_text(json.dumps(record) + "\n" + json.dumps(record) + "\n")
    with pytest.raises(ValueError, match="duplicate"):
        load_problems(path)


def test_unknown_extension_is_rejected(tmp_path):
    with pytest.raises(ValueError, match="unknown table format"):
        load_problems(tmp_path / "p.csv")
