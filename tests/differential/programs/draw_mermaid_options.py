"""The "Visualize your graph" page's Mermaid options, and what the drawing shows of nodes.

Follows the page: ``draw_mermaid()`` of its graph with ``with_styles=False``,
with a ``frontmatter_config`` (the theme example of ``draw_mermaid``'s
documentation), and with ``wrap_label_n_words``; then the drawing of a graph
compiled with breakpoints (``interrupt_before``/``interrupt_after`` show on
their nodes), of node names Mermaid cannot take as ids, and the nodes and
edges ``get_graph()`` returns.
"""

from typing import Literal

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict


class State(TypedDict):
    value: int


def node1(state: State):
    return {"value": state["value"] + 1}


def node2(state: State):
    return {"value": state["value"] * 2}


def router(state: State) -> Literal["node2", "__end__"]:
    return "node2" if state["value"] < 10 else END


app = (
    StateGraph(State)
    .add_node("node1", node1)
    .add_node("node2", node2)
    .add_edge(START, "node1")
    .add_conditional_edges("node1", router)
    .add_edge("node2", "node1")
    .compile()
)
drawable = app.get_graph()
print(drawable.draw_mermaid(with_styles=False))
print(
    drawable.draw_mermaid(
        frontmatter_config={
            "config": {
                "theme": "neutral",
                "look": "handDrawn",
                "themeVariables": {"primaryColor": "#e2e2e2"},
            }
        }
    )
)
print(sorted(drawable.nodes))
for edge in drawable.edges:
    print(edge.source, edge.target, edge.data, edge.conditional)


def review(state: State):
    return {"value": 0}


def check(state: State) -> str:
    if state["value"] > 3:
        return "ok"
    return "the draft needs a careful look by a person first"


builder = StateGraph(State)
builder.add_node("draft", node1)
builder.add_node("human review", review)
builder.add_node("send.email", node2)
builder.add_edge(START, "draft")
builder.add_conditional_edges(
    "draft",
    check,
    {"the draft needs a careful look by a person first": "human review", "ok": "send.email"},
)
builder.add_edge("human review", "draft")
builder.add_edge("send.email", END)
graph = builder.compile(
    checkpointer=InMemorySaver(),
    interrupt_before=["human review"],
    interrupt_after=["human review", "send.email"],
)
print(graph.get_graph().draw_mermaid())
print(graph.get_graph().draw_mermaid(wrap_label_n_words=3))
