"""The sandboxes find their Python wherever the interpreter, the virtualenv and the checkout
live: under /tmp (which each sandbox replaces with a private tmpfs), under /var/tmp, in
a path with spaces, behind a symlink, as a copied interpreter, and as an interpreter of
its own whose standard library is a symlink.

Each case builds that interpreter for real and runs, with it, a Terminal (`python` and
`python3` inside bubblewrap) and the judge at both sandbox levels that build a private
root (a program that imports standard modules the judge does not preload). A sandbox
that cannot show its Python fails once, as the sandbox's fault, naming the path.
"""

import json
import os
import shutil
import site
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import pytest

from codefrontier.sandbox import bwrap as bwrap_module
from codefrontier.sandbox import terminal as terminal_module
from codefrontier.sandbox.isolation import SandboxError

REPO = Path(__file__).resolve().parents[1]
BASE_PYTHON = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
AS_ROOT = os.geteuid() == 0

SCRIPT = r"""
import json, sys
from codefrontier.judge import JudgePool
from codefrontier.sandbox.terminal import CommandLimits, Terminal

report = {"prefix": sys.prefix, "executable": sys.executable}
limits = CommandLimits(cpu_s=10, wall_s=20, workspace_mb=64, output_chars=2000)
with Terminal({"main.py": "import textwrap, csv\nprint(6 * 7)\n"}, limits) as terminal:
    report["terminal"] = terminal.run("python main.py && python3 -c 'print(1)'").output
report["judge"] = {}
for level in ("namespaces", "userns"):
    with JudgePool(workers=1, max_isolation=level) as pool:
        run = pool.execute("import textwrap, csv, fractions, zipfile\nprint(input()[::-1])",
                           stdin="abc", time_limit_s=10, memory_limit_mb=512,
                           output_chars=2000)
        report["judge"][pool.isolation.level] = [run.status, run.stdout, run.stderr]
print(json.dumps(report))
"""


def _dependencies_pth(site_packages: Path) -> None:
    """The project and this environment's packages, importable from another interpreter."""
    site_packages.mkdir(parents=True, exist_ok=True)
    (site_packages / "codefrontier-test.pth").write_text(
        "\n".join([str(REPO), *site.getsitepackages()]) + "\n")


def make_venv(path: Path, *options: str) -> Path:
    subprocess.run([BASE_PYTHON, "-m", "venv", "--without-pip", *options, str(path)],
                   check=True)
    python = path / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                              "['purelib'])"], capture_output=True, text=True, check=True)
    _dependencies_pth(Path(purelib.stdout.strip()))
    return python


def make_standalone(path: Path) -> Path:
    """An interpreter of its own (no virtualenv) whose standard library is a symlink."""
    (path / "bin").mkdir(parents=True)
    shutil.copy2(BASE_PYTHON, path / "bin" / "python3")
    stdlib = sysconfig.get_paths()["stdlib"]
    (path / "lib").mkdir()
    (path / "lib" / Path(stdlib).name).symlink_to(stdlib)
    return path / "bin" / "python3"


def run_with(python: Path, cwd: Path) -> dict:
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    if "venv" not in str(python):
        env["PYTHONPATH"] = os.pathsep.join([str(REPO), *site.getsitepackages()])
    done = subprocess.run([str(python), "-c", SCRIPT], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


@pytest.fixture
def place(request):
    """A fresh folder under the parent the case asks for, removed afterwards."""
    parent, prefix = request.param
    folder = Path(tempfile.mkdtemp(dir=parent, prefix=prefix))
    os.chmod(folder, 0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _build(case: str, folder: Path) -> Path:
    if case == "behind_symlink":
        (folder / "real").mkdir()
        (folder / "link").symlink_to(folder / "real")
        return make_venv(folder / "link" / "checkout" / ".venv")
    if case == "copied_interpreter":
        return make_venv(folder / "checkout" / ".venv", "--copies")
    if case == "standalone":
        return make_standalone(folder / "python")
    return make_venv(folder / "checkout" / ".venv")


CASES = {
    "venv_under_tmp": ("/tmp", "cf-place-"),
    "venv_under_var_tmp": ("/var/tmp", "cf-place-"),
    "venv_in_path_with_spaces": ("/var/tmp", "cf place with spaces "),
    "behind_symlink": ("/tmp", "cf-place-"),
    "copied_interpreter": ("/tmp", "cf-place-"),
    "standalone": ("/tmp", "cf-place-"),
}


@pytest.mark.slow
@pytest.mark.skipif(not AS_ROOT or shutil.which("bwrap") is None,
                    reason="needs root and bubblewrap for both sandboxes")
@pytest.mark.parametrize(("case", "place"), [(c, p) for c, p in CASES.items()],
                         indirect=["place"], ids=list(CASES))
def test_sandboxes_find_python(case, place):
    python = _build(case, place)
    report = run_with(python, place)
    assert report["terminal"] == "42\n1\n"
    assert report["judge"] == {"namespaces": ["ok", "cba\n", ""], "userns": ["ok", "cba\n", ""]}
    if case != "standalone":
        assert report["prefix"].startswith(str(place))  # the case really ran from there


def test_a_terminal_without_python_fails_once_naming_the_path(monkeypatch):
    if shutil.which("bwrap") is None:
        pytest.skip("needs bubblewrap")
    monkeypatch.setattr(terminal_module, "_python_checked", False)
    monkeypatch.setattr(bwrap_module, "python_mounts",
                        lambda: ((), "/nowhere/python/bin"))
    with pytest.raises(SandboxError, match=r"cannot start Python.*/nowhere/python/bin"):
        terminal_module.Terminal({}, terminal_module.CommandLimits(
            cpu_s=10, wall_s=20, workspace_mb=64, output_chars=2000))


def test_a_judge_sandbox_without_a_python_folder_names_it():
    from codefrontier.sandbox.isolation import check_python_shown, python_dirs

    check_python_shown(python_dirs())  # here, outside any sandbox, every folder is there
    with pytest.raises(SandboxError, match="does not show the Python folder /nowhere/python"):
        check_python_shown([*python_dirs(), "/nowhere/python"])
