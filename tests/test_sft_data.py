"""SFT conversations from the bundled families, in each setting's protocol."""

import json

import pytest

from codefrontier.judge.extract import extract_code
from codefrontier.sftdata.conversations import build_sft
from codefrontier.suite.build import instances

FAMILIES = {"two-sum", "anagram-groups"}  # one call-based, one stdin family


@pytest.fixture(scope="module")
def records():
    return build_sft("train", 1, families=FAMILIES, knob_pool=3,
                     settings=["reasoning", "tool_use", "agentic"])


def test_every_train_instance_gives_its_efficient_and_each_slow_program():
    records = build_sft("train", 2)
    by_problem: dict[str, set[str]] = {}
    for record in records:
        by_problem.setdefault(record["problem_id"], set()).add(record["variant"])
    chosen = {i.problem_id: i for i in instances("train", 2)}
    assert set(by_problem) == set(chosen)
    for problem_id, variants in by_problem.items():
        assert variants == {"efficient"} | {f"slow:{complexity}"
                                            for complexity in chosen[problem_id].slow}
    assert {r["setting"] for r in records} == {"reasoning"} and all(r["tools"] is None
                                                                    for r in records)


def test_reasoning_answers_carry_the_instance_program():
    by_id = {i.problem_id: i for i in instances("train", 2)}
    for record in build_sft("train", 2):
        instance = by_id[record["problem_id"]]
        program = (instance.efficient if record["variant"] == "efficient"
                   else instance.slow[record["variant"].removeprefix("slow:")])
        system, user, assistant = json.loads(record["messages"])
        assert (system["role"], user["role"]) == ("system", "user")
        assert "```python" in user["content"]
        assert assistant["role"] == "assistant"
        assert extract_code(assistant["content"]).rstrip() == program.rstrip()
        assert not assistant["content"].startswith("```")  # a one-sentence plan comes first


def test_each_setting_has_its_protocol(records):
    by_setting = {}
    for record in records:
        by_setting.setdefault(record["setting"], []).append(record)
    assert {s: len(r) for s, r in by_setting.items()} == \
        {"reasoning": 4, "tool_use": 4, "agentic": 4}
    for record in by_setting["tool_use"]:
        roles = [m["role"] for m in json.loads(record["messages"])]
        assert roles == ["system", "user", "assistant", "tool", "assistant"]
        assert [t["function"]["name"] for t in json.loads(record["tools"])] == ["python"]
    for record in by_setting["agentic"]:
        messages = json.loads(record["messages"])
        calls = [m["tool_calls"][0]["function"]["name"] for m in messages if m.get("tool_calls")]
        assert calls == ["bash", "submit"]
        assert {t["function"]["name"] for t in json.loads(record["tools"])} == {"bash", "submit"}


def test_tool_results_are_real_runs_of_the_reference(records):
    by_id = {i.problem_id: i for i in instances("train", 1, families=FAMILIES, knob_pool=3)}
    for record in records:
        if record["setting"] == "reasoning":
            continue
        messages = json.loads(record["messages"])
        [first_call] = messages[2]["tool_calls"]
        observation = messages[3]["content"]
        if record["setting"] == "tool_use":
            instance = by_id[record["problem_id"]]
            program = (instance.efficient if record["variant"] == "efficient"
                   else instance.slow[record["variant"].removeprefix("slow:")])
            assert first_call["function"]["arguments"]["code"] == program
            assert observation.startswith("exit status: 0 (ok")
            assert extract_code(messages[4]["content"]).rstrip() == program.rstrip()
        else:
            assert observation.startswith("exit code 0\n") and "turns left" in observation
            assert messages[5]["content"] == "submitted solution.py"


TINY = dict(vocab_size=800, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
            num_attention_heads=2, num_key_value_heads=1)


@pytest.fixture(scope="module", params=[False, True], ids=["trained", "masked"])
def every_kind(request, tmp_path_factory):
    """Plain, fix and repair conversations in all three settings, their failed first
    attempts trained or masked, and the SFT trainer on them (a tiny model)."""
    from codefrontier.base.tables import write_records
    from codefrontier.models.embedded import EmbeddedModelSpec, init_embedded_model
    from codefrontier.train.sft import sft_trainer

    folder = tmp_path_factory.mktemp("sft")
    records = build_sft("train", 1, families=FAMILIES, knob_pool=3,
                        settings=["reasoning", "tool_use", "agentic"], with_fixes=True,
                        with_repairs=True, mask_failed_attempts=request.param)
    write_records(records, folder / "sft.parquet")
    model = init_embedded_model(folder / "model", [folder / "sft.parquet"],
                                EmbeddedModelSpec(**TINY))
    trainer = sft_trainer(str(model), folder / "sft.parquet", folder / "work")
    return request.param, records, trainer


def split_by_loss(tokenizer, example) -> tuple[str, str]:
    """The text that carries SFT loss and the text that does not."""
    pairs = list(zip(example["input_ids"], example["labels"], strict=True))
    return (tokenizer.decode([t for t, label in pairs if label != -100]),
            tokenizer.decode([t for t, label in pairs if label == -100]))


def test_sft_trains_the_assistant_turns_after_the_context_only(every_kind):
    """The labels TRL's SFTTrainer builds: the prompt and the tool results carry no
    loss, nor the failed first attempt of fix and repair conversations when masked;
    every assistant turn after the context does."""
    masked, records, trainer = every_kind
    assert {r["variant"].split(":")[0] for r in records} == {"efficient", "slow", "repair"}
    assert any(r["draft"] for r in records)
    assert len(trainer.train_dataset) == len(records)
    for record, example in zip(records, trainer.train_dataset, strict=True):
        messages = json.loads(record["messages"])
        trained, untrained = split_by_loss(trainer.processing_class, example)
        context, answer = messages[:record["context_turns"]], messages[record["context_turns"]:]
        assert answer[0]["role"] == "assistant"
        for message in answer:
            if message["role"] == "assistant" and message["content"]:
                assert message["content"] in trained, record["variant"]
        assert "<tool_response>" not in trained and "Problem" not in trained
        failed_attempt = record["draft"] is not None or record["variant"] == "repair"
        assert len(context) == (4 if masked and failed_attempt else 2)  # else system, user
        for message in context[2:]:  # the failed attempt and what it got back
            assert message["content"] not in trained and message["content"] in untrained


def test_sft_trains_the_same_tokens_as_trls_language_modeling_path_but_the_masks(every_kind,
                                                                             tmp_path):
    """Against TRL on whole conversations with assistant masks: unmasked data train the
    same tokens; masked data train fewer, none of them outside those."""
    from datasets import Dataset, Features, Json, List, Value
    from trl import SFTConfig, SFTTrainer

    from codefrontier.train.common import trainer_config
    from codefrontier.train.sft import DEFAULTS

    masked, records, trainer = every_kind
    features = Features({"messages": List(Json()), "tools": Value("string")})
    whole = Dataset.from_list([{"messages": json.loads(r["messages"]), "tools": r["tools"]}
                               for r in records], features=features)
    config = trainer_config(SFTConfig, {**DEFAULTS, "assistant_only_loss": True}, {}, tmp_path)
    reference = SFTTrainer(model=trainer.model, args=config, train_dataset=whole,
                           processing_class=trainer.processing_class)
    for ours, theirs, record in zip(trainer.train_dataset, reference.train_dataset, records,
                                    strict=True):
        assert ours["input_ids"] == theirs["input_ids"]
        if not masked:
            assert ours["labels"] == theirs["labels"]
            continue
        pairs = list(zip(ours["labels"], theirs["labels"], strict=True))
        assert all(label in (-100, their) for label, their in pairs)
        dropped = sum(label == -100 != their for label, their in pairs)
        # the newline after the first assistant header, and in fix and repair conversations
        # the whole failed attempt
        failed_attempt = record["draft"] is not None or record["variant"] == "repair"
        assert dropped > 20 if failed_attempt else dropped == 1


def test_without_context_turns_the_prompt_ends_before_the_first_assistant_turn():
    from codefrontier.train.sft import context_length, prompt_length

    messages = [{"role": "system"}, {"role": "user"}, {"role": "assistant"}, {"role": "tool"},
                {"role": "assistant"}]
    assert context_length(messages, None) == 2
    assert context_length(messages, 4) == 4
    assert prompt_length(messages) == 2
    for bad in (0, 3, 5):
        with pytest.raises(ValueError, match="must start with an assistant turn"):
            context_length(messages, bad)


def test_fix_conversations_run_a_broken_draft_then_the_reference():
    by_id = {i.problem_id: i for i in instances("train", 1, families=FAMILIES, knob_pool=3)}
    records = build_sft("train", 1, families=FAMILIES, knob_pool=3,
                        settings=["reasoning", "tool_use", "agentic"], with_fixes=True)
    fixes = [r for r in records if r["draft"] is not None]
    assert {r["setting"] for r in fixes} <= {"tool_use", "agentic"} and fixes
    assert len(records) - len(fixes) == 12  # the plain conversations are unchanged
    for record in fixes:
        instance = by_id[record["problem_id"]]
        program = (instance.efficient if record["variant"] == "efficient"
                   else instance.slow[record["variant"].removeprefix("slow:")])
        messages = json.loads(record["messages"])
        [first] = messages[2]["tool_calls"]
        observation = messages[3]["content"]
        expected = first_example_output(instance)
        # a real run of a real draft that fails on the example
        assert not observation.startswith(("exit status: 0", "exit code 0")) or \
            expected not in observation
        if record["setting"] == "tool_use":
            assert first["function"]["arguments"]["code"] != program
            assert extract_code(messages[4]["content"]).rstrip() == program.rstrip()
            assert messages[4]["content"].split("\n")[0].endswith("so I fix the program.")
        else:
            calls = [m["tool_calls"][0]["function"] for m in messages if m.get("tool_calls")]
            assert [c["name"] for c in calls] == ["bash", "bash", "submit"]
            assert program.rstrip() in calls[1]["arguments"]["command"]
            assert program.rstrip() not in calls[0]["arguments"]["command"]
            assert messages[5]["content"].startswith("exit code 0\n")
            assert messages[7]["content"] == "submitted solution.py"


def first_example_output(instance) -> str:
    from codefrontier.sftdata.demonstrations import first_example
    from codefrontier.suite.build import to_problem

    return first_example(to_problem(instance))[1].strip()


def test_two_builds_are_identical(records):
    """Tool results are real runs, whose CPU time varies from run to run: the observation
    shows it in tenths, so the data (and the tokenizer and model trained on it) repeat."""
    again = build_sft("train", 1, families=FAMILIES, knob_pool=3,
                      settings=("reasoning", "tool_use", "agentic"))
    assert [r["messages"] for r in again] == [r["messages"] for r in records]
    assert any("(ok, 0.0 s CPU)" in r["messages"] for r in records)


def test_two_builds_with_repairs_are_identical():
    """A repair conversation quotes the judge on a slow reference that ran out of time:
    it names the limit, not the CPU time measured, so two builds agree."""
    first, again = (build_sft("train", 1, families=FAMILIES, knob_pool=3, with_repairs=True)
                    for _ in range(2))
    repairs = [r["messages"] for r in first if r["variant"] == "repair"]
    assert repairs and all("more than its" in m for m in repairs)
    assert [r["messages"] for r in again] == [r["messages"] for r in first]


def test_instances_played_at_once_give_the_same_conversations(monkeypatch):
    """Two workers: each instance's conversations in another thread, the order kept. The
    problems are built afresh, and in the calling thread only: building runs the
    reference programs in-process with stdin and stdout swapped (two at once mixed their
    outputs up)."""
    import threading

    from codefrontier.suite import build

    options = {"families": FAMILIES, "knob_pool": 3, "with_repairs": True, "with_fixes": True,
               "settings": ("reasoning", "tool_use", "agentic")}
    one = build_sft("train", 2, **options)
    built_in = []
    make_problem = build._make_problem
    monkeypatch.setattr(build, "_make_problem", lambda *args: built_in.append(
        threading.current_thread()) or make_problem(*args))
    build._cached_problem.cache_clear()
    two = build_sft("train", 2, workers=2, **options)
    assert built_in and set(built_in) == {threading.current_thread()}
    assert [(r["problem_id"], r["setting"], r["variant"], r["messages"]) for r in two] == \
        [(r["problem_id"], r["setting"], r["variant"], r["messages"]) for r in one]
    assert len({r["problem_id"] for r in one}) == 4
    with pytest.raises(ValueError, match="workers"):
        build_sft("train", 1, families=FAMILIES, workers=0)


def test_repairs_repair_a_slow_program_past_its_break_decade():
    """The repair's first answer is a slow program whose break decade the instance's tests
    reach; its feedback quotes where it ran out of time: its break decade, on any machine
    within the calibration's margins. An instance that every slow program solves has no
    repair."""
    from codefrontier.sftdata.conversations import failing_slow_program
    from codefrontier.suite.build import to_problem

    chosen = instances("train", 4, families=FAMILIES, knob_pool=3)
    records = build_sft("train", 4, families=FAMILIES, knob_pool=3, with_repairs=True)
    repairs = {r["problem_id"]: r for r in records if r["variant"] == "repair"}
    for instance in chosen:
        problem = to_problem(instance)
        slow = failing_slow_program(problem, instance)
        assert (instance.problem_id in repairs) == (slow is not None)
        if slow is None:
            continue
        decade = next(p.break_decade for p in instance.family.slow
                      if instance.render(p.source) == slow)
        messages = json.loads(repairs[instance.problem_id]["messages"])
        assert extract_code(messages[2]["content"]).rstrip() == slow.rstrip()
        feedback = [m for m in messages if m["role"] == "user"][-1]["content"]
        passed = int(feedback.split("after passing every test up to ")[1].split()[0])
        assert passed < 10 ** decade
        longer = [t.input_len for t in problem.tests if t.input_len > passed]
        assert min(longer) >= 10 ** decade
