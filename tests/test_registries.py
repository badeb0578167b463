"""The settings and rewards registries are the one list of each: the schema and the CLI
agree with them, and a setting or a reward registered in one place (here, inside the
test) runs through sampling, judging, training and the frontier table."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from pathlib import Path

import pandas as pd
import pytest
import yaml
from conftest import stdin_problem

from codefrontier import cli
from codefrontier.loaders.sources import SOURCES, ProblemQuery, load_source
from codefrontier.models.embedded import EmbeddedModelSpec, init_embedded_model
from codefrontier.problems.schema import Problem, save_problems
from codefrontier.rewards import REWARDS, RewardFamily, reward_pattern
from codefrontier.settings.base import SampleRecord, Setting
from codefrontier.settings.registry import SETTINGS, SettingEntry
from codefrontier.sftdata.demonstrations import DEMONSTRATIONS

REPO = Path(__file__).resolve().parents[1]
SPEC = EmbeddedModelSpec(vocab_size=512, hidden_size=64, intermediate_size=128,
                         num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1)


def schema() -> dict:
    return yaml.safe_load((REPO / "config.schema.yaml").read_text())


def walk(node):
    """Every mapping in a parsed schema."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from walk(value)


def test_every_setting_has_its_sft_demonstration():
    assert list(DEMONSTRATIONS) == list(SETTINGS)


def test_every_setting_enum_of_the_schema_is_the_registry():
    enums = [node["enum"] for node in walk(schema()) if "reasoning" in node.get("enum", [])]
    assert len(enums) >= 5
    assert all(enum == list(SETTINGS) for enum in enums)


def test_the_schema_episode_limits_are_the_registered_limits():
    episodes = schema()["properties"]["episodes"]["properties"]
    assert {setting: list(entry["properties"]) for setting, entry in episodes.items()} == \
        {name: [f.name for f in entry.limit_fields()]
         for name, entry in SETTINGS.items() if entry.limits}
    for setting, entry in episodes.items():  # each limit's default and help, as the code's
        for limit in SETTINGS[setting].limit_fields():
            stated = entry["properties"][limit.name]
            assert (stated["default"], stated["description"]) == \
                (limit.default, limit.metadata["help"]), (setting, limit.name)


def test_the_schema_reward_patterns_are_the_registered_rewards():
    patterns = {node["pattern"] for node in walk(schema())
                if "kinf" in str(node.get("pattern", ""))}
    assert patterns == {f"^({reward_pattern()})$", f"^({reward_pattern(nested=True)})$",
                        f"^(sft|rl-({reward_pattern()}))$"}


def choices(parser, *path: str, option: str) -> list:
    for name in path:
        subparsers = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
        parser = subparsers.choices[name]
    return list(next(a for a in parser._actions if option in a.option_strings).choices)


def test_the_cli_offers_the_registered_settings_and_sources():
    parser = cli.build_parser()
    for path in (("sample",), ("train", "grpo"), ("problems", "sft")):
        assert choices(parser, *path, option="--setting") == list(SETTINGS)
    assert choices(parser, "problems", "build", option="--source") == list(SOURCES)


def test_the_schema_problem_sources_are_the_registered_sources():
    source = schema()["definitions"]["problem_source"]["properties"]["source"]
    assert source["enum"] == list(SOURCES)


def build_arguments(*argv: str) -> ProblemQuery:
    options = cli.build_parser().parse_args(["problems", "build", "--out", "x.parquet", *argv])
    return ProblemQuery.from_options(options)


def test_the_query_holds_every_option_of_problems_build():
    parser = cli.build_parser()
    options = vars(parser.parse_args(["problems", "build", "--out", "x.parquet"]))
    query = {f.name for f in fields(ProblemQuery)}
    assert query <= set(options)
    assert set(options) - query == {"out", "verbose", "provenance_config", "command",
                                    "problems_command", "handler"}


def test_a_real_dataset_is_an_evaluation_set_and_the_bundled_suite_needs_a_split():
    with pytest.raises(ValueError, match="humaneval is read as an evaluation set"):
        load_source(build_arguments("--source", "humaneval", "--split", "train"))
    with pytest.raises(ValueError, match=r"--split train\|eval is required for bundled"):
        load_source(build_arguments())


# A fourth, trivial protocol, known only to this test: the statement cut to a number of
# words, and the model's one answer.
@dataclass(frozen=True)
class TerseLimits:
    max_words: int = field(default=8, metadata={"help": "words of the statement shown"})


class TerseSetting(Setting):
    name = "terse"

    def __init__(self, limits: TerseLimits | None = None) -> None:
        self.limits = limits or TerseLimits()

    def messages(self, problem: Problem) -> list[dict]:
        words = problem.statement.split()[:self.limits.max_words]
        return [{"role": "user", "content": " ".join(words)}]

    def run(self, backend, problems, sampling, progress=True, pool=None,
            shards=None) -> list[SampleRecord]:
        generations = backend.generate([self.messages(p) for p in problems], sampling, progress,
                                       shards=shards)
        return [SampleRecord(problem_id=problem.problem_id, sample_id=index, setting=self.name,
                             completion=g.text, finish_reason=g.finish_reason,
                             prompt_tokens=g.prompt_tokens,
                             completion_tokens=g.completion_tokens,
                             transcript=[{"role": "assistant", "content": g.text}])
                for problem, samples in zip(problems, generations, strict=True)
                for index, g in enumerate(samples)]


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    folder = tmp_path_factory.mktemp("registries")
    problems = folder / "eval.parquet"
    save_problems([stdin_problem("sum-a"), stdin_problem("sum-b")], problems)
    model = init_embedded_model(folder / "model", [problems], SPEC)
    return folder, problems, model


def run(*argv) -> None:
    assert cli.main([str(a) for a in argv]) == 0


def sample_and_judge(model, problems, verdicts: Path, *options) -> None:
    samples = verdicts.parent / "samples.parquet"
    run("sample", "--model", model, "--problems", problems, "--n", "2", "--max-new-tokens", "8",
        "--quiet", "--out", samples, *options)
    run("judge", "--problems", problems, "--samples", samples, "--out", verdicts,
        "--workers", "1", "--quiet")


@pytest.mark.slow
def test_a_setting_registered_in_one_place_runs_through_sample_judge_and_frontier(
        world, monkeypatch):
    folder, problems, model = world
    monkeypatch.setitem(SETTINGS, "terse", SettingEntry(
        "terse", TerseSetting, TerseLimits))
    verdicts = folder / "results" / "tiny" / "terse" / "sft" / "verdicts.parquet"
    sample_and_judge(model, problems, verdicts, "--setting", "terse", "--max-words", "3")
    samples = pd.read_parquet(verdicts.parent / "samples.parquet")
    assert set(samples["setting"]) == {"terse"} and len(samples) == 4
    out = folder / "frontier.parquet"
    run("frontier", "--problems", problems, "--verdicts", verdicts, "--out", out)
    frontier = pd.read_parquet(out)
    assert set(frontier["setting"]) == {"terse"}
    assert frontier.loc[frontier["difficulty"] == "all", "samples"].tolist() == [4]


def half_the_tests(verdicts, input_lens) -> float:
    """1 when at least half of the problem's tests pass."""
    return float(sum(v == "AC" for v in verdicts) * 2 >= len(input_lens))


@pytest.mark.slow
def test_a_reward_registered_in_one_place_trains_and_reaches_the_frontier_table(
        world, monkeypatch):
    from codefrontier.analysis.plots import SHAPED, _marker

    folder, problems, model = world
    monkeypatch.setitem(REWARDS, "half", RewardFamily(
        "half", "half", lambda name: half_the_tests, lambda name: (float("inf"), True),
        nested=False))
    checkpoint = folder / "results" / "tiny" / "reasoning" / "rl" / "half"
    run("train", "grpo", "--model", model, "--problems", problems, "--reward", "half",
        "--out", checkpoint, "--judge-workers", "1", "--set", "max_steps=1",
        "--set", "num_generations=4", "--set", "per_device_train_batch_size=8",
        "--set", "max_completion_length=16")
    logged = [json.loads(line) for line in (checkpoint.parent / "half.work" /
                                            "rewards.jsonl").open()]
    assert len(logged) == 1 and logged[0]["samples"] == 8
    verdicts = folder / "results" / "tiny" / "reasoning" / "rl-half" / "verdicts.parquet"
    sample_and_judge(checkpoint, problems, verdicts)
    out = folder / "frontier-rl.parquet"
    run("frontier", "--problems", problems, "--verdicts", verdicts, "--out", out)
    row = pd.read_parquet(out).query("difficulty == 'all'").iloc[0]
    assert (row["checkpoint"], row["kind"], row["reward"]) == ("rl-half", "rl", "half")
    assert _marker(row) == SHAPED


def test_repair_runs_where_the_registry_says(monkeypatch):
    """The setting where repair runs is a property of its entry, not a name in the code:
    moved to another setting, the repair run's start and folder follow it."""
    from dataclasses import replace

    from codefrontier.pipeline import workflow as wf
    from codefrontier.settings.registry import repair_setting

    assert repair_setting() == "reasoning"
    from snakemake.utils import update_config

    config = yaml.safe_load((REPO / "config.yaml").read_text())
    update_config(config, yaml.safe_load((REPO / "configs" / "tiny-shaping-repair.yaml").read_text()))
    (model,) = config["models"]
    before = wf.checkpoint_folder(config, model, "agentic", "rl-repair-kinf")
    monkeypatch.setitem(SETTINGS, "reasoning", replace(SETTINGS["reasoning"], repairs=False))
    monkeypatch.setitem(SETTINGS, "tool_use", replace(SETTINGS["tool_use"], repairs=True))
    assert repair_setting() == "tool_use"
    after = wf.checkpoint_folder(config, model, "agentic", "rl-repair-kinf")
    assert "/reasoning/" in before and after == before.replace("/reasoning/", "/tool_use/")
