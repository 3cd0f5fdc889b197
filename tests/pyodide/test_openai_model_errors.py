"""The demo's OpenAI-compatible model in Pyodide: HTTP errors, retries, timeouts, cancel, policy.

It fetches from the real scripted server on 127.0.0.1 (see openai_support).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from pytest_pyodide import run_in_pyodide

from tests.e2e.openai_server import OpenAIServer, Pause, Stall, Stream, error_reply, sse, text_reply

from .openai_support import KEY, app, chunk, complete, server

__all__ = ["app", "server"]


def test_rate_limit_then_success_waits_as_retry_after_asks(app: Any, server: OpenAIServer) -> None:
    """A 429 with Retry-After: 1 is retried once a second later, and the retry's answer is used."""
    limited = error_reply(429, "Rate limit reached", {"Retry-After": "1"})
    result = complete(app, server, limited, text_reply("ok"))
    assert result["content"] == "ok"
    first, second = server.completions()
    assert second.at - first.at >= 0.95
    assert second.json == first.json


def test_rate_limit_on_every_attempt_says_so(app: Any, server: OpenAIServer) -> None:
    """Three 429 answers end the turn after three attempts with a message and the server's text."""
    limited = error_reply(429, "Rate limit reached", {"Retry-After": "0"})
    result = complete(app, server, limited, limited, limited, text_reply("never"))
    assert result["error"].startswith("The API is limiting requests (HTTP 429) after 3 attempts")
    assert "Rate limit reached" in result["error"]
    assert len(server.completions()) == 3


def test_a_retry_after_beyond_the_cap_is_not_waited_for(app: Any, server: OpenAIServer) -> None:
    """A 429 asking for an hour ends the turn at once, saying how long the API asks to wait."""
    result = complete(app, server, error_reply(429, "quota", {"Retry-After": "3600"}))
    assert "It asks to wait 3600 s" in result["error"]
    assert len(server.completions()) == 1


def test_unavailable_is_retried_with_backoff(app: Any, server: OpenAIServer) -> None:
    """A 503 without Retry-After is retried after the SDK's backoff; the second answer is used."""
    result = complete(app, server, error_reply(503, "overloaded"), text_reply("ok"))
    assert result["content"] == "ok"
    assert len(server.completions()) == 2


@pytest.mark.parametrize(
    ("status", "start"),
    [
        (401, "The API refused the key (HTTP 401): check the API key in the model settings."),
        (403, "The API refused the key (HTTP 403)"),
        (400, "The API refused the request (HTTP 400)."),
    ],
)
def test_error_statuses_give_a_message_with_the_servers_text(
    app: Any, server: OpenAIServer, status: int, start: str
) -> None:
    """An error status ends the turn at once with its message and the server's own text."""
    result = complete(app, server, error_reply(status, f"detail {status}"))
    assert result["error"].startswith(start)
    assert result["error"].endswith(f"The server said: detail {status}")
    assert len(server.completions()) == 1


def test_a_server_error_is_retried_then_named(app: Any, server: OpenAIServer) -> None:
    """A 500 on every attempt ends the turn after three attempts with the server's text."""
    failed = error_reply(500, "detail 500")
    result = complete(app, server, failed, failed, failed, text_reply("never"))
    assert result["error"] == (
        "The API failed (HTTP 500) after 3 attempts: try again later. The server said: detail 500"
    )
    assert len(server.completions()) == 3


def test_a_key_echoed_by_the_server_is_not_shown(app: Any, server: OpenAIServer) -> None:
    """A server message quoting the key is shown with the key replaced."""
    result = complete(app, server, error_reply(401, f"Incorrect API key provided: {KEY}."))
    assert KEY not in result["error"]
    assert "Incorrect API key provided: [API key]." in result["error"]


def test_a_wrong_base_url_names_the_model_and_the_url(app: Any, server: OpenAIServer) -> None:
    """A 404 (here: a base URL ending in /v2) names the model and the base URL to check."""
    wrong = server.base_url.removesuffix("/v1") + "/v2"
    result = complete(app, server, base_url=wrong)
    assert result["error"].startswith(
        f"The API has no model 'scripted-model' at {wrong} (HTTP 404): check the model name"
    )
    assert server.completions()[0].path == "/v2/chat/completions"


def test_a_server_that_does_not_answer_times_out(app: Any, server: OpenAIServer) -> None:
    """No response headers within the connect timeout, on every attempt, end the turn, and each
    attempt's request is aborted."""
    result = complete(app, server, Stall(20), Stall(20), Stall(20), connect_timeout_s=0.5)
    assert result["error"] == (f"The model API at {server.base_url} did not answer within 0.5 s.")
    assert all(served.closed_early for served in server.wait_served(3))


def test_a_stream_that_goes_quiet_times_out(app: Any, server: OpenAIServer) -> None:
    """No bytes for the idle timeout end the turn after what came, and the request is aborted."""
    pieces: list[str | Pause] = [
        *sse(chunk({"content": "a"})),
        Pause(20),
        *sse(chunk({"content": "b"}), "[DONE]"),
    ]
    result = complete(app, server, Stream(pieces), idle_timeout_s=0.5)
    assert result == {"error": "The model API sent nothing for 0.5 s; the reply was stopped.",
                      "tokens": ["a"]}  # fmt: skip
    (served,) = server.wait_served(1)
    assert served.closed_early


def test_an_unreachable_api_names_network_and_cors_not_the_policy(
    app: Any, server: OpenAIServer
) -> None:
    """A fetch that fails outright (to an origin the page's policy allows) says what can stop
    it, without suggesting the --api-origin flag, which only helps a refused origin."""
    with OpenAIServer() as gone:
        closed = gone.base_url
    result = complete(app, server, base_url=closed)
    origin = closed.removesuffix("/v1")
    assert re.match(
        rf"^Could not reach the model API at {re.escape(origin)} \(.+\): the server may be "
        r"down or unreachable, or its CORS headers do not allow this page and the "
        r"Authorization header\.$",
        result["error"],
    ), result["error"]


@run_in_pyodide
async def _cancel_after_first_token(selenium: Any, base_url: str) -> str:
    import asyncio

    from openai_model import OpenAICompatibleModel

    model = OpenAICompatibleModel(base_url, "scripted-model", "sk-test-7Hq2-secret")
    await model.client()  # the SDK loaded before the request
    first = asyncio.Event()

    async def on_token(piece: str) -> None:
        first.set()

    task = asyncio.ensure_future(
        model.complete([{"role": "user", "content": "hi"}], on_token=on_token)
    )
    await asyncio.wait_for(first.wait(), 15)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        return "cancelled"
    return "finished"


def test_cancelling_the_task_closes_the_connection(app: Any, server: OpenAIServer) -> None:
    """Cancelling the awaiting task aborts the fetch: the server sees the connection close."""
    pieces: list[str | Pause] = [
        *sse(chunk({"content": "a"})),
        Pause(20),
        *sse(chunk({"content": "b"}), "[DONE]"),
    ]
    server.script(Stream(pieces))
    assert _cancel_after_first_token(app, server.base_url) == "cancelled"
    (served,) = server.wait_served(1)
    assert served.closed_early


@run_in_pyodide
async def _configure(selenium: Any, policy: str, base_url: str) -> str:
    import pyodide_js
    from js import Object
    from openai_model import OpenAICompatibleModel
    from protocol import ModelError

    from pyodide.ffi import to_js

    bridge = to_js({"content_security_policy": policy}, dict_converter=Object.fromEntries)
    pyodide_js.registerJsModule("demo_bridge", bridge)
    try:
        settings = {"base_url": base_url, "model": "m", "api_key": "k"}
        return repr(OpenAICompatibleModel.from_settings(settings, 0))
    except ModelError as error:
        return str(error)
    finally:
        pyodide_js.unregisterJsModule("demo_bridge")


def test_a_url_the_served_policy_blocks_is_refused_with_the_flag(app: Any) -> None:
    """With the worker's policy in demo_bridge, a blocked base URL names --api-origin at once."""
    policy = "default-src 'self'; connect-src 'self' http://127.0.0.1:* https://api.example.com"
    assert _configure(app, policy, "https://api.other.example/v1") == (
        "The page's Content-Security-Policy does not allow connecting to "
        "https://api.other.example; serve the demo with ./build.sh demo --api-origin "
        "https://api.other.example"
    )
    assert _configure(app, policy, "https://api.example.com/v1") == (
        "OpenAICompatibleModel(base_url='https://api.example.com/v1', model='m')"
    )
