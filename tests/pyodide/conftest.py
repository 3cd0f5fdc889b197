"""pytest-pyodide set-up: Debian's Chromium instead of a downloaded browser, and the package loaded.

Run through ``./build.sh test`` (or with ``--dist-dir build/dist --runtime node,chrome
--runner playwright``). Every test here runs in both runtimes.

A Chromium page whose renderer crashes fails the test during which Playwright
reports the crash, with a message naming it; the module's page and Pyodide
(``selenium_module_scope`` and every fixture built on it) are then discarded, so
the next test starts on a fresh page instead of failing on the dead one. The
test is not run again.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError
from pytest_pyodide.fixture import selenium_common
from pytest_pyodide.utils import (
    parse_driver_timeout,
    set_webdriver_script_timeout,
)

from tools import chromium

CHROMIUM_FLAGS = [*chromium.CHROMIUM_FLAGS, "--js-flags=--expose-gc"]
"""Every launch's flags (tools/chromium.py), and V8's gc() for the memory tests."""
CRASH_TEXT = "Target crashed"
"""What Playwright says of a page whose renderer died."""


class CrashedPages:
    """The pages whose renderer crashed, as Playwright's ``crash`` event reports them."""

    def __init__(self) -> None:
        self._pages: list[Any] = []
        self._unreported = 0

    def watch(self, page: Any) -> Any:
        """Record ``page`` here if its renderer crashes; return it."""
        page.on("crash", self._crashed)
        return page

    def _crashed(self, page: Any) -> None:
        self._pages.append(page)
        self._unreported += 1

    def holds(self, runner: Any) -> bool:
        """Whether the page of pytest-pyodide ``runner`` crashed (never for Node)."""
        return any(page is runner.driver for page in self._pages)

    def take(self, call: pytest.CallInfo[None]) -> bool:
        """Whether a page crashed since the last call, or ``call`` failed on a crashed page."""
        noticed = self._unreported > 0
        self._unreported = 0
        error = call.excinfo.value if call.excinfo is not None else None
        return noticed or (isinstance(error, PlaywrightError) and CRASH_TEXT in str(error))


CRASHES = CrashedPages()
_CRASHED_IN = pytest.StashKey[str]()
"""On an item whose page crashed in setup or call: the phase."""


class WatchedBrowser:
    """A Playwright browser whose new pages report their crashes to :data:`CRASHES`."""

    def __init__(self, browser: Any) -> None:
        self._browser = browser

    def new_page(self, **options: Any) -> Any:
        """A new page (in a new context, as ``Browser.new_page``), watched for crashes."""
        return CRASHES.watch(self._browser.new_page(**options))

    def close(self) -> None:
        """Close the browser."""
        self._browser.close()


@pytest.fixture(scope="module")
def playwright_browsers(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    """Launch Debian's Chromium for the ``chrome`` runtime (overrides pytest-pyodide's fixture)."""
    if request.config.option.runner.lower() != "playwright":
        yield {}
        return
    from playwright.sync_api import sync_playwright
    from pytest_pyodide.hook import pytest_wrapper

    with sync_playwright() as playwright:
        browsers: dict[str, Any] = {}
        try:
            # Node needs no browser; "chrome" is the only browser runtime used here.
            if "chrome" in pytest_wrapper.pyodide_runtimes:
                browsers["chrome"] = WatchedBrowser(
                    playwright.chromium.launch(
                        executable_path=chromium.CHROMIUM, args=CHROMIUM_FLAGS
                    )
                )
            yield browsers
        finally:
            for browser in browsers.values():
                browser.close()


def _print_logs(runner: Any) -> None:
    """Print the page's console log as pytest-pyodide does, unless the page crashed."""
    if not CRASHES.holds(runner):
        print(runner.logs)


@pytest.fixture
def selenium_standalone(
    request: pytest.FixtureRequest, runtime: str, web_server_main: Any, playwright_browsers: Any
) -> Iterator[Any]:
    """pytest-pyodide's page of one test, closed without reading the log of a crashed page."""
    with (
        selenium_common(request, runtime, web_server_main, browsers=playwright_browsers) as runner,
        set_webdriver_script_timeout(runner, script_timeout=parse_driver_timeout(request.node)),
    ):
        try:
            yield runner
        finally:
            _print_logs(runner)


@pytest.fixture
def selenium(request: pytest.FixtureRequest, selenium_module_scope: Any) -> Iterator[Any]:
    """The module's page for one test, with its log printed afterwards unless it crashed."""
    selenium_module_scope.clean_logs()
    timeout = parse_driver_timeout(request.node)
    with set_webdriver_script_timeout(selenium_module_scope, script_timeout=timeout):
        try:
            yield selenium_module_scope
        finally:
            _print_logs(selenium_module_scope)


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


def crash_message(nodeid: str, when: str) -> str:
    """The failure of the test during whose ``when`` phase the page crashed."""
    phase = "" if when == "call" else f" ({when})"
    return (
        f"the Chromium page crashed ({CRASH_TEXT}) during {nodeid}{phase}; "
        "the next test gets a fresh page and Pyodide"
    )


def _discard_module_page(item: pytest.Item) -> None:
    """Tear down the module's page and the fixtures built on it, so the next test remakes them.

    Finishing the FixtureDef of ``selenium_module_scope`` also finishes every fixture
    that requested it (pytest registers their teardown on it) and clears their cached
    values, a crashed setup's error included. pytest offers no public call for this.
    """
    # Private attributes of pytest's Function, which pytest.Item does not declare.
    request: Any = item._request  # type: ignore[attr-defined]
    definitions = item._fixtureinfo.name2fixturedefs  # type: ignore[attr-defined]
    for definition in definitions.get("selenium_module_scope", ()):
        definition.finish(request)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, Any]:
    """Fail the phase of a test in which a page crashed, naming the crash."""
    report: Any = yield
    if CRASHES.take(call):
        report.outcome = "failed"
        report.longrepr = crash_message(item.nodeid, call.when)
        if call.when == "teardown":
            _discard_module_page(item)
        else:
            item.stash[_CRASHED_IN] = call.when
    return report


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_teardown(
    item: pytest.Item, nextitem: pytest.Item | None
) -> Generator[None, Any, Any]:
    """After a crash in setup or call, drop the module's dead page before the usual teardown."""
    if _CRASHED_IN in item.stash:
        _discard_module_page(item)
    return (yield)
