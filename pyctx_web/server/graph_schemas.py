"""What ``/assistants/{id}/schemas`` and ``/subgraphs`` tell of a graph: its JSON Schemas.

As the LangGraph Server describes a graph: the input and output schemas are
the JSON Schemas of the state type (of the keys ``input_schema`` and
``output_schema`` allow, when given), the state schema lists every state key
as optional (``default: null``), the config schema is empty and the context
schema is the graph's. The schemas are pydantic's, as LangGraph makes them:
a graph on a Python without pydantic gets :class:`~pyctx_web.errors.UsageError`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any, get_args, get_origin, get_type_hints

from pyctx_web.errors import UsageError
from pyctx_web.graph.state import CompiledStateGraph

__all__ = ["graph_schemas", "subgraphs_of"]


def _pydantic() -> Any:
    try:
        import pydantic
    except ImportError:
        raise UsageError("a graph's JSON Schemas need pydantic; install pydantic") from None
    return pydantic


def _bare(hint: Any) -> Any:
    """``hint`` without its ``Annotated`` reducer."""
    return get_args(hint)[0] if get_origin(hint) is Annotated else hint


def _keys_schema(pydantic: Any, graph: CompiledStateGraph, keys: tuple[str, ...] | None) -> Any:
    """The JSON Schema of the state type, or of its ``keys`` (all of them required)."""
    state_type = graph.spec.schema.state_type
    if keys is None:
        return pydantic.TypeAdapter(state_type).json_schema()
    hints = get_type_hints(state_type, include_extras=True)
    fields = {key: (_bare(hints.get(key, Any)), ...) for key in keys}
    return pydantic.create_model(state_type.__name__, **fields).model_json_schema()


def _state_schema(pydantic: Any, graph: CompiledStateGraph, title: str) -> Any:
    """Every state key, optional: what a state update may hold."""
    fields: dict[str, Any] = {}
    for key, hint in graph.spec.schema.annotations.items():
        bare = _bare(hint)
        try:
            pydantic.TypeAdapter(bare).json_schema()
        except Exception:
            bare = Any
        fields[key] = (bare, None)
    return pydantic.create_model(title, **fields).model_json_schema()


def graph_schemas(graph: CompiledStateGraph, name: str | None = None) -> dict[str, Any]:
    """The graph's ``input_schema``, ``output_schema``, ``state_schema``, ``config_schema``
    and ``context_schema``; ``name`` (the graph id) titles the state schema."""
    pydantic = _pydantic()
    schema = graph.spec.schema
    # A graph compiled without a name is "graph" here and "LangGraph" on LangGraph.
    name = name or (graph.name if graph.name != "graph" else "LangGraph")
    # As LangGraph's Runnable.get_name("State") spells it.
    title = f"{name}State" if name[:1].isupper() else f"{name}_state"
    return {
        "input_schema": _keys_schema(pydantic, graph, schema.input_keys),
        "output_schema": _keys_schema(pydantic, graph, schema.output_keys),
        "state_schema": _state_schema(pydantic, graph, title),
        "config_schema": {},
        "context_schema": graph.get_context_jsonschema(),
    }


def subgraphs_of(
    graph: CompiledStateGraph, namespace: str | None, recurse: bool
) -> Iterator[tuple[str, CompiledStateGraph]]:
    """The graph's subgraph nodes as ``(namespace, graph)``: only ``namespace``'s when given;
    with ``recurse`` their own subgraphs too, named ``node|inner``."""
    for name, node in graph.spec.nodes.items():
        child = getattr(node.fn, "subgraph", None)
        if not isinstance(child, CompiledStateGraph):
            continue
        if namespace is not None and not (namespace == name or namespace.startswith(name + "|")):
            continue
        if namespace is None or namespace == name:
            yield name, child
        if recurse or (namespace is not None and namespace != name):
            inner = None if namespace in (None, name) else namespace[len(name) + 1 :]
            for path, grandchild in subgraphs_of(child, inner, recurse):
                yield f"{name}|{path}", grandchild
