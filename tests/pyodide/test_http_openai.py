"""The OpenAI SDK and LangChain's ChatOpenAI on pyctx_web.http in Pyodide, against the scripted API.

The page loads ``langchain-openai`` (and through it openai, httpx2 and pydantic) from
build/dist's "llm" wheel set. In Chromium every request is cross-origin and the server
allows only the ``Authorization`` and ``Content-Type`` headers: the SDK's own headers
(``X-Stainless-*``) would fail its CORS preflight unless the transport dropped them.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.openai_server import (
    OpenAIServer,
    Pause,
    Stream,
    completion,
    error_reply,
    sse,
    text_reply,
    tool_call_reply,
)

from .http_support import run, server

__all__ = ["llm_app", "server"]

KEY = "sk-test-http"
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}


@pytest.fixture(scope="module")
def llm_app(pyctx_module: Any) -> Any:
    """One Pyodide per module with pyctx_web and langchain-openai loaded from build/dist."""
    pyctx_module.load_package(["langchain-openai"])
    pyctx_module.run_async("import openai, langchain_openai")
    return pyctx_module


_SDK_STREAM = """
async def case(args):
    from pyctx_web.http import openai_client

    client = openai_client(api_key=args["key"], base_url=args["url"], max_retries=0)
    stream = await client.chat.completions.create(
        model="scripted", messages=[{"role": "user", "content": "hi"}], stream=True,
        tools=args["tools"] or None,
    )
    text, calls = [], {}
    async for chunk in stream:
        if not chunk.choices:
            continue
        delta = chunk.choices[0].delta
        if delta.content:
            text.append(delta.content)
        for call in delta.tool_calls or []:
            entry = calls.setdefault(call.index, {"id": None, "name": None, "arguments": ""})
            if call.id:
                entry["id"] = call.id
            if call.function and call.function.name:
                entry["name"] = call.function.name
            if call.function and call.function.arguments:
                entry["arguments"] += call.function.arguments
        if args["stop_after"] and len(text) == args["stop_after"]:
            await stream.close()
            break
    return {"text": text, "calls": [calls[i] for i in sorted(calls)]}
"""


def _sdk_stream(app: Any, server: OpenAIServer, tools: Any = (), stop_after: int = 0) -> Any:
    return run(
        app, _SDK_STREAM, key=KEY, url=server.base_url, tools=list(tools), stop_after=stop_after
    )


def test_async_openai_streams_text(llm_app: Any, server: OpenAIServer) -> None:
    """AsyncOpenAI's stream yields the server's pieces; only allowed headers reach the server."""
    server.script(text_reply("Hel", "lo", " there"))
    assert _sdk_stream(llm_app, server) == {"text": ["Hel", "lo", " there"], "calls": []}
    [request] = server.completions()
    sent = {name.lower(): value for name, value in request.headers.items()}
    assert sent["authorization"] == f"Bearer {KEY}"
    assert [name for name in sent if name.startswith("x-stainless")] == []
    assert request.json["stream"] is True


def test_async_openai_streams_tool_calls(llm_app: Any, server: OpenAIServer) -> None:
    """Tool-call fragments streamed by the server assemble into the calls' names and arguments."""
    server.script(
        tool_call_reply("get_weather", {"city": "Paris"}, ("get_weather", {"city": "Oslo"}))
    )
    result = _sdk_stream(llm_app, server, tools=[WEATHER])
    assert result["calls"] == [
        {"id": "call_1", "name": "get_weather", "arguments": '{"city": "Paris"}'},
        {"id": "call_2", "name": "get_weather", "arguments": '{"city": "Oslo"}'},
    ]
    assert server.completions()[0].json["tools"] == [WEATHER]


def test_closing_an_sdk_stream_early_closes_the_connection(
    llm_app: Any, server: OpenAIServer
) -> None:
    """Closing AsyncOpenAI's stream after its first token aborts the request."""
    first = '{"choices": [{"index": 0, "delta": {"content": "first"}, "finish_reason": null}]}'
    server.script(Stream([*sse(first), Pause(60), *sse("[DONE]")]))
    assert _sdk_stream(llm_app, server, stop_after=1)["text"] == ["first"]
    assert server.wait_served(1)[0].closed_early is True


_SDK_ERROR = """
async def case(args):
    import openai
    from pyctx_web.http import openai_client

    client = openai_client(api_key=args["key"], base_url=args["url"], max_retries=0)
    try:
        await client.chat.completions.create(
            model="scripted", messages=[{"role": "user", "content": "hi"}]
        )
    except openai.APIStatusError as error:
        return {"error": type(error).__name__, "status": error.status_code, "text": error.message}
    except openai.APIConnectionError as error:
        return {"error": type(error).__name__, "cause": type(error.__cause__).__name__}
    return {"error": None}
"""


@pytest.mark.parametrize(
    ("status", "error"), [(401, "AuthenticationError"), (500, "InternalServerError")]
)
def test_error_statuses_become_the_sdk_errors(
    llm_app: Any, server: OpenAIServer, status: int, error: str
) -> None:
    """401 and 500 answers raise the SDK's own error classes with the server's message."""
    server.script(error_reply(status, "scripted failure"))
    result = run(llm_app, _SDK_ERROR, key=KEY, url=server.base_url)
    assert result == {
        "error": error,
        "status": status,
        "text": f"Error code: {status} - scripted failure",
    }


def test_an_unreachable_server_is_the_sdk_connection_error(llm_app: Any) -> None:
    """A refused connection is APIConnectionError, caused by the library's ConnectError."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    result = run(llm_app, _SDK_ERROR, key=KEY, url=url)
    assert result == {"error": "APIConnectionError", "cause": "ConnectError"}


_CHAT = """
async def case(args):
    from langchain_core.messages import AIMessageChunk
    from pyctx_web.http import chat_openai

    model = chat_openai(
        model="scripted", api_key=args["key"], base_url=args["url"], max_retries=0
    )
    if args["mode"] == "ainvoke":
        reply = await model.ainvoke("hi")
        return {"content": reply.content}
    if args["mode"] == "bind_tools":
        reply = await model.bind_tools([args["tool"]]).ainvoke("weather in Paris?")
        return {"calls": [[c["name"], c["args"], c["id"]] for c in reply.tool_calls]}
    pieces, total = [], None
    async for chunk in model.astream("hi"):
        pieces.append(chunk.content)
        total = chunk if total is None else total + chunk
        if args["stop_after"] and len([p for p in pieces if p]) == args["stop_after"]:
            break
    return {"pieces": [p for p in pieces if p], "content": total.content}
"""


def _chat(app: Any, server: OpenAIServer, mode: str, **args: Any) -> Any:
    args = {"tool": WEATHER, "stop_after": 0, **args}
    return run(app, _CHAT, key=KEY, url=server.base_url, mode=mode, **args)


def test_chat_openai_ainvoke(llm_app: Any, server: OpenAIServer) -> None:
    """ChatOpenAI.ainvoke returns the server's completion."""
    server.script(completion("Bonjour"))
    assert _chat(llm_app, server, "ainvoke") == {"content": "Bonjour"}


def test_chat_openai_astream(llm_app: Any, server: OpenAIServer) -> None:
    """ChatOpenAI.astream yields the server's pieces as they come."""
    server.script(text_reply("Bon", "jour"))
    assert _chat(llm_app, server, "astream") == {"pieces": ["Bon", "jour"], "content": "Bonjour"}
    assert server.completions()[0].json["stream"] is True


def test_leaving_chat_openai_astream_early_closes_the_connection(
    llm_app: Any, server: OpenAIServer
) -> None:
    """Breaking out of ChatOpenAI.astream after the first token aborts the request."""
    first = '{"choices": [{"index": 0, "delta": {"content": "first"}, "finish_reason": null}]}'
    server.script(Stream([*sse(first), Pause(60), *sse("[DONE]")]))
    assert _chat(llm_app, server, "astream", stop_after=1)["pieces"] == ["first"]
    assert server.wait_served(1)[0].closed_early is True


def test_chat_openai_bind_tools_returns_the_tool_calls(llm_app: Any, server: OpenAIServer) -> None:
    """A model bound to a tool sends its schema and returns the server's tool call parsed."""
    call = {
        "id": "call_9",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
    }
    server.script(completion(None, [call]))
    assert _chat(llm_app, server, "bind_tools") == {
        "calls": [["get_weather", {"city": "Paris"}, "call_9"]]
    }
    assert server.completions()[0].json["tools"][0]["function"]["name"] == "get_weather"


_CHAT_SYNC = """
async def case(args):
    import warnings
    from pyodide.ffi import can_run_sync
    from pyctx_web.http import SyncFetchError, chat_openai

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = chat_openai(
            model="scripted", api_key=args["key"], base_url=args["url"], max_retries=0
        )
    warned = [str(w.message) for w in caught]
    try:
        return {"jspi": can_run_sync(), "content": model.invoke("hi").content, "warned": warned}
    except SyncFetchError as error:
        return {"jspi": can_run_sync(), "error": str(error), "warned": warned}
"""


def test_chat_openai_invoke_works_with_jspi_and_says_to_use_ainvoke_without(
    llm_app: Any, server: OpenAIServer
) -> None:
    """The sync invoke answers where JSPI allows (Chromium) and names ainvoke where not (Node)."""
    server.script(completion("sync"))
    result = run(llm_app, _CHAT_SYNC, key=KEY, url=server.base_url)
    assert result["warned"] == []  # no default client of the SDK's was built
    assert result["jspi"] is (llm_app.browser != "node")
    if result["jspi"]:
        assert result["content"] == "sync"
    else:
        assert result["error"].endswith(
            "use the async form (an AsyncClient, openai.AsyncOpenAI, "
            "await model.ainvoke(...) or model.astream(...))"
        )
        assert server.completions() == []


_SDK_SYNC = """
async def case(args):
    import openai
    from pyodide.ffi import can_run_sync
    from pyctx_web.http import SyncFetchError, openai_sync_client

    client = openai_sync_client(api_key=args["key"], base_url=args["url"], max_retries=0)
    kind = type(client).__name__
    try:
        reply = client.chat.completions.create(
            model="scripted", messages=[{"role": "user", "content": "hi"}]
        )
    except SyncFetchError as error:
        return {"jspi": can_run_sync(), "kind": kind, "error": str(error)}
    return {"jspi": can_run_sync(), "kind": kind, "content": reply.choices[0].message.content}
"""


def test_the_sync_openai_client_answers_with_jspi_and_says_to_use_the_async_form_without(
    llm_app: Any, server: OpenAIServer
) -> None:
    """openai_sync_client's OpenAI answers where JSPI allows (Chromium), sending only allowed
    headers, and names the async form where not (Node)."""
    server.script(completion("sync"))
    result = run(llm_app, _SDK_SYNC, key=KEY, url=server.base_url)
    assert result["kind"] == "OpenAI"
    assert result["jspi"] is (llm_app.browser != "node")
    if result["jspi"]:
        assert result["content"] == "sync"
        [request] = server.completions()
        sent = {name.lower(): value for name, value in request.headers.items()}
        assert sent["authorization"] == f"Bearer {KEY}"
        assert [name for name in sent if name.startswith("x-stainless")] == []
    else:
        assert result["error"].endswith(
            "use the async form (an AsyncClient, openai.AsyncOpenAI, "
            "await model.ainvoke(...) or model.astream(...))"
        )
        assert server.completions() == []


_GRAPH = """
import asyncio
from typing import TypedDict

async def case(args):
    from pyctx_web.graph import END, START, StateGraph
    from pyctx_web.graph.errors import RunCancelledError
    from pyctx_web.http import chat_openai

    model = chat_openai(model="scripted", api_key=args["key"], base_url=args["url"], max_retries=0)
    tokens = []
    first_token = asyncio.Event()

    class State(TypedDict):
        text: str

    async def answer(state: State) -> State:
        async for chunk in model.astream(state["text"]):
            if chunk.content:
                tokens.append(chunk.content)
                first_token.set()
        return {"text": "".join(tokens)}

    builder = StateGraph(State)
    builder.add_node("answer", answer)
    builder.add_edge(START, "answer")
    builder.add_edge("answer", END)
    handle = builder.compile().start({"text": "hi"})
    await first_token.wait()
    handle.cancel("stopped")
    try:
        await handle
    except RunCancelledError:
        pass
    return {"tokens": tokens, "outcome": handle.outcome.status}
"""


def test_cancelling_a_run_aborts_the_chat_openai_request_of_its_node(
    llm_app: Any, server: OpenAIServer
) -> None:
    """A graph run cancelled while its node streams from ChatOpenAI closes the connection."""
    first = '{"choices": [{"index": 0, "delta": {"content": "first"}, "finish_reason": null}]}'
    server.script(Stream([*sse(first), Pause(60), *sse("[DONE]")]))
    result = run(llm_app, _GRAPH, key=KEY, url=server.base_url)
    assert result == {"tokens": ["first"], "outcome": "cancelled"}
    assert server.wait_served(1)[0].closed_early is True
