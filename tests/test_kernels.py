"""The kernels mode: what it sets in every job, which jobs it reruns, what the audit
says of it, and a few SFT steps in the reproducible mode giving recorded weights."""

import hashlib
import os
import subprocess
import sys

import pytest
import yaml
from test_training import FAST_SUM, SLOW_SUM, answer, sum_problem

from codefrontier.base.kernels import DEFAULT_KERNELS, KERNEL_MODES, kernel_environment
from codefrontier.base.provenance import write_provenance
from codefrontier.base.tables import write_records
from codefrontier.base.threads import THREAD_VARIABLES
from codefrontier.pipeline import workflow as wf
from codefrontier.pipeline.audit import ELSEWHERE, audit
from codefrontier.problems.schema import save_problems
from codefrontier.settings import reasoning

REPO = __import__("pathlib").Path(__file__).resolve().parents[1]
# sha256 of model.safetensors after `model init` and 4 SFT steps in the reproducible
# mode on one thread (test below). Recorded on an AMD EPYC (AVX2 + AVX-512, no AMX);
# the same on every x86-64 processor is what the mode is for: a new value here on
# another processor is a kernel the mode does not pin (docs/default-results.md).
RECORDED_INIT = "674bff7b699252868da1ad6b83f42c241ee8b442f59265981a229339c5147ce6"
RECORDED_SFT = "046437f77ed42d64318a6f7f2831b260adebfc92603885af11d2fd3d67461a17"


def test_the_schema_default_is_the_librarys():
    schema = yaml.safe_load((REPO / "config.schema.yaml").read_text())
    assert schema["properties"]["kernels"]["default"] == DEFAULT_KERNELS
    assert schema["properties"]["kernels"]["enum"] == list(KERNEL_MODES)


def test_the_reproducible_mode_pins_aten_mkl_and_onednn_in_every_job():
    config = yaml.safe_load((REPO / "config.yaml").read_text())
    native = wf.job_environment(config)
    assert not {"ATEN_CPU_CAPABILITY", "MKL_CBWR", "ONEDNN_MAX_CPU_ISA"} & set(native)
    pinned = wf.job_environment({**config, "kernels": "reproducible"})
    assert pinned == {**native, "ATEN_CPU_CAPABILITY": "avx2", "MKL_CBWR": "COMPATIBLE",
                      "ONEDNN_MAX_CPU_ISA": "AVX2"}
    # the config's own environment wins over the mode's
    assert wf.job_environment({**config, "kernels": "reproducible",
                               "environment": {"MKL_CBWR": "AUTO"}})["MKL_CBWR"] == "AUTO"
    with pytest.raises(ValueError, match="unknown kernel mode 'fast'"):
        kernel_environment("fast")


def test_a_pinned_mode_enters_the_slices_of_the_jobs_torch_computes_only():
    config = yaml.safe_load((REPO / "config.yaml").read_text())
    pinned = {**config, "kernels": "reproducible"}
    rl = {"model": "tiny", "setting": "reasoning", "reward": "k2"}
    assert "kernels" not in wf.config_slice(config, "rl", **rl)  # native: slices as before
    assert wf.config_slice(pinned, "rl", **rl)["kernels"] == "reproducible"
    assert wf.config_slice(pinned, "sft", model="tiny")["kernels"] == "reproducible"
    verdicts = {"model": "tiny", "setting": "reasoning", "ckpt": "sft"}
    assert "kernels" not in wf.config_slice(pinned, "judge", **verdicts)
    assert wf.config_slice(pinned, "problems", split="eval") == \
        wf.config_slice(config, "problems", split="eval")


def test_the_audit_names_other_kernels_apart_from_its_findings(tmp_path):
    table = tmp_path / "verdicts.parquet"
    write_records([{"x": 1}], table)
    folder = tmp_path / "sft"
    folder.mkdir()
    write_provenance(folder, {"kind": "sft", "inputs": [], "code_version": "x",
                              "machine": {"arch": "x86_64", "kernels": {}}})
    config = yaml.safe_load((REPO / "config.yaml").read_text())
    found, _ = audit(folder, {**config, "kernels": "reproducible"})
    kernels = [f for f in found if "other kernels" in f.problem]
    assert len(kernels) == 1 and kernels[0].kind == ELSEWHERE
    assert "MKL_CBWR" in kernels[0].problem
    found, _ = audit(folder, config)  # native asked, native used
    assert not [f for f in found if "other kernels" in f.problem]


def sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.slow
def test_a_few_sft_steps_in_the_reproducible_mode_give_the_recorded_weights(tmp_path):
    problems = [sum_problem("sum-a"), sum_problem("sum-b")]
    save_problems(problems, tmp_path / "train.parquet")
    write_records([{"problem_id": p.problem_id, "variant": variant,
                    "prompt": reasoning.messages(p),
                    "completion": [{"role": "assistant", "content": answer(program)}]}
                   for p in problems
                   for variant, program in (("efficient", FAST_SUM), ("slow", SLOW_SUM))],
                  tmp_path / "sft.parquet")
    # one thread in every library: MKL's pinned branch gives other sums on two threads,
    # and a command run in this process may have exported another count
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
           **{name: "1" for name in THREAD_VARIABLES}, **kernel_environment("reproducible")}

    def cli(*args):
        done = subprocess.run([sys.executable, "-m", "codefrontier.cli", *map(str, args)],
                              env=env, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, done.stderr[-3000:]

    cli("model", "init", "--out", tmp_path / "init", "--texts", tmp_path / "train.parquet",
        tmp_path / "sft.parquet", "--vocab-size", 512, "--hidden-size", 64,
        "--num-hidden-layers", 2, "--intermediate-size", 128)
    cli("train", "sft", "--model", tmp_path / "init", "--data", tmp_path / "sft.parquet",
        "--out", tmp_path / "sft", "--set", "max_steps=4", "--set", "learning_rate=3e-3",
        "--set", "per_device_train_batch_size=2", "--set", "seed=0")
    found = (sha256(tmp_path / "init" / "model.safetensors"),
             sha256(tmp_path / "sft" / "model.safetensors"))
    assert found == (RECORDED_INIT, RECORDED_SFT), \
        f"{found}: other weights than recorded on this processor ({open_cpu_model()})"


def open_cpu_model() -> str:
    with open("/proc/cpuinfo", encoding="utf-8") as handle:
        return next((line.split(":", 1)[1].strip() for line in handle
                     if line.startswith("model name")), "unknown")
