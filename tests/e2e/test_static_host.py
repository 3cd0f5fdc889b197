"""The static site of ``./build.sh dist`` (build/site), served by a plain static host.

The host (tests/e2e/static_host.py) knows the site only by its files' suffixes and its
``_headers`` file, and compresses with gzip on the fly, as a CDN does.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tools import site

from .conftest import DIST, ROOT, PageWatch
from .static_host import hosting
from .test_chat import EMAIL_QUESTION, READY_TIMEOUT_MS, assert_clean, chat, wait_turn

SITE = ROOT / "build" / "site"
DEMO_APP = ROOT / "build" / "demo-app"
CHANGED_LINE = '\ndocument.documentElement.dataset.build = "second";\n'
"""What the second build's page module adds: a mark the test can see."""


def watched(watch: PageWatch, page: Any) -> Any:
    """``page``, its console errors and requests to other hosts recorded in ``watch``."""

    def console(message: Any) -> None:
        if message.type == "error":
            watch.console_errors.append(message.text)

    def request(request: Any) -> None:
        if urlsplit(request.url).hostname != "127.0.0.1":
            watch.foreign_requests.append(request.url)

    page.on("console", console)
    page.on("pageerror", lambda error: watch.console_errors.append(str(error)))
    page.on("request", request)
    return page


def inputs(tmp_path: Path) -> tuple[Path, Path, Path]:
    """Copies of the site's inputs (build/dist's files, build/demo-app, build/vendor, demo/): a
    rebuild that runs meanwhile cannot change them between the two builds."""
    dist, app_dir, demo = tmp_path / "dist", tmp_path / "demo-app", tmp_path / "demo"
    dist.mkdir()
    for name, path in site.pyodide_files(DIST).items():
        shutil.copy2(path, dist / name)
    shutil.copytree(DEMO_APP, app_dir)
    shutil.copytree(DIST.parent / "vendor", tmp_path / "vendor")  # the page's bundles
    shutil.copytree(ROOT / "demo", demo, ignore=shutil.ignore_patterns("app", "__pycache__"))
    return dist, app_dir, demo


def ready(page: Any, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("body[data-state=ready]", timeout=READY_TIMEOUT_MS)


def test_built_site_on_a_plain_static_host_reaches_ready_and_answers(
    watched_page: PageWatch,
) -> None:
    """build/site, served gzip-compressed by a host that reads only _headers, answers a message."""
    if not (SITE / "index.html").is_file():
        pytest.fail("build/site is missing: run ./build.sh dist")
    responses: list[Any] = []
    watched_page.page.context.on("response", lambda response: responses.append(response))
    with hosting(SITE) as (url, host):
        page = watched_page.page
        ready(page, url)
        chat(page, "help me with email")
        wait_turn(page, "waiting")
        assert page.inner_text("#needs-input-question") == EMAIL_QUESTION
        assert page.evaluate("document.body.dataset.state") == "ready"
    snapshot = [r for r in responses if r.url.endswith(".snapshot")]
    assert len(snapshot) == 1
    assert snapshot[0].header_value("content-encoding") == "gzip"
    assert snapshot[0].header_value("cache-control") == "public, max-age=31536000, immutable"
    assert not [line for line in host.requests if line.endswith((".br", ".gz"))]
    assert_clean(watched_page)


def test_a_rebuilt_site_shows_its_change_in_a_warm_cache_and_fetches_only_what_changed(
    browser: Any, tmp_path: Path
) -> None:
    """A second build seen in the same browser context: its new page module runs, nothing fails,
    and the unchanged Pyodide, app and snapshot come from the HTTP cache, not the host."""
    dist, app_dir, demo = inputs(tmp_path)
    out = tmp_path / "site"
    first = site.assemble(dist, app_dir, out, demo=demo, compress=False)
    # No routing (watched_page's): Playwright turns the HTTP cache off for routed contexts.
    context = browser.new_context()
    watch = PageWatch(context.new_page())
    try:
        with hosting(out) as (url, host):
            ready(watched(watch, watch.page), url)
            assert watch.page.evaluate("document.documentElement.dataset.build") is None
            host.wait_idle(quiet_s=4.0)  # the worker fetches files after ready: let them be cached
            with (demo / "main.js").open("a", encoding="utf-8") as main:
                main.write(CHANGED_LINE)
            second = site.assemble(dist, app_dir, out, demo=demo, compress=False)
            assert second == first  # the change is the page's only
            watch.page.close()
            host.requests.clear()
            page = watched(watch, context.new_page())
            ready(page, url)
            assert page.evaluate("document.documentElement.dataset.build") == "second"
            chat(page, "help me with email")
            wait_turn(page, "waiting")
            assert page.inner_text("#needs-input-question") == EMAIL_QUESTION
    finally:
        context.close()
    fetched = {line.split(" ", 1)[1].split("/")[1] for line in host.requests}
    assert fetched == {"", next(p.name for p in out.glob("page-*"))}, host.requests
    assert_clean(watch)
