"""The demo page loads Pyodide and pyctx_web from the local build and reaches its ready state."""

from __future__ import annotations

import re
from pathlib import Path

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
