"""The agent server: a request is matched to a route of the LangGraph Server API and answered.

:class:`AgentServer` collects the ``ROUTES`` of the route modules (each a list
of ``(method, path pattern, handler)``, a pattern's ``{name}`` segments passed
to the handler as keyword arguments) into one table. A path no route has gets
404 ``Not Found``, a path some route has under another method 405; an
:class:`~pyctx_web.server._http.ApiError` a handler raises becomes its
``{"detail": ...}`` response, a ``ValueError`` 400 with its message and any
other exception 500, as on the LangGraph Server; a failure of the storage (a
page's full IndexedDB) is a 500 whose detail names it. The server knows no transport: :mod:`.asgi`
serves it over HTTP on CPython, the page's ``fetch`` in a Web Worker.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from typing import Any

from pyctx_web.errors import ArgumentValueError
from pyctx_web.graph.checkpoint import Checkpointer
from pyctx_web.graph.errors import CheckpointStorageError
from pyctx_web.graph.state import CompiledStateGraph
from pyctx_web.server import assistants, run_control, runs, state_routes, threads
from pyctx_web.server._core import (
    EventLog,
    RunStore,
    ServerCore,
    ServerStorage,
    ServerStorageError,
    ThreadStore,
)
from pyctx_web.server._http import ApiError, Handler, Request, Response, json_response

__all__ = ["ROUTE_MODULES", "AgentServer", "Route"]

_log = logging.getLogger(__name__)

_TEXT_TYPE = "text/plain; charset=utf-8"

ROUTE_MODULES = (assistants, threads, state_routes, runs, run_control)
"""The modules whose ``ROUTES`` the server serves."""


class Route:
    """One route: a method, a path pattern such as ``/threads/{thread_id}``, its handler."""

    def __init__(self, method: str, pattern: str, handler: Handler) -> None:
        if not pattern.startswith("/"):
            raise ArgumentValueError(f"route pattern {pattern!r} must start with '/'")
        self.method, self.pattern, self.handler = method, pattern, handler
        self.segments = pattern[1:].split("/")

    @property
    def literal_count(self) -> int:
        """How many segments are fixed text: routes with more win over ones with fewer."""
        return sum(not s.startswith("{") for s in self.segments)

    def match(self, parts: list[str]) -> dict[str, str] | None:
        """The path parameters when ``parts`` (a path split on ``/``) fits the pattern."""
        if len(parts) != len(self.segments):
            return None
        params: dict[str, str] = {}
        for segment, part in zip(self.segments, parts, strict=True):
            if segment.startswith("{"):
                if not part:
                    return None
                params[segment[1:-1]] = part
            elif segment != part:
                return None
        return params


class AgentServer(ServerCore):
    """The LangGraph Server API over ``graphs`` (graph id -> compiled graph).

    ``storage`` keeps the checkpoints, threads, runs and their events: a
    :class:`~pyctx_web.server._core.MemoryStorage` when none is given;
    ``SqliteStorage(path)`` (:mod:`.store_sqlite`) or, in a browser,
    ``IndexedDBStorage(name)`` (:mod:`.store_indexeddb`) keep them across
    reloads and share them between tabs or processes. ``checkpointer``,
    ``threads``, ``runs`` and ``events`` replace the storage's one by one.
    """

    def __init__(
        self,
        graphs: Mapping[str, CompiledStateGraph],
        *,
        storage: ServerStorage | None = None,
        checkpointer: Checkpointer | None = None,
        threads: ThreadStore | None = None,
        runs: RunStore | None = None,
        events: EventLog | None = None,
    ) -> None:
        super().__init__(
            graphs,
            storage=storage,
            checkpointer=checkpointer,
            threads=threads,
            runs=runs,
            events=events,
        )
        routes = [Route(*entry) for module in ROUTE_MODULES for entry in module.ROUTES]
        self.routes = sorted(routes, key=lambda route: -route.literal_count)

    def _candidates(self, path: str) -> Iterator[tuple[Route, dict[str, str]]]:
        # No trailing-slash leniency: "/ok/" is not "/ok", as on the LangGraph Server.
        parts = path[1:].split("/") if path.startswith("/") else [path]
        for route in self.routes:
            params = route.match(parts)
            if params is not None:
                yield route, params

    async def handle(self, request: Request) -> Response:
        """The response to ``request``: the matching route's, or the error the API gives."""
        allowed = False
        for route, params in self._candidates(request.path):
            if route.method != request.method.upper():
                allowed = True
                continue
            return await self._call(route, request, params)
        if allowed:
            return json_response(405, {"detail": "Method Not Allowed"})
        return json_response(404, {"detail": "Not Found"})

    async def _call(self, route: Route, request: Request, params: dict[str, Any]) -> Response:
        try:
            return await route.handler(self, request, **params)
        except ApiError as error:
            return error.response()
        except ValueError as error:
            # The LangGraph Server answers a ValueError (InvalidUpdateError is one) as a bad
            # request; logged too, as it logs them.
            _log.exception("%s %s refused", request.method, request.path)
            return json_response(400, {"detail": str(error)})
        except (ServerStorageError, CheckpointStorageError) as error:
            # The page's own storage failed (full, blocked, closed): unlike a bug, what failed
            # is for the page to say, as the real server's storage never fails this way.
            _log.exception("%s %s: storage failed", request.method, request.path)
            return json_response(500, {"detail": f"{type(error).__name__}: {error}"})
        except Exception:
            # A bug, not a refusal: logged with its traceback, answered as a server error.
            _log.exception("%s %s failed", request.method, request.path)
            return Response(500, {"content-type": _TEXT_TYPE}, b"Internal Server Error")
