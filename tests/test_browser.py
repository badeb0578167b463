"""Inspect's viewer (`inspect view bundle` of the exported logs) and Snakemake's report of
the smoke run, served on the loopback and opened in headless Chromium: a known sample's
program, tool call and outcome are on the viewer's page, the report's charts are drawn,
and neither page has a JavaScript error."""

import pytest
from conftest import require_module, require_program, snakemake
from inspect_run import PROBLEM

from codefrontier.analysis.browser import (
    INSTALL_HINT,
    bundle_inspect_logs,
    headless_page,
    inspect_sample_url,
    served,
    show_report_result,
    shown_images,
)

TOOL_USE_LOG = "tiny/2-tool_use/03-rl-kinf.eval"
TIMEOUT_MS = 30_000


@pytest.fixture(scope="module")
def browser_ready():
    require_module("playwright", INSTALL_HINT)
    require_program("chromium", INSTALL_HINT)


@pytest.fixture(scope="module")
def viewer(browser_ready, inspect_logs, tmp_path_factory):
    log_dir, _ = inspect_logs
    return bundle_inspect_logs(log_dir, tmp_path_factory.mktemp("viewer") / "bundle")


@pytest.fixture(scope="module")
def report(browser_ready, smoke_run, tmp_path_factory):
    page = tmp_path_factory.mktemp("report") / "report.html"
    done = snakemake(smoke_run, "--report", page, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return page


@pytest.mark.slow
def test_the_viewer_shows_a_samples_program_tool_call_and_outcome(viewer, looked):
    with served(viewer) as base, headless_page() as (page, trouble):
        page.goto(inspect_sample_url(base, TOOL_USE_LOG, PROBLEM, 1))
        page.get_by_text("exit status: 0").first.wait_for(timeout=TIMEOUT_MS)
        text = page.inner_text("body")
        assert "Let me run it on the first example." in text
        assert "python" in text and looked.tool_result.splitlines()[-1] in text
        for line in looked.program.strip().splitlines():  # the tool call's code, as written
            assert line.strip() in text
        assert "correct" in text and "tool_use" in text
        assert trouble.errors == [] and trouble.unexpected_failures() == []


@pytest.mark.slow
def test_the_viewer_lists_the_logs_by_setting_then_checkpoint(viewer):
    with served(viewer) as base, headless_page() as (page, trouble):
        page.goto(base)
        page.get_by_text("tiny/a1.5").first.wait_for(timeout=TIMEOUT_MS)
        text = page.inner_text("body")
        models = ["reasoning\ntiny/sft", "reasoning\ntiny/rl-k2", "reasoning\ntiny/rl-kinf",
                  "reasoning\ntiny/a-0.5", "reasoning\ntiny/a0.5", "reasoning\ntiny/a1.5",
                  "tool_use\ntiny/rl-kinf"]
        positions = [text.find(model) for model in models]
        assert -1 not in positions and positions == sorted(positions), text[:2000]
        assert trouble.errors == [] and trouble.unexpected_failures() == []


@pytest.mark.slow
def test_the_reports_charts_render(report):
    with served(report.parent) as base, headless_page() as (page, trouble):
        page.goto(base + report.name)
        for category, chart in (("Frontier", "results/plots/frontier.png"),
                                ("Training", "results/plots/training/reasoning.png")):
            show_report_result(page, category, chart)
            page.locator("img[src^='data:image/png']").first.wait_for(timeout=TIMEOUT_MS)
            drawn = [image for image in shown_images(page)
                     if image["src"].startswith("data:image/png")]
            assert drawn and all(image["width"] > 500 and image["height"] > 100
                                 for image in drawn), drawn
            page.get_by_text("Results", exact=True).first.click()  # back to the categories
        assert trouble.errors == [] and trouble.unexpected_failures() == []
