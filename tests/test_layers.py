"""The package's layers (pyproject.toml's import-linter contracts, docs/design.md)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(LINT_IMPORTS), "--config", str(root / "pyproject.toml"),
                           "--no-cache"], cwd=root, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(root)})


@pytest.fixture
def copy(tmp_path) -> Path:
    """The package and its contracts in a scratch folder, to break."""
    shutil.copytree(REPO / "codefrontier", tmp_path / "codefrontier",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path)
    return tmp_path


def test_an_import_that_runs_up_the_layers_breaks_the_contract(copy):
    kept = lint_imports(copy)
    assert kept.returncode == 0, kept.stdout + kept.stderr
    (copy / "codefrontier" / "base" / "scratch.py").write_text(
        "from codefrontier.pipeline import workflow\n")
    broken = lint_imports(copy)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "codefrontier.base is not allowed to import codefrontier.pipeline" in broken.stdout
    assert "codefrontier.base.scratch -> codefrontier.pipeline.workflow" in broken.stdout


def test_the_data_layer_cannot_reach_into_the_judge(copy):
    (copy / "codefrontier" / "suite" / "scratch.py").write_text(
        "from codefrontier.judge.child import CALL_PRELUDE\n")
    broken = lint_imports(copy)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "codefrontier.suite.scratch -> codefrontier.judge.child" in broken.stdout


def test_two_modules_that_import_each_other_break_the_contract(copy):
    """A circle is a cycle even where the layers allow both arrows (one package)."""
    (copy / "codefrontier" / "generation" / "scratch.py").write_text(
        "from codefrontier.generation.options import SampleOptions\n")
    options = copy / "codefrontier" / "generation" / "options.py"
    options.write_text(options.read_text() + "\nfrom codefrontier.generation import scratch\n")
    broken = lint_imports(copy)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "No cycles are allowed in codefrontier.generation" in broken.stdout
