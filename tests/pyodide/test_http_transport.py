"""pyctx_web.http's fetch transport in Pyodide (Node and Chromium) against the scripted server.

Each case runs in Pyodide with httpx and httpx2 installed (see http_support); what the
server saw (the requests, and whether the client closed a connection before the end of
its response) is read in the test process.
"""

from __future__ import annotations

import gzip
import json
import re
import socket
from typing import Any

import pytest

from tests.e2e.openai_server import (
    JSONResponse,
    OpenAIServer,
    Pause,
    Response,
    Stall,
    Stream,
    completion,
    error_reply,
)

from .http_support import fetch_app, run, server

__all__ = ["fetch_app", "server"]

LIBRARIES = pytest.mark.parametrize("library", ["httpx", "httpx2"])

_STREAM = """
async def case(args):
    from pyctx_web.http import async_client

    chunks = []
    async with async_client(library=args["library"]) as client:
        async with client.stream("POST", args["url"], json={"stream": True}) as response:
            async for chunk in response.aiter_bytes():
                chunks.append(chunk.decode())
                if args["stop_after"] and len(chunks) == args["stop_after"]:
                    break
    return {"status": response.status_code, "chunks": chunks, "type": type(client).__module__}
"""


def _url(server: OpenAIServer) -> str:
    return f"{server.base_url}/chat/completions"


@LIBRARIES
def test_a_body_streams_piece_by_piece(fetch_app: Any, server: OpenAIServer, library: str) -> None:
    """Each piece the server sends reaches the client on its own, before the next is sent."""
    server.script(Stream(["one ", Pause(0.5), "two ", Pause(0.5), "three"]))
    result = run(fetch_app, _STREAM, library=library, url=_url(server), stop_after=0)
    assert result == {"status": 200, "chunks": ["one ", "two ", "three"], "type": library}
    assert server.wait_served(1)[0].closed_early is False


@LIBRARIES
def test_closing_a_response_early_closes_the_connection(
    fetch_app: Any, server: OpenAIServer, library: str
) -> None:
    """Leaving a streamed response after its first piece aborts the fetch: the server sees it."""
    server.script(Stream(["first", Pause(60), "never sent"]))
    result = run(fetch_app, _STREAM, library=library, url=_url(server), stop_after=1)
    assert result["chunks"] == ["first"]
    assert server.wait_served(1)[0].closed_early is True


_CANCEL = """
import asyncio

async def case(args):
    from pyctx_web.http import async_client

    client = async_client(library=args["library"])
    first = asyncio.Event()

    async def read():
        if args["stage"] == "headers":
            first.set()
            await client.post(args["url"], json={})
            return
        async with client.stream("POST", args["url"], json={}) as response:
            async for _ in response.aiter_bytes():
                first.set()

    task = asyncio.create_task(read())
    await first.wait()
    await asyncio.sleep(0.5 if args["stage"] == "headers" else 0)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        return "cancelled"
    return "not cancelled"
"""


@LIBRARIES
@pytest.mark.parametrize("stage", ["headers", "body"])
def test_cancelling_the_awaiting_task_closes_the_connection(
    fetch_app: Any, server: OpenAIServer, library: str, stage: str
) -> None:
    """A task cancelled while it waits for the headers or for the body aborts its fetch."""
    server.script(Stall(60) if stage == "headers" else Stream(["first", Pause(60), "never"]))
    assert run(fetch_app, _CANCEL, library=library, url=_url(server), stage=stage) == "cancelled"
    assert server.wait_served(1)[0].closed_early is True


_POST = """
async def case(args):
    from pyctx_web.http import async_client

    library = __import__(args["library"])
    timeout = library.Timeout(args["timeout"], connect=args["connect"], read=args["read"])
    options = args.get("options", {})
    try:
        async with async_client(library=args["library"], **options) as client:
            response = await client.post(
                args["url"], json={"q": 1}, timeout=timeout, headers=args.get("headers", {})
            )
    except library.HTTPError as error:
        return {"error": type(error).__name__, "message": str(error)}
    return {"status": response.status_code, "body": response.json()}
"""


def _post(app: Any, url: str, library: str = "httpx2", **args: Any) -> Any:
    args = {"timeout": 30, "connect": 30, "read": 30, **args}
    return run(app, _POST, library=library, url=url, **args)


@LIBRARIES
def test_the_read_timeout_bounds_the_wait_for_the_headers(
    fetch_app: Any, server: OpenAIServer, library: str
) -> None:
    """No headers within the read timeout is a ReadTimeout, and the request is aborted."""
    server.script(Stall(60))
    result = _post(fetch_app, _url(server), library, read=0.3)
    message = f"no response from {_url(server)} within the read timeout of 0.3 s"
    assert result == {"error": "ReadTimeout", "message": message}
    assert server.wait_served(1)[0].closed_early is True


def test_headers_later_than_the_connect_timeout_are_waited_for(
    fetch_app: Any, server: OpenAIServer
) -> None:
    """The connect timeout does not bound the wait for a slow answer's headers."""
    server.script(JSONResponse(completion("slow").body, delay=0.6))
    result = _post(fetch_app, _url(server), connect=0.1, read=30)
    assert result["status"] == 200
    assert result["body"]["choices"][0]["message"]["content"] == "slow"


def test_a_body_silent_for_the_read_timeout_is_a_read_timeout(
    fetch_app: Any, server: OpenAIServer
) -> None:
    """A body that sends nothing for the read timeout raises ReadTimeout and is aborted."""
    server.script(Stream(["first", Pause(60), "never"]))
    result = _post(fetch_app, _url(server), read=0.3)
    message = f"the response from {_url(server)} sent nothing for 0.3 s (read timeout)"
    assert result == {"error": "ReadTimeout", "message": message}
    assert server.wait_served(1)[0].closed_early is True


@pytest.mark.parametrize("status", [401, 500])
def test_an_error_status_is_an_ordinary_response(
    fetch_app: Any, server: OpenAIServer, status: int
) -> None:
    """4xx and 5xx answers come back as responses with their status and body."""
    server.script(error_reply(status, "scripted failure"))
    result = _post(fetch_app, _url(server))
    assert result["status"] == status
    assert result["body"]["error"]["message"] == "scripted failure"


@LIBRARIES
def test_a_compressed_body_is_decoded_once(
    fetch_app: Any, server: OpenAIServer, library: str
) -> None:
    """A gzip body arrives decoded by fetch, and the library does not decode it again."""
    body = gzip.compress(json.dumps(completion("squeezed").body).encode())
    gzipped = {"Content-Encoding": "gzip"}
    server.script(Stream([body], headers=gzipped, content_type="application/json"))
    result = _post(fetch_app, _url(server), library)
    assert result["status"] == 200
    assert result["body"]["choices"][0]["message"]["content"] == "squeezed"


def _refused_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1/chat/completions"


_CORS_HINT = (
    ". In a browser this is also how a CORS refusal looks: the server must allow this page's "
    "origin (Access-Control-Allow-Origin) and the request's headers "
    "(Access-Control-Allow-Headers); the browser console names the cause."
)


@LIBRARIES
def test_a_refused_connection_is_a_connect_error(fetch_app: Any, library: str) -> None:
    """Nothing listening at the URL is the library's ConnectError, naming the URL and cause."""
    url = _refused_url()
    result = _post(fetch_app, url, library)
    assert result["error"] == "ConnectError"
    if fetch_app.browser == "node":
        port = url.split(":")[2].split("/")[0]
        detail = rf"TypeError: fetch failed \(connect ECONNREFUSED 127\.0\.0\.1:{port}\)"
        assert re.match(
            rf"^fetch could not reach {re.escape(url)} \({detail}\)$", result["message"]
        )
    else:
        expected = f"fetch could not reach {url} (TypeError: Failed to fetch){_CORS_HINT}"
        assert result["message"] == expected


def test_a_header_the_server_does_not_allow_fails_cors_with_a_clear_error(
    fetch_app: Any, server: OpenAIServer
) -> None:
    """An SDK header kept on purpose that CORS refuses is a ConnectError saying it may be CORS.

    Node's fetch applies no CORS: there the same request goes through with the header.
    """
    server.script(completion("ok"))
    options = {"keep_headers": ["x-stainless-*"]}
    headers = {"X-Stainless-Lang": "python"}
    result = _post(fetch_app, _url(server), options=options, headers=headers)
    if fetch_app.browser == "node":
        assert result["status"] == 200
        sent = {name.lower(): value for name, value in server.completions()[0].headers.items()}
        assert sent["x-stainless-lang"] == "python"
        return
    url = _url(server)
    expected = f"fetch could not reach {url} (TypeError: Failed to fetch){_CORS_HINT}"
    assert result == {"error": "ConnectError", "message": expected}
    assert [r.method for r in server.requests] == ["OPTIONS"]


def test_cors_hostile_headers_are_dropped_by_default(fetch_app: Any, server: OpenAIServer) -> None:
    """User-Agent and X-Stainless-* never reach the server; other headers do."""
    server.script(completion("ok"))
    headers = {"X-Stainless-Lang": "python", "User-Agent": "sdk/1", "Authorization": "Bearer k"}
    result = _post(fetch_app, _url(server), headers=headers)
    assert result["status"] == 200
    sent = {name.lower(): value for name, value in server.completions()[0].headers.items()}
    assert "x-stainless-lang" not in sent
    assert sent.get("user-agent") != "sdk/1"
    assert sent["authorization"] == "Bearer k"


_SYNC = """
async def case(args):
    from pyodide.ffi import can_run_sync
    from pyctx_web.http import SyncFetchError, sync_client

    with sync_client(library=args["library"]) as client:
        try:
            response = client.post(args["url"], json={})
        except SyncFetchError as error:
            return {"jspi": can_run_sync(), "error": str(error)}
        return {"jspi": can_run_sync(), "status": response.status_code, "body": response.json()}
"""

SYNC_UNAVAILABLE = (
    "a synchronous request through fetch needs JavaScript Promise Integration (JSPI), and "
    "pyodide.ffi.can_run_sync() is False here (the runtime lacks JSPI, or this call did not "
    "start from async code): use the async form (an AsyncClient, openai.AsyncOpenAI, "
    "await model.ainvoke(...) or model.astream(...))"
)


@LIBRARIES
def test_a_sync_request_works_with_jspi_and_names_the_async_form_without(
    fetch_app: Any, server: OpenAIServer, library: str
) -> None:
    """A sync client's request is answered where JSPI allows; elsewhere the error names the fix."""
    server.script(completion("sync"))
    result = run(fetch_app, _SYNC, library=library, url=_url(server))
    assert result["jspi"] is (fetch_app.browser != "node")  # Chromium has JSPI, Node 20 not
    if result["jspi"]:
        assert result["status"] == 200
        assert result["body"]["choices"][0]["message"]["content"] == "sync"
    else:
        assert result == {"jspi": False, "error": SYNC_UNAVAILABLE}
        assert server.completions() == []


_GRAPH_CANCEL = """
import asyncio
from typing import TypedDict

async def case(args):
    from pyctx_web.graph import END, START, StateGraph
    from pyctx_web.graph.errors import RunCancelledError
    from pyctx_web.http import async_client

    class State(TypedDict):
        text: str

    streaming = asyncio.Event()
    received = []

    async def fetch_node(state: State) -> State:
        async with async_client() as client:
            async with client.stream("POST", args["url"], json={}) as response:
                async for chunk in response.aiter_text():
                    received.append(chunk)
                    streaming.set()
        return {"text": "".join(received)}

    builder = StateGraph(State)
    builder.add_node("fetch", fetch_node)
    builder.add_edge(START, "fetch")
    builder.add_edge("fetch", END)
    handle = builder.compile().start({"text": ""})
    await streaming.wait()
    handle.cancel("the user stopped it")
    try:
        await handle
    except RunCancelledError as error:
        return {"cancelled": str(error), "received": received, "outcome": handle.outcome.status}
    return {"cancelled": None, "received": received}
"""


def test_cancelling_a_graph_run_aborts_the_request_of_its_node(
    fetch_app: Any, server: OpenAIServer
) -> None:
    """A run cancelled while its node streams a response closes that response's connection."""
    server.script(Stream(["first", Pause(60), "never"]))
    result = run(fetch_app, _GRAPH_CANCEL, url=_url(server))
    assert result["received"] == ["first"]
    assert result["outcome"] == "cancelled"
    assert server.wait_served(1)[0].closed_early is True


_TIMERS = """
import asyncio, gc

def pending_handles():
    gc.collect()
    return sum(isinstance(o, asyncio.Handle) for o in gc.get_objects())

async def case(args):
    from pyctx_web.http import async_client

    async with async_client(timeout=600) as client:
        before = pending_handles()
        for _ in range(args["requests"]):
            async with client.stream("POST", args["url"], json={}) as response:
                async for _ in response.aiter_bytes():
                    pass
        await asyncio.sleep(0)
        return {"before": before, "after": pending_handles()}
"""


def test_read_timeouts_leave_no_timer_behind(fetch_app: Any, server: OpenAIServer) -> None:
    """A long read timeout over many reads leaves no timer waiting after the responses end.

    (Pyodide's event loop never clears a cancelled timer: were each read bounded by one, a
    10-minute timer per piece of every response would stay scheduled, and keep Node alive.)
    """
    pieces: list[str | Pause] = []
    for index in range(10):
        pieces += [f"piece {index}\n", Pause(0.01)]
    server.script(*[Stream(pieces) for _ in range(5)])
    result = run(fetch_app, _TIMERS, url=_url(server), requests=5)
    assert result["after"] <= result["before"]


_ROUNDS = """
import gc

async def case(args):
    from pyctx_web.http import async_client

    async with async_client(timeout=30) as client:
        for _ in range(args["rounds"]):
            async with client.stream("POST", args["url"], json={"q": 1}) as response:
                async for _ in response.aiter_bytes():
                    pass
            await client.post(args["url"], json={})
    gc.collect()
    return True
"""


def test_requests_leave_no_javascript_references_behind(
    fetch_app: Any, server: OpenAIServer
) -> None:
    """Streamed and plain requests leave no proxy of a JavaScript object alive after them."""
    url = _url(server)
    pair: list[Response] = [Stream(["a", Pause(0.01), "b"]), completion("ok")]
    server.script(*pair * 3)
    run(fetch_app, _ROUNDS, url=url, rounds=3)
    before = fetch_app.get_num_hiwire_keys()
    server.script(*pair * 10)
    run(fetch_app, _ROUNDS, url=url, rounds=10)
    assert fetch_app.get_num_hiwire_keys() <= before
