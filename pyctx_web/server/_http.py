"""Transport-neutral HTTP types for the agent server: a request in, a response out.

:class:`Request` and :class:`Response` carry no transport: :mod:`.asgi` builds
them from an ASGI scope on CPython, the page's ``fetch`` builds them from a
JavaScript ``Request`` in a Web Worker. A handler that refuses a request raises
:class:`ApiError`, which :class:`~pyctx_web.server.app.AgentServer` turns into
the ``{"detail": ...}`` JSON body the LangGraph Server answers errors with.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pyctx_web._homes import publish

__all__ = [
    "ApiError",
    "Handler",
    "Request",
    "Response",
    "contains",
    "json_response",
    "page_of",
    "parse_uuid",
    "select_fields",
    "sort_records",
]

JSON_TYPE = "application/json"


class ApiError(Exception):
    """A refused request: answered with ``status`` and ``{"detail": detail}``."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail

    def response(self) -> Response:
        """The JSON response the server gives for this error."""
        return json_response(self.status, {"detail": self.detail})


@dataclass(frozen=True)
class Request:
    """One HTTP request: header names are lower-case, ``query`` maps a name to all its values."""

    method: str
    path: str
    query: Mapping[str, list[str]] = field(default_factory=dict)
    headers: Mapping[str, str] = field(default_factory=dict)
    body: bytes = b""

    def query_value(self, name: str) -> str | None:
        """The first value of query parameter ``name``, or None when absent."""
        values = self.query.get(name)
        return values[0] if values else None

    def json(self) -> Any:
        """The body parsed as JSON (None when empty); 422 when it is not JSON."""
        if not self.body.strip():
            return None
        try:
            return json.loads(self.body)
        except (ValueError, UnicodeDecodeError):
            raise ApiError(422, "Invalid JSON in request body") from None

    def json_body(self) -> dict[str, Any]:
        """The body as a JSON object (``{}`` when empty); 422 when it is anything else."""
        data = self.json()
        if data is None:
            return {}
        if not isinstance(data, dict):
            raise ApiError(422, "Request body must be a JSON object")
        return data


@dataclass
class Response:
    """One HTTP response: a whole body, or an async iterator of chunks for a stream."""

    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | AsyncIterator[bytes] = b""


Handler = Callable[..., Awaitable[Response]]
"""A route handler: ``async def handler(server, request, **path_params) -> Response``."""


def json_response(status: int, data: Any, headers: Mapping[str, str] | None = None) -> Response:
    """A response whose body is ``data`` as compact JSON."""
    body = json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()
    return Response(status, {"content-type": JSON_TYPE, **(headers or {})}, body)


def parse_uuid(value: Any, what: str) -> str:
    """``value`` as a canonical UUID string; 422 ``Invalid <what> ID: must be a UUID`` otherwise."""
    try:
        return str(uuid.UUID(value))
    except (TypeError, ValueError, AttributeError):
        raise ApiError(422, f"Invalid {what} ID: must be a UUID") from None


def contains(value: Any, wanted: Any) -> bool:
    """Whether ``value`` holds ``wanted``: every key of a wanted dict, recursively, else equality.

    The search endpoints' ``metadata`` and ``values`` filters match this way, as
    JSON containment (``@>``) does on the LangGraph Server's Postgres.
    """
    if isinstance(wanted, dict):
        return isinstance(value, dict) and all(
            key in value and contains(value[key], item) for key, item in wanted.items()
        )
    return bool(value == wanted)


def page_of(body: Mapping[str, Any], records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``records`` cut to the body's ``offset`` and ``limit`` (0 and 10 by default); 422 if bad."""
    limit = _count_field(body, "limit", 10)
    offset = _count_field(body, "offset", 0)
    return records[offset : offset + limit]


def sort_records(
    body: Mapping[str, Any], records: list[dict[str, Any]], fields: tuple[str, ...]
) -> list[dict[str, Any]]:
    """``records`` ordered by the body's ``sort_by`` (one of ``fields``, the first by default).

    ``sort_order`` is ``desc`` (the default) or ``asc``; other values get 422.
    """
    sort_by = body.get("sort_by") or fields[0]
    if sort_by not in fields:
        raise ApiError(422, f"Invalid sort_by {sort_by!r}: expected one of {', '.join(fields)}")
    order = body.get("sort_order") or "desc"
    if order not in ("asc", "desc"):
        raise ApiError(422, f"Invalid sort_order {order!r}: expected asc or desc")
    return sorted(records, key=lambda r: str(r.get(sort_by) or ""), reverse=order == "desc")


def select_fields(body: Mapping[str, Any], records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each record cut to the body's ``select`` list of field names, when it has one."""
    select = body.get("select")
    if not select:
        return records
    if not isinstance(select, list) or not all(isinstance(name, str) for name in select):
        raise ApiError(422, "Invalid select: expected a list of field names")
    return [{name: record[name] for name in select if name in record} for record in records]


def _count_field(body: Mapping[str, Any], name: str, default: int) -> int:
    value = body.get(name)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ApiError(422, f"Invalid {name} {value!r}: expected a non-negative integer")
    return value


publish("pyctx_web.server", Request, Response)
