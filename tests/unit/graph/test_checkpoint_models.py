"""Pydantic models in checkpoints: by class name and fields, rebuilt only for classes named."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypedDict

from pyctx_web.graph import END, START, StateGraph
from pyctx_web.graph._engine.serde import JsonSerde
from pyctx_web.graph.checkpoint.base import Checkpointer
from pyctx_web.graph.errors import SerializationError
from pyctx_web.graph.types import Send
from tests.unit.graph.helpers import SUPPORTED

_T = {"configurable": {"thread_id": "t"}}


class Point(BaseModel):
    x: int
    y: int = 0


class Answer(BaseModel):
    model_config = ConfigDict(extra="allow")

    text: str = Field(alias="answerText")
    point: Point


class Named(TypedDict, total=False):
    point: Point
    log: list[str]


class Loose(TypedDict, total=False):
    found: Any


class Tagged(BaseModel):
    tags: set[str]


class Counted(BaseModel):
    n: int
    seen: list[str] = []


def _one_node(state_type: type, update: dict[str, Any], checkpointer: Checkpointer) -> Any:
    graph = StateGraph(state_type)
    graph.add_node("a", lambda state: update)
    graph.add_edge(START, "a")
    graph.add_edge("a", END)
    return graph.compile(checkpointer=checkpointer)


def test_a_model_the_schema_names_comes_back_as_the_model(checkpointer: Checkpointer) -> None:
    """A model in a key whose annotation names its class is read back as that model."""
    _one_node(Named, {"point": Point(x=1, y=2)}, checkpointer).invoke({"log": []}, thread_id="t")
    # Another graph of the same schema: its serde has seen no value of the class.
    values = _one_node(Named, {}, checkpointer).get_state(_T).values
    assert values == {"point": Point(x=1, y=2), "log": []}
    assert type(values["point"]) is Point


def test_a_model_the_graph_stored_comes_back_in_that_graph(checkpointer: Checkpointer) -> None:
    """A model in a key annotated Any comes back as the model, extra fields and aliases kept."""
    answer = Answer.model_validate({"answerText": "hi", "point": {"x": 3}, "mood": "calm"})
    graph = _one_node(Loose, {"found": answer}, checkpointer)
    graph.invoke({}, thread_id="t")
    found = graph.get_state(_T).values["found"]
    assert (type(found), found, found.model_extra) == (Answer, answer, {"mood": "calm"})


def test_a_model_no_schema_names_comes_back_as_its_fields_elsewhere(
    checkpointer: Checkpointer,
) -> None:
    """A graph that may not name a stored model's class reads it as the dict of its fields."""
    answer = Answer.model_validate({"answerText": "hi", "point": {"x": 3}, "mood": "calm"})
    _one_node(Loose, {"found": answer}, checkpointer).invoke({}, thread_id="t")
    values = _one_node(Loose, {}, checkpointer).get_state(_T).values
    assert values == {"found": {"text": "hi", "point": {"x": 3, "y": 0}, "mood": "calm"}}


def test_the_model_state_in_a_send_argument_is_checkpointed(checkpointer: Checkpointer) -> None:
    """A pydantic state object sent in a Send argument is checkpointed and reaches the node."""
    got: list[Any] = []

    def fan(state: Counted) -> list[Send]:
        return [Send("take", {"state": state, "k": "a"})]

    def take(arg: dict[str, Any]) -> dict[str, Any]:
        got.append(arg["state"])
        return {"seen": [arg["k"]]}

    graph = StateGraph(Counted)
    graph.add_node("take", take)
    graph.add_conditional_edges(START, fan, ["take"])
    graph.add_edge("take", END)
    compiled = graph.compile(checkpointer=checkpointer)
    assert compiled.invoke({"n": 1}, thread_id="t") == {"n": 1, "seen": ["a"]}
    assert got == [Counted(n=1)]


def test_a_model_field_a_checkpoint_cannot_hold_is_named(checkpointer: Checkpointer) -> None:
    """A model field of a type outside a checkpoint fails naming the field's path and type."""
    graph = _one_node(Loose, {"found": Tagged(tags={"a"})}, checkpointer)
    with pytest.raises(SerializationError) as info:
        graph.invoke({}, thread_id="t")
    assert str(info.value) == (
        f"cannot checkpoint state key 'found' at found.tags: 'set' is not a checkpointable "
        f"type{SUPPORTED}"
    )


def test_stored_fields_the_model_refuses_are_a_corrupt_checkpoint() -> None:
    """Stored fields that fail the named model's validation raise ValueError naming the model."""
    serde = JsonSerde.for_schema(Named)
    stored = {"__pyctx__": "model", "type": f"{__name__}.Point", "fields": {"x": "one"}}
    with pytest.raises(ValueError, match=rf"^cannot rebuild model '{__name__}\.Point': 1 valid"):
        serde.decode(stored)
