"""A pydantic.v1 model as the state type, as LangGraph takes it."""

from __future__ import annotations

import operator
import sys
import warnings
from typing import Annotated, Any

import pytest

from pyctx_web.graph import START, StateGraph

if sys.version_info >= (3, 14):
    pytest.skip("pydantic.v1 does not run on Python 3.14", allow_module_level=True)

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # pydantic.v1 warns that it is the old API
    from pydantic.v1 import BaseModel as BaseModelV1


class State(BaseModelV1):
    """Steps with a reducer, and a name."""

    steps: Annotated[list[str], operator.add]
    name: str = "none"


def test_a_pydantic_v1_model_is_a_state_type_whose_nodes_get_instances() -> None:
    """Nodes of a pydantic.v1 state get model instances, its reducers apply, invoke gives a dict."""
    seen: list[Any] = []

    def step(state: State) -> dict[str, Any]:
        seen.append(state)
        return {"steps": [f"ran for {state.name}"]}

    graph = StateGraph(State).add_node("step", step).add_edge(START, "step").compile()
    result = graph.invoke({"steps": ["start"], "name": "ada"})
    assert result == {"steps": ["start", "ran for ada"], "name": "ada"}
    assert seen == [State(steps=["start"], name="ada")]
