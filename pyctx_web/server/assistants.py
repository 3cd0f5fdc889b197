"""Assistants (one per registered graph), ``/assistants/search``, ``/ok`` and ``/info``.

Each graph the server was given is served as one assistant, as ``langgraph
dev`` serves each graph of ``langgraph.json``: its ``assistant_id`` is
``uuid5(NAMESPACE_GRAPH, graph_id)`` with the namespace UUID the LangGraph
Server uses (``6ba7b821-9dad-11d1-80b4-00c04fd430c8``), so a graph has the
same assistant id here as on a LangGraph Server, and a client that stored it
finds the same assistant on either. Wherever a run names its assistant, the
graph id is accepted too (:func:`resolve_assistant`); ``/assistants/{id}``
takes the UUID only.
"""

from __future__ import annotations

import uuid
from typing import Any
from urllib.parse import unquote

from pyctx_web import __version__
from pyctx_web.graph.state import CompiledStateGraph
from pyctx_web.server._core import ServerCore
from pyctx_web.server._http import (
    ApiError,
    Handler,
    Request,
    Response,
    contains,
    json_response,
    object_field,
    page_of,
    paging_headers,
    parse_uuid,
    select_fields,
    sort_records,
)

__all__ = [
    "NAMESPACE_GRAPH",
    "ROUTES",
    "SELECT_FIELDS",
    "SORT_FIELDS",
    "assistant_id_of",
    "assistants_of",
    "resolve_assistant",
]

NAMESPACE_GRAPH = uuid.UUID("6ba7b821-9dad-11d1-80b4-00c04fd430c8")
"""The namespace of assistant ids derived from graph ids, the LangGraph Server's."""

SORT_FIELDS = ("assistant_id", "created_at", "updated_at", "name", "graph_id")
"""What a search sorts by, in the order the API's schema lists them."""

SELECT_FIELDS = (
    "assistant_id",
    "graph_id",
    "name",
    "description",
    "config",
    "context",
    "created_at",
    "updated_at",
    "metadata",
    "version",
)


def assistant_id_of(graph_id: str) -> str:
    """The assistant id a graph id gets, on this server as on a LangGraph Server."""
    return str(uuid.uuid5(NAMESPACE_GRAPH, graph_id))


def assistants_of(server: ServerCore) -> list[dict[str, Any]]:
    """The server's assistants, one per graph, in the order the graphs were given."""
    return [
        {
            "assistant_id": assistant_id_of(graph_id),
            "graph_id": graph_id,
            "config": {},
            "context": {},
            "metadata": {"created_by": "system"},
            "name": graph_id,
            "created_at": server.created_at,
            "updated_at": server.created_at,
            "version": 1,
            "description": None,
        }
        for graph_id in server.graphs
    ]


def resolve_assistant(
    server: ServerCore, assistant_id: Any
) -> tuple[dict[str, Any], CompiledStateGraph]:
    """The assistant a run names (by assistant id or graph id) and its graph.

    An id that is neither a graph id nor a UUID gets 422 listing the graphs, an
    unknown UUID 404, in the LangGraph Server's words.
    """
    if isinstance(assistant_id, str) and assistant_id in server.graphs:
        assistant_id = assistant_id_of(assistant_id)
    try:
        wanted = parse_uuid(assistant_id, "assistant")
    except ApiError:
        raise ApiError(
            422,
            f"Invalid assistant: '{assistant_id}'. Must be either:\n"
            "- A valid assistant UUID, or\n"
            f"- One of the registered graphs: {', '.join(server.graphs)}",
        ) from None
    for assistant in assistants_of(server):
        if assistant["assistant_id"] == wanted:
            return assistant, server.graphs[assistant["graph_id"]]
    raise ApiError(404, "Thread or assistant not found.")


async def _ok(server: ServerCore, request: Request) -> Response:
    """``GET /ok``: the server is up."""
    return json_response(200, {"ok": True, "services": {}})


async def _info(server: ServerCore, request: Request) -> Response:
    """``GET /info``: what this server is and which optional features it has."""
    return json_response(
        200,
        {
            "version": __version__,
            "langgraph_py_version": None,
            "flags": {"assistants": True, "crons": False, "langsmith": False},
            "host": {
                "kind": "pyctx_web",
                "project_id": None,
                "host_revision_id": None,
                "revision_id": None,
                "tenant_id": None,
            },
        },
    )


def _matching(server: ServerCore, body: dict[str, Any]) -> list[dict[str, Any]]:
    """The assistants a search or count body asks for, the last registered first.

    ``name`` matches a part of the name, whatever its case; ``graph_id``
    exactly; ``metadata`` each of its keys.
    """
    graph_id, name = body.get("graph_id"), body.get("name")
    metadata = object_field(body, "metadata") or {}
    return [
        assistant
        for assistant in reversed(assistants_of(server))
        if (graph_id is None or assistant["graph_id"] == graph_id)
        and (name is None or str(name).lower() in assistant["name"].lower())
        and contains(assistant["metadata"], metadata)
    ]


async def _search(server: ServerCore, request: Request) -> Response:
    """``POST /assistants/search``: by graph id, name and metadata; newest first; paged."""
    body = request.json_body()
    found = sort_records(body, _matching(server, body), SORT_FIELDS, "created_at")
    page = page_of(body, found)
    return json_response(200, select_fields(body, page, SELECT_FIELDS), paging_headers(body, found))


async def _count(server: ServerCore, request: Request) -> Response:
    """``POST /assistants/count``: how many assistants the search filters match."""
    return json_response(200, len(_matching(server, request.json_body())))


async def _get(server: ServerCore, request: Request, assistant_id: str) -> Response:
    """``GET /assistants/{assistant_id}``: one assistant by its UUID (404 ``Not Found``)."""
    wanted = parse_uuid(assistant_id, "assistant")
    for assistant in assistants_of(server):
        if assistant["assistant_id"] == wanted:
            return json_response(200, assistant)
    raise ApiError(404, "Not Found")


def _graph_of(server: ServerCore, assistant_id: str) -> tuple[str, CompiledStateGraph]:
    """The graph id and graph of an assistant named by its UUID: 422 for an id that is not
    one, 404 for an unknown one, in the LangGraph Server's words."""
    try:
        wanted = parse_uuid(assistant_id, "assistant")
    except ApiError:
        raise ApiError(422, "Invalid assistant ID: must be a UUID") from None
    for assistant in assistants_of(server):
        if assistant["assistant_id"] == wanted:
            graph_id = assistant["graph_id"]
            return graph_id, server.graphs[graph_id]
    raise ApiError(404, "Not Found")


def _xray(value: str | None) -> bool | int:
    """The ``xray`` query value: ``true``/``false`` or a depth above 0 (else 422)."""
    if not value or value in ("false", "False"):
        return False
    if value in ("true", "True"):
        return True
    try:
        depth = int(value)
    except ValueError:
        depth = 0
    if depth <= 0:
        raise ApiError(422, "Invalid xray value")
    return depth


async def _drawing(server: ServerCore, request: Request, assistant_id: str) -> Response:
    """``GET /assistants/{assistant_id}/graph``: the graph's nodes and edges (``xray``: with
    its subgraphs' drawn in, to that depth); a graph id is accepted for the assistant."""
    if assistant_id in server.graphs:
        assistant_id = assistant_id_of(assistant_id)
    _, graph = _graph_of(server, assistant_id)
    drawing = graph.get_graph(xray=_xray(request.query_value("xray"))).to_json()
    for node in drawing["nodes"]:
        data = node.get("data")
        if isinstance(data, dict):
            data.pop("id", None)  # the function's import path: the server keeps it to itself
    return json_response(200, drawing)


async def _schemas(server: ServerCore, request: Request, assistant_id: str) -> Response:
    """``GET /assistants/{assistant_id}/schemas``: the graph's JSON Schemas."""
    # Imported here: building schemas is needed by no run, and the module is a large part of
    # what a worker would otherwise import before its first message.
    from pyctx_web.server.graph_schemas import graph_schemas

    graph_id, graph = _graph_of(server, assistant_id)
    return json_response(200, {"graph_id": graph_id, **graph_schemas(graph, graph_id)})


async def _subgraphs(
    server: ServerCore, request: Request, assistant_id: str, namespace: str | None = None
) -> Response:
    """``GET /assistants/{assistant_id}/subgraphs[/{namespace}]``: each subgraph node's
    schemas by namespace (``recurse=true``: theirs too)."""
    from pyctx_web.server.graph_schemas import graph_schemas, subgraphs_of  # as in _schemas

    _, graph = _graph_of(server, assistant_id)
    recurse = request.query_value("recurse") in ("true", "True")
    wanted = None if namespace is None else unquote(namespace)  # "a|b" arrives as "a%7Cb"
    found = {ns: graph_schemas(child) for ns, child in subgraphs_of(graph, wanted, recurse)}
    return json_response(200, found)


ROUTES: list[tuple[str, str, Handler]] = [
    ("GET", "/ok", _ok),
    ("GET", "/info", _info),
    ("POST", "/assistants/search", _search),
    ("POST", "/assistants/count", _count),
    ("GET", "/assistants/{assistant_id}", _get),
    ("GET", "/assistants/{assistant_id}/graph", _drawing),
    ("GET", "/assistants/{assistant_id}/schemas", _schemas),
    ("GET", "/assistants/{assistant_id}/subgraphs", _subgraphs),
    ("GET", "/assistants/{assistant_id}/subgraphs/{namespace}", _subgraphs),
]
