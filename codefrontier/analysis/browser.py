"""A run's pages in a browser: a folder served on the loopback, opened in headless
Chromium (Debian's `chromium`) through Playwright, with the page's JavaScript errors and
failed requests collected; for the browser tests and scripts/screenshots.py.

Playwright rather than `chromium --headless --dump-dom`: Inspect's viewer and Snakemake's
report draw their pages in JavaScript after loading data, and Playwright waits for what a
page shows (a text, an image) instead of a guessed time budget, reports uncaught
exceptions and console errors as events (not mixed into the browser's own log), and
clicks through the report. It drives the system's Chromium (`executable_path`): nothing is
downloaded. playwright is an optional dependency (the `browser` extra).
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

CHROMIUM = "chromium"  # Debian's package and its command
VIEWPORT = {"width": 1400, "height": 900}
INSTALL_HINT = "pip install -e '.[browser]' and apt-get install chromium"
# what Inspect's viewer asks of a log folder where there may be none (a 404 says so)
OPTIONAL_VIEWER_FILES = ("eval-set.json", "flow.yaml")


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Files of one folder, without a log line per request; no favicon (204)."""

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:
        if self.path == "/favicon.ico":
            self.send_response(204)
            self.end_headers()
            return
        super().do_GET()


@contextlib.contextmanager
def served(folder: str | Path) -> Iterator[str]:
    """`folder` over HTTP on a free loopback port, for as long as the block runs: its URL."""
    handler = functools.partial(QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@dataclass
class PageTrouble:
    """What went wrong on a page: JavaScript errors (uncaught exceptions, console errors
    other than a failed load) and failed requests ("404 URL", "failed URL: reason")."""

    errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)

    def unexpected_failures(self) -> list[str]:
        """Failed requests but Inspect's viewer's optional files."""
        return [f for f in self.failed_requests
                if not f.split("?")[0].endswith(OPTIONAL_VIEWER_FILES)]


def chromium_path() -> str:
    found = shutil.which(CHROMIUM)
    if found is None:
        raise RuntimeError(f"no {CHROMIUM} on PATH: {INSTALL_HINT}")
    return found


@contextlib.contextmanager
def headless_page(viewport: dict | None = None) -> Iterator[tuple[object, PageTrouble]]:
    """A Playwright page of headless Chromium, and what goes wrong on it."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as error:
        raise RuntimeError(f"driving a browser needs playwright: {INSTALL_HINT}") from error
    trouble = PageTrouble()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path())
        try:
            page = browser.new_page(viewport=viewport or VIEWPORT)
            page.on("pageerror", lambda error: trouble.errors.append(str(error)))
            page.on("console", lambda message: _console_error(message, trouble))
            page.on("response", lambda response: response.status >= 400
                    and trouble.failed_requests.append(f"{response.status} {response.url}"))
            page.on("requestfailed", lambda request: _request_failed(request, trouble))
            yield page, trouble
        finally:
            browser.close()


def _request_failed(request, trouble: PageTrouble) -> None:
    # ERR_ABORTED: the page itself cancelled the request (it navigated, or was closed while
    # the viewer still read logs in the background)
    if "ERR_ABORTED" not in (request.failure or ""):
        trouble.failed_requests.append(f"failed {request.url}: {request.failure}")


def _console_error(message, trouble: PageTrouble) -> None:
    # a failed load is also a response or a failed request, where its URL is known
    if message.type == "error" and not message.text.startswith("Failed to load resource"):
        trouble.errors.append(message.text)


def inspect_sample_url(base: str, log: str, sample_id: str, epoch: int) -> str:
    """The page of one sample in Inspect's viewer (`log`: its path in the log folder)."""
    return f"{base}#/tasks/{log}/samples/sample/{quote(sample_id, safe='')}/{epoch}/"


def bundle_inspect_logs(log_dir: str | Path, out_dir: str | Path) -> Path:
    """`inspect view bundle`: the viewer and the logs as static files."""
    from inspect_ai.log import bundle_log_dir

    bundle_log_dir(log_dir=str(log_dir), output_dir=str(out_dir), overwrite=True)
    return Path(out_dir)


def show_report_result(page, category: str, result: str) -> None:
    """In a Snakemake report that `page` shows, open a result (its path, as the report
    lists it) of a category of results."""
    page.get_by_text(category, exact=True).first.click()
    row = page.locator("tr", has_text=result).first
    row.locator("a[iconname=eye]").click()


def shown_images(page) -> list[dict]:
    """Every image drawn on the page: its source (cut short) and decoded size."""
    return page.evaluate("Array.from(document.images).map(i => ({src: i.src.slice(0, 60), "
                         "width: i.naturalWidth, height: i.naturalHeight}))")
