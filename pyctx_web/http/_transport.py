"""The fetch transport and its response stream, made for httpx or httpx2 when first asked for.

The behaviour lives in two plain classes, :class:`TransportMethods` and
:class:`StreamMethods`; for each library, :func:`classes` derives from them and
from the library's own base classes (async and sync alike) the classes the
library's clients accept. A sync request runs the async one through
``pyodide.ffi.run_sync`` where JSPI allows, else raises :class:`SyncFetchError`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Iterator
from types import ModuleType
from typing import Any, TypeVar

from pyctx_web._env import IN_PYODIDE
from pyctx_web.http._fetch import FetchCall
from pyctx_web.http._headers import HeaderFilter, response_headers
from pyctx_web.http._library import (
    SYNC_UNAVAILABLE,
    FetchFailure,
    SyncFetchError,
    failure_error,
)

if IN_PYODIDE:
    from pyodide.ffi import can_run_sync, run_sync

__all__ = ["StreamMethods", "TransportMethods", "classes"]

_T = TypeVar("_T")


def _wait(awaitable: Awaitable[_T]) -> _T:
    """The value of ``awaitable``, waited for synchronously (JSPI)."""
    if not can_run_sync():
        if hasattr(awaitable, "close"):
            awaitable.close()  # a coroutine never awaited would warn
        raise SyncFetchError(SYNC_UNAVAILABLE)
    return run_sync(awaitable)


def _library_error(library: ModuleType, failure: FetchFailure, request: Any) -> Exception:
    name, message = failure_error(failure)
    error: Exception = getattr(library, name)(message, request=request)
    return error


class StreamMethods:
    """A response body read through the fetch body's reader: async or (with JSPI) sync."""

    def __init__(self, library: ModuleType, call: FetchCall, request: Any) -> None:
        self._library = library
        self._call = call
        self._request = request

    async def _next(self) -> bytes | None:
        try:
            return await self._call.read()
        except FetchFailure as failure:
            raise _library_error(self._library, failure, self._request) from None

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while (chunk := await self._next()) is not None:
            if chunk:
                yield chunk

    def __iter__(self) -> Iterator[bytes]:
        while (chunk := _wait(self._next())) is not None:
            if chunk:
                yield chunk

    async def aclose(self) -> None:
        """Abort the request if its body was not read to the end."""
        self._call.abort()

    def close(self) -> None:
        """Abort the request if its body was not read to the end."""
        self._call.abort()


class TransportMethods:
    """Sends a library's requests through fetch; headers filtered by ``headers``."""

    def __init__(self, library: ModuleType, headers: HeaderFilter, credentials: str) -> None:
        self._library = library
        self._headers = headers
        self._credentials = credentials

    @property
    def library(self) -> str:
        """The name of the library whose requests this transport takes."""
        return self._library.__name__

    async def _send(self, request: Any, body: bytes) -> Any:
        timeout = (request.extensions.get("timeout") or {}).get("read")
        call = FetchCall(
            str(request.url),
            request.method,
            self._headers.request_headers(request.headers.multi_items()),
            body or None,
            self._credentials,
            timeout,
        )
        try:
            await call.start()
        except FetchFailure as failure:
            raise _library_error(self._library, failure, request) from None
        _, stream_class = classes(self._library)
        return self._library.Response(
            status_code=call.status,
            headers=response_headers(call.headers),
            stream=stream_class(self._library, call, request),
            request=request,
        )

    async def handle_async_request(self, request: Any) -> Any:
        """Send ``request`` and return its response once the headers are in; the body streams."""
        return await self._send(request, await request.aread())

    def handle_request(self, request: Any) -> Any:
        """As :meth:`handle_async_request`, synchronously: only where JSPI allows."""
        return _wait(self._send(request, request.read()))

    async def aclose(self) -> None:
        """Nothing to release: fetch keeps no connection of the transport's."""

    def close(self) -> None:
        """Nothing to release: fetch keeps no connection of the transport's."""


_classes: dict[str, tuple[type, type]] = {}


def classes(library: ModuleType) -> tuple[type, type]:
    """The transport and stream classes for ``library`` (httpx or httpx2), made once."""
    made = _classes.get(library.__name__)
    if made is None:
        namespace = {"__module__": __name__}
        transport = type(
            "FetchTransport",
            (TransportMethods, library.AsyncBaseTransport, library.BaseTransport),
            {**namespace, "__doc__": TransportMethods.__doc__},
        )
        stream = type(
            "FetchByteStream",
            (StreamMethods, library.AsyncByteStream, library.SyncByteStream),
            {**namespace, "__doc__": StreamMethods.__doc__},
        )
        made = _classes[library.__name__] = (transport, stream)
    return made
