"""The Snakemake workflow: lint, the whole smoke DAG for real, a one-α rerun, and audits."""

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
import yaml
from conftest import ENV, SMOKE, dry_run_jobs, snakemake
from snakemake.utils import update_config

from codefrontier.base.layout import (
    CheckpointName,
    first_verdicts_path,
    format_alpha,
    second_attempt_verdicts_path,
)
from codefrontier.pipeline import workflow as wf
from codefrontier.pipeline.checks import trained_in
from codefrontier.pipeline.places import Places
from codefrontier.settings.registry import limit_options

REPO = Path(__file__).resolve().parents[1]


def codefrontier(*args, cwd):
    return subprocess.run([sys.executable, "-m", "codefrontier.cli", *map(str, args)],
                          capture_output=True, text=True, env=ENV, cwd=cwd, timeout=600)


def test_the_default_plans_from_any_working_directory(tmp_path):
    """`snakemake -s CHECKOUT/Snakefile -d ELSEWHERE` takes the checkout's config.yaml and
    plans every output under ELSEWHERE, whatever the current folder (here /)."""
    workdir = tmp_path / "a run with spaces"
    done = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--snakefile",
                           str(REPO / "Snakefile"), "-d", str(workdir), "-c1"], cwd="/",
                          capture_output=True, text=True, env=ENV, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "rule frontier:" in done.stdout and "output: results/frontier.parquet" in done.stdout


def test_a_grid_replaces_the_default_and_an_overlay_extends_it():
    """From the checkout: a --configfile holding a whole grid plans that grid alone (the
    cluster grid planned the tiny model's jobs too), an overlay (`extends:`) is merged over
    the file it names; the run says which files made its config."""
    import yaml

    from codefrontier.pipeline.configfiles import GRID_KEYS

    schema = yaml.safe_load((REPO / "config.schema.yaml").read_text())
    assert tuple(schema["required"]) == GRID_KEYS

    def planned(configfile: str) -> str:
        done = subprocess.run([sys.executable, "-m", "snakemake", "-n", "-p", "-c1",
                               f"--configfile={REPO / configfile}"], cwd=REPO,
                              capture_output=True, text=True, env=ENV, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout + done.stderr

    grid = planned("configs/qwen2.5-7b.yaml")
    assert "results/qwen2.5-7b/" in grid and "results/tiny/" not in grid
    assert "config: configs/qwen2.5-7b.yaml (grid)\n" in grid
    overlay = planned("configs/vllm-cpu.yaml")
    assert "results/tiny/" in overlay and "--backend vllm" in overlay
    assert "config: config.yaml (grid) + configs/vllm-cpu.yaml (overlay of config.yaml)" \
        in overlay


def test_lint_is_clean():
    done = subprocess.run([sys.executable, "-m", "snakemake", "--lint"], cwd=REPO,
                          capture_output=True, text=True, env=ENV, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Congratulations" in done.stdout + done.stderr


def test_alpha_names_round_trip():
    assert [format_alpha(a) for a in (-0.5, 0, 0.0, 1, 1.5, 2.25)] == \
        ["-0.5", "0", "0", "1", "1.5", "2.25"]
    config = yaml.safe_load(SMOKE.read_text())
    assert wf.checkpoint_names(config["models"]["tiny"]) == \
        ["sft", "rl-k2", "rl-kinf", "a-0.5", "a0.5", "a1.5"]


@pytest.mark.parametrize("name, kind, reward, alpha", [
    ("sft", "sft", None, None), ("rl-k2", "rl", "k2", None), ("rl-shaped-disc", "rl", "shaped-disc", None),
    ("rl-repair-kinf", "rl", "repair-kinf", None),
    ("a-0.5", "merge", None, -0.5), ("a1e-05", "merge", None, 1e-5), ("a2", "merge", None, 2.0)])
def test_checkpoint_names_parse(name, kind, reward, alpha):
    parsed = CheckpointName.parse(name)
    assert (parsed.kind, parsed.reward, parsed.alpha) == (kind, reward, alpha)


@pytest.mark.parametrize("name", ["", "rl-", "a", "ainf", "anan", "a1.2.3", "base", "rl-x/y"])
def test_checkpoint_names_reject(name):
    assert not CheckpointName.is_valid(name)
    with pytest.raises(ValueError, match="not a checkpoint name"):
        CheckpointName.parse(name)


@pytest.mark.parametrize("grid", ["qwen2.5-7b.yaml", "qwen2.5-32b.yaml"])
def test_the_cluster_grids_plan_their_dag(grid, tmp_path):
    done = snakemake(tmp_path, "-n", "--quiet", "rules", config=REPO / "configs" / grid,
                     timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    config = yaml.safe_load((REPO / "configs" / grid).read_text())
    (model,) = config["models"]
    assert config["settings"] == ["reasoning", "tool_use", "agentic"]
    assert config["sampling"]["backend"] == "vllm" and set(config["episodes"]) == {
        "tool_use", "agentic"}
    # per setting; α = 0 and α = 1 are the RL endpoints: no merge for them
    alphas = sum(a not in (0, 1) for a in config["models"][model]["merge"]["alphas"]) * 3
    rewards = len(config["models"][model]["rl"]["rewards"]) * 3
    words = " ".join((done.stdout + done.stderr).split())
    assert f"merge {alphas}" in words and f"rl {rewards}" in words


def test_one_grid_of_both_cluster_models_gives_each_model_its_resources(tmp_path):
    """configs/qwen2.5-7b.yaml and configs/qwen2.5-32b.yaml together are one grid of both
    models: its whole DAG plans in one dry run, the 32B model's training jobs span two
    nodes of 8 GPUs through ZeRO-3, its vLLM engines take 4 GPUs, the 7B model's do not."""
    done = snakemake(tmp_path, "-n", "-p", "results/frontier.parquet",
                     config=[REPO / "configs" / "qwen2.5-7b.yaml",
                             REPO / "configs" / "qwen2.5-32b.yaml"], timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    jobs = dry_run_jobs(done.stdout)
    by_model = {}
    for job in jobs:
        if "model" in job["wildcards"]:
            by_model.setdefault((job["wildcards"]["model"], job["rule"]), []).append(job)
    assert {model for model, _ in by_model} == {"qwen2.5-7b", "qwen2.5-32b"}
    for model, nodes, gpus, tensor_parallel in (("qwen2.5-7b", "1", "1", "1"),
                                                ("qwen2.5-32b", "2", "4", "4")):
        rl, sample = by_model[(model, "rl")], by_model[(model, "sample")]
        assert len(rl) == 7 * 3 and len(sample) == (1 + 7 + 9) * 3
        assert {(j["resources"]["nodes"], j["resources"]["tasks"]) for j in rl} == {(nodes, nodes)}
        assert {j["resources"]["gpu"] for j in sample} == {gpus}
        assert all(f"--tensor-parallel-size {tensor_parallel} " in j["shell"] for j in sample)
    # the checkout's file, from a run folder elsewhere (-d)
    zero3 = shlex.quote(str(REPO / "configs" / "accelerate" / "zero3.yaml"))
    assert all(f"--accelerate-config {zero3} " in j["shell"]
               for j in by_model[("qwen2.5-32b", "rl")])
    assert not any("zero3" in j["shell"] for j in by_model[("qwen2.5-7b", "rl")])


def test_the_default_trains_every_setting_and_the_overlays_add_or_share_runs(tmp_path):
    """config.yaml trains R_2 and R_inf in each setting and merges each setting's pair, and
    R_4 in reasoning only; the reasoning-only overlay (merged over it by Snakemake)
    evaluates the reasoning runs in every setting (R_4 in reasoning); the comparison overlay adds its three runs, in reasoning only, and
    second attempts at the failures of three reasoning checkpoints."""
    import shutil

    shutil.copy(REPO / "config.yaml", tmp_path / "config.yaml")
    counts = {}
    for name in ("default", "tiny-trained-in-reasoning", "tiny-shaping-repair"):
        config = tmp_path / "config.yaml" if name == "default" else REPO / "configs" / f"{name}.yaml"
        done = snakemake(tmp_path, "-n", "--quiet", "rules", config=config, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        words = " ".join((done.stdout + done.stderr).split()) + " "
        counts[name] = {rule: int(words.split(f" {rule} ")[1].split()[0])
                        if f" {rule} " in words else 0
                        for rule in ("rl", "merge", "sample", "second_attempt")}
    # 2 rewards x 3 settings + R_4; 3 merges x 3; (2 endpoints, 3 merges) x 3 + R_4 (the
    # SFT checkpoint is not evaluated in the main job); the overlays extend the full
    # evaluation (configs/tiny-full-eval.yaml: SFT evaluated, 5 merges per setting)
    assert counts["default"] == {"rl": 7, "merge": 9, "sample": 16, "second_attempt": 0}
    assert counts["tiny-trained-in-reasoning"] == {"rl": 3, "merge": 5, "sample": 25,
                                                   "second_attempt": 0}
    # + shaped-disc, shaped-cont and the repair run, each evaluated in reasoning
    assert counts["tiny-shaping-repair"] == {"rl": 10, "merge": 15, "sample": 28, "second_attempt": 3}


def test_the_ensemble_overlay_samples_reasoning_32_times_and_trains_nothing_new(tmp_path):
    """configs/tiny-ensemble-32.yaml plans the default's DAG with 32 samples per problem in
    reasoning, the other settings' sampling as it was, and no second attempts at evaluation."""
    import shutil

    overlay = REPO / "configs" / "tiny-ensemble-32.yaml"
    shutil.copy(REPO / "config.yaml", tmp_path / "config.yaml")
    done = snakemake(tmp_path, "-n", "--quiet", "rules", config=overlay, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    words = " ".join((done.stdout + done.stderr).split())
    assert int(words.split(" rl ")[1].split()[0]) == 7 and " second_attempt " not in words
    config = yaml.safe_load((REPO / "config.yaml").read_text())
    changes = yaml.safe_load(overlay.read_text())
    config["sampling"]["per_setting"].update(changes["sampling"]["per_setting"])
    assert wf.setting_sampling(config, "reasoning")["n"] == 32
    assert wf.setting_sampling(config, "tool_use")["n"] == 2


def test_the_findings_overlay_adds_r3_r5_and_a_wider_alpha_sweep(tmp_path):
    """configs/tiny-findings.yaml: R_3 and R_5 as runs of their own in reasoning beside the
    default's R_4, α from −1 to 3 in every setting (the default's 7 runs and 15 merges,
    plus 2 runs and 3 merges per setting)."""
    import shutil

    shutil.copy(REPO / "config.yaml", tmp_path / "config.yaml")
    done = snakemake(tmp_path, "-n", "--quiet", "rules",
                     config=REPO / "configs" / "tiny-findings.yaml", timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    words = " ".join((done.stdout + done.stderr).split())
    counts = {rule: int(words.split(f" {rule} ")[1].split()[0]) for rule in ("rl", "merge", "sample")}
    assert counts == {"rl": 9, "merge": 24, "sample": 25 + 2 + 3 * 3}


def test_the_no_repair_sft_overlay_builds_sft_data_without_repairs(tmp_path):
    """configs/tiny-no-repair-sft.yaml: the default's SFT data command without the repair
    conversations, the fix conversations kept."""
    import shutil

    shutil.copy(REPO / "config.yaml", tmp_path / "config.yaml")
    shells = {}
    for name, configs in (("default", tmp_path / "config.yaml"),
                          ("overlay", REPO / "configs" / "tiny-no-repair-sft.yaml")):
        done = snakemake(tmp_path, "-n", "-p", "results/data/sft.parquet", config=configs,
                         timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        [job] = [j for j in dry_run_jobs(done.stdout) if j["rule"] == "sft_data"]
        shells[name] = job["shell"]
    assert "--with-repairs" in shells["default"] and "--with-fixes" in shells["default"]
    assert "--with-repairs" not in shells["overlay"] and "--with-fixes" in shells["overlay"]


def test_second_attempts_for_the_checkpoints_the_config_names(tmp_path):

    config = yaml.safe_load((REPO / "config.yaml").read_text())
    assert wf.second_attempt_verdict_files(config) == []  # the default gives none
    for overlay in ("tiny-full-eval.yaml", "tiny-shaping-repair.yaml"):  # its extends chain
        update_config(config, yaml.safe_load((REPO / "configs" / overlay).read_text()))
    assert wf.second_attempt_verdict_files(config) == [  # the comparison's: reasoning only
        f"results/tiny/reasoning/{ckpt}/second-attempt/verdicts.parquet"
        for ckpt in ("sft", "rl-kinf", "rl-repair-kinf")]
    config["second_attempts"] = {"checkpoints": ["sft", "rl-kinf"], "temperature": 0.5,
                        "max_feedback_tokens": 200, "settings": THREE_SETTINGS}
    assert wf.second_attempt_verdict_files(config)[:2] == [
        "results/tiny/reasoning/sft/second-attempt/verdicts.parquet",
        "results/tiny/reasoning/rl-kinf/second-attempt/verdicts.parquet"]
    first = "results/tiny/agentic/a0.5/verdicts.parquet"
    assert str(first_verdicts_path(second_attempt_verdicts_path(first))) == first
    options = wf.second_attempt_options(config, "agentic")
    assert "--temperature 0.5" in options and "--max-feedback-tokens 200" in options
    assert "--max-new-tokens 256" in options and "--n" not in options  # agentic's own budget

    (tmp_path / "second.yaml").write_text(yaml.safe_dump(
        {"extends": str(REPO / "configs" / "tiny-full-eval.yaml"),  # the SFT evaluated
         "second_attempts": config["second_attempts"]}))
    done = snakemake(tmp_path, "-n", "--quiet", "rules", config=tmp_path / "second.yaml",
                     timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    words = " ".join((done.stdout + done.stderr).split())
    counts = {rule: int(words.split(f" {rule} ")[1].split()[0])
              for rule in ("second_attempt", "judge_second_attempt", "second_attempt_table")}
    assert counts == {"second_attempt": 6, "judge_second_attempt": 6,
                      "second_attempt_table": 1}  # 2 ckpts x 3 settings


def test_a_bad_config_fails_validation_with_a_clear_message(tmp_path):
    config = yaml.safe_load(SMOKE.read_text())
    config["sampling"]["n"] = 0
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(config))
    done = snakemake(tmp_path, "-n", config=bad, timeout=120)
    assert done.returncode != 0
    message = done.stdout + done.stderr
    assert "sampling.n: 0 is less than the minimum of 1" in message
    assert "$schema" not in message and "additionalProperties" not in message  # no schema dump


THREE_SETTINGS = ["reasoning", "tool_use", "agentic"]
EPISODES = {"tool_use": {"max_tool_calls": 2, "output_chars": 600},
            "agentic": {"max_turns": 4, "command_cpu_s": 5, "command_wall_s": 10.5,
                        "workspace_mb": 64, "output_chars": 600}}


def three_setting_config(**changes) -> dict:
    config = yaml.safe_load(SMOKE.read_text())
    return {**config, "settings": THREE_SETTINGS, "episodes": EPISODES, **changes}


def validation_error(config: dict) -> str | None:
    """The schema's complaint about a config, None when it is valid."""
    from snakemake.exceptions import WorkflowError
    from snakemake.utils import validate

    try:
        validate(config, str(REPO / "config.schema.yaml"), set_default=False)
    except WorkflowError as error:
        return str(error)
    return None


def test_the_schema_accepts_three_settings_and_their_episode_limits():
    assert validation_error(three_setting_config()) is None
    assert validation_error(three_setting_config(episodes={"agentic": {"max_turns": 1}})) is None
    assert validation_error(yaml.safe_load((REPO / "config.yaml").read_text())) is None


@pytest.mark.parametrize("changes, message", [
    ({"settings": ["reasoning", "debate"]}, "'debate' is not one of"),
    ({"settings": ["reasoning", "reasoning"]}, "non-unique"),
    ({"episodes": {"reasoning": {"max_turns": 2}}}, "'reasoning' was unexpected"),
    ({"episodes": {"tool_use": {"max_turns": 2}}}, "'max_turns' was unexpected"),
    ({"episodes": {"agentic": {"max_turns": 0}}}, "0 is less than the minimum of 1"),
    ({"episodes": {"agentic": {"command_wall_s": 0}}}, "less than or equal to the minimum"),
    ({"episodes": {"tool_use": {"output_chars": 99}}}, "99 is less than the minimum of 100"),
    ({"episodes": {"tool_use": {"max_tool_calls": 1.5}}}, "1.5 is not of type 'integer'"),
])
def test_the_schema_rejects_unknown_settings_and_episode_keys(changes, message):
    error = validation_error(three_setting_config(**changes))
    assert error is not None and message in error


def test_episode_options_render_the_configured_limits_in_order():
    config = three_setting_config()
    assert wf.episode_options(config, "reasoning") == ""
    assert wf.episode_options(config, "tool_use") == "--max-tool-calls 2 --output-chars 600"
    assert wf.episode_options(config, "agentic") == (
        "--max-turns 4 --command-cpu-s 5 --command-wall-s 10.5 --workspace-mb 64 "
        "--output-chars 600")
    assert wf.episode_options({**config, "episodes": {"agentic": {"output_chars": 900}}},
                              "agentic") == "--output-chars 900"
    assert wf.episode_options(yaml.safe_load(SMOKE.read_text()), "tool_use") == ""


def test_sample_and_rl_slices_carry_their_settings_episode_limits():
    config = three_setting_config()
    for rule, wildcards in (("sample", {}), ("rl", {"reward": "k2"})):
        tools = wf.config_slice(config, rule, model="tiny", setting="tool_use", **wildcards)
        assert tools["episodes"] == EPISODES["tool_use"]
        reasoning = wf.config_slice(config, rule, model="tiny", setting="reasoning", **wildcards)
        assert "episodes" not in reasoning  # as recorded before the episodes block existed
        changed = three_setting_config(episodes={"tool_use": {"max_tool_calls": 3}})
        assert wf.config_slice(changed, rule, model="tiny", setting="tool_use", **wildcards) \
            != tools


def test_per_setting_overrides_reach_only_their_settings_runs_and_samples():
    config = three_setting_config()
    config["models"]["tiny"]["rl"]["per_setting"] = {"agentic": {"max_completion_length": 448}}
    config["sampling"] = {**config["sampling"], "per_setting": {"tool_use": {"max_new_tokens": 99}}}
    assert validation_error(config) is None
    trl = config["models"]["tiny"]["rl"]["trl"]
    assert wf.rl_trl(config, "tiny", "agentic") == {"seed": 0, **trl, "max_completion_length": 448}
    assert wf.rl_trl(config, "tiny", "reasoning") == {"seed": 0, **trl}
    assert "--max-new-tokens 99" in wf.sampling_options(wf.setting_sampling(config, "tool_use"))
    assert "per_setting" not in wf.setting_sampling(config, "agentic")
    # a setting's override changes its own slices only: the others' outputs stay current
    plain = three_setting_config()
    for rule, setting, wildcards in (("rl", "agentic", {"reward": "k2"}),
                                     ("sample", "tool_use", {})):
        for name in THREE_SETTINGS:
            before = wf.config_slice(plain, rule, model="tiny", setting=name, **wildcards)
            after = wf.config_slice(config, rule, model="tiny", setting=name, **wildcards)
            assert (before != after) == (name == setting)
    bad = three_setting_config()
    bad["sampling"] = {**bad["sampling"], "per_setting": {"tool_use": {"seed": 3}}}
    assert "'seed' is not one of" in validation_error(bad)


def test_one_key_seeds_every_stage_and_a_stage_s_own_seed_wins():
    """`seed` reaches the model's initialisation, SFT, every GRPO run and sampling (and
    so their provenance slices); the problems do not depend on it."""
    config = three_setting_config(seed=7)
    assert validation_error(config) is None
    commands = {rule: wf.command_options(config, rule, model="tiny", **wildcards)
                for rule, wildcards in (("model_init", {}), ("sft", {}),
                                        ("rl", {"setting": "agentic", "reward": "k2"}),
                                        ("sample", {"setting": "tool_use"}),
                                        ("problems", {"split": "train"}))}
    assert "--seed 7" in commands["model_init"]
    assert "--set seed=7" in commands["sft"] and "--set seed=7" in commands["rl"]
    assert "--seed 7" in commands["sample"]
    assert "seed" not in commands["problems"]
    assert wf.config_slice(config, "sft", model="tiny")["seed"] == 7
    assert wf.config_slice(config, "sample", model="tiny", setting="reasoning")["sampling"]["seed"] == 7
    config["models"]["tiny"]["rl"]["trl"]["seed"] = 3
    assert "--set seed=3" in wf.command_options(config, "rl", model="tiny", setting="agentic",
                                                  reward="k2")
    unseeded = three_setting_config()
    unseeded.pop("seed", None)
    assert "--set seed=0" in wf.command_options(unseeded, "sft", model="tiny")


def test_a_setting_can_evaluate_the_runs_of_another():
    config = three_setting_config()
    config["models"]["tiny"]["rl"]["trained_in"] = {"tool_use": "reasoning"}
    assert validation_error(config) is None
    assert not list(trained_in(config, Places.here()))
    assert wf.checkpoint_folder(config, "tiny", "tool_use", "rl-k2") == \
        "results/tiny/reasoning/rl/k2"
    assert wf.checkpoint_folder(config, "tiny", "tool_use", "a0.5") == \
        "results/tiny/reasoning/merge/a0.5"
    assert wf.checkpoint_folder(config, "tiny", "agentic", "a0.5") == \
        "results/tiny/agentic/merge/a0.5"
    assert wf.checkpoint_folder(config, "tiny", "tool_use", "sft") == "results/tiny/sft"
    merges = wf.merge_folders(config)
    assert len(merges) == len(set(merges)) and not any("/tool_use/" in m for m in merges)
    # samples stay per setting
    assert "results/tiny/tool_use/rl-k2/verdicts.parquet" in wf.verdict_files(config)
    plain = wf.config_slice(three_setting_config(), "aggregate")
    assert wf.config_slice(config, "aggregate") != plain


def test_the_repair_run_trains_in_reasoning_from_its_start_with_its_options():
    config = three_setting_config()
    config["models"]["tiny"]["rl"]["repair"] = {"reward": "k3", "start": "rl-kinf",
                                                "replay_share": 0.5}
    config["models"]["tiny"]["evaluated_in"] = {"rl-repair-k3": ["reasoning", "agentic"]}
    assert validation_error(config) is None
    assert "rl-repair-k3" in wf.checkpoint_names(config["models"]["tiny"])
    # trained in reasoning whichever setting evaluates it, from the RL endpoint it names
    assert wf.checkpoint_folder(config, "tiny", "agentic", "rl-repair-k3") == \
        "results/tiny/reasoning/rl/repair-k3"
    assert wf.rl_start(config, "tiny", "repair-k3") == "results/tiny/reasoning/rl/kinf"
    assert wf.rl_start(config, "tiny", "k2") == "results/tiny/sft"
    assert wf.rl_options(config, "tiny", "repair-k3") == "--reward k3 --repair --replay-share 0.5"
    assert wf.rl_options(config, "tiny", "k2") == "--reward k2"
    assert wf.config_slice(config, "rl", model="tiny", setting="reasoning",
                           reward="repair-k3")["repair"]["start"] == "rl-kinf"
    assert "repair" not in wf.config_slice(config, "rl", model="tiny", setting="reasoning",
                                           reward="k2")
    # evaluated where `evaluated_in` says, every other checkpoint everywhere
    files = wf.verdict_files(config)
    assert [f for f in files if "rl-repair-k3" in f] == [
        "results/tiny/reasoning/rl-repair-k3/verdicts.parquet",
        "results/tiny/agentic/rl-repair-k3/verdicts.parquet"]
    assert sum("/rl-k2/" in f for f in files) == 3


@pytest.mark.parametrize("changes, message", [
    ({"repair": {"reward": "shaped-disc"}}, "does not match"),
    ({"repair": {"reward": "kinf", "start": "a0.5"}}, "does not match"),
    ({"repair": {"reward": "kinf", "replay_share": 2}}, "maximum"),
])
def test_the_schema_checks_the_repair_run(changes, message):
    config = three_setting_config()
    config["models"]["tiny"]["rl"].update(changes)
    assert message in (validation_error(config) or "")


@pytest.mark.parametrize("trained, message", [
    ({"tool_use": "reasoning", "reasoning": "agentic"}, "reasoning does not train its own"),
    ({"reasoning": "tool_use"}, "must both be in `settings`"),
])
def test_trained_in_rejects_chains_and_settings_outside_the_grid(trained, message):
    config = three_setting_config(settings=["reasoning", "agentic"]) \
        if "reasoning" in trained and len(trained) == 1 else three_setting_config()
    config["models"]["tiny"]["rl"]["trained_in"] = trained
    assert any(message in finding.problem.what for finding in trained_in(config, Places.here()))


def test_three_settings_plan_rl_and_sampling_per_setting_with_their_limits(tmp_path):
    config = tmp_path / "three.yaml"
    config.write_text(yaml.safe_dump(three_setting_config()))
    done = snakemake(tmp_path, "-n", "-p", config=config, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = (done.stdout + done.stderr).splitlines()
    grpo = [line for line in lines if " train grpo " in line]
    samples = [line for line in lines if " sample --model " in line]
    assert len(grpo) == 2 * 3 and len(samples) == 6 * 3  # 2 rewards, 6 checkpoints per setting
    for setting, options in (("reasoning", ""), ("tool_use", wf.episode_options(
            three_setting_config(), "tool_use")), ("agentic", wf.episode_options(
            three_setting_config(), "agentic"))):
        runs = [line for line in grpo if f"--setting {setting} " in line]
        assert len(runs) == 2 and all(f"results/tiny/{setting}/rl/" in line for line in runs)
        assert all(options in line for line in runs)
        sampled = [line for line in samples if f"--setting {setting} " in line]
        assert len(sampled) == 6 and all(options in line for line in sampled)
    episode_flags = ["--" + option.replace("_", "-") for option in limit_options()]
    assert not any(flag in line for line in grpo + samples if "--setting reasoning " in line
                   for flag in episode_flags)
    assert "results/plots/format_causes.png" in done.stdout + done.stderr


@pytest.mark.slow
def test_the_smoke_workflow_writes_every_table_and_chart(smoke_run):
    results = smoke_run / "results"
    frontier = pd.read_parquet(results / "frontier.parquet")
    assert set(frontier["checkpoint"]) == {"sft", "rl-k2", "rl-kinf", "a-0.5", "a0.5", "a1.5"}
    everything = frontier[frontier["difficulty"] == "all"]
    rates = everything[[c for c in frontier.columns if c.startswith("rate_")]].sum(axis=1)
    assert (rates - 1).abs().max() < 1e-9
    merged = everything[everything["kind"] == "merge"]
    assert set(merged["reward"]) == {"k2->kinf"} and sorted(merged["alpha"]) == [-0.5, 0.5, 1.5]
    ensemble = pd.read_parquet(results / "ensemble.parquet")
    assert {"best-single", "interpolation", "interpolation+extrapolation",
            "rl-endpoints", "only-extrapolated"} <= set(ensemble["pool"])
    for chart in ("frontier", "outcome_mix", "pass_at_k"):
        assert (results / "plots" / f"{chart}.png").stat().st_size > 1000
        assert (results / "plots" / f"{chart}.html").exists()
    assert list((results / "logs").rglob("*.log")) and list((results / "benchmarks").rglob("*.tsv"))
    # the trainer checkpoints go once each run is published; the runs' logs stay
    assert not list(results.rglob("checkpoint-*"))
    assert (results / "tiny" / "reasoning" / "rl" / "kinf.work" / "rewards.jsonl").is_file()
    report = snakemake(smoke_run, "--report", "results/report.html", timeout=300)
    assert report.returncode == 0, report.stderr[-3000:]
    html = (results / "report.html").read_text(errors="replace")
    assert "frontier.png" in html and "optimization-failure rate" in html  # the caption
    assert "training/reasoning.png" in html and "no GRPO signal" in html
    # the Inspect logs are a target of their own, not part of rule all
    assert not (results / "inspect").exists()
    planned = snakemake(smoke_run, "results/inspect", "-n", "--quiet", "rules", timeout=300)
    assert job_counts(planned.stdout + planned.stderr) == {"inspect_logs": 1}


@pytest.mark.slow
def test_two_models_of_different_widths_get_their_own_rows_ensembles_and_facets(smoke_run,
                                                                                 tmp_path):
    """The model axis: the smoke grid with a second embedded model, wider than the first,
    gives each model its own checkpoints, frontier rows, ensembles and chart panels (on a
    copy of the finished smoke run: the first model's jobs are done)."""
    config = yaml.safe_load(SMOKE.read_text())
    wide = json.loads(json.dumps(config["models"]["tiny"]))
    wide["init"].update(hidden_size=96, intermediate_size=192, seed=1)
    config["models"]["tiny-wide"] = wide
    path = tmp_path / "two-models.yaml"
    path.write_text(yaml.safe_dump(config))
    run = tmp_path / "run"
    shutil.copytree(smoke_run, run, symlinks=True)
    done = snakemake(run, config=path)
    assert done.returncode == 0, done.stderr[-5000:]
    log = done.stdout + done.stderr
    assert "model=tiny-wide," in log and "model=tiny," not in log  # tiny's jobs were done
    results = run / "results"
    widths = {model: json.loads((results / model / "sft" / "config.json").read_text())["hidden_size"]
              for model in ("tiny", "tiny-wide")}
    assert widths == {"tiny": 64, "tiny-wide": 96}
    frontier = pd.read_parquet(results / "frontier.parquet")
    checkpoints = {"sft", "rl-k2", "rl-kinf", "a-0.5", "a0.5", "a1.5"}
    assert {m: set(f["checkpoint"]) for m, f in frontier.groupby("model")} == {
        "tiny": checkpoints, "tiny-wide": checkpoints}
    ensemble = pd.read_parquet(results / "ensemble.parquet")
    assert set(ensemble["model"]) == {"tiny", "tiny-wide"}
    assert (ensemble.groupby(["model", "pool"]).size() > 0).all()
    for chart in ("frontier", "outcome_mix", "pass_at_k"):
        html = (results / "plots" / f"{chart}.html").read_text()
        assert '"row":{"field":"model"' in html.replace(" ", "")
        assert '"tiny-wide"' in html and '"tiny"' in html


@pytest.mark.slow
def test_adding_one_alpha_reruns_only_its_branch_and_the_aggregates(smoke_run, tmp_path):
    config = yaml.safe_load(SMOKE.read_text())
    config["models"]["tiny"]["merge"]["alphas"].append(2.0)
    more = tmp_path / "more.yaml"
    more.write_text(yaml.safe_dump(config))
    done = snakemake(smoke_run, "-n", "--quiet", "rules", config=more, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert job_counts(done.stdout + done.stderr) == {"merge": 1, "sample": 1, "judge": 1, "frontier": 1, "ensemble": 1,
                      "claims": 1, "plots": 1, "all": 1}


@pytest.mark.slow
def test_a_finished_run_extended_to_two_seeds_reads_both_at_once(smoke_run, tmp_path):
    """`--config seeds=[0,1]` on a copy of the finished smoke run: only seed 1's GRPO runs,
    merges and evaluations and the aggregates run (from the one SFT checkpoint); the
    tables carry both seeds and the claims read them at once."""
    run = tmp_path / "run"
    shutil.copytree(smoke_run, run, symlinks=True)
    # the claims and their tables (the charts' panel per seed: test_seeds.py)
    done = snakemake(run, "results/claims.md", "--config", "seeds=[0,1]")
    assert done.returncode == 0, done.stderr[-5000:]
    log = done.stdout + done.stderr
    assert job_counts_of_log(log) == {"rl": 2, "merge": 3, "sample": 6, "judge": 6,
                                      "frontier": 1, "ensemble": 1, "claims": 1}
    assert "model=tiny," not in log  # seed 0's run was done
    results = run / "results"
    assert not (results / "tiny@seed1" / "sft").exists()
    for table in ("frontier", "clusters"):
        rows = pd.read_parquet(results / f"{table}.parquet")
        assert sorted(set(rows["seed"])) == [0, 1] and set(rows["model"]) == {"tiny"}
    claims = (results / "claims.md").read_text()
    assert "## tiny / reasoning (2 training seeds pooled)" in claims
    assert sum(line.startswith("| 1. ") for line in claims.splitlines()) == 1


def job_counts_of_log(log: str) -> dict[str, int]:
    """The jobs per rule of a Snakemake run's log (its `Job stats` table)."""
    table = log.split("Job stats:", 1)[1].split("\n\n", 1)[0] if "Job stats:" in log else ""
    return job_counts(table)


def job_counts(output: str) -> dict[str, int]:
    """A dry run's jobs per rule (`--quiet rules`)."""
    counts = {}
    for line in output.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit() and parts[0] != "total":
            counts[parts[0]] = int(parts[1])
    return counts


@pytest.mark.slow
def test_a_copy_without_snakemakes_metadata_plans_an_added_reward_and_alpha(smoke_run, tmp_path):
    """A results tree copied (or moved, or restored) without .snakemake/: on main, a config
    that added a reward and an α planned nothing ("Nothing to be done"), because Snakemake
    reruns an existing output for a missing input only through its metadata. The grid
    rerun marker (workflow.rerun_marker) makes it plan the new run, merge and samples, and
    a dry run of the larger grid changes nothing for the original one."""
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(smoke_run / "results", copy / "results")  # copy2: the times stay
    assert not (copy / ".snakemake").exists()
    config = yaml.safe_load(SMOKE.read_text())
    config["models"]["tiny"]["rl"]["rewards"] = ["k2", "k3", "kinf"]
    config["models"]["tiny"]["merge"]["alphas"].append(2.0)
    more = tmp_path / "more.yaml"
    more.write_text(yaml.safe_dump(config))
    unchanged = snakemake(copy, "-n", "--quiet", "rules", config=SMOKE, timeout=300)
    assert "Nothing to be done" in unchanged.stdout + unchanged.stderr
    done = snakemake(copy, "-n", "--quiet", "rules", config=more, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert job_counts(done.stdout + done.stderr) == {
        "rl": 1, "merge": 1, "sample": 2, "judge": 2, "frontier": 1, "ensemble": 1,
        "claims": 1, "plots": 1, "training": 1, "training_plots": 1, "all": 1}
    # codefrontier plan sees the same partial rerun
    planned = codefrontier("plan", "--configfile", more, "-d", copy, "--json",
                           tmp_path / "plan.json", cwd=tmp_path)
    assert planned.returncode == 0, planned.stderr[-3000:]
    rows = {row["rule"]: row["jobs"] for row in json.loads((tmp_path / "plan.json").read_text())[
        "rules"]}
    assert rows == {"rl": 1, "merge": 1, "sample": 2, "judge": 2, "frontier": 1, "ensemble": 1,
                    "claims": 1, "plots": 1, "training": 1, "training_plots": 1, "all": 1}
    again = snakemake(copy, "-n", "--quiet", "rules", config=SMOKE, timeout=300)
    assert "Nothing to be done" in again.stdout + again.stderr


@pytest.mark.slow
def test_audit_passes_then_catches_a_tampered_input(smoke_run):
    done = codefrontier("audit", "results/frontier.parquet", "--configfile", SMOKE, cwd=smoke_run)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no findings" in done.stdout
    samples = smoke_run / "results" / "tiny" / "reasoning" / "a0.5" / "samples.parquet"
    original = samples.read_bytes()
    table = pq.read_table(samples)
    rows = table.to_pylist()
    rows[0]["completion"] = "```python\nprint(42)\n```"
    pq.write_table(type(table).from_pylist(rows, schema=table.schema), samples)
    try:
        done = codefrontier("audit", "results/frontier.parquet", "--config", SMOKE, cwd=smoke_run)
        assert done.returncode == 1
        assert f"input {samples} changed after it was used" in done.stdout
    finally:
        samples.write_bytes(original)


@pytest.mark.slow
def test_audit_reports_other_config_and_missing_provenance(smoke_run, tmp_path):
    config = yaml.safe_load(SMOKE.read_text())
    config["sampling"]["temperature"] = 0.5
    changed = tmp_path / "changed.yaml"
    changed.write_text(yaml.safe_dump(config))
    done = codefrontier("audit", "results/frontier.parquet", "--config", changed, cwd=smoke_run)
    assert done.returncode == 1
    assert "made with another config for rule 'sample'" in done.stdout
    bare = tmp_path / "bare.parquet"
    pq.write_table(pq.read_table(smoke_run / "results" / "frontier.parquet").replace_schema_metadata({}),
                   bare)
    done = codefrontier("audit", bare, cwd=tmp_path)
    assert done.returncode == 1 and "no provenance" in done.stdout


@pytest.mark.slow
def test_every_output_records_its_provenance(smoke_run):
    results = smoke_run / "results"
    samples = pq.read_schema(results / "tiny" / "reasoning" / "sft" / "samples.parquet")
    record = json.loads(samples.metadata[b"codefrontier.base.provenance"])
    assert record["config"]["rule"] == "sample" and record["seed"] == 0
    assert record["code_version"] and record["inputs"]
    merged = json.loads((results / "tiny" / "reasoning" / "merge" / "a1.5" / "provenance.json")
                        .read_text())
    assert merged["config"]["slice"] == {"low": "k2", "high": "kinf", "alpha": "1.5"}
    rl = json.loads((results / "tiny" / "reasoning" / "rl" / "kinf" / "provenance.json").read_text())
    assert rl["reward"] == "kinf" and rl["transformers_version"]


def test_the_job_environment_is_exported_without_overriding_the_user(monkeypatch):
    monkeypatch.setenv("CODEFRONTIER_SET_BY_USER", "mine")
    monkeypatch.delenv("CODEFRONTIER_FROM_CONFIG", raising=False)
    wf.set_job_environment({"environment": {"CODEFRONTIER_SET_BY_USER": "config's",
                                            "CODEFRONTIER_FROM_CONFIG": "config's"}})
    assert os.environ["CODEFRONTIER_SET_BY_USER"] == "mine"
    assert os.environ["CODEFRONTIER_FROM_CONFIG"] == "config's"
    monkeypatch.delenv("CODEFRONTIER_FROM_CONFIG")


def test_command_options_are_what_each_rule_gives_its_command(tmp_path):
    config = three_setting_config()
    sample = wf.command_options(config, "sample", model="tiny", setting="tool_use")
    assert sample == " ".join([wf.sampling_options(wf.setting_sampling(config, "tool_use")),
                               wf.episode_options(config, "tool_use")])
    rl = wf.command_options(config, "rl", model="tiny", setting="agentic", reward="k2")
    assert rl.startswith("--reward k2 --set ") and "--setting agentic --max-turns 4" in rl
    assert "--setting tool_use" in wf.command_options(config, "sft_data")
    with pytest.raises(KeyError, match="no command options for rule 'judge'"):
        wf.command_options(config, "judge")
    # the rules print these options in their commands (a dry run of the smoke config)
    done = snakemake(tmp_path, "-n", "-p", "--forceall", "results/frontier.parquet")
    assert done.returncode == 0, done.stderr
    smoke = yaml.safe_load(SMOKE.read_text())
    for rule, wildcards in (("sample", {"setting": "reasoning"}), ("sft", {}),
                            ("rl", {"setting": "reasoning", "reward": "k2"}), ("sft_data", {})):
        assert wf.command_options(smoke, rule, model="tiny", **wildcards) in done.stdout, rule


def test_default_options_prints_a_rules_options_as_words():
    script = REPO / "benchmarks" / "default_options.py"
    done = subprocess.run([sys.executable, str(script), "sample", "--setting", "agentic"],
                          capture_output=True, text=True, env=ENV, timeout=60)
    config = yaml.safe_load((REPO / "config.yaml").read_text())
    assert done.stdout.split("\n")[:-1] == \
        wf.command_options(config, "sample", setting="agentic").split()
    done = subprocess.run([sys.executable, str(script), "judge"], capture_output=True,
                          text=True, env=ENV, timeout=60)
    assert done.returncode == 2 and "no command options for rule 'judge'" in done.stderr


def test_params_built_from_a_rules_inputs():
    from types import SimpleNamespace

    given = SimpleNamespace(disjoint_from=["a.parquet", "b.parquet"], second_attempts=[])
    assert wf.flag_each("--disjoint-from", "disjoint_from")(None, given) == \
        "--disjoint-from a.parquet --disjoint-from b.parquet"
    assert wf.flag_once("--verdicts", "disjoint_from")(None, given) == \
        "--verdicts a.parquet b.parquet"
    assert wf.flag_once("--second-attempts", "second_attempts")(None, given) == ""
    assert wf.flag_each("--disjoint-from", "second_attempts")(None, given) == ""
