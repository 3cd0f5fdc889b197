"""The Runtime reference page of LangGraph: ``Runtime.override`` and ``Runtime.merge``.

A node passes a copy of its runtime with another context to a helper
(``override``), and merges a runtime that sets only a context into its own
(``merge``: the fields the other leaves unset keep this runtime's values).
"""

from dataclasses import dataclass

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from typing_extensions import TypedDict


@dataclass
class Context:
    user: str


class State(TypedDict, total=False):
    seen: list[str]


def describe(runtime: Runtime[Context]) -> str:
    return f"user={runtime.context.user} previous={runtime.previous}"


def node(state: State, runtime: Runtime[Context]):
    guest = runtime.override(context=Context("guest"))
    merged = runtime.merge(
        Runtime(context=Context("merged"), store=None, stream_writer=print, previous=None)
    )
    kept = runtime.merge(Runtime(context=None, store=None, stream_writer=print, previous=None))
    return {
        "seen": [
            describe(runtime),
            describe(guest),
            describe(merged),
            describe(kept),
            f"writer kept: {merged.stream_writer is print}",
        ]
    }


builder = StateGraph(State, context_schema=Context)
builder.add_node("node", node)
builder.add_edge(START, "node")
builder.add_edge("node", END)
graph = builder.compile()
for line in graph.invoke({}, context=Context("ada"))["seen"]:
    print(line)
