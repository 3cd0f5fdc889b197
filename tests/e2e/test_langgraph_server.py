"""The demo page given ``?api=URL`` talks to a real LangGraph Server: ``langgraph dev`` serving
``demo/`` (its ``langgraph.json``, the assistant of ``demo/app`` on real ``langgraph``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.server.reference import langgraph_dev

from .conftest import ROOT, PageWatch
from .test_chat import (
    EMAIL_QUESTION,
    TURN_TIMEOUT_MS,
    answer,
    assert_clean,
    chat,
    messages,
    open_ready,
    wait_turn,
)
from .ui_support import REPORT_REQUEST, tool_lines


@pytest.fixture(scope="module")
def langgraph_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``langgraph dev`` serving the demo's graph on a free port of 127.0.0.1."""
    with langgraph_dev(tmp_path_factory.mktemp("langgraph-dev"), ROOT / "demo") as url:
        yield url


def test_the_question_and_approval_flow_runs_on_a_real_langgraph_server(
    watched_page: PageWatch, demo_url: str, langgraph_server: str, browser: Any
) -> None:
    """With ?api=URL the page asks, takes the answer, waits for approval and answers on
    langgraph dev; the thread is the server's: another browser lists it and shows it whole."""
    page = open_ready(watched_page, f"{demo_url}?api={langgraph_server}")
    assert page.inner_text("#versions") == f"LangGraph Server at {langgraph_server}"
    chat(page, "help me with email")
    wait_turn(page, "waiting")
    assert page.inner_text("#needs-input-question") == EMAIL_QUESTION
    answer(page, REPORT_REQUEST)
    wait_turn(page, "waiting")
    card = page.locator("#approval-card")
    card.wait_for(state="visible", timeout=TURN_TIMEOUT_MS)
    assert page.inner_text("#approval-title") == "Approve send_email?"
    card.get_by_role("button", name="Approve").click()
    wait_turn(page, "done")
    assert [line["status"] for line in tool_lines(page)] == ["approved"]
    shown = messages(page)
    assert shown[:3] == [
        ("user", "help me with email"),
        ("assistant", EMAIL_QUESTION),
        ("user", REPORT_REQUEST),
    ]
    assert shown[-1][0] == "assistant"
    assert "Daily report" in shown[-1][1]

    # A browser with none of this page's storage finds the thread on the server.
    context = browser.new_context()
    try:
        other = context.new_page()
        other.goto(f"{demo_url}?api={langgraph_server}")
        other.wait_for_selector("body[data-state=ready]", timeout=TURN_TIMEOUT_MS)
        other.locator("#thread-list .thread-name", has_text="help me with email").click()
        wait_turn(other, "done")
        assert messages(other) == shown
    finally:
        context.close()
    assert_clean(watched_page)
