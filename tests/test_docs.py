"""The docs stay true: their links resolve, every `codefrontier` command their code blocks
quote parses, and the ones that can run as written run, in a fresh checkout and in a
finished run's folder.

Which run: those of the commands that only read (RUNS: `plan`, `prefetch` with --dry-run
added where it is not there, so that nothing is fetched, and `audit`); a page shows
them with real files (configs/..., results/...), and they must work as written. Every
other command writes outputs or names placeholders for the reader's own files
(P.parquet, M, SFT, RL, OUT): those only parse."""

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codefrontier.cli import build_parser

REPO = Path(__file__).resolve().parents[1]
VENV_BIN = str(Path(sys.executable).parent)
PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md")), REPO / "benchmarks" / "README.md"]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def anchor(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as -."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    return {anchor(line.lstrip("#")) for line in page.read_text().splitlines()
            if line.startswith("#")}


def links() -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        for target in LINK.findall(page.read_text()):
            if not re.match(r"[a-z]+:", target):  # http:, https:, mailto:
                found.append((str(page.relative_to(REPO)), target))
    return found


@pytest.mark.parametrize("page, target", links())
def test_every_relative_link_resolves(page, target):
    path, _, heading = target.partition("#")
    file = (REPO / page).parent / path if path else REPO / page
    assert file.exists(), f"{page}: {target} names no file"
    assert REPO in file.resolve().parents or file.resolve() == REPO, \
        f"{page}: {target} points outside the repository"
    if heading and file.suffix == ".md":
        assert heading in anchors(file), f"{page}: {target}: no such heading"


def commands() -> list[tuple[str, str]]:
    """(page, line) of every `codefrontier ...` line of the pages' code blocks: continued
    lines joined, a `$ ` prompt and `  # comments` cut."""
    found = []
    for page in PAGES:
        for block in re.findall(r"```[a-z]*\n(.*?)```", page.read_text(), re.S):
            for line in re.sub(r"\\\n\s*", " ", block).splitlines():
                line = line.split("  #")[0].strip().removeprefix("$ ")
                if line.startswith("codefrontier "):
                    found.append((str(page.relative_to(REPO)), line))
    return found


def as_written(line: str) -> list[str]:
    """The words of a quoted command, its optional `[...]` parts and `...` dropped."""
    line = re.sub(r"\[[^\]]*\]", "", line)
    return [word for word in shlex.split(line)[1:] if word not in ("...", "…")]


@pytest.mark.parametrize("page, line", commands())
def test_every_command_in_the_docs_parses(page, line):
    try:
        build_parser().parse_args(as_written(line))
    except SystemExit as stop:
        pytest.fail(f"{page}: {line}: the command line does not parse (exit {stop.code})")


# What running as written means for each command that runs: the exit statuses it documents
# for work done (audit: 1 when anything is off, as a fresh checkout's missing outputs
# are), and a line of its report.
RUNS = {"plan": ({0}, "Critical path"), "prefetch": ({0}, " repositories, "),
        "audit": ({0, 1}, "audited ")}


def as_run(line: str) -> tuple[str, ...]:
    words = as_written(line)
    if words[0] == "prefetch" and "--dry-run" not in words:
        words.append("--dry-run")
    return tuple(words)


def runnable() -> list[tuple[str, ...]]:
    """The commands that run (each once, however many pages show it)."""
    return sorted({as_run(line) for _, line in commands() if as_written(line)[0] in RUNS})


def checkout_copy(folder: Path) -> Path:
    """The checkout's files (tracked, and new ones git does not ignore) in `folder`: a
    fresh checkout, with no results."""
    listed = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], capture_output=True, text=True, check=True)
    for name in filter(None, listed.stdout.split("\0")):
        if (REPO / name).is_file():  # not a tracked file deleted since
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, folder / name)
    return folder


@pytest.fixture(scope="module")
def fresh_checkout(tmp_path_factory) -> Path:
    return checkout_copy(tmp_path_factory.mktemp("checkout"))


@pytest.fixture(scope="module")
def finished_run(smoke_run, tmp_path_factory) -> Path:
    """A checkout that holds a finished run's results: the smoke run's, copied (the shared
    run stays as it is)."""
    folder = checkout_copy(tmp_path_factory.mktemp("finished-run"))
    shutil.copytree(smoke_run / "results", folder / "results")
    return folder


def run_environment(command: str, hub_cache: Path) -> dict[str, str]:
    """The Hub off, so that prefetch --dry-run asks nothing of the network, but for plan:
    it reads nothing from the Hub, and with the Hub off its config check would want the
    cluster's models in the cache. An empty cache either way, not the user's."""
    env = {**os.environ, "PATH": f"{VENV_BIN}:{os.environ['PATH']}",
           "HF_HUB_CACHE": str(hub_cache), "HF_HUB_OFFLINE": "1"}
    if command == "plan":
        del env["HF_HUB_OFFLINE"]
    return env


@pytest.mark.slow
@pytest.mark.parametrize("place", ["fresh_checkout", "finished_run"])
@pytest.mark.parametrize("words", runnable(), ids=" ".join)
def test_every_runnable_command_in_the_docs_runs_as_written(words, place, request, tmp_path):
    folder = request.getfixturevalue(place)
    done = subprocess.run([sys.executable, "-m", "codefrontier.cli", *words], cwd=folder,
                          env=run_environment(words[0], tmp_path / "hub"), capture_output=True,
                          text=True, timeout=600)
    statuses, report = RUNS[words[0]]
    assert done.returncode in statuses and "Traceback" not in done.stderr, \
        f"codefrontier {' '.join(words)} in a {place}: exit {done.returncode}\n{done.stderr[-3000:]}"
    assert report in done.stdout


def test_the_docs_index_names_every_page():
    index = (REPO / "docs" / "README.md").read_text()
    linked = {target.split("#")[0] for target in LINK.findall(index)}
    pages = {page.name for page in (REPO / "docs").glob("*.md")} - {"README.md"}
    assert pages <= linked, f"not in docs/README.md: {sorted(pages - linked)}"
