"""Fixtures for the end-to-end tier: the demo served on 127.0.0.1 and Debian's headless Chromium."""

from __future__ import annotations

import os
import socket
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tools.chromium import CHROMIUM, CHROMIUM_FLAGS

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "build" / "dist"
ARTIFACTS = ROOT / "build" / "e2e"


@contextmanager
def served_demo(*arguments: str) -> Iterator[str]:
    """Serve the demo with ``./build.sh demo --port N *arguments`` on a free port; yield its URL."""
    if not (DIST / "pyodide.mjs").is_file():
        pytest.fail("build/dist is missing: run ./build.sh setup first")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [str(ROOT / "build.sh"), "demo", "--port", str(port), *arguments],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYCTX_DEMO_QUIET": "1"},
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline().strip()
        url = f"http://127.0.0.1:{port}/"
        if not line.endswith(url):
            pytest.fail(f"./build.sh demo printed {line!r}, not the URL {url}")
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)
        if process.stdout is not None:
            process.stdout.close()


@pytest.fixture(scope="session")
def demo_url() -> Iterator[str]:
    """The demo as ``./build.sh demo --port N`` serves it, on a free port of 127.0.0.1."""
    with served_demo() as url:
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's Chromium, headless, launched by Playwright."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_FLAGS))
        try:
            yield launched
        finally:
            launched.close()


@dataclass
class PageWatch:
    """What a page did that a test must check: console errors and requests to other hosts."""

    page: Any
    """The Playwright page."""
    console_errors: list[str] = field(default_factory=list)
    """Text of every console message of type error, and of every uncaught page error."""
    foreign_requests: list[str] = field(default_factory=list)
    """URLs of requests to any host but 127.0.0.1; each was aborted."""


@pytest.fixture
def watched_page(browser: Any) -> Iterator[PageWatch]:
    """A new page in a fresh context that records console errors and blocks non-local requests."""
    context = browser.new_context()
    page = context.new_page()
    watch = PageWatch(page)

    def route(route: Any) -> None:
        host = urlsplit(route.request.url).hostname
        if host == "127.0.0.1":
            route.continue_()
        else:
            watch.foreign_requests.append(route.request.url)
            route.abort()

    def console(message: Any) -> None:
        if message.type == "error":
            watch.console_errors.append(message.text)

    context.route("**/*", route)
    page.on("console", console)
    page.on("pageerror", lambda error: watch.console_errors.append(str(error)))
    try:
        yield watch
    finally:
        context.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """The folder where screenshots are saved (build/e2e)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
