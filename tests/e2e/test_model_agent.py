"""The agent in Chromium over a scripted chat API: the model decides, a person approves."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import PageWatch
from .openai_server import OpenAIServer, text_reply, tool_call_reply
from .test_chat import assert_clean, chat, open_ready, wait_turn
from .ui_support import action, tool_lines


@pytest.fixture
def api() -> Iterator[OpenAIServer]:
    """The scripted API on a free port of 127.0.0.1."""
    with OpenAIServer() as server:
        yield server


def use_api(page: Any, api: OpenAIServer) -> None:
    """Switch the settings panel to the scripted API."""
    page.click("#open-settings")
    page.check("input[name=kind][value=openai]")
    page.fill("#base-url", api.base_url)
    page.fill("#model-name", "scripted-model")
    page.fill("#api-key", "sk-scripted")
    page.click("#settings-apply")
    page.wait_for_selector("#model-badge[data-kind=openai]")


EMAIL = {"to": ["ana@example.com"], "subject": "Daily report", "body": "All green."}


def test_a_clear_request_gets_no_question_and_the_models_email_waits_for_approval(
    watched_page: PageWatch, demo_url: str, api: OpenAIServer
) -> None:
    """No ask_user call means no question; the streamed send_email call waits for Approve."""
    api.script(
        text_reply(),  # enrich: the request is clear, nothing to ask
        tool_call_reply("send_email", EMAIL, fragments=4),  # plan
        text_reply("I sent ", "the daily report to Ana."),  # respond
    )
    page = open_ready(watched_page, demo_url)
    use_api(page, api)
    chat(page, "email the daily report to ana@example.com now")
    wait_turn(page, "waiting")
    expect(page.locator("#question-card")).to_be_hidden()
    request = action(page)
    assert "ana@example.com" in request.locator(".action-arguments").inner_text()
    request.locator("button:text-is('Approve')").click()
    wait_turn(page, "done")

    [line] = tool_lines(page)
    assert (line["tool"], line["status"]) == ("send_email", "approved")
    posts = api.completions()
    assert len(posts) == 3
    offered = [[t["function"]["name"] for t in post.json.get("tools", [])] for post in posts]
    assert offered == [["ask_user"], ["send_email", "schedule_meeting", "make_plan"], []]
    last = posts[2].json["messages"]
    [result] = [m for m in last if m["role"] == "tool"]
    assert result["content"] == "Sent “Daily report” to ana@example.com."
    assert [c["function"]["name"] for c in last[-2]["tool_calls"]] == ["send_email"]
    assert json.loads(last[-2]["tool_calls"][0]["function"]["arguments"]) == EMAIL
    expect(page.locator("#transcript")).to_contain_text("I sent the daily report to Ana.")
    assert_clean(watched_page)


def test_a_rejection_reaches_the_model_as_the_tools_result(
    watched_page: PageWatch, demo_url: str, api: OpenAIServer
) -> None:
    """Reject with a reason: the email is not sent and the model reads the reason."""
    api.script(
        text_reply(),
        tool_call_reply("send_email", EMAIL),
        text_reply("Understood, nothing was sent."),
    )
    page = open_ready(watched_page, demo_url)
    use_api(page, api)
    chat(page, "email the daily report to ana@example.com now")
    wait_turn(page, "waiting")
    request = action(page)
    request.locator("button:text-is('Reject')").click()
    form = request.locator("form.reject-form")
    form.get_by_label("Why reject send_email?").fill("Ana is on leave.")
    form.locator("button[type=submit]").click()
    wait_turn(page, "done")
    [line] = tool_lines(page)
    assert line["status"] == "rejected"
    [result] = [m for m in api.completions()[2].json["messages"] if m["role"] == "tool"]
    assert result["content"] == "Ana is on leave."
    assert_clean(watched_page)
