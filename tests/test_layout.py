"""The results layout (checkpoints.py): one pattern per path, filled and parsed."""

from pathlib import Path

import pytest
import yaml

from codefrontier.base import layout
from codefrontier.pipeline import workflow as wf

CONFIG = yaml.safe_load((Path(__file__).parents[1] / "config.yaml").read_text())

WILDCARDS = {"model": "tiny", "setting": "agentic", "ckpt": "a-0.5", "reward": "repair-kinf",
             "alpha": "1.5e-3", "split": "eval", "chart": "frontier"}
TEMPLATES = [layout.DATA, layout.INIT_FOLDER, layout.SFT_FOLDER, layout.RL_FOLDER,
             layout.MERGE_FOLDER, layout.SAMPLES, layout.VERDICTS, layout.SECOND_ATTEMPT_SAMPLES,
             layout.SECOND_ATTEMPT_VERDICTS, layout.CHART, layout.CHART_HTML]


@pytest.mark.parametrize("template", TEMPLATES, ids=str)
@pytest.mark.parametrize("root", ["", "/home/user/copy-of-", "../"])
def test_every_pattern_parses_what_it_fills(template, root):
    names = {name: WILDCARDS[name] for name in WILDCARDS if "{" + name + "}" in template}
    path = template.fill(**names)
    assert path.startswith(layout.RESULTS + "/")
    assert template.parse(root + path) == names


def test_a_path_of_another_pattern_does_not_parse():
    second = layout.SECOND_ATTEMPT_VERDICTS.fill(model="tiny", setting="reasoning", ckpt="sft")
    assert layout.VERDICTS.parse(second) is None
    assert layout.VERDICTS.parse("results/tiny/reasoning/not-a-checkpoint/verdicts.parquet") \
        is None
    assert layout.RL_FOLDER.parse("results/tiny/reasoning/rl/k-two") is None


def test_trained_folder_names_the_checkpoint_an_rl_run_or_merge_folder_holds():
    assert layout.trained_folder("/x/results/tiny/tool_use/rl/k2") == \
        {"model": "tiny", "setting": "tool_use", "ckpt": "rl-k2"}
    assert layout.trained_folder("results/tiny/reasoning/merge/a-0.5") == \
        {"model": "tiny", "setting": "reasoning", "ckpt": "a-0.5"}
    assert layout.trained_folder(layout.SFT_FOLDER.fill(model="tiny")) is None


def test_every_path_the_workflow_plans_parses_back_to_its_checkpoint():
    for model in CONFIG["models"]:
        for setting in CONFIG["settings"]:
            for ckpt in wf.evaluated_checkpoints(CONFIG, model, setting):
                verdicts = layout.VERDICTS.fill(model=model, setting=setting, ckpt=ckpt)
                assert layout.VERDICTS.parse(verdicts) == \
                    {"model": model, "setting": setting, "ckpt": ckpt}
                folder = wf.checkpoint_folder(CONFIG, model, setting, ckpt)
                trained = layout.trained_folder(folder)
                if ckpt == layout.SFT:
                    assert trained is None
                else:
                    assert trained["ckpt"] == ckpt and trained["model"] == model
    assert all(layout.trained_folder(folder) for folder in wf.merge_folders(CONFIG))


@pytest.mark.parametrize("root", ["results/", "/home/user/copy/", "backup/"])
def test_counterparts_keep_the_root_of_the_path_they_come_from(root):
    verdicts = root + "tiny/agentic/a-0.5/verdicts.parquet"
    second = layout.second_attempt_verdicts_path(verdicts)
    assert str(second) == root + "tiny/agentic/a-0.5/second-attempt/verdicts.parquet"
    assert str(layout.first_verdicts_path(second)) == verdicts
    assert str(layout.VERDICTS.counterpart(verdicts, layout.SAMPLES)) == \
        root + "tiny/agentic/a-0.5/samples.parquet"
    with pytest.raises(ValueError, match="expected"):
        layout.second_attempt_verdicts_path(root + "tiny/agentic/verdicts.parquet")
