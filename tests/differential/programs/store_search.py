"""LangGraph's memory guide (the store): a graph remembers across threads, filter and vector search.

One node writes memories through ``runtime.store``; another searches them by
a filter and by a query ranked with a vector index (a small embedding
function of letter counts), through an injected ``store`` and get_store().
"""

from langgraph.config import get_store
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore
from typing_extensions import TypedDict


def embed(texts):
    return [[float(t.count(c)) for c in "aeiou"] + [1.0] for t in texts]


class State(TypedDict, total=False):
    user: str
    notes: list[str]
    found: list[str]


def remember(state: State, runtime: Runtime):
    for i, note in enumerate(state["notes"]):
        kind = "food" if "eat" in note else "other"
        runtime.store.put(
            ("memories", state["user"]), f"n{i}", {"text": note, "kind": kind, "i": i}
        )
    return {}


def recall(state: State, store: BaseStore):
    ns = ("memories", state["user"])
    food = store.search(ns, filter={"kind": "food"})
    late = store.search(ns, filter={"i": {"$gte": 2}}, limit=2)
    ranked = get_store().search(("memories",), query="banana", limit=3)
    return {
        "found": [
            "food: " + ",".join(i.key for i in food),
            "late: " + ",".join(i.key for i in late),
            "ranked: " + ",".join(f"{i.key}={i.score:.3f}" for i in ranked),
            "spaces: " + repr(store.list_namespaces(prefix=("memories",))),
        ]
    }


store = InMemoryStore(index={"dims": 6, "embed": embed, "fields": ["text"]})
graph = (
    StateGraph(State)
    .add_node("remember", remember)
    .add_node("recall", recall)
    .add_edge(START, "remember")
    .add_edge("remember", "recall")
    .add_edge("recall", END)
    .compile(store=store)
)
out = graph.invoke(
    {"user": "ada", "notes": ["eat a banana", "read a book", "eat an apple", "walk", "sleep"]}
)
for line in out["found"]:
    print(line)
item = store.get(("memories", "ada"), "n0")
print(item.value, item.key, item.namespace)
store.delete(("memories", "ada"), "n0")
print(store.get(("memories", "ada"), "n0"))
