"""The demo's OpenAI-compatible model in Pyodide, fetching from a real scripted server on 127.0.0.1.

demo/app's protocol, sse, completion_stream, http_policy, csp and openai_model
modules are written into Pyodide's file system and imported as the demo's worker
imports them; the server (tests/e2e/openai_server.py) runs in the test process.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_pyodide import run_in_pyodide  # type: ignore[import-untyped]

from tests.e2e.openai_server import (
    OpenAIServer,
    Pause,
    Stall,
    Stream,
    completion,
    error_reply,
    sse,
    text_reply,
    tool_call_reply,
)

APP = Path(__file__).resolve().parents[2] / "demo" / "app"
MODULES = ("protocol", "sse", "completion_stream", "http_policy", "csp", "openai_model")
KEY = "sk-test-7Hq2-secret"
MESSAGES = [
    {"role": "system", "content": "You are the demo assistant."},
    {"role": "user", "content": "help me with email"},
]
ASK_USER = {
    "type": "function",
    "function": {
        "name": "ask_user",
        "description": "Ask the user a question.",
        "parameters": {"type": "object", "properties": {"question": {"type": "string"}}},
    },
}

_INSTALL = """
import base64 as _b64, importlib as _il, json as _json, pathlib as _pl, sys as _sys
_root = _pl.Path("/tmp/demo_app")
_root.mkdir(parents=True, exist_ok=True)
for _name, _text in _json.loads(_b64.b64decode("%s").decode()).items():
    (_root / f"{_name}.py").write_text(_text, encoding="utf-8")
    _sys.modules.pop(_name, None)
if str(_root) not in _sys.path:
    _sys.path.insert(0, str(_root))
_il.invalidate_caches()
import openai_model
"""


@pytest.fixture(scope="module")
def app(pyctx_module: Any) -> Any:
    """One Pyodide per module with the demo's model modules importable."""
    sources = {name: (APP / f"{name}.py").read_text(encoding="utf-8") for name in MODULES}
    encoded = base64.b64encode(json.dumps(sources).encode()).decode("ascii")
    pyctx_module.run(_INSTALL % encoded)
    return pyctx_module


@pytest.fixture(scope="module")
def server() -> Iterator[OpenAIServer]:
    """The scripted API on a free port of 127.0.0.1, shared by the module's tests."""
    with OpenAIServer() as running:
        yield running


@run_in_pyodide
async def _complete(
    selenium: Any, base_url: str, settings: dict[str, Any], messages: Any, tools: Any
) -> dict[str, Any]:
    from openai_model import OpenAICompatibleModel
    from protocol import ModelError

    model = OpenAICompatibleModel(base_url, "scripted-model", "sk-test-7Hq2-secret", **settings)
    tokens: list[str] = []

    async def on_token(piece: str) -> None:
        tokens.append(piece)

    try:
        reply = await model.complete(messages, tools, on_token=on_token)
    except ModelError as error:
        return {"error": str(error), "tokens": tokens}
    calls = [[call.id, call.name, call.arguments] for call in reply.tool_calls]
    return {"content": reply.content, "tool_calls": calls, "tokens": tokens}


def complete(
    app: Any,
    server: OpenAIServer,
    *script: Any,
    base_url: str | None = None,
    tools: Any = (),
    **settings: Any,
) -> dict[str, Any]:
    """Script the server, then answer MESSAGES in Pyodide: the reply, or the ModelError's text."""
    server.script(*script)
    result: dict[str, Any] = _complete(
        app, base_url or server.base_url, settings, MESSAGES, list(tools)
    )
    return result


def chunk(delta: Any, finish: str | None = None) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def test_streamed_text_arrives_piece_by_piece_with_the_key_in_the_header_only(
    app: Any, server: OpenAIServer
) -> None:
    """Each streamed piece reaches on_token; the request holds the key only in Authorization."""
    result = complete(app, server, text_reply("Sure", ", I will ", "send it."))
    assert result == {"content": "Sure, I will send it.", "tool_calls": [],
                      "tokens": ["Sure", ", I will ", "send it."]}  # fmt: skip
    (post,) = server.completions()
    headers = {name.lower(): value for name, value in post.headers.items()}
    assert headers["authorization"] == f"Bearer {KEY}"
    assert post.path == "/v1/chat/completions"
    assert post.json == {"model": "scripted-model", "messages": MESSAGES, "stream": True}
    assert KEY not in post.body


def test_the_model_asks_through_ask_user(app: Any, server: OpenAIServer) -> None:
    """A streamed ask_user call comes back as the reply's tool call, with the tools offered."""
    arguments = {"question": "Which email?", "choices": ["Draft a reply", "Summarize my inbox"]}
    result = complete(app, server, tool_call_reply("ask_user", arguments), tools=[ASK_USER])
    assert result == {"content": "", "tokens": [],
                      "tool_calls": [["call_1", "ask_user", arguments]]}  # fmt: skip
    assert server.completions()[0].json["tools"] == [ASK_USER]


def test_tool_call_fragments_of_several_calls_are_joined_by_index(
    app: Any, server: OpenAIServer
) -> None:
    """Interleaved argument fragments of two calls make two whole calls, in index order."""
    email = {"to": "team@example.com", "subject": "Daily report", "body": "Figures attached."}
    meeting = {"title": "Review", "when": "Monday 10:00", "attendees": ["ana", "bo"]}
    script = tool_call_reply(
        "send_email", email, ("schedule_meeting", meeting), fragments=5, content="Doing both."
    )
    result = complete(app, server, script)
    assert result["content"] == "Doing both."
    assert result["tool_calls"] == [
        ["call_1", "send_email", email],
        ["call_2", "schedule_meeting", meeting],
    ]


def _content(text: str) -> str:
    return json.dumps(chunk({"content": text}))


SHAPES = {
    "crlf": [
        f"data: {_content('a')}\r\n\r\n",
        f"data: {_content('b')}\r\n\r\ndata: [DONE]\r\n\r\n",
    ],
    "cr": [f"data: {_content('a')}\r\r", f"data: {_content('b')}\r\rdata: [DONE]\r\r"],
    "cr_then_lf_in_the_next_read": [
        f"data: {_content('a')}\r",
        Pause(0.05),
        f"\n\r\ndata: {_content('b')}\n\ndata: [DONE]\n\n",
    ],
    "comments_and_fields": [
        ": keep-alive\n\n",
        f"event: message\nid: 1\nretry: 3000\ndata:{_content('a')}\n\n",
        f": ping\ndata: {_content('b')}\n: between\n\n",
        "data: [DONE]\n\n",
    ],
    "multi_line_data": [
        'data: {"choices": [{"index": 0,\ndata: "delta": {"content": "a"}}]}\n\n',
        f"data: {_content('b')}\n\ndata: [DONE]\n\n",
    ],
    "split_in_the_middle_of_a_line": [
        f"data: {_content('a')}\n\nda",
        Pause(0.05),
        f"ta: {_content('b')}\n\ndata: [DO",
        "NE]\n\n",
    ],
    "usage_null_delta_and_null_content": [
        *sse(
            chunk({"role": "assistant", "content": None}),
            chunk(None),
            {"choices": [{"index": 0}]},
            chunk({"content": "a"}),
            chunk({"content": "b"}, "stop"),
            {"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 2}},
            "[DONE]",
        )
    ],
    "done_without_a_final_newline": [
        *sse(chunk({"content": "a"}), chunk({"content": "b"})),
        "data: [DONE]",
    ],
    "finish_reason_without_done": [*sse(chunk({"content": "a"}), chunk({"content": "b"}, "stop"))],
}


@pytest.mark.parametrize("pieces", SHAPES.values(), ids=SHAPES.keys())
def test_stream_shapes(app: Any, server: OpenAIServer, pieces: list[Any]) -> None:
    """Every event-stream shape the standard allows gives the same two pieces of text."""
    result = complete(app, server, Stream(pieces))
    assert result == {"content": "ab", "tool_calls": [], "tokens": ["a", "b"]}


@pytest.mark.parametrize(
    ("pieces", "message"),
    [
        (
            sse(chunk({"content": "a"}), {"error": {"message": "Context length exceeded"}}),
            "The model API reported an error: Context length exceeded",
        ),
        (["data: <html>oops</html>\n\n"], "a stream event that is not JSON: '<html>oops</html>'"),
        (
            sse(chunk({"content": "a"})),
            "The model API's stream ended before the reply was complete.",
        ),
        (
            sse(
                chunk(
                    {"tool_calls": [{"index": 0, "id": "c", "function": {"name": "send_email"}}]}
                ),
                chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"to": '}}]}),
                "[DONE]",
            ),
            "The model called the tool 'send_email' with arguments that are not valid JSON",
        ),
    ],
    ids=["error_object", "not_json", "cut_short", "bad_tool_arguments"],
)
def test_a_bad_stream_ends_the_reply_with_a_message(
    app: Any, server: OpenAIServer, pieces: list[str], message: str
) -> None:
    """An error object, a non-JSON event, a stream cut short or bad tool arguments say so."""
    result = complete(app, server, Stream(pieces))
    assert message in result["error"]


def test_a_plain_json_answer_to_a_stream_request(app: Any, server: OpenAIServer) -> None:
    """A server that answers one chat.completion gives its text (as one token) and tool calls."""
    result = complete(app, server, completion("Hello there."))
    assert result == {"content": "Hello there.", "tool_calls": [], "tokens": ["Hello there."]}
    call = {"id": "call_9", "type": "function",
            "function": {"name": "ask_user", "arguments": '{"question": "Which?"}'}}  # fmt: skip
    result = complete(app, server, completion(None, [call]))
    assert result["tool_calls"] == [["call_9", "ask_user", {"question": "Which?"}]]


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
    """A 503 without Retry-After is retried after the backoff; the second answer is used."""
    result = complete(app, server, error_reply(503, "overloaded"), text_reply("ok"), backoff_s=0.05)
    assert result["content"] == "ok"
    assert len(server.completions()) == 2


@pytest.mark.parametrize(
    ("status", "start"),
    [
        (401, "The API refused the key (HTTP 401): check the API key in the model settings."),
        (403, "The API refused the key (HTTP 403)"),
        (500, "The API failed (HTTP 500): try again later."),
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
    """No response headers within the connect timeout end the turn, and the request is aborted."""
    result = complete(app, server, Stall(20), connect_timeout_s=0.5)
    assert result["error"].startswith("The model API at ")
    assert result["error"].endswith("did not answer within 0.5 s.")
    (served,) = server.wait_served(1)
    assert served.closed_early


def test_a_stream_that_goes_quiet_times_out(app: Any, server: OpenAIServer) -> None:
    """No bytes for the idle timeout end the turn after what came, and the request is aborted."""
    pieces = [*sse(chunk({"content": "a"})), Pause(20), *sse(chunk({"content": "b"}), "[DONE]")]
    result = complete(app, server, Stream(pieces), idle_timeout_s=0.5)
    assert result == {"error": "The model API sent nothing for 0.5 s; the reply was stopped.",
                      "tokens": ["a"]}  # fmt: skip
    (served,) = server.wait_served(1)
    assert served.closed_early


def test_an_unreachable_api_names_network_cors_and_csp(app: Any, server: OpenAIServer) -> None:
    """A fetch that fails outright says what can stop it and names the --api-origin flag."""
    with OpenAIServer() as gone:
        closed = gone.base_url
    result = complete(app, server, base_url=closed)
    origin = closed.removesuffix("/v1")
    assert result["error"].startswith(f"Could not reach the model API at {origin} (")
    assert "CORS" in result["error"]
    assert f"--api-origin {origin}" in result["error"]


@run_in_pyodide
async def _cancel_after_first_token(selenium: Any, base_url: str) -> str:
    import asyncio

    from openai_model import OpenAICompatibleModel

    model = OpenAICompatibleModel(base_url, "scripted-model", "sk-test-7Hq2-secret")
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
    pieces = [*sse(chunk({"content": "a"})), Pause(20), *sse(chunk({"content": "b"}), "[DONE]")]
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
