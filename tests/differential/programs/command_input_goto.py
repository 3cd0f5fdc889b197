"""Graph API guide, "Combine control flow and state updates with Command": a run's input.

``graph.invoke(Command(goto=...), config)`` runs the named node (or ``Send``)
in the thread's next step, with ``update=`` applied first: on a new thread (the
input step runs, then the node beside the start's edges), on a thread paused
at a question (the node runs beside the waiting one, which asks again unless
``resume=`` answers it; a later resume finds the node's write), on a finished
thread (a step of its own), and without a checkpointer. ``Command(update=...)``
alone changes the state a paused or finished thread holds. Steps that run
several nodes print their stream sorted: their nodes run concurrently. A
step's checkpoint lists its ``Send`` tasks before its nodes.
"""

import operator
from typing import Annotated

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send, interrupt
from typing_extensions import TypedDict


class State(TypedDict, total=False):
    steps: Annotated[list, operator.add]
    topic: str


def a(state: State):
    return {"steps": ["a"]}


def ask(state: State):
    topic = interrupt("Which topic?")
    return {"topic": topic, "steps": ["ask"]}


def b(state: State):
    return {"steps": ["b"]}


def c(state: State):
    return {"steps": [f"c:{state.get('topic')}"]}


builder = StateGraph(State)
builder.add_node(a)
builder.add_node(ask)
builder.add_node(b)
builder.add_node(c)
builder.add_edge(START, "a")
builder.add_edge("a", "ask")
builder.add_edge("ask", "b")
builder.add_edge("b", END)
graph = builder.compile(checkpointer=InMemorySaver())


def history(thread: str) -> None:
    """The thread's checkpoints: which step, and the nodes it runs (sorted: a step runs
    them side by side)."""
    config = {"configurable": {"thread_id": thread}}
    steps = [
        (s.metadata["source"], s.metadata["step"], sorted(s.next))
        for s in graph.get_state_history(config)
    ]
    print("   history:", steps)


def state(thread: str) -> None:
    snapshot = graph.get_state({"configurable": {"thread_id": thread}})
    interrupts = [i.value for i in snapshot.interrupts]
    print("  state:", snapshot.next, snapshot.values, interrupts)


def run(label: str, command: object, thread: str, *, ordered: bool = True) -> None:
    """Stream ``command`` on ``thread`` (sorted when a step runs nodes side by side)."""
    print(label)
    config = {"configurable": {"thread_id": thread}}
    chunks = [
        repr(chunk) for chunk in graph.stream(command, config, stream_mode=["updates", "values"])
    ]
    for chunk in chunks if ordered else sorted(chunks):
        print("  ", chunk)
    history(thread)
    state(thread)


print("-- a new thread")
run("goto c", Command(goto="c"), "new-1", ordered=False)
run(
    "update and goto",
    Command(update={"steps": ["u"], "topic": "x"}, goto="c"),
    "new-2",
    ordered=False,
)
run("goto a Send", Command(goto=Send("c", {"topic": "sent"})), "new-3", ordered=False)
run("goto two nodes", Command(goto=["b", "c"]), "new-4", ordered=False)
run("update only", Command(update={"topic": "u"}), "new-5")
run("goto the end", Command(goto=END), "new-6")

print("-- a thread paused at a question")
run("start", {"steps": []}, "paused-1")
run("goto c", Command(goto="c"), "paused-1", ordered=False)
run("then resume", Command(resume="rain"), "paused-1")
run("start", {"steps": []}, "paused-2")
run("resume and goto c", Command(resume="rain", goto="c"), "paused-2", ordered=False)
run("start", {"steps": []}, "paused-3")
run("update only", Command(update={"topic": "given"}), "paused-3")
run("then resume", Command(resume="rain"), "paused-3")
run("start", {"steps": []}, "paused-4")
run("goto a Send", Command(goto=Send("c", {"topic": "sent"})), "paused-4", ordered=False)
run("then resume", Command(resume="rain"), "paused-4")

print("-- a finished thread")
run("start", {"steps": []}, "done")
run("resume", Command(resume="rain"), "done")
run("goto c", Command(goto="c"), "done")
run("update and goto a Send", Command(update={"topic": "z"}, goto=Send("c", {})), "done")
run("update only", Command(update={"topic": "w"}), "done")
run("goto the question", Command(goto="ask"), "done")
run("then resume", Command(resume="snow"), "done")

print("-- the steps a run streams: a Send task goes first")
config = {"configurable": {"thread_id": "steps"}}
graph.invoke({"steps": []}, config)
for command in [Command(goto=["c", Send("c", {"topic": "sent"})]), Command(resume="rain")]:
    chunks = graph.stream(command, config, stream_mode="checkpoints")
    print([(chunk["metadata"]["step"], chunk["next"]) for chunk in chunks])

print("-- without a checkpointer")
plain = StateGraph(State)
plain.add_node(a)
plain.add_node(b)
plain.add_node(c)
plain.add_edge(START, "a")
plain.add_edge("a", "b")
plain = plain.compile()
print(plain.invoke(Command(goto="c")))
print(plain.invoke(Command(update={"steps": ["u"], "topic": "y"}, goto=Send("c", {"topic": "s"}))))
for chunk in plain.stream(Command(goto=["b", "c"]), stream_mode="updates"):
    print(sorted(chunk))
