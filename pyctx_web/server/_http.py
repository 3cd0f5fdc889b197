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
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pyctx_web._homes import publish
from pyctx_web.errors import PyctxError

__all__ = [
    "ApiError",
    "Handler",
    "Request",
    "Response",
    "contains",
    "enum_field",
    "int_field",
    "json_response",
    "not_of_type",
    "not_one_of",
    "object_field",
    "page_of",
    "paging_headers",
    "parse_uuid",
    "schema_error",
    "select_fields",
    "sort_records",
]

JSON_TYPE = "application/json"


class ApiError(PyctxError):
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
        """The body parsed as JSON; 422 when it is not JSON (an empty body is not)."""
        try:
            return json.loads(self.body)
        except (ValueError, UnicodeDecodeError):
            raise ApiError(422, "Invalid JSON in request body") from None

    def json_body(self) -> dict[str, Any]:
        """The body as a JSON object; 422 for anything else, an empty body included.

        The LangGraph Server refuses an empty body wherever it reads one, so a
        client (the SDKs do) sends at least ``{}``.
        """
        data = self.json()
        if not isinstance(data, dict):
            raise not_of_type(data, "object", ())
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


def _shown(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def schema_error(instance: Any, problem: str, keyword: str, path: Sequence[str | int]) -> ApiError:
    """422 worded as the LangGraph Server's JSON Schema check words a body field it refuses.

    ``path`` leads from the body to the field: property names, and item
    indexes for the items of an array.
    """
    shown = _shown(instance)
    schema_path = "".join(
        f'["properties"]["{p}"]' if isinstance(p, str) else '["items"]' for p in path
    )
    instance_path = "".join(f'["{p}"]' if isinstance(p, str) else f"[{p}]" for p in path)
    return ApiError(
        422,
        f'{shown} {problem}\n\nFailed validating "{keyword}" in schema{schema_path}'
        f"\n\nOn instance{instance_path}:\n    {shown}",
    )


def not_of_type(instance: Any, type_name: str, path: Sequence[str | int]) -> ApiError:
    """422 for a field of the wrong JSON type (``object``, ``array``, ``integer``, ``string``)."""
    return schema_error(instance, f'is not of type "{type_name}"', "type", path)


def not_one_of(instance: Any, options: Sequence[Any], path: Sequence[str | int]) -> ApiError:
    """422 for a field whose value is none of ``options``."""
    quoted = [_shown(option) for option in options]
    if len(quoted) > 2:
        listing = f"{quoted[0]}, {quoted[1]} or {len(quoted) - 2} other candidates"
    else:
        listing = " or ".join(quoted)
    return schema_error(instance, f"is not one of {listing}", "enum", path)


def object_field(body: Mapping[str, Any], name: str) -> dict[str, Any] | None:
    """The body's field ``name`` when it is a JSON object (None when absent); 422 otherwise."""
    value = body.get(name)
    if value is not None and not isinstance(value, dict):
        raise not_of_type(value, "object", (name,))
    return value


def enum_field(body: Mapping[str, Any], name: str, options: Sequence[str]) -> str | None:
    """The body's field ``name`` when it is one of ``options`` (None when absent); 422 otherwise."""
    value = body.get(name)
    if value is not None and value not in options:
        raise not_one_of(value, options, (name,))
    return value


def int_field(
    body: Mapping[str, Any], name: str, default: int, minimum: int, maximum: int | None = None
) -> int:
    """The body's integer field ``name`` (``default`` when absent) within bounds; else 422."""
    value = body.get(name)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise not_of_type(value, "integer", (name,))
    if value < minimum:
        raise schema_error(value, f"is less than the minimum of {minimum}", "minimum", (name,))
    if maximum is not None and value > maximum:
        raise schema_error(value, f"is greater than the maximum of {maximum}", "maximum", (name,))
    return value


def page_of(body: Mapping[str, Any], records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``records`` cut to the body's ``offset`` (0 by default) and ``limit`` (10, at most 1000)."""
    limit = int_field(body, "limit", 10, 1, 1000)
    offset = int_field(body, "offset", 0, 0)
    return records[offset : offset + limit]


def paging_headers(body: Mapping[str, Any], found: list[dict[str, Any]]) -> dict[str, str]:
    """A search's pagination headers, as the LangGraph Server counts them.

    With a next page, ``x-pagination-next`` is its offset and
    ``x-pagination-total`` one more than that (not the number of matches);
    on the last page the total is the offset plus the page's length.
    """
    offset = int_field(body, "offset", 0, 0)
    end = offset + int_field(body, "limit", 10, 1, 1000)
    if end < len(found):
        return {"x-pagination-total": str(end + 1), "x-pagination-next": str(end)}
    return {"x-pagination-total": str(max(len(found), offset))}


def sort_records(
    body: Mapping[str, Any], records: list[dict[str, Any]], fields: Sequence[str], default: str
) -> list[dict[str, Any]]:
    """``records`` ordered by the body's ``sort_by`` (one of ``fields``, ``default`` when absent).

    ``sort_order`` is ``desc`` (the default) or ``asc``. Equal keys keep the
    order of ``records``.
    """
    sort_by = enum_field(body, "sort_by", fields) or default
    order = enum_field(body, "sort_order", ("asc", "desc")) or "desc"
    return sorted(records, key=lambda r: str(r.get(sort_by) or ""), reverse=order == "desc")


def select_fields(
    body: Mapping[str, Any], records: list[dict[str, Any]], fields: Sequence[str]
) -> list[dict[str, Any]]:
    """Each record cut to the body's ``select`` list (names among ``fields``), when it has one."""
    select = body.get("select")
    if select is None:
        return records
    if not isinstance(select, list):
        raise not_of_type(select, "array", ("select",))
    for index, name in enumerate(select):
        if name not in fields:
            raise not_one_of(name, fields, ("select", index))
    if not select:
        return records
    return [{name: record[name] for name in select if name in record} for record in records]


publish("pyctx_web.server", Request, Response)
