"""The demo page loads Pyodide and pyctx_web from the local build and reaches its ready state."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import pyctx_web

from .conftest import DIST, ROOT, PageWatch

READY_TIMEOUT_MS = 60_000


def test_page_reaches_ready_with_versions(
    watched_page: PageWatch, demo_url: str, artifacts: Path
) -> None:
    """The page shows progress, then the ready state with the Pyodide and pyctx_web versions."""
    page = watched_page.page
    page.goto(demo_url)
    assert page.locator("#load-progress").is_visible()
    page.wait_for_selector("body[data-state=ready]", timeout=READY_TIMEOUT_MS)
    versions = page.locator("#versions").inner_text()
    assert f"pyctx_web {pyctx_web.__version__}" in versions
    assert re.search(r"Pyodide 314\.0\.\d+", versions), versions
    page.screenshot(path=str(artifacts / "ready.png"))
    assert watched_page.console_errors == []
    assert watched_page.foreign_requests == []


@pytest.mark.parametrize("folder", [ROOT / "demo", DIST], ids=["demo", "dist"])
def test_served_files_name_no_remote_url(folder: Path) -> None:
    """No page, script or stylesheet the demo serves refers to a CDN or any non-local URL."""
    remote = re.compile(
        r"""["'(]\s*(?:https?:)?//(?!127\.0\.0\.1|localhost)[a-z0-9.-]+\.[a-z]{2,}""", re.I
    )
    offenders = []
    for path in folder.rglob("*"):
        if path.suffix not in {".html", ".js", ".mjs", ".css"} or path.name.endswith(".map"):
            continue
        if path.parent == DIST and path.name in {"console.html", "console-v2.html"}:
            continue  # Pyodide's own REPL pages are not part of the demo
        for match in remote.finditer(path.read_text(errors="replace")):
            offenders.append(f"{path.name}: {match.group(0)}")
    if folder == DIST:
        # Pyodide's loader names its CDN only as the default of packageBaseUrl, which
        # demo/worker.js always sets to /pyodide/ (and the page test sees no foreign request).
        offenders = [o for o in offenders if "cdn.jsdelivr.net" not in o]
    assert offenders == []


# Records the worker's messages of the page, before the page's own scripts run.
WORKER_LOG = """
(() => {
  const log = (window.__workerLog = []);
  const Native = window.Worker;
  window.Worker = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => log.push(event.data));
    }
  };
})();
"""


def _first_question(browser: Any, url: str, *, withhold_snapshot: bool) -> dict[str, Any]:
    """A fresh page's ready message and the needs_input of its first message, and its errors."""
    context = browser.new_context()
    try:
        context.add_init_script(WORKER_LOG)
        if withhold_snapshot:
            context.route("**/demo.snapshot", lambda route: route.fulfill(status=404, body=""))
        page = context.new_page()
        errors: list[str] = []

        def console(message: Any) -> None:
            if message.type == "error":
                errors.append(message.text)

        page.on("console", console)
        page.goto(url)
        page.wait_for_selector("body[data-state=ready]", timeout=READY_TIMEOUT_MS)
        page.fill("#chat-input", "help me with email")
        page.press("#chat-input", "Enter")
        page.wait_for_selector("#needs-input-question", state="visible", timeout=READY_TIMEOUT_MS)
        log = page.evaluate("window.__workerLog")
        ready = next(m for m in log if m.get("type") == "ready")
        # The question as the thread stores it (the card is drawn from the run's stream, which
        # names no checkpoint): its kind, node and checkpoint.
        stored = page.evaluate("() => window.__demo.history(window.__demo.activeThreadId)")
        asked = {**stored["pending"], "checkpoint_id": stored["checkpoint_id"]}
        return {"ready": ready, "asked": asked, "errors": errors}
    finally:
        context.close()


def test_worker_restores_its_snapshot_and_each_page_draws_its_own_ids(
    browser: Any, demo_url: str
) -> None:
    """Pages restore the worker's snapshot, yet their checkpoint ids' random parts differ."""
    first, second = (_first_question(browser, demo_url, withhold_snapshot=False) for _ in "ab")
    assert first["ready"]["snapshot"] is True, first["ready"]
    assert second["ready"]["snapshot"] is True, second["ready"]
    # Without pyctx_web.after_restore() both pages would draw the snapshot's next bits here.
    ids = [page["asked"]["checkpoint_id"] for page in (first, second)]
    assert ids[0][-14:] != ids[1][-14:], ids
    assert first["errors"] == []
    assert second["errors"] == []


def test_without_its_snapshot_the_worker_imports_everything_and_answers(
    browser: Any, demo_url: str
) -> None:
    """With the snapshot missing, the worker loads pyctx_web and the app itself and still asks."""
    page = _first_question(browser, demo_url, withhold_snapshot=True)
    assert page["ready"]["snapshot"] is False
    assert page["ready"]["snapshot_missing"] == "/demo.snapshot answered HTTP 404"
    assert page["asked"]["kind"] == "question"
    # The one error is the browser's own line about the 404 of the withheld snapshot.
    assert all("404" in error for error in page["errors"]), page["errors"]
