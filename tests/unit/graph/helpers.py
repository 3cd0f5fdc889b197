"""Helpers shared by the graph tests: node wrappers and small graphs."""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, TypedDict

from pyctx_web.graph.state import CompiledStateGraph
from pyctx_web.graph.types import StateSnapshot
from tests.scenario_support import load


class State(TypedDict, total=False):
    """The state most tests use."""

    topic: str
    log: Annotated[list[str], operator.add]
    answers: Annotated[list[Any], operator.add]
    results: Annotated[list[str], operator.add]
    answer: Any


EMPTY: dict[str, Any] = {"log": [], "answers": [], "results": []}
"""The values of a new State thread before anything is written: its reducer keys, empty."""

SUPPORTED = (
    " (supported: str, int, float, bool, None, list, tuple, dict with str keys, the "
    "dataclasses and enums of the state schema and pydantic models)"
)
"""The end of the message of a value a checkpoint cannot hold."""


# The node wrappers and the history reader are the ones the shared graph scenarios use.
_scenarios = load("graph_scenarios")
node: Callable[[Callable[..., Any], str], Callable[..., Any]] = _scenarios.node
counting: Callable[[Counter[str], str, Callable[[Any], Any]], Callable[[Any], Any]] = (
    _scenarios.counting
)
history: Callable[[CompiledStateGraph, str], Awaitable[list[StateSnapshot]]] = _scenarios.history


def checkpoint_id(snapshot: StateSnapshot) -> str:
    """The checkpoint id a snapshot names."""
    return str(snapshot.config["configurable"]["checkpoint_id"])
