"""The LangGraph Server (Agent Server) HTTP API, served from Python over :mod:`pyctx_web.graph`.

LangGraph's client SDKs (``@langchain/langgraph-sdk``'s ``Client`` and
``useStream``, the Python ``langgraph-sdk``) talk to an :class:`AgentServer`
as they talk to a LangGraph Server: assistants from the graphs it was given,
threads, their state and history, runs and their event streams. It runs in a
Web Worker (behind the page's ``fetch``), in Node and on CPython, where
:func:`asgi_app` mounts it as an ASGI application.

The layout:

- :mod:`._http`: :class:`Request` and :class:`Response`, which carry no
  transport, and ``ApiError`` (a ``{"detail": ...}`` error response);
- :mod:`._core`: what handlers read (the graphs, the checkpointer, the
  thread store);
- :mod:`.app`: :class:`AgentServer`, the route table the route modules fill;
- route modules, each with its ``ROUTES``: :mod:`.assistants` (also ``/ok``
  and ``/info``), :mod:`.threads`, :mod:`.state_routes` (a thread's state and
  history), :mod:`.runs` (runs and their event streams);
- :mod:`.asgi`: the ASGI adapter (with the LangGraph Server's CORS headers).
"""

from __future__ import annotations

from pyctx_web.server._http import Request, Response
from pyctx_web.server.app import AgentServer
from pyctx_web.server.asgi import asgi_app

__all__ = ["AgentServer", "Request", "Response", "asgi_app"]
