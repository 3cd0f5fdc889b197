"""The OpenAI SDK's packages are fetched only when a person chooses the API model."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .conftest import PageWatch
from .openai_server import OpenAIServer, text_reply
from .test_chat import assert_clean, chat, open_ready, wait_turn
from .test_model_agent import use_api

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
