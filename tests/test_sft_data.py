"""SFT pairs from the bundled families."""

from codefrontier.judge.extract import extract_code
from codefrontier.suite.build import instances
from codefrontier.suite.sft import build_sft


def test_every_train_instance_gives_an_efficient_and_a_slow_pair():
    records = build_sft("train", 2)
    by_problem: dict[str, set[str]] = {}
    for record in records:
        by_problem.setdefault(record["problem_id"], set()).add(record["variant"])
    assert set(by_problem) == {i.problem_id for i in instances("train", 2)}
    assert all(variants == {"efficient", "slow"} for variants in by_problem.values())


def test_completions_carry_the_instance_program_in_the_answer_format():
    by_id = {i.problem_id: i for i in instances("train", 2)}
    for record in build_sft("train", 2):
        instance = by_id[record["problem_id"]]
        program = instance.efficient if record["variant"] == "efficient" else instance.slow
        [user] = record["prompt"]
        [assistant] = record["completion"]
        assert user["role"] == "user" and "```python" in user["content"]
        assert assistant["role"] == "assistant"
        assert extract_code(assistant["content"]).rstrip() == program.rstrip()
        assert not assistant["content"].startswith("```")  # a one-sentence plan comes first
