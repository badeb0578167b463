"""The cluster user's first day, before any job runs: which files make the config, what is
wrong with it (named by key, with the fix), what every job asks the cluster for, what the
grid reads from the Hub, and what the run will cost (`codefrontier plan`)."""

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import dry_run_jobs

from codefrontier.pipeline import checks
from codefrontier.pipeline import resources as res
from codefrontier.pipeline.configfiles import ConfigError, compose, validate
from codefrontier.pipeline.places import Places, model_reference
from codefrontier.pipeline.prefetch import hub_items, prefetch, prefetch_table

REPO = Path(__file__).resolve().parents[1]
CONFIGS = REPO / "configs"
EXAMPLE = CONFIGS / "example-1.5b-4gpu.yaml"
SMOKE = CONFIGS / "smoke.yaml"
BIN = str(Path(sys.executable).parent)
# the Hub on, as a user's jobs have it (none of these dry runs reads it)
ENV = {**{k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "SLURM_CONF")},
       "PATH": f"{BIN}:{os.environ['PATH']}"}


def write(path: Path, values: dict) -> Path:
    path.write_text(yaml.safe_dump(values))
    return path


def snakemake(*args, cwd=REPO, env=None):
    """Snakemake's run, its stdout and stderr together in `.stderr` (it writes errors to
    either)."""
    done = subprocess.run([sys.executable, "-m", "snakemake", *map(str, args)], cwd=cwd,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          env=env or ENV, timeout=600)
    done.stderr = done.stdout
    return done


def places(tmp_path) -> Places:
    return Places(Path(tmp_path), REPO)


# --- which files make the config ----------------------------------------------------------

def test_a_grid_stands_alone_and_an_overlay_goes_over_what_it_extends(tmp_path):
    grid = compose([SMOKE], REPO / "config.yaml")
    assert [layer.kind for layer in grid.layers] == ["grid"]
    assert list(grid.values["models"]) == ["tiny"] and grid.values["settings"] == ["reasoning"]
    overlay = write(tmp_path / "more.yaml", {"extends": str(SMOKE),
                                             "sampling": {"n": 7}})
    run = compose([overlay], REPO / "config.yaml")
    assert [layer.kind for layer in run.layers] == ["grid", "overlay"]
    assert run.values["sampling"]["n"] == 7 and run.values["sampling"]["max_new_tokens"] == 32
    assert "extends" not in run.values
    assert run.describe(relative_to=REPO) == (
        f"config: configs/smoke.yaml (grid) + {overlay} (overlay of configs/smoke.yaml)")


def test_a_file_that_is_neither_grid_nor_overlay_is_refused_not_merged(tmp_path):
    """On main a file without `sampling` was merged over config.yaml: the tiny model joined
    the user's grid and the user's model sampled with the tiny default's settings."""
    partial = yaml.safe_load((CONFIGS / "qwen2.5-7b.yaml").read_text())
    del partial["sampling"]
    path = write(tmp_path / "mine.yaml", partial)
    with pytest.raises(ConfigError, match=r"neither a grid nor an overlay.*lacks sampling.*"
                                          r"extends: \.\./config\.yaml"):
        compose([path], REPO / "config.yaml")
    done = snakemake("-n", "-d", tmp_path / "run", f"--configfile={path}")
    assert done.returncode != 0 and "neither a grid nor an overlay" in done.stderr
    assert "results/tiny" not in done.stdout


def test_overlays_of_overlays_cycles_and_missing_bases(tmp_path):
    write(tmp_path / "first.yaml", {"extends": str(SMOKE), "seed": 3})
    second = write(tmp_path / "second.yaml", {"extends": "first.yaml", "sampling": {"n": 9}})
    run = compose([second], REPO / "config.yaml")
    assert (run.values["seed"], run.values["sampling"]["n"]) == (3, 9)
    assert [layer.path.name for layer in run.layers] == ["smoke.yaml", "first.yaml", "second.yaml"]
    write(tmp_path / "a.yaml", {"extends": "b.yaml"})
    write(tmp_path / "b.yaml", {"extends": "a.yaml"})
    with pytest.raises(ConfigError, match="goes round in a circle"):
        compose([tmp_path / "a.yaml"], REPO / "config.yaml")
    write(tmp_path / "lost.yaml", {"extends": "nowhere.yaml"})
    with pytest.raises(ConfigError, match="names no file"):
        compose([tmp_path / "lost.yaml"], REPO / "config.yaml")


def test_two_grids_are_one_grid_and_a_shared_base_is_read_once(tmp_path):
    run = compose([CONFIGS / "qwen2.5-7b.yaml", CONFIGS / "qwen2.5-32b.yaml"], REPO / "config.yaml")
    assert list(run.values["models"]) == ["qwen2.5-7b", "qwen2.5-32b"]
    both = compose([CONFIGS / "tiny-findings.yaml", CONFIGS / "vllm-cpu.yaml"], REPO / "config.yaml")
    assert [layer.path.name for layer in both.layers] == [  # config.yaml read once
        "config.yaml", "tiny-full-eval.yaml", "tiny-findings.yaml", "vllm-cpu.yaml"]
    assert both.values["sampling"]["backend"] == "vllm"
    assert both.values["models"]["tiny"]["rl"]["rewards"] == ["k2", "k3", "k4", "k5", "kinf"]


def test_an_overlay_does_not_bring_its_grid_into_another_named_grid():
    with pytest.raises(ConfigError, match="an overlay changes the grid it extends"):
        compose([CONFIGS / "qwen2.5-7b.yaml", CONFIGS / "vllm-cpu.yaml"], REPO / "config.yaml")
    named = compose([CONFIGS / "qwen2.5-7b.yaml", REPO / "config.yaml", CONFIGS / "vllm-cpu.yaml"],
                    REPO / "config.yaml")
    assert set(named.values["models"]) == {"qwen2.5-7b", "tiny"}


@pytest.mark.parametrize("overlay", [*sorted(p.name for p in CONFIGS.glob("tiny-*.yaml")),
                                     "vllm-cpu.yaml"])
def test_every_shipped_overlay_says_what_it_extends(overlay):
    """The main job's own overlays extend config.yaml; the research overlays extend the
    full-size evaluation (tiny-full-eval.yaml), which extends config.yaml."""
    full_size = overlay not in ("tiny-full-eval.yaml", "vllm-cpu.yaml")
    expected = "tiny-full-eval.yaml" if full_size else "../config.yaml"
    assert yaml.safe_load((CONFIGS / overlay).read_text())["extends"] == expected


# --- errors that lead to the fix -----------------------------------------------------------

def problems_of(values: dict, tmp_path) -> str:
    path = write(tmp_path / "config.yaml", values)
    run = compose([path], path)
    try:
        validate(run, REPO)
        checks.check(run, places(tmp_path))
    except ConfigError as error:
        return str(error)
    return ""


def smoke(**changes) -> dict:
    values = yaml.safe_load(SMOKE.read_text())
    for dotted, value in changes.items():
        *parents, last = dotted.split("__")
        target = values
        for key in parents:
            target = target.setdefault(key, {})
        target[last] = value
    return values


@pytest.mark.parametrize("changes, expected", [
    ({"samplng": {"n": 2}}, "samplng: unknown key; did you mean 'sampling'?"),
    ({"models__tiny__rl__rewrds": ["k2"]}, "models.tiny.rl.rewrds: unknown key; did you mean "
                                          "'rewards'?"),
    ({"sampling__backend": "vlm"}, "sampling.backend: 'vlm' is not one of transformers, vllm; "
                                   "did you mean 'vllm'?"),
    ({"settings": ["reasoning", "tooluse"]}, "did you mean 'tool_use'?"),
    ({"resources__sampel": {"threads": 2}}, "did you mean 'sample'?"),
    ({"sampling__n": 0}, "sampling.n: 0 is less than the minimum of 1"),
])
def test_schema_errors_name_the_key_and_a_close_match_without_the_schema(changes, expected,
                                                                         tmp_path):
    message = problems_of(smoke(**changes), tmp_path)
    assert expected in message
    assert "additionalProperties" not in message and "$schema" not in message
    assert len(message.splitlines()) <= 10


@pytest.mark.parametrize("changes, key, fix", [
    # on main: a MissingInputException on a folder path
    ({"models__tiny__merge__high": "kinff"}, "models.tiny.merge.high",
     "did you mean 'kinf'"),
    # on main: accepted (8 processes on 4 GPUs)
    ({"models__tiny__rl__processes": 8, "resources__rl": {"gpu": 4, "threads": 8}},
     "models.tiny.rl.processes", "set processes to 4"),
    ({"models__tiny__rl__processes": 4}, "models.tiny.rl.processes",
     "on a CPU job of 1 core"),
    # on main: the tiny default's SFT of a hub model in a CPU job
    ({"models__tiny__base": "Qwen/Qwen2.5-1.5B-Instruct", "models__tiny__init": None},
     "models.tiny.sft_checkpoint", "give resources.sft GPUs, or set sft_checkpoint"),
    ({"data__eval": {"source": "livecodebench", "split": "train"}}, "data.eval.split",
     "livecodebench has only the eval split"),
    ({"data__eval": {"source": "livecodebench", "instances": 3}}, "data.eval.instances",
     "livecodebench does not read this option"),
    ({"data__eval": {"source": "bundled"}}, "data.eval.split", "say which one"),
    ({"models__tiny__evaluated_in": {"rl-k3": ["reasoning"]}}, "models.tiny.evaluated_in.rl-k3",
     "no checkpoint 'rl-k3'"),
    ({"second_attempts": {"checkpoints": ["rl-kinff"]}}, "second_attempts.checkpoints", "did you mean 'rl-kinf'"),
    ({"models__tiny__rl__accelerate_config": "configs/accelerate/zero9.yaml"},
     "models.tiny.rl.accelerate_config", "is not there"),
    ({"models__tiny__sft_checkpoint": "./checkpoints/mine"}, "models.tiny.sft_checkpoint",
     "neither a folder"),
    ({"resources__judge": {"nodes": 2}}, "resources.judge.nodes", "run on one node"),
    ({"resources__judge": {"threads": 8, "cpus_per_task": 4}}, "resources.judge.cpus_per_task",
     "starts 8 threads"),
    ({"sampling__backend": "vllm", "sampling__tensor_parallel_size": 4,
      "resources__sample": {"gpu": 2}}, "sampling.tensor_parallel_size",
     "4 GPUs per vLLM engine"),
])
def test_cross_field_errors_name_the_key_and_the_fix(changes, key, fix, tmp_path):
    values = smoke(**changes)
    if values["models"]["tiny"].get("init", 1) is None:
        del values["models"]["tiny"]["init"]
    message = problems_of(values, tmp_path)
    assert any(line.strip().startswith(key) and fix in line
               for line in message.splitlines()), message


def test_the_shipped_configs_pass_every_check(tmp_path):
    for files in ([REPO / "config.yaml"], [SMOKE], [EXAMPLE], [CONFIGS / "qwen2.5-7b.yaml"],
                  [CONFIGS / "qwen2.5-7b.yaml", CONFIGS / "qwen2.5-32b.yaml"],
                  *([p] for p in CONFIGS.glob("tiny-*.yaml"))):
        run = compose(files, REPO / "config.yaml")
        validate(run, REPO)
        warnings = checks.check(run, places(tmp_path))
        assert warnings == [], (files, warnings)


def test_a_config_error_stops_the_dry_run_with_the_message(tmp_path):
    path = write(tmp_path / "bad.yaml", smoke(models__tiny__merge__high="kinff"))
    done = snakemake("-n", "-d", tmp_path / "run", f"--configfile={path}")
    assert done.returncode != 0
    assert "models.tiny.merge.high: 'kinff' is not one of the model's rewards" in done.stderr
    assert "MissingInputException" not in done.stderr


# --- resources ----------------------------------------------------------------------------

def test_gpus_are_per_node_and_training_jobs_get_one_task_per_node():
    config = {"models": {"m": {}}, "resources": {
        "rl": {"gpu": 8, "gpu_model": "h100", "nodes": 2, "slurm_extra": "--qos=long"},
        "sample": {"gpu": 4, "gpu_model": "h100"}}}
    assert res.job_resources(config, "rl", "m") == {
        "nodes": 2, "gres": "gpu:h100:8", "tasks": 2, "tasks_per_gpu": 0,
        "slurm_extra": "--qos=long --ntasks-per-node=1"}
    assert res.job_resources(config, "sample", "m") == {"nodes": 1, "gpu": 4, "gpu_model": "h100"}
    assert res.job_resources(config, "second_attempt", "m") == res.job_resources(config, "sample", "m")


def test_the_schema_and_the_resource_keys_agree():
    schema = yaml.safe_load((REPO / "config.schema.yaml").read_text())
    assert tuple(schema["definitions"]["resource"]["properties"]) == res.KEYS
    rules = schema["definitions"]["resource_table"]["propertyNames"]["enum"]
    assert set(rules) == {"default", *res.RULES} - set(res.READS_ENTRY_OF)
    snakefile_rules = set(re.findall(r"^rule (\w+):", "".join(
        p.read_text() for p in [REPO / "Snakefile", *(REPO / "rules").glob("*.smk")]), re.M))
    assert snakefile_rules | {"judge_second_attempt"} == {*res.RULES, "all"}


def test_every_resource_key_reaches_every_rules_jobs_in_a_slurm_dry_run(tmp_path):
    """On main the account, slurm_extra, gpu_model and cpus_per_task reached no job, the
    problems jobs took the defaults and merge ignored its threads."""
    values = yaml.safe_load(EXAMPLE.read_text())
    values["resources"]["default"].update(slurm_extra="--qos=normal", cpus_per_task=3)
    values["resources"]["merge"]["cpus_per_task"] = 4
    values["resources"]["rl"]["cpus_per_task"] = 16
    values["resources"]["sample"]["cpus_per_task"] = 8
    values["resources"]["judge"]["cpus_per_task"] = 16
    path = write(tmp_path / "grid.yaml", values)
    done = snakemake("--profile", "slurm", "-n", "-p", "-c", "1000", "-d", tmp_path / "run",
                     "results/frontier.parquet", f"--configfile={path}")
    assert done.returncode == 0, done.stderr[-3000:]
    jobs = [job for job in dry_run_jobs(done.stdout) if job["rule"] != "all"]
    assert {job["rule"] for job in jobs} >= {"problems", "rl", "merge", "sample", "judge", "frontier"}
    for job in jobs:
        entry = res.rule_entry(values, job["rule"], "qwen2.5-coder-1.5b")
        got = job["resources"]
        assert got["slurm_account"] == "my_lab" and got["slurm_partition"] == entry["slurm_partition"]
        assert got["slurm_extra"] == "--qos=normal"
        assert int(got["cpus_per_task"]) == entry["cpus_per_task"]
        assert int(got["mem_mb"]) == entry["mem_mb"] and int(got["runtime"]) == entry["runtime"]
        assert got.get("gpu_model") == entry.get("gpu_model")
        assert int(got["gpu"]) == entry.get("gpu", 0)
    problems = [job for job in jobs if job["rule"] == "problems"]
    assert {(j["resources"]["mem_mb"], j["resources"]["runtime"]) for j in problems} == {
        ("32000", "240")}
    assert all("--workers 4 " in job["shell"] for job in jobs if job["rule"] == "merge")
    assert all("HF_HUB_OFFLINE" not in job["shell"] for job in jobs)  # the Hub is on


# --- the Hub ------------------------------------------------------------------------------

def hub_cache(root: Path, repo: str) -> Path:
    """A model in huggingface_hub's cache layout (refs/main -> snapshots/<commit>)."""
    folder = root / f"models--{repo.replace('/', '--')}"
    snapshot = folder / "snapshots" / "0123abcd"
    snapshot.mkdir(parents=True)
    (folder / "refs").mkdir()
    (folder / "refs" / "main").write_text("0123abcd")
    (snapshot / "config.json").write_text(json.dumps({
        "model_type": "qwen2", "hidden_size": 1536, "num_hidden_layers": 28,
        "num_attention_heads": 12, "num_key_value_heads": 2, "intermediate_size": 8960,
        "vocab_size": 151936, "tie_word_embeddings": True, "torch_dtype": "bfloat16"}))
    (snapshot / "model.safetensors").write_bytes(b"\0" * 1000)
    return snapshot


def test_the_grid_reads_what_its_config_names_from_the_hub(tmp_path):
    run = compose([EXAMPLE], EXAMPLE)
    items = {(item.kind, item.repo) for item in hub_items(run.values, places(tmp_path))}
    assert items == {("model", "Qwen/Qwen2.5-Coder-1.5B-Instruct"),
                     ("dataset", "ByteDance-Seed/Code-Contests-Plus"),
                     ("dataset", "livecodebench/code_generation_lite")}
    assert hub_items(compose([SMOKE], SMOKE).values, places(tmp_path)) == []
    assert model_reference("Qwen/Qwen2.5-7B", places(tmp_path)).kind == "hub"
    assert model_reference("configs", places(tmp_path)).value == str(REPO / "configs")


def test_with_the_hub_off_a_missing_model_fails_the_plan_naming_it_and_the_fetch(tmp_path):
    env = {**ENV, "HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(tmp_path / "hub")}
    grid = yaml.safe_load(EXAMPLE.read_text())
    for entry in grid["data"].values():
        entry["data_dir"] = str(tmp_path)  # local copies: only the model is read from the Hub
    path = write(tmp_path / "grid.yaml", grid)
    done = snakemake("-n", "-d", tmp_path / "run", f"--configfile={path}", env=env)
    assert done.returncode != 0
    assert ("models.qwen2.5-coder-1.5b.sft_checkpoint: Qwen/Qwen2.5-Coder-1.5B-Instruct (model) "
            "is not in the Hugging Face cache") in done.stderr
    assert f"codefrontier prefetch --configfile {shlex.quote(str(path))}" in done.stderr
    hub_cache(tmp_path / "hub", "Qwen/Qwen2.5-Coder-1.5B-Instruct")
    done = snakemake("-n", "-d", tmp_path / "run", f"--configfile={path}", env=env)
    assert done.returncode == 0, done.stderr[-2000:]


def test_prefetch_reports_what_is_cached_and_what_it_would_fetch(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    hub_cache(tmp_path / "hub", "Qwen/Qwen2.5-Coder-1.5B-Instruct")
    rows = prefetch(compose([EXAMPLE], EXAMPLE).values, places(tmp_path), dry_run=True)
    states = {row.item.repo: (row.state, row.bytes) for row in rows}
    assert states["Qwen/Qwen2.5-Coder-1.5B-Instruct"][0] == "cached"
    assert states["Qwen/Qwen2.5-Coder-1.5B-Instruct"][1] > 1000
    assert states["livecodebench/code_generation_lite"] == ("to fetch", None)
    table = prefetch_table(rows)
    assert "| models.qwen2.5-coder-1.5b.sft_checkpoint | Qwen/Qwen2.5-Coder-1.5B-Instruct" in table
    assert "size unknown" in table and "3 repositories" in table


# --- paths and usage lines ----------------------------------------------------------------

def usage_lines() -> list[tuple[str, str]]:
    """Every `snakemake ...` command the Snakefile, the configs and the README show."""
    found = []
    sources = [REPO / "Snakefile", *sorted(CONFIGS.glob("*.yaml")), REPO / "README.md",
               *sorted((REPO / "docs").glob("*.md"))]
    for source in sources:
        text = re.sub(r"\\\n#?\s*", " ", source.read_text())  # continued lines, comments too
        for line in text.splitlines():
            line = line.strip().lstrip("#").strip()
            if line.startswith("snakemake ") and "--report" not in line:
                found.append((source.name, line.split("  #")[0].strip().rstrip("`")))
    return found


@pytest.mark.parametrize("source, line", usage_lines())
def test_every_usage_line_plans_as_written(source, line, tmp_path):
    """Each as a dry run from the checkout, in a folder of its own (-d), placeholders such as
    RUN_DIR standing for that folder."""
    words = shlex.split(line)[1:]
    for index, word in enumerate(words):
        words[index] = word.replace("CHECKOUT", str(REPO))
        if index and words[index - 1] in ("-d", "--directory"):  # RUN_DIR, runs/vllm-cpu
            words[index] = str(tmp_path / "run")
    if "-d" not in words and "--directory" not in words:
        words += ["-d", str(tmp_path / "run")]
    done = snakemake("-n", "--quiet", "rules", *words)
    assert done.returncode == 0, f"{source}: {line}\n{done.stderr[-2000:]}"


# --- config files and targets on the command line --------------------------------------------

def parsed(*words: str):
    from codefrontier.cli import build_parser

    return build_parser().parse_args(list(words))


def test_a_target_after_the_config_files_is_taken_as_a_target():
    """docs/cluster.md's plan: the target after two config files, where --configfile read it
    as a third config file; targets before --configfile come first."""
    args = parsed("plan", "--configfile", "configs/qwen2.5-7b.yaml", "configs/qwen2.5-32b.yaml",
                  "results/frontier.parquet")
    assert args.configfile == ["configs/qwen2.5-7b.yaml", "configs/qwen2.5-32b.yaml"]
    assert args.targets == ["results/frontier.parquet"]
    args = parsed("plan", "all", "--configfile", "a.yaml", "results/claims.md", "b.json")
    assert (args.targets, args.configfile) == (["all", "results/claims.md"], ["a.yaml", "b.json"])
    # a merge's record is the workflow's one JSON output: a target
    args = parsed("plan", "--configfile", "a.yml", "results/m/reasoning/merge/a0.5.json")
    assert args.targets == ["results/m/reasoning/merge/a0.5.json"]


@pytest.mark.parametrize("option", ["--configfile", "--config"])
def test_audit_takes_its_target_after_the_config_files(option):
    args = parsed("audit", option, "configs/smoke.yaml", "results/frontier.parquet")
    assert (args.target, args.configfile) == ("results/frontier.parquet", ["configs/smoke.yaml"])


@pytest.mark.parametrize("words, message", [
    (["--configfile", "configs/smoke.yaml"], "required: target"),
    (["results/a.parquet", "--configfile", "configs/smoke.yaml", "results/b.parquet"],
     "one target, not 2: results/a.parquet results/b.parquet"),
])
def test_audit_takes_one_target(words, message, capsys):
    with pytest.raises(SystemExit) as stop:
        parsed("audit", *words)
    assert stop.value.code == 2 and message in capsys.readouterr().err


def test_prefetch_refuses_a_target_after_the_config_files(capsys):
    with pytest.raises(SystemExit) as stop:
        parsed("prefetch", "--configfile", "configs/smoke.yaml", "results/frontier.parquet")
    assert stop.value.code == 2
    assert ("results/frontier.parquet is not a config file (YAML or JSON: .yaml, .yml or .json), "
            "and codefrontier prefetch takes no targets") in capsys.readouterr().err


@pytest.mark.parametrize("command", ["plan", "prefetch", "audit"])
def test_the_equals_form_gives_one_config_file(command):
    target = ["results/frontier.parquet"] if command != "prefetch" else []
    args = parsed(command, "--configfile=configs/smoke.yaml", *target)
    assert args.configfile == ["configs/smoke.yaml"]


# --- the plan -------------------------------------------------------------------------------

def test_plan_prints_jobs_gpu_hours_critical_path_and_disk_for_both_cluster_grids(tmp_path):
    done = subprocess.run([sys.executable, "-m", "codefrontier.cli", "plan", "--configfile",
                           CONFIGS / "qwen2.5-7b.yaml", CONFIGS / "qwen2.5-32b.yaml",
                           "-d", tmp_path, "--json", tmp_path / "plan.json",
                           "results/frontier.parquet"],
                          capture_output=True, text=True, env=ENV, cwd=REPO, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads((tmp_path / "plan.json").read_text())
    rows = {(row["rule"], row["model"]): row for row in summary["rules"]}
    assert rows[("rl", "qwen2.5-7b")]["jobs"] == 21 and rows[("rl", "qwen2.5-32b")]["gpus"] == "16"
    assert summary["jobs"] == 303
    # 21 runs x 8 GPUs x 48 h + 21 x 16 x 48 h + the sampling jobs (42 h on 1 GPU, 45 h on 4)
    assert summary["gpu_hours"] == 21 * 8 * 48 + 21 * 16 * 48 + 51 * 1 * 42 + 51 * 4 * 45
    assert 0 < summary["estimated_gpu_hours"] < summary["full_budget_gpu_hours"]
    assert summary["estimated_gpu_hours"] < summary["gpu_hours"]
    assert summary["warnings"] == []  # each job requests at least the estimate
    assert summary["critical_path"]["jobs"][1].startswith("rl model=qwen2.5-32b")
    disk = summary["disk"]
    assert disk["kept_bytes"] < disk["peak_bytes"] < disk["peak_bytes_keeping_everything"]
    for words in ("GPU-h requested", "GPU-h estimated", "GPU-h at full budgets",
                  "h/job estimated", "Critical path", "Disk:", "peak"):
        assert words in done.stdout
    # docs/cluster.md shows this very output (table and summary), the README its figures
    shown = done.stdout.split("\n\nModels:")[0]
    assert shown in (REPO / "docs" / "cluster.md").read_text()
    readme = " ".join((REPO / "README.md").read_text().split())
    assert (f"{summary['jobs']} jobs and {summary['gpu_hours']:,.0f} GPU-hours requested "
            f"({summary['estimated_gpu_hours']:,.0f} estimated") in readme


def test_plan_of_the_example_sizes_the_model_from_its_cached_config(tmp_path):
    env = {**ENV, "HF_HUB_CACHE": str(tmp_path / "hub")}
    hub_cache(tmp_path / "hub", "Qwen/Qwen2.5-Coder-1.5B-Instruct")
    done = subprocess.run([sys.executable, "-m", "codefrontier.cli", "plan", "--configfile",
                           EXAMPLE, "-d", tmp_path, "--json", tmp_path / "plan.json"],
                          capture_output=True, text=True, env=env, cwd=REPO, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads((tmp_path / "plan.json").read_text())
    size = summary["models"]["qwen2.5-coder-1.5b"]
    assert 1.5e9 < size["parameters"] < 1.6e9 and "config.json" in size["source"]
    # problems, 4 rewards x 3 settings, 5 merges x 3, 10 checkpoints x 3 sampled and judged,
    # frontier, ensemble, claims, plots, the training table and its charts, all
    assert summary["jobs"] == 2 + 12 + 15 + 30 + 30 + 4 + 2 + 1


@pytest.mark.parametrize("tied", [True, False])
def test_the_parameter_count_is_the_models_own(tied):
    """The plan's N from a config.json equals what transformers builds from it."""
    from transformers import Qwen2Config, Qwen2ForCausalLM

    from codefrontier.pipeline.costs import parameters_of_config

    config = Qwen2Config(vocab_size=300, hidden_size=64, intermediate_size=96,
                         num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2,
                         tie_word_embeddings=tied)
    model = Qwen2ForCausalLM(config)
    assert parameters_of_config(config.to_dict()) == sum(p.numel() for p in model.parameters())
