"""The steps of the suite that compare this build with the baseline build (:mod:`baseline`).

Each returns measurements in the shape of :func:`run.measure`'s: a runtime label,
no clock resolution of its own, and its figures.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import baseline
import imports
import startup
import unrestored
import versus

Measured = dict[str, Any]


def run_startup(dist: Path, quick: bool, launch: dict[str, Any]) -> list[Measured]:
    """The demo's start-up and first message against the baseline build's, in Chromium."""
    from playwright.sync_api import sync_playwright

    current, base = baseline.current_build(dist), baseline.ensure_baseline()
    urls: dict[str, str] = {}
    with (
        startup.serving(current) as urls[current.label],
        startup.serving(base) as urls[base.label],
        sync_playwright() as playwright,
    ):
        urls[current.label + startup.UNRESTORED] = urls[current.label]
        browser = playwright.chromium.launch(**launch)
        try:
            runtime = f"pyodide-chromium {browser.version}"
            loads = startup.measure(browser, urls, rounds=3 if quick else 9)
        finally:
            browser.close()
    figures = startup.rows(loads, current, base, runtime, quick)
    figures += unrestored.run(current, launch, quick)
    return [{"runtime": runtime, "clock_resolution": None, "figures": figures}]


def run_imports(dist: Path, quick: bool) -> list[Measured]:
    """``import pyctx_web`` and ``import pyctx_web.chat`` against the baseline, under Node."""
    current, base = baseline.current_build(dist), baseline.ensure_baseline()
    figures = imports.rows(current, base, rounds=3 if quick else 9, quick=quick)
    return [{"runtime": "pyodide-node", "clock_resolution": None, "figures": figures}]


def run_versus(dist: Path, quick: bool) -> list[Measured]:
    """The run-time rows against the baseline build, on CPython and in Pyodide under Node."""
    current, base = baseline.current_build(dist), baseline.ensure_baseline()
    figures = versus.rows(
        current, base, pairs=2 if quick else 3, cpython_pairs=4 if quick else 7, quick=quick
    )
    return [{"runtime": "versus", "clock_resolution": None, "figures": figures}]
