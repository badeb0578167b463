"""The kernels mode: what it sets in every job, which jobs it reruns, what the audit
says of it, and a few SFT steps in the reproducible mode giving recorded weights."""

from pathlib import Path

import pytest
import yaml
from kernel_steps import RECORDED, cpu_model, few_sft_steps
from processors import EMULATED_HASWELL, needs_qemu

from codefrontier.base.kernels import DEFAULT_KERNELS, KERNEL_MODES, kernel_environment
from codefrontier.base.provenance import write_provenance
from codefrontier.base.tables import write_records
from codefrontier.pipeline import workflow as wf
from codefrontier.pipeline.audit import ELSEWHERE, audit

REPO = Path(__file__).resolve().parents[1]


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


@pytest.mark.slow
@pytest.mark.processor
def test_a_few_sft_steps_in_the_reproducible_mode_give_the_recorded_weights(tmp_path):
    found = few_sft_steps(tmp_path, "reproducible")
    assert found == RECORDED, \
        f"{found}: other weights than recorded on this processor ({cpu_model()})"


@pytest.mark.slow
@pytest.mark.processor
@needs_qemu
def test_the_same_steps_on_an_emulated_intel_avx2_processor_give_the_recorded_weights(
        tmp_path):
    """QEMU answers CPUID as an Intel Haswell (AVX2, FMA): where the native kernels give
    other weights there than here, the mode must give the recorded ones
    (benchmarks/emulated_processors.py)."""
    found = few_sft_steps(tmp_path, "reproducible", EMULATED_HASWELL,
                          timeout_s=1800)
    assert found == RECORDED, f"{found}: other weights than recorded on an emulated Haswell"
