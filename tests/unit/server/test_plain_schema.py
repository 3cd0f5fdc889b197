"""JSON Schemas without pydantic (pyctx_web.server._plain_schema): the same as pydantic's."""

from __future__ import annotations

import dataclasses
import operator
import sys
from typing import Annotated, Any, Literal, NotRequired

import pydantic
import pytest
from typing_extensions import TypedDict

from pyctx_web.graph import START, StateGraph
from pyctx_web.graph.message import MessagesState
from pyctx_web.server import graph_schemas as schemas_module
from pyctx_web.server._plain_schema import plain_object_schema


class Inner(TypedDict):
    name: str
    score: float


class Plain(TypedDict):
    """A state of plain types.

    Its docstring has two paragraphs.
    """

    steps: Annotated[list[str], operator.add]
    count: int
    ratio: float | None
    done: bool
    mode: Literal["fast", "slow"]
    tags: set[str]
    scores: dict[str, float]
    inner: Inner
    either: int | str
    anything: Any
    later: NotRequired[str]


@dataclasses.dataclass
class Settings:
    model: str
    retries: int = 2
    user_name: str | None = None


@pytest.mark.parametrize("cls", [Plain, Inner, Settings])
def test_a_plain_type_is_described_as_pydantic_describes_it(cls: type) -> None:
    """The schema of a TypedDict or dataclass of plain types equals pydantic's."""
    assert plain_object_schema(cls) == pydantic.TypeAdapter(cls).json_schema()


@pytest.mark.parametrize("state", [Plain, MessagesState])
def test_a_graph_is_described_without_pydantic_as_with_it(
    state: type, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/schemas' answer where pydantic cannot be imported equals the one where it can, but for
    values of types only pydantic knows (a LangChain message: any value)."""

    def node(_: Any) -> dict[str, Any]:
        return {}

    builder = StateGraph(state, context_schema=Settings).add_node("n", node)
    graph = builder.add_edge(START, "n").compile()
    with_pydantic = schemas_module.graph_schemas(graph, "agent")
    monkeypatch.setitem(sys.modules, "pydantic", None)
    without = schemas_module.graph_schemas(graph, "agent")
    if state is Plain:
        assert without == with_pydantic
    else:
        assert without["state_schema"]["properties"] == {
            "messages": {"default": None, "items": {}, "title": "Messages", "type": "array"}
        }
        assert without["context_schema"] == with_pydantic["context_schema"]
