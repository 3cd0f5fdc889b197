"""What ``/assistants/{id}/schemas`` and ``/subgraphs`` tell of a graph: its JSON Schemas.

As the LangGraph Server describes a graph: the input and output schemas are
the JSON Schemas of the state type (of the keys ``input_schema`` and
``output_schema`` allow, when given), the state schema lists every state key
as optional (``default: null``), the config schema is empty and the context
schema is the graph's. The schemas are pydantic's, as LangGraph makes them;
where pydantic is not installed (a page's worker), :mod:`._plain_schema` writes
the same for the plain types a state holds.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Annotated, Any, get_args, get_origin, get_type_hints

from pyctx_web.graph._engine.channels import is_typed_dict
from pyctx_web.graph.state import CompiledStateGraph
from pyctx_web.server._plain_schema import key_mark, plain_object_schema, plain_state_schema

__all__ = ["graph_schemas", "subgraphs_of"]


# A bool, not a version test where it is used: mypy checks this module for one version only.
_BEFORE_312: bool = sys.version_info < (3, 12)


def _pydantic() -> Any:
    """The pydantic module, or None where it is not installed."""
    try:
        import pydantic
    except ImportError:
        return None
    return pydantic


def _adaptable(pydantic: Any, state_type: Any) -> Any:
    """``state_type`` as pydantic takes it: before Python 3.12 pydantic refuses a
    ``typing.TypedDict``, which is then remade, same name, keys and docstring, with
    ``typing_extensions``' (as LangGraph's users are told to write it there)."""
    if not _BEFORE_312 or not is_typed_dict(state_type):
        return state_type
    try:
        pydantic.TypeAdapter(state_type)
    except pydantic.errors.PydanticUserError:
        import typing_extensions

        hints = get_type_hints(state_type, include_extras=True)
        required = state_type.__required_keys__
        fields = {
            k: v if k in required else typing_extensions.NotRequired[v] for k, v in hints.items()
        }
        make: Any = typing_extensions.TypedDict
        remade = make(state_type.__name__, fields)
        remade.__doc__, remade.__module__ = state_type.__doc__, state_type.__module__
        return remade
    return state_type


def _bare(hint: Any) -> Any:
    """``hint`` without its ``Annotated`` reducer or ``NotRequired`` mark: the values' type."""
    while get_origin(hint) is Annotated or key_mark(hint):
        hint = get_args(hint)[0]
    return hint


def _keys_schema(pydantic: Any, graph: CompiledStateGraph, keys: tuple[str, ...] | None) -> Any:
    """The JSON Schema of the state type, or of its ``keys`` (all of them required)."""
    state_type = graph.spec.schema.state_type
    if pydantic is None:
        return plain_object_schema(state_type, keys=keys)
    if keys is None:
        return pydantic.TypeAdapter(_adaptable(pydantic, state_type)).json_schema()
    hints = get_type_hints(state_type, include_extras=True)
    fields = {key: (_bare(hints.get(key, Any)), ...) for key in keys}
    return pydantic.create_model(state_type.__name__, **fields).model_json_schema()


def _state_schema(pydantic: Any, graph: CompiledStateGraph, title: str) -> Any:
    """Every state key, optional: what a state update may hold."""
    if pydantic is None:
        return plain_state_schema(graph.spec.schema.annotations, title)
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
        "context_schema": _context_schema(pydantic, graph),
    }


def _context_schema(pydantic: Any, graph: CompiledStateGraph) -> Any:
    context = graph.context_schema
    if pydantic is not None or context is None:
        return graph.get_context_jsonschema()
    return plain_object_schema(context) if isinstance(context, type) else {}


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
