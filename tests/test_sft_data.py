"""SFT pairs from the bundled suite."""

from codefrontier.judge.extract import extract_code
from codefrontier.suite.build import load_suite, split_of
from codefrontier.suite.sft import build_sft


def test_every_train_problem_gives_an_efficient_and_a_slow_pair():
    suite = load_suite()
    records = build_sft("train")
    by_problem: dict[str, set[str]] = {}
    for record in records:
        by_problem.setdefault(record["problem_id"], set()).add(record["variant"])
    train = {s.problem_id for s in suite if split_of(s, suite) == "train"}
    assert set(by_problem) == train
    assert all(variants == {"efficient", "slow"} for variants in by_problem.values())


def test_completions_carry_the_reference_program_in_the_answer_format():
    specs = {s.problem_id: s for s in load_suite()}
    for record in build_sft("train"):
        spec = specs[record["problem_id"]]
        program = spec.efficient if record["variant"] == "efficient" else spec.slow
        [user] = record["prompt"]
        [assistant] = record["completion"]
        assert user["role"] == "user" and "```python" in user["content"]
        assert assistant["role"] == "assistant"
        assert extract_code(assistant["content"]).rstrip() == program.rstrip()
        assert not assistant["content"].startswith("```")  # a reasoning paragraph comes first
