"""axe-core audits of the demo page in each of its states: no violation may be reported.

axe-core is the npm package pinned in pyproject.toml ([tool.pyctx-web] axe-core), which
``./build.sh setup`` unpacks into build/cache. It is injected as a script tag, so these pages
run with the Content-Security-Policy bypassed (it forbids inline scripts).
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from .conftest import ROOT, PageWatch
from .test_chat import (
    READY_TIMEOUT_MS,
    TURN_TIMEOUT_MS,
    answer,
    assert_clean,
    chat,
    configure_offline,
    wait_turn,
)
from .ui_support import action, ask_for_approval

# Each violation as {rule, impact, help, nodes: [{target, summary}]}.
RUN_AXE = """async () => {
  const result = await window.axe.run(document, {resultTypes: ["violations"]});
  return result.violations.map((v) => ({
    rule: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => ({target: n.target.join(" "), summary: n.failureSummary})),
  }));
}"""


def axe_script() -> Path:
    with (ROOT / "pyproject.toml").open("rb") as file:
        version = tomllib.load(file)["tool"]["pyctx-web"]["axe-core"]
    path = ROOT / "build" / "cache" / f"axe-core-{version}" / "package" / "axe.min.js"
    if not path.is_file():
        pytest.fail(f"{path} is missing: run ./build.sh setup first")
    return path


@pytest.fixture
def audited_page(browser: Any) -> Iterator[PageWatch]:
    """A page like watched_page's, in a context that lets a test inject axe-core."""
    # Reduced motion turns the page's 120 ms colour transitions off: axe then reads each
    # button's settled colours, not a blend caught halfway through a change of state.
    context = browser.new_context(
        bypass_csp=True, viewport={"width": 1280, "height": 800}, reduced_motion="reduce"
    )
    page = context.new_page()
    watch = PageWatch(page)

    def route(route: Any) -> None:
        if urlsplit(route.request.url).hostname == "127.0.0.1":
            route.continue_()
        else:
            watch.foreign_requests.append(route.request.url)
            route.abort()

    def console(msg: Any) -> None:
        if msg.type == "error":
            watch.console_errors.append(msg.text)

    context.route("**/*", route)
    page.on("console", console)
    page.on("pageerror", lambda error: watch.console_errors.append(str(error)))
    try:
        yield watch
    finally:
        context.close()


class Auditor:
    """Runs axe on a page in named states and keeps what each reported."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.found: dict[str, list[dict[str, Any]]] = {}

    def audit(self, state: str) -> None:
        if not self.page.evaluate("typeof window.axe === 'object'"):
            self.page.add_script_tag(path=str(axe_script()))
        violations = self.page.evaluate(RUN_AXE)
        if violations:
            self.found[state] = violations

    def assert_none(self) -> None:
        report = json.dumps(self.found, indent=2, ensure_ascii=False)
        assert self.found == {}, f"axe found violations:\n{report}"


def open_audited(watch: PageWatch, url: str) -> tuple[Any, Auditor]:
    page = watch.page
    page.goto(url)
    page.wait_for_selector("body[data-state=ready]", timeout=READY_TIMEOUT_MS)
    configure_offline(page, 0)
    return page, Auditor(page)


def test_ready_inspector_graph_and_settings_have_no_violations(
    audited_page: PageWatch, demo_url: str
) -> None:
    """The empty chat, the inspector, the graph view and the settings dialog pass axe."""
    page, auditor = open_audited(audited_page, demo_url)
    auditor.audit("ready")
    if page.locator("#inspector").is_hidden():
        page.click("#toggle-inspector")
    expect(page.locator("#inspector")).to_be_visible()
    auditor.audit("inspector open")
    page.click("#toggle-graph")
    page.wait_for_selector("#graph-view svg")
    auditor.audit("graph view open")
    page.click("#open-settings")
    page.check("input[name=kind][value=openai]")
    auditor.audit("settings open")
    page.fill("#base-url", "http://api.example.com/v1")
    page.fill("#model-name", "m")
    page.click("#settings-apply")
    expect(page.locator("#settings-error")).to_be_visible(timeout=TURN_TIMEOUT_MS)
    auditor.audit("settings with a refused model")
    auditor.assert_none()
    assert_clean(audited_page)


def test_question_answer_and_branches_have_no_violations(
    audited_page: PageWatch, demo_url: str
) -> None:
    """A pending question, an answered conversation, a message editor and branches pass axe."""
    page, auditor = open_audited(audited_page, demo_url)
    chat(page, "help me with email")
    wait_turn(page, "waiting")
    auditor.audit("question card pending")
    answer(page, "draft a reply")
    wait_turn(page, "done")
    page.wait_for_selector("#transcript .msg-regenerate", timeout=TURN_TIMEOUT_MS)
    auditor.audit("conversation with an answer")
    first = page.locator("#transcript .msg[data-kind=message]").first
    first.locator("button.msg-edit").click()
    auditor.audit("message editor open")
    first.locator("form.msg-editor textarea").fill("help me with a meeting")
    first.locator("form.msg-editor button:text-is('Save')").click()
    wait_turn(page, "waiting")
    page.click("#needs-input-choices button:text-is('Prepare an agenda')")
    wait_turn(page, "done")
    page.wait_for_selector("#transcript .branch-switcher", timeout=TURN_TIMEOUT_MS)
    auditor.audit("branch switcher shown")
    auditor.assert_none()
    assert_clean(audited_page)


def test_approval_card_and_its_forms_have_no_violations(
    audited_page: PageWatch, demo_url: str
) -> None:
    """The approval card, its edit form (with errors too), reject form and tool line pass axe."""
    page, auditor = open_audited(audited_page, demo_url)
    ask_for_approval(page)
    auditor.audit("approval card pending")
    request = action(page)
    request.locator("button:text-is('Edit')").click()
    form = request.locator("form.edit-form")
    auditor.audit("edit form open")
    form.get_by_label("subject").fill("")
    form.locator("button[type=submit]").click()
    auditor.audit("edit form with errors")
    form.locator("button:text-is('Cancel')").click()
    request.locator("button:text-is('Reject')").click()
    auditor.audit("reject form open")
    request.locator("form.reject-form textarea").fill("not now")
    request.locator("form.reject-form button[type=submit]").click()
    wait_turn(page, "done")
    auditor.audit("tool line shown")
    auditor.assert_none()
    assert_clean(audited_page)
