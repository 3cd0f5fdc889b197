"""A model that floods or idles cannot stop the page: a size cap, a draw per frame, timeouts."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .conftest import PageWatch
from .openai_server import OpenAIServer, comments_only, huge_text_reply, text_reply
from .test_chat import TURN_TIMEOUT_MS, assert_clean, chat, open_ready, wait_turn

SIZE_ERROR = (
    "The model's reply is longer than 1,000,000 characters, the most this page takes; "
    "it was stopped."
)
# A flood keeps a loaded machine busy for a while: the waits for its end are long.
FLOOD_TIMEOUT_MS = 120_000
COMMENTS_ERROR = "The model API sent only keep-alive comments for 1 s; the reply was stopped."

# The model settings' message, with limits the settings panel has no field for.
CONFIGURE = """(model) => window.__demo.worker.postMessage({ op: "configure_model", model })"""


@pytest.fixture
def api() -> Iterator[OpenAIServer]:
    """The scripted API on a free port of 127.0.0.1."""
    with OpenAIServer() as server:
        yield server


def use_api(page: Any, api: OpenAIServer, **limits: float) -> None:
    """Switch the worker to the scripted API, with ``limits`` among its settings."""
    model = {"kind": "openai", "base_url": api.base_url, "model": "m", "api_key": "sk-x", **limits}
    page.evaluate(CONFIGURE, model)
    page.wait_for_selector("#model-badge[data-kind=openai]")


def banner(page: Any, timeout_ms: int = TURN_TIMEOUT_MS) -> str:
    page.wait_for_selector("#error-banner:not([hidden])", timeout=timeout_ms)
    text: str = page.inner_text("#error-text")
    return text


def test_a_10_mb_streamed_answer_ends_with_the_size_error(
    watched_page: PageWatch, demo_url: str, api: OpenAIServer
) -> None:
    """A 10 MB answer stops at the 1,000,000-character cap with a clear error; the page goes on."""
    page = open_ready(watched_page, demo_url)
    use_api(page, api)
    api.script(text_reply(), text_reply(), huge_text_reply(10_000_000))
    chat(page, "tell me everything")
    assert banner(page, FLOOD_TIMEOUT_MS).endswith(SIZE_ERROR)
    wait_turn(page, "error")
    api.script(text_reply(), text_reply(), text_reply("Short", " again."))
    chat(page, "and now briefly")
    wait_turn(page, "done")
    last = page.locator("#transcript .msg[data-role=assistant] .msg-body").last
    assert last.inner_text() == "Short again."


def test_cancel_is_clickable_while_a_10_mb_answer_streams(
    watched_page: PageWatch, demo_url: str, api: OpenAIServer
) -> None:
    """While 10 MB of tokens pour in (the cap raised), a click on Cancel is handled."""
    page = open_ready(watched_page, demo_url)
    use_api(page, api, max_reply_chars=50_000_000)
    api.script(text_reply(), text_reply(), huge_text_reply(10_000_000, end=False))
    chat(page, "tell me everything")
    page.wait_for_selector("#transcript .msg-streaming", timeout=TURN_TIMEOUT_MS)
    page.click("#cancel-turn")
    page.wait_for_selector("#transcript[data-thread-state=cancelled]", timeout=FLOOD_TIMEOUT_MS)
    (_, _, flood) = api.wait_served(3, timeout=60)
    assert flood.closed_early
    assert_clean(watched_page)


def test_a_stream_of_only_comments_ends_at_the_idle_timeout(
    watched_page: PageWatch, demo_url: str, api: OpenAIServer
) -> None:
    """Keep-alive comments alone do not keep a turn running past the configured idle timeout."""
    page = open_ready(watched_page, demo_url)
    use_api(page, api, idle_timeout_s=1, deadline_s=20)
    api.script(comments_only(120))
    chat(page, "hello")
    assert banner(page).endswith(COMMENTS_ERROR)
    wait_turn(page, "error")
    (served,) = api.wait_served(1)
    assert served.closed_early
