"""The API model on the OpenAI SDK in Chromium: its packages fetched only when chosen, an edited
action reaching the model, a rate limit retried as Retry-After asks."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from .conftest import PageWatch
from .openai_server import OpenAIServer, error_reply, text_reply, tool_call_reply
from .test_chat import assert_clean, chat, open_ready, wait_turn
from .test_model_agent import EMAIL, use_api
from .ui_support import action, tool_lines

SDK_WHEELS = ("openai-", "pydantic", "httpx2", "jiter")


@pytest.fixture
def api() -> Iterator[OpenAIServer]:
    """The scripted API on a free port of 127.0.0.1."""
    with OpenAIServer() as server:
        yield server


def sdk_requests(urls: list[str]) -> list[str]:
    names = [url.rsplit("/", 1)[-1] for url in urls if url.endswith(".whl")]
    return [name for name in names if name.startswith(SDK_WHEELS)]


def test_the_first_screen_and_the_offline_model_fetch_no_sdk_and_the_api_model_does(
    watched_page: PageWatch, demo_url: str, api: OpenAIServer
) -> None:
    """Ready and an offline turn fetch none of the SDK's wheels; choosing the API model fetches
    them, and its first turn streams through the SDK."""
    urls: list[str] = []
    watched_page.page.on("request", lambda request: urls.append(request.url))
    page = open_ready(watched_page, demo_url)
    chat(page, "help me with email")
    wait_turn(page, "waiting")
    assert sdk_requests(urls) == []
    api.script(text_reply(), text_reply(), text_reply("Through ", "the SDK."))
    use_api(page, api)
    page.click("#new-thread")
    chat(page, "email the daily report to ana@example.com now")
    wait_turn(page, "done")
    last = page.locator("#transcript .msg[data-role=assistant] .msg-body").last
    assert last.inner_text() == "Through the SDK."
    fetched = sdk_requests(urls)
    assert any(name.startswith("openai-") for name in fetched), fetched
    assert any(name.startswith("pydantic_core-") for name in fetched), fetched
    assert_clean(watched_page)


def test_an_edited_action_runs_as_edited_and_the_model_reads_the_edited_call(
    watched_page: PageWatch, demo_url: str, api: OpenAIServer
) -> None:
    """Edit the model's send_email: the tool runs with the edited arguments, and the next
    request gives the model its call and the result of the edited one."""
    api.script(
        text_reply(),
        tool_call_reply("send_email", EMAIL, fragments=3),
        text_reply("Sent as you edited it."),
    )
    page = open_ready(watched_page, demo_url)
    use_api(page, api)
    chat(page, "email the daily report to ana@example.com now")
    wait_turn(page, "waiting")
    request = action(page)
    request.locator("button:text-is('Edit')").click()
    form = request.locator("form.edit-form")
    form.get_by_label("subject").fill("Numbers for today")
    form.locator("button[type=submit]").click()
    wait_turn(page, "done")
    [line] = tool_lines(page)
    assert line["status"] == "edited"
    assert "Numbers for today" in line["text"]
    last = api.completions()[2].json["messages"]
    [call] = last[-2]["tool_calls"]
    assert json.loads(call["function"]["arguments"]) == EMAIL  # the call as the model made it
    [result] = [m for m in last if m["role"] == "tool"]
    assert "Numbers for today" in result["content"]
    assert_clean(watched_page)


def test_a_rate_limit_is_retried_after_the_wait_it_asks_for(
    watched_page: PageWatch, demo_url: str, api: OpenAIServer
) -> None:
    """A 429 with Retry-After: 1 (exposed to the page by CORS) is sent again a second later
    and the turn finishes with the retry's answer."""
    limited = error_reply(429, "Rate limit reached", {"Retry-After": "1"})
    api.script(limited, text_reply(), text_reply(), text_reply("After the wait."))
    page = open_ready(watched_page, demo_url)
    use_api(page, api)
    chat(page, "hello")
    wait_turn(page, "done")
    last = page.locator("#transcript .msg[data-role=assistant] .msg-body").last
    assert last.inner_text() == "After the wait."
    first, second = api.completions()[:2]
    assert second.at - first.at >= 0.95
    assert second.json == first.json
    assert_clean(watched_page)
