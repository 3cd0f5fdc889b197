"""./build.sh demo --api-origin: the page may call that model API, and a blocked one is named."""

from __future__ import annotations

import urllib.request
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from .conftest import served_demo
from .openai_server import OpenAIServer, text_reply

READY_TIMEOUT_MS = 90_000
TURN_TIMEOUT_MS = 30_000
EXTRA_ORIGIN = "https://api.example.com"

# Sends configure_model to the worker and resolves with its {type: "model"} answer.
CONFIGURE = """(model) => new Promise((resolve) => {
  const worker = window.__demo.worker;
  const listener = (event) => {
    if (event.data.type === "model") {
      worker.removeEventListener("message", listener);
      resolve(event.data);
    }
  };
  worker.addEventListener("message", listener);
  worker.postMessage({op: "configure_model", model});
})"""


@pytest.fixture(scope="module")
def api_server() -> Iterator[OpenAIServer]:
    """The scripted API on 127.0.0.2: another origin than the local ports the policy allows."""
    with OpenAIServer(host="127.0.0.2") as server:
        yield server


@pytest.fixture(scope="module")
def demo_with_origins(api_server: OpenAIServer) -> Iterator[str]:
    """The demo served by ./build.sh demo with two --api-origin flags."""
    api_origin = api_server.base_url.removesuffix("/v1")
    with served_demo("--api-origin", EXTRA_ORIGIN, "--api-origin", api_origin) as url:
        yield url


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A page in a fresh context that may reach loopback addresses only."""
    context = browser.new_context()
    context.route(
        "**/*",
        lambda route: (
            route.continue_()
            if (urlsplit(route.request.url).hostname or "").startswith("127.")
            else route.abort()
        ),
    )
    try:
        yield context.new_page()
    finally:
        context.close()


def open_ready(page: Any, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("body[data-state=ready]", timeout=READY_TIMEOUT_MS)
    # The page's own first configure_model has its answer: the next "model" message is ours.
    page.wait_for_selector("#model-badge:has-text('ms per token')", timeout=READY_TIMEOUT_MS)


def openai(base_url: str) -> dict[str, str]:
    return {"kind": "openai", "base_url": base_url, "model": "scripted-model", "api_key": "k"}


def test_each_api_origin_joins_connect_src_of_the_page_and_worker(
    demo_with_origins: str, api_server: OpenAIServer
) -> None:
    """The page's and the worker's policies list each --api-origin after the local sources."""
    api_origin = api_server.base_url.removesuffix("/v1")
    for path in ("", "worker.js"):
        with urllib.request.urlopen(demo_with_origins + path) as response:
            policy = response.headers["Content-Security-Policy"]
        directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
        assert directives["connect-src"] == (
            f"'self' http://127.0.0.1:* http://localhost:* {EXTRA_ORIGIN} {api_origin}"
        )


def test_a_blocked_origin_is_named_with_the_flag_and_an_allowed_one_is_taken(
    page: Any, demo_with_origins: str
) -> None:
    """Configuring a URL the policy blocks answers the CSP message; an --api-origin URL is taken."""
    open_ready(page, demo_with_origins)
    refused = page.evaluate(CONFIGURE, openai("https://api.blocked.example/v1"))
    message = (
        "The page's Content-Security-Policy does not allow connecting to "
        "https://api.blocked.example; serve the demo with ./build.sh demo --api-origin "
        "https://api.blocked.example"
    )
    assert refused == {"type": "model", "ok": False, "message": message}
    taken = page.evaluate(CONFIGURE, openai(f"{EXTRA_ORIGIN}/v1"))
    assert taken["ok"] is True
    assert taken["base_url"] == f"{EXTRA_ORIGIN}/v1"


def test_the_default_policy_blocks_another_loopback_origin(page: Any, demo_url: str) -> None:
    """Without --api-origin, 127.0.0.2 is refused at once with the flag that allows it."""
    open_ready(page, demo_url)
    refused = page.evaluate(CONFIGURE, openai("http://127.0.0.2:9/v1"))
    assert refused["ok"] is False
    assert refused["message"].endswith("./build.sh demo --api-origin http://127.0.0.2:9")


def test_an_api_origin_lets_the_worker_fetch_from_it(
    page: Any, demo_with_origins: str, api_server: OpenAIServer
) -> None:
    """With its origin allowed, the worker's requests reach the API and the answer streams back."""
    api_server.script(text_reply(), text_reply(), text_reply("Done", " as asked."))
    open_ready(page, demo_with_origins)
    assert page.evaluate(CONFIGURE, openai(api_server.base_url))["ok"] is True
    page.fill("#chat-input", "Write the weekly report for the team and send it to me")
    page.press("#chat-input", "Enter")
    page.wait_for_selector("#transcript[data-thread-state=done]", timeout=TURN_TIMEOUT_MS)
    last = page.eval_on_selector_all(
        "#transcript .msg", "els => els.at(-1).querySelector('.msg-body').textContent"
    )
    assert last == "Done as asked."
    assert len(api_server.completions()) == 3
