"""pytest-pyodide set-up: Debian's Chromium instead of a downloaded browser, and the package loaded.

Run through ``./build.sh test`` (or with ``--dist-dir build/dist --runtime node,chrome
--runner playwright``). Every test here runs in both runtimes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--js-flags=--expose-gc",
]


@pytest.fixture(scope="module")
def playwright_browsers(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    """Launch Debian's Chromium for the ``chrome`` runtime (overrides pytest-pyodide's fixture)."""
    if request.config.option.runner.lower() != "playwright":
        yield {}
        return
    from playwright.sync_api import sync_playwright
    from pytest_pyodide.hook import pytest_wrapper  # type: ignore[import-untyped]

    with sync_playwright() as playwright:
        browsers: dict[str, Any] = {}
        try:
            # Node needs no browser; "chrome" is the only browser runtime used here.
            if "chrome" in pytest_wrapper.pyodide_runtimes:
                browsers["chrome"] = playwright.chromium.launch(
                    executable_path=CHROMIUM, args=CHROMIUM_FLAGS
                )
            yield browsers
        finally:
            for browser in browsers.values():
                browser.close()


@pytest.fixture
def pyctx(selenium_standalone: Any) -> Any:
    """A fresh Pyodide with pyctx_web installed by micropip from the local distribution."""
    selenium_standalone.load_package("micropip")
    selenium_standalone.run_async("import micropip\nawait micropip.install('pyctx-web')\n")
    return selenium_standalone


@pytest.fixture(scope="module")
def pyctx_module(selenium_module_scope: Any) -> Any:
    """One Pyodide per module with pyctx_web loaded, for suites of many small tests."""
    selenium_module_scope.load_package(["micropip", "pyctx-web"])
    return selenium_module_scope
