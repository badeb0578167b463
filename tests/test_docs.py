"""The docs stay true: their links resolve, and the commands they quote parse."""

import re
import shlex
from pathlib import Path

import pytest

from codefrontier.cli import build_parser

REPO = Path(__file__).resolve().parents[1]
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


def commands() -> list[str]:
    """Every `codefrontier ...` line of the README's code blocks (continued lines joined),
    optional parts in brackets left out."""
    found = []
    for block in re.findall(r"```[a-z]*\n(.*?)```", (REPO / "README.md").read_text(), re.S):
        for line in re.sub(r"\\\n\s*", " ", block).splitlines():
            line = line.split("  #")[0].strip()
            if line.startswith("codefrontier "):
                found.append(line)
    return found


def as_written(line: str) -> list[str]:
    """The words of a quoted command, its optional `[...]` parts and `...` dropped."""
    line = re.sub(r"\[[^\]]*\]", "", line)
    return [word for word in shlex.split(line)[1:] if word not in ("...", "…")]


@pytest.mark.parametrize("line", commands())
def test_every_readme_command_parses(line):
    try:
        build_parser().parse_args(as_written(line))
    except SystemExit as stop:
        pytest.fail(f"{line}: the command line does not parse (exit {stop.code})")


def test_the_docs_index_names_every_page():
    index = (REPO / "docs" / "README.md").read_text()
    linked = {target.split("#")[0] for target in LINK.findall(index)}
    pages = {page.name for page in (REPO / "docs").glob("*.md")} - {"README.md"}
    assert pages <= linked, f"not in docs/README.md: {sorted(pages - linked)}"
