"""Interrupts page, "Resuming": a node that raises on the answer it was given.

The resumed node runs again from its start with the answer, raises, and the
run fails. As the page says a node keeps the answers it was given, the
thread keeps that answer: its question is still pending, and the next
resume (a single answer, an answer by id, with an update), like
``invoke(None)``, runs the node again with the answer it failed on. A
second question the node asks once it gets past the first takes the
latest resume's answer at once.
"""

import operator
from typing import Annotated

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt
from typing_extensions import TypedDict


class State(TypedDict, total=False):
    steps: Annotated[list, operator.add]
    topic: str


FAILURES = {"left": 1}
"""How many more times ``ask`` raises on the answer ``"bad"``."""


def a(state: State):
    return {"steps": ["a"]}


def ask(state: State):
    print("ask runs")
    topic = interrupt("Which topic?")
    print("ask got", repr(topic))
    if topic == "bad":
        if FAILURES["left"] == 0:
            detail = interrupt("Which detail?")
            return {"topic": f"{topic}/{detail}", "steps": ["ask"]}
        FAILURES["left"] -= 1
        raise ValueError(f"no topic {topic!r}")
    return {"topic": topic, "steps": ["ask"]}


def b(state: State):
    return {"steps": ["b"]}


builder = StateGraph(State)
builder.add_node(a)
builder.add_node(ask)
builder.add_node(b)
builder.add_edge(START, "a")
builder.add_edge("a", "ask")
builder.add_edge("ask", "b")
graph = builder.compile(checkpointer=InMemorySaver())


def show_state(config: dict) -> None:
    state = graph.get_state(config)
    tasks = [(t.name, t.error, [i.value for i in t.interrupts]) for t in state.tasks]
    print("  state:", state.next, state.values, [i.value for i in state.interrupts], tasks)


def run(label: str, command: object, config: dict) -> None:
    print("==", label)
    try:
        for chunk in graph.stream(command, config, stream_mode=["updates", "values"]):
            print("  ", chunk)
    except ValueError as error:
        print("  error", type(error).__name__, error)
    show_state(config)


FAILURES["left"] = 5
config = {"configurable": {"thread_id": "1"}}
run("start", {"steps": []}, config)
run("an answer the node fails on", Command(resume="bad"), config)
run("another answer", Command(resume="rain"), config)
run("continue", None, config)
question = graph.get_state(config).interrupts[0].id
run("an answer by id", Command(resume={question: "snow"}), config)
run("an answer with an update", Command(resume="sun", update={"topic": "given"}), config)

FAILURES["left"] = 1
config = {"configurable": {"thread_id": "2"}}
run("start", {"steps": []}, config)
run("an answer the node fails on", Command(resume="bad"), config)
run("the node gets past it and asks further: this answers that", Command(resume="next"), config)
run("a resume of the finished thread", Command(resume="late"), config)
for snapshot in graph.get_state_history(config):
    print("  ", snapshot.metadata["step"], snapshot.next, snapshot.values)
