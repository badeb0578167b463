"""Typed options: one dataclass gives a command's flags and the workflow's command line."""

import argparse

import pytest

from codefrontier.pipeline import workflow as wf
from codefrontier.pipeline.options import add_options, command_line, from_args
from codefrontier.train.repair import RepairOptions


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
