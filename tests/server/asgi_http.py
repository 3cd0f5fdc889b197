"""An ASGI 3 application served over real HTTP/1.1 on 127.0.0.1, from a thread of its own.

The server tier runs the same client flows, over the same HTTP client, against the real
LangGraph Server and against pyctx_web's ``asgi_app``; this is the small server that puts
the latter on a port (h11 for the HTTP framing, asyncio streams for the sockets; no ASGI
server is installed in ``.venv``). One request per connection (``connection: close``), so
a client that goes away is seen as end of file on the socket, which the app receives as
``http.disconnect``. Errors the app raises are kept in :attr:`AsgiHttpServer.errors`.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, MutableMapping
from types import TracebackType
from typing import Any
from urllib.parse import unquote

import h11

Message = MutableMapping[str, Any]
ASGIApp = Callable[
    [
        MutableMapping[str, Any],
        Callable[[], Awaitable[Message]],
        Callable[[Message], Awaitable[None]],
    ],
    Awaitable[None],
]


class AsgiHttpServer:
    """``with AsgiHttpServer(app) as base_url:`` serves ``app`` until the block ends."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.errors: list[BaseException] = []
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._port = 0
        self._thread = threading.Thread(target=self._run, name="asgi-http", daemon=True)

    def __enter__(self) -> str:
        self._thread.start()
        self._ready.wait()
        if not self._port:
            raise RuntimeError(f"the ASGI HTTP server did not start: {self.errors!r}")
        return f"http://127.0.0.1:{self._port}"

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        stop = self._stop
        if stop is not None:
            self._loop.call_soon_threadsafe(stop.set)
        self._thread.join()

    def _run(self) -> None:
        try:
            self._loop.run_until_complete(self._serve())
        except BaseException as error:
            self.errors.append(error)
        finally:
            self._ready.set()
            self._loop.close()

    async def _serve(self) -> None:
        self._stop = asyncio.Event()
        server = await asyncio.start_server(self._connection, "127.0.0.1", 0)
        self._port = server.sockets[0].getsockname()[1]
        self._ready.set()
        async with server:
            await self._stop.wait()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await _Exchange(self.app, reader, writer).run()
        except Exception as error:
            self.errors.append(error)
        finally:
            writer.close()


class _Exchange:
    """One request on one connection, handed to the app and its response written back."""

    def __init__(
        self, app: ASGIApp, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        self.app, self.reader, self.writer = app, reader, writer
        self.connection = h11.Connection(h11.SERVER)
        self.disconnected = asyncio.Event()
        self.body_sent = False

    async def _next_event(self) -> Any:
        while True:
            event = self.connection.next_event()
            if event is not h11.NEED_DATA:
                return event
            self.connection.receive_data(await self.reader.read(65536))

    async def run(self) -> None:
        request = await self._next_event()
        if not isinstance(request, h11.Request):
            return  # the client closed the connection before sending a request
        body = bytearray()
        while not isinstance(event := await self._next_event(), h11.EndOfMessage):
            if isinstance(event, h11.Data):
                body += event.data
        watcher = asyncio.create_task(self._watch())
        try:
            await self.app(_scope(request, self.writer), self._receive(bytes(body)), self._send)
        finally:
            watcher.cancel()

    async def _watch(self) -> None:
        # Nothing more comes on a one-request connection: end of file means the client left.
        while await self.reader.read(65536):
            pass
        self.disconnected.set()

    def _receive(self, body: bytes) -> Callable[[], Awaitable[Message]]:
        pending = [{"type": "http.request", "body": body, "more_body": False}]

        async def receive() -> Message:
            if pending:
                return pending.pop()
            await self.disconnected.wait()
            return {"type": "http.disconnect"}

        return receive

    async def _send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = [(bytes(name), bytes(value)) for name, value in message["headers"]]
            headers.append((b"connection", b"close"))
            self._write(h11.Response(status_code=message["status"], headers=headers))
        elif message["type"] == "http.response.body":
            if message.get("body"):
                self._write(h11.Data(data=message["body"]))
            if not message.get("more_body", False):
                self._write(h11.EndOfMessage())
            await self.writer.drain()
        else:
            raise ValueError(f"unexpected ASGI message {message['type']!r}")

    def _write(self, event: Any) -> None:
        data = self.connection.send(event)
        if data:
            self.writer.write(data)


def _scope(request: h11.Request, writer: asyncio.StreamWriter) -> dict[str, Any]:
    target = request.target.decode("latin-1")
    path, _, query = target.partition("?")
    host, port = writer.get_extra_info("sockname")[:2]
    client = writer.get_extra_info("peername")[:2]
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": request.method.decode("ascii"),
        "scheme": "http",
        "path": unquote(path),
        "raw_path": path.encode("latin-1"),
        "query_string": query.encode("latin-1"),
        "root_path": "",
        "headers": [(name.lower(), value) for name, value in request.headers],
        "client": tuple(client),
        "server": (host, port),
    }
