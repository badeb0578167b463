"""Typed options: one dataclass gives a command's flags and the workflow's command line."""

import argparse
from pathlib import Path

import pytest
import yaml

from codefrontier.base.options import add_options, command_line, field_names, from_args
from codefrontier.evaluate.second_attempt import SecondAttemptOptions
from codefrontier.generation.options import SampleOptions
from codefrontier.pipeline import workflow as wf
from codefrontier.train.repair import RepairOptions

REPO = Path(__file__).resolve().parents[1]


def test_flags_parse_back_to_the_options_and_default_to_the_fields():
    parser = argparse.ArgumentParser()
    add_options(parser, RepairOptions)
    assert from_args(RepairOptions, parser.parse_args([])) == RepairOptions()
    given = parser.parse_args(["--buffer-size", "8", "--first-attempt-weight", "0.5"])
    assert from_args(RepairOptions, given) == RepairOptions(buffer_size=8,
                                                            first_attempt_weight=0.5)


def test_the_command_line_of_a_config_block_round_trips_through_the_flags():
    block = {"first_attempt_weight": 0.5, "replay_share": 0.1}
    line = command_line(RepairOptions, block)
    assert line == "--replay-share 0.1 --first-attempt-weight 0.5"
    parser = argparse.ArgumentParser()
    add_options(parser, RepairOptions)
    assert from_args(RepairOptions, parser.parse_args(line.split())) == RepairOptions(**block)
    with pytest.raises(ValueError, match="no RepairOptions field replay_buffer"):
        command_line(RepairOptions, {"replay_buffer": 3})


def test_the_repair_run_passes_its_config_block_as_flags():
    config = {"models": {"tiny": {"rl": {"repair": {"reward": "kinf", "start": "rl-k2",
                                                    "buffer_size": 16}}}}}
    assert wf.rl_options(config, "tiny", "repair-kinf") == \
        "--reward kinf --repair --buffer-size 16"
    assert wf.rl_options(config, "tiny", "k2") == "--reward k2"


def parsed(options_class, argv: list[str]):
    parser = argparse.ArgumentParser()
    add_options(parser, options_class)
    return from_args(options_class, parser.parse_args(argv))


@pytest.mark.parametrize("options_class", [SampleOptions, SecondAttemptOptions])
def test_generation_options_default_to_their_fields_and_unset_values_stay_unset(options_class):
    assert parsed(options_class, []) == options_class()
    assert options_class().gpu_memory_utilization is None
    given = parsed(options_class, ["--backend", "vllm", "--gpu-memory-utilization", "0.3"])
    assert given.backend_options()["gpu_memory_utilization"] == 0.3
    with pytest.raises(SystemExit):
        parsed(options_class, ["--backend", "tgi"])


def test_a_sampling_block_becomes_the_sample_command_line_and_parses_back():
    config = yaml.safe_load((REPO / "config.yaml").read_text())
    sampling = wf.setting_sampling(config, "tool_use", "tiny")
    line = wf.sampling_options(sampling)
    options = parsed(SampleOptions, line.split())
    assert (options.n, options.max_new_tokens, options.batch_size) == (2, 256, 96)
    assert options.temperature == sampling["temperature"] and options.limit is None
    assert options.sampling(options.n).n == 2


def test_the_second_attempts_block_overrides_the_settings_sampling_on_the_command_line():
    config = {**yaml.safe_load((REPO / "config.yaml").read_text()),
              "second_attempts": {"temperature": 0.7, "max_feedback_tokens": 99}}
    options = parsed(SecondAttemptOptions, wf.second_attempt_options(config, "reasoning", "tiny").split())
    assert (options.temperature, options.max_feedback_tokens) == (0.7, 99)
    assert options.max_new_tokens == config["sampling"]["max_new_tokens"]


def test_every_sampling_key_of_the_schema_is_a_sample_option():
    schema = yaml.safe_load((REPO / "config.schema.yaml").read_text())["properties"]
    keys = set(schema["sampling"]["properties"]) - {"per_setting"}
    assert keys <= set(field_names(SampleOptions))
    model_keys = schema["models"]["additionalProperties"]["properties"]["sampling"]["properties"]
    assert set(model_keys) <= set(field_names(SampleOptions))
    second_keys = set(schema["second_attempts"]["properties"]) - {"checkpoints", "settings"}
    assert second_keys <= set(field_names(SecondAttemptOptions))
