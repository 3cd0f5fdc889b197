"""HTTP through JavaScript's ``fetch``: a transport for httpx and httpx2, and LLM clients on it.

In Pyodide, httpx cannot open sockets. :func:`fetch_transport` gives httpx or
httpx2 (the one installed, or the one named; the OpenAI SDK uses httpx2 from
version 3) a transport over the browser's or Node's ``fetch``::

    from pyctx_web.http import async_client, chat_openai, openai_client

    async with async_client() as client:               # an httpx2 (or httpx) AsyncClient
        async with client.stream("GET", url) as response:
            async for chunk in response.aiter_bytes(): ...

    sdk = openai_client(api_key=key, base_url="https://api.example.com/v1")
    model = chat_openai(model="gpt-4o-mini", api_key=key, base_url=...)

What it does:

- bodies stream as they arrive (the fetch body's ``ReadableStream`` reader);
- the request is aborted (``AbortController``), so the server sees the connection
  close, when the response is closed before its end, when the awaiting task is
  cancelled, and so when a pyctx_web graph run is cancelled;
- the request's read timeout bounds the wait for the response headers and for
  each piece of the body (``ReadTimeout``);
- request headers a browser forbids or that fail CORS preflights (``User-Agent``,
  the SDK's ``X-Stainless-*``...) are dropped: :data:`DEFAULT_DROPPED_HEADERS`,
  ``drop_headers`` and ``keep_headers`` say which;
- failures are the library's own exceptions: ``ConnectError`` when fetch could not
  reach the server (connection refused, a network error, or in a browser a CORS
  refusal, which looks the same to the page: the message says so), ``ReadTimeout``,
  ``ReadError``; an HTTP error status is an ordinary response;
- sync clients work where Pyodide can wait synchronously (JSPI,
  ``pyodide.ffi.can_run_sync()``); elsewhere their requests raise
  :class:`SyncFetchError`, whose message names the async form.

httpx, httpx2, openai and langchain_openai are imported only by the call that uses them.
"""

from __future__ import annotations

from pyctx_web.http._clients import (
    Credentials,
    async_client,
    chat_openai,
    fetch_transport,
    openai_client,
    openai_library,
    openai_sync_client,
    sync_client,
)
from pyctx_web.http._headers import DEFAULT_DROPPED_HEADERS, HeaderFilter
from pyctx_web.http._library import Library, LibraryMissingError, SyncFetchError, choose_library

__all__ = [
    "DEFAULT_DROPPED_HEADERS",
    "Credentials",
    "HeaderFilter",
    "Library",
    "LibraryMissingError",
    "SyncFetchError",
    "async_client",
    "chat_openai",
    "choose_library",
    "fetch_transport",
    "openai_client",
    "openai_library",
    "openai_sync_client",
    "sync_client",
]
