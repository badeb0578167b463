"""The README's pictures of a finished run, taken in headless Chromium:

* docs/img/inspect-view.png: one sample in Inspect's viewer (`codefrontier export inspect`,
  then `inspect view bundle`): the first, in setting then checkpoint order, whose episode
  calls a tool and whose program is correct (else the first correct one, else the first);
* docs/img/report.png: Snakemake's report (results/report.html) showing a chart, by
  default the training curves of reasoning's GRPO runs.

    python scripts/screenshots.py [--root RUN] [--out docs/img] [--report-chart CATEGORY PATH]

RUN is the workflow root holding results/ and results/report.html (`make run` makes both).
Needs the inspect and browser extras and Chromium: pip install -e '.[inspect,browser]',
apt-get install chromium.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from codefrontier.analysis.browser import (
    bundle_inspect_logs,
    headless_page,
    inspect_sample_url,
    served,
    show_report_result,
)
from codefrontier.analysis.inspect_export import write_inspect_logs
from codefrontier.base.layout import RESULTS, TRAINING_CHART

TIMEOUT_MS = 60_000
REPORT = "report.html"
REPORT_CHART = ("Training", TRAINING_CHART.fill(curves="reasoning"))


def sample_rank(sample) -> tuple[bool, bool]:
    """False sorts first: a sample with a tool call, then a correct one."""
    calls = any(getattr(m, "tool_calls", None) for m in sample.messages)
    return not calls, sample.scores["judge"].value != "correct"


def shown_sample(log_dir: Path, logs: list[Path]) -> tuple[str, str, int]:
    """(log, sample id, epoch) of the sample to show."""
    from inspect_ai.log import read_eval_log

    candidates = [(sample_rank(s), index, str(path.relative_to(log_dir)), s.id, s.epoch)
                  for index, path in enumerate(logs) for s in read_eval_log(str(path)).samples]
    _, _, log, sample_id, epoch = min(candidates, key=lambda c: (c[0], c[1]))
    return log, str(sample_id), epoch


def viewer_screenshot(results: Path, out: Path) -> Path:
    with tempfile.TemporaryDirectory() as scratch:
        log_dir = Path(scratch) / "logs"
        logs = write_inspect_logs(results, log_dir)
        bundle = bundle_inspect_logs(log_dir, Path(scratch) / "bundle")
        log, sample_id, epoch = shown_sample(log_dir, logs)
        with served(bundle) as base, headless_page() as (page, trouble):
            page.goto(inspect_sample_url(base, log, sample_id, epoch))
            page.get_by_text("ASSISTANT").first.wait_for(timeout=TIMEOUT_MS)
            page.wait_for_load_state("networkidle")
            page.screenshot(path=str(out))
            report_trouble("viewer", trouble)
    return out


def report_screenshot(results: Path, out: Path, chart: tuple[str, str] = REPORT_CHART) -> Path:
    report = results / REPORT
    if not report.exists():
        raise SystemExit(f"{report}: no report; make it with "
                         f"snakemake --report {RESULTS}/{REPORT}")
    with served(results) as base, headless_page() as (page, trouble):
        page.goto(base + REPORT)
        show_report_result(page, *chart)
        page.locator("img[src^='data:image/png']").first.wait_for(timeout=TIMEOUT_MS)
        page.screenshot(path=str(out))
        report_trouble("report", trouble)
    return out


def report_trouble(name: str, trouble) -> None:
    for problem in [*trouble.errors, *trouble.unexpected_failures()]:
        print(f"{name}: {problem}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path("."),
                        help="the workflow root: it holds results/ (default: here)")
    parser.add_argument("--out", type=Path, default=Path("docs/img"),
                        help="folder for inspect-view.png and report.png")
    parser.add_argument("--report-chart", nargs=2, metavar=("CATEGORY", "PATH"),
                        default=REPORT_CHART,
                        help="the report's result to show: its category and path "
                             f"(default: {' '.join(REPORT_CHART)})")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    results = args.root / RESULTS
    print(viewer_screenshot(results, args.out / "inspect-view.png"))
    print(report_screenshot(results, args.out / "report.png", tuple(args.report_chart)))


if __name__ == "__main__":
    main()
