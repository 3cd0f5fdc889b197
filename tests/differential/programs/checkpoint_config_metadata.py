"""Persistence concept guide, "Checkpoints": the metadata of each ``StateSnapshot``.

A run's config carries ``metadata`` and ``configurable`` values beside its
``thread_id``. Every checkpoint the run writes adds the config's metadata
entries, then its plain ``configurable`` values (text, numbers, booleans; not
``thread_id``, ``checkpoint_ns``, ``__``-prefixed keys or other objects), to
its ``source``/``step``/``parents``; a later ``update_state`` adds its own
config's values. Then a node raises: the failed task in ``get_state().tasks``
gives its error as the exception's repr.
"""

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from typing_extensions import TypedDict


class State(TypedDict):
    topic: str
    draft: str


def write(state: State):
    return {"draft": f"notes on {state['topic']}"}


builder = StateGraph(State)
builder.add_node("write", write)
builder.add_edge(START, "write")
graph = builder.compile(checkpointer=InMemorySaver())

config = {
    "configurable": {
        "thread_id": "1",
        "user_id": "user-7",
        "model": "small",
        "temperature": 0.2,
        "max_tokens": 256,
        "stream": False,
        "tools": ["search"],
        "__private": "hidden",
        "checkpoint_ns": "",
    },
    "metadata": {"app": "notes", "model": "from metadata", "trace": {"on": True}},
}
graph.invoke({"topic": "graphs"}, config)
graph.update_state({"configurable": {"thread_id": "1", "editor": "ada"}}, {"topic": "trees"})

for snapshot in graph.get_state_history({"configurable": {"thread_id": "1"}}):
    print(sorted(snapshot.metadata.items()))

print(sorted(graph.get_state({"configurable": {"thread_id": "1"}}).metadata.items()))


class QuotaError(Exception):
    pass


def fail(state: State):
    raise QuotaError("quota of 3 calls used", 3)


def check(state: State):
    raise ValueError("bad draft")


failing = StateGraph(State)
failing.add_node("fail", fail)
failing.add_node("check", check)
failing.add_edge(START, "fail")
failing.add_edge(START, "check")
failing_graph = failing.compile(checkpointer=InMemorySaver())
run = {"configurable": {"thread_id": "2", "user_id": "user-8"}}
try:
    failing_graph.invoke({"topic": "limits", "draft": ""}, run)
except (QuotaError, ValueError):
    print("the run failed")
state = failing_graph.get_state(run)
for task in state.tasks:
    print(task.name, type(task.error).__name__, task.error)
print(sorted(state.metadata.items()))
