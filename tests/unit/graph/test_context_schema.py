"""A compiled graph's context_schema, its JSON Schema, and the deprecated config_schema()."""

from __future__ import annotations

import pytest

# pydantic builds JSON Schemas of typing_extensions' TypedDict only, before Python 3.12.
from typing_extensions import TypedDict

from pyctx_web.graph import START, StateGraph
from pyctx_web.graph.state import CompiledStateGraph
from pyctx_web.graph.warnings import LangGraphDeprecatedSinceV10


class State(TypedDict, total=False):
    """One value."""

    x: int


class Context(TypedDict):
    """What a run is told."""

    model: str


def _graph(context_schema: type | None) -> CompiledStateGraph:
    builder = StateGraph(State, context_schema=context_schema)
    return builder.add_node("a", lambda s: {"x": 1}).add_edge(START, "a").compile(name="Agent")


def test_a_compiled_graph_tells_its_context_schema() -> None:
    """graph.context_schema is the type given to StateGraph(context_schema=...), or None."""
    assert _graph(Context).context_schema is Context
    assert _graph(None).context_schema is None


def test_get_context_jsonschema_describes_the_context() -> None:
    """get_context_jsonschema() is the context schema's JSON Schema; None without one."""
    schema = _graph(Context).get_context_jsonschema()
    assert schema is not None
    assert schema["properties"] == {"model": {"title": "Model", "type": "string"}}
    assert schema["required"] == ["model"]
    assert _graph(None).get_context_jsonschema() is None


def test_config_schema_is_deprecated_and_puts_the_context_under_configurable() -> None:
    """config_schema() warns (deprecated) and gives a model whose configurable is the context."""
    with pytest.warns(
        LangGraphDeprecatedSinceV10,
        match=(
            r"^`config_schema` is deprecated\. Use `get_context_jsonschema` for the relevant"
            r" schema instead\. Deprecated in LangGraph V1\.0 to be removed in V2\.0\.$"
        ),
    ):
        model = _graph(Context).config_schema()
    assert model.__name__ == "AgentConfig"
    assert list(model.model_fields) == ["configurable"]  # type: ignore[attr-defined]


def test_get_config_jsonschema_is_deprecated() -> None:
    """get_config_jsonschema() warns once and gives the JSON Schema of config_schema()'s model."""
    with pytest.warns(LangGraphDeprecatedSinceV10) as caught:
        schema = _graph(Context).get_config_jsonschema()
    assert [str(w.message) for w in caught] == [
        "`get_config_jsonschema` is deprecated. Use `get_context_jsonschema` instead."
        " Deprecated in LangGraph V1.0 to be removed in V2.0."
    ]
    assert schema["title"] == "AgentConfig"
    assert list(schema["properties"]) == ["configurable"]
