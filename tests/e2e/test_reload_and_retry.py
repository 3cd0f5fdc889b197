"""What a reload or a failure leaves of the person's work, in Chromium over the scripted API."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import PageWatch
from .openai_server import OpenAIServer, Pause, Stream, error_reply, text_reply, tool_call_reply
from .test_chat import READY_TIMEOUT_MS, assert_clean, chat, open_ready, wait_turn
from .test_model_agent import EMAIL, use_api
from .ui_support import action, tool_lines

KEY_NEEDED = (
    "Enter the API key again to go on with this model: "
    "the page keeps its base URL and name, never its key."
)


@pytest.fixture
def api() -> Iterator[OpenAIServer]:
    """The scripted API on a free port of 127.0.0.1."""
    with OpenAIServer() as server:
        yield server


def reload_ready(page: Any) -> None:
    page.reload()
    page.wait_for_selector("body[data-state=ready]", timeout=READY_TIMEOUT_MS)


def give_key(page: Any) -> None:
    """The settings opened to ask for the key: the kept model is there, the key is typed."""
    expect(page.locator("#settings")).to_be_visible()
    expect(page.locator("#settings-error")).to_have_text(KEY_NEEDED)
    expect(page.locator("input[name=kind][value=openai]")).to_be_checked()
    expect(page.locator("#api-key")).to_have_value("")
    page.fill("#api-key", "sk-scripted")
    page.click("#settings-apply")
    expect(page.locator("#settings")).to_be_hidden()


def test_a_reload_mid_answer_shows_the_turn_unfinished_and_continue_writes_the_answer(
    watched_page: PageWatch, demo_url: str, api: OpenAIServer
) -> None:
    """An answer cut by a reload is shown as not finished (never Answered.), and Continue runs
    the rest of the turn, after asking for the key, on the API model."""
    slow = Stream([*text_reply("I sent the report ").pieces[:2], Pause(60)])
    api.script(
        text_reply(),
        tool_call_reply("send_email", EMAIL),
        slow,
        text_reply("I sent the daily report to Ana."),
    )
    page = open_ready(watched_page, demo_url)
    use_api(page, api)
    chat(page, "email the daily report to ana@example.com now")
    wait_turn(page, "waiting")
    action(page).locator("button:text-is('Approve')").click()
    expect(page.locator("#transcript")).to_contain_text("I sent the report")
    reload_ready(page)

    wait_turn(page, "unfinished")
    expect(page.locator("#turn-status")).to_have_text(
        "This turn did not finish: its answer is not written yet."
    )
    expect(page.locator("#model-badge")).to_contain_text("scripted-model")
    expect(page.locator("#model-badge")).to_contain_text("API key needed")
    [line] = tool_lines(page)
    assert (line["tool"], line["status"]) == ("send_email", "approved")
    page.click("#continue-turn")
    give_key(page)
    wait_turn(page, "done")
    expect(page.locator("#transcript .msg-answer")).to_have_text(
        re.compile("I sent the daily report to Ana.")
    )
    expect(page.locator("#transcript .msg-answer .msg-regenerate")).to_be_visible()
    assert len(api.completions()) == 4
    assert_clean(watched_page)


def test_an_approval_after_a_reload_asks_for_the_key_and_runs_on_the_api_model(
    watched_page: PageWatch, demo_url: str, api: OpenAIServer
) -> None:
    """A reload keeps the base URL and model name, not the key: approving then asks for the
    key and the rest of the turn runs on the API model, not the offline one."""
    api.script(
        text_reply(),
        tool_call_reply("send_email", EMAIL),
        text_reply("Sent to Ana, from the API."),
    )
    page = open_ready(watched_page, demo_url)
    use_api(page, api)
    chat(page, "email the daily report to ana@example.com now")
    wait_turn(page, "waiting")
    reload_ready(page)
    wait_turn(page, "waiting")
    expect(page.locator("#base-url")).to_have_value(api.base_url)
    expect(page.locator("#model-name")).to_have_value("scripted-model")
    stored = page.evaluate("localStorage.getItem('pyctx_web.demo.model')")
    assert "sk-scripted" not in stored
    action(page).locator("button:text-is('Approve')").click()
    give_key(page)
    wait_turn(page, "done")
    expect(page.locator("#transcript")).to_contain_text("Sent to Ana, from the API.")
    expect(page.locator("#model-badge")).to_have_attribute("data-kind", "openai")
    assert len(api.completions()) == 3
    assert_clean(watched_page)


def test_a_failed_turn_says_why_in_words_and_retry_runs_it_again(
    watched_page: PageWatch, demo_url: str, api: OpenAIServer
) -> None:
    """A model error stops the turn with a banner in words; the message keeps Edit, and Retry
    runs the turn again from its last checkpoint to an answer."""
    api.script(
        error_reply(400, "The scripted model is not available."),
        text_reply(),  # enrich, run again
        text_reply(),  # plan: no tool
        text_reply("Here is what I can do."),  # respond
    )
    page = open_ready(watched_page, demo_url)
    use_api(page, api)
    chat(page, "what can you do?")
    wait_turn(page, "error")
    expect(page.locator("#error-text")).to_have_text(
        "The assistant could not go on: The API refused the request (HTTP 400). "
        "The server said: The scripted model is not available."
    )
    expect(page.locator("#transcript .msg-user .msg-edit")).to_be_visible()
    expect(page.locator("#continue-turn")).to_have_text("Retry")
    page.click("#continue-turn")
    wait_turn(page, "done")
    expect(page.locator("#transcript .msg-answer")).to_have_text(
        re.compile("Here is what I can do.")
    )
    expect(page.locator("#continue-turn")).to_be_hidden()
    assert_clean(watched_page)


def test_an_unreachable_model_is_reported_in_words_without_a_traceback(
    watched_page: PageWatch, demo_url: str, api: OpenAIServer
) -> None:
    """A model API that cannot be reached ends the turn with one sentence naming the origin,
    without a Python class name, a traceback in the console or the --api-origin flag."""
    logged: list[str] = []
    page = watched_page.page
    page.on("console", lambda message: logged.append(message.text))
    page.on("worker", lambda worker: worker.on("console", lambda m: logged.append(m.text)))
    page = open_ready(watched_page, demo_url)
    with OpenAIServer() as gone:
        closed = gone.base_url
    page.click("#open-settings")
    page.check("input[name=kind][value=openai]")
    page.fill("#base-url", closed)
    page.fill("#model-name", "scripted-model")
    page.fill("#api-key", "sk-scripted")
    page.click("#settings-apply")
    page.wait_for_selector("#model-badge[data-kind=openai]")
    chat(page, "what can you do?")
    wait_turn(page, "error")
    origin = closed.removesuffix("/v1")
    expect(page.locator("#error-text")).to_have_text(
        re.compile(
            rf"^The assistant could not go on: Could not reach the model API at "
            rf"{re.escape(origin)} \(.+\): the server may be down or unreachable, or its CORS "
            r"headers do not allow this page and the Authorization header\.$"
        )
    )
    expect(page.locator("#continue-turn")).to_have_text("Retry")
    assert not [text for text in logged if "Traceback" in text or "Unhandled exception" in text]
