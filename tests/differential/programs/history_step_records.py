"""Time-travel guide: each checkpoint of the history shows its step as the step started.

Follows the "Use time-travel" guide (``get_state_history``, ``get_state`` of a
chosen checkpoint, ``update_state`` on it and a run from it) with the
interrupts guide's ``interrupt()``, ``Command(resume=...)`` and
``Command(resume=..., update=...)``, on a graph whose steps run several tasks:
``zeta`` and ``ask`` from ``START`` (``ask`` asks a question), then ``zeta``'s
``Send`` to ``mid`` with its edge to ``beta`` and ``ask``'s edge to ``gamma``.
Prints, with ``InMemorySaver`` and with ``SqliteSaver``, each snapshot's step,
source, values, next, tasks (name, path, interrupts, error, result) and
interrupts: a finished step's checkpoint shows the values its step started
from, the tasks' results and every question they asked; the live state of a
paused step shows its finished tasks' writes. ``Send`` tasks are listed first,
then the nodes in the order the graph added them.
"""

import operator
import sqlite3
from typing import Annotated

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send, interrupt
from typing_extensions import TypedDict


class State(TypedDict, total=False):
    steps: Annotated[list[str], operator.add]
    topic: str


def zeta(state: State):
    return Command(update={"steps": ["zeta"]}, goto=[Send("mid", {"topic": "sent"})])


def ask(state: State):
    return {"topic": interrupt("which topic?"), "steps": ["ask"]}


def mid(state: State):
    return {"steps": [f"mid:{state.get('topic')}"]}


def gamma(state: State):
    return {"steps": ["gamma"]}


def beta(state: State):
    return {"steps": ["beta"]}


def build(checkpointer):
    builder = StateGraph(State)
    builder.add_node(zeta)
    builder.add_node(ask)
    builder.add_node(mid)
    builder.add_node(gamma)
    builder.add_node(beta)
    builder.add_edge(START, "ask")
    builder.add_edge(START, "zeta")
    builder.add_edge("zeta", "beta")
    builder.add_edge("ask", "gamma")
    for node in ("mid", "gamma", "beta"):
        builder.add_edge(node, END)
    return builder.compile(checkpointer=checkpointer)


def build_single(checkpointer):
    builder = StateGraph(State)
    builder.add_node(ask)
    builder.add_edge(START, "ask")
    builder.add_edge("ask", END)
    return builder.compile(checkpointer=checkpointer)


def show(snapshot):
    tasks = [
        (t.name, t.path, [i.value for i in t.interrupts], t.error, t.result) for t in snapshot.tasks
    ]
    print(
        " ",
        snapshot.metadata["step"],
        snapshot.metadata["source"],
        snapshot.values,
        snapshot.next,
        tasks,
        [i.value for i in snapshot.interrupts],
    )


def history(graph, config):
    print(" history:")
    states = list(graph.get_state_history(config))
    for state in states:
        show(state)
    return states


def run(label, checkpointer):
    print(f"== {label}")
    graph = build(checkpointer)

    config = {"configurable": {"thread_id": "answered"}}
    print(graph.invoke({"steps": []}, config))
    print(" paused:")
    show(graph.get_state(config))
    print(graph.invoke(Command(resume="r"), config))
    states = history(graph, config)
    first, second = states[-2], states[-3]
    print(" the first step's checkpoint:")
    show(graph.get_state(first.config))
    print(" run again from the second step:")
    print(graph.invoke(None, second.config))
    edited = graph.update_state(first.config, {"topic": "edited"}, as_node="__start__")
    print(" edited first step:")
    show(graph.get_state(edited))
    print(graph.invoke(None, edited))

    config = {"configurable": {"thread_id": "updated"}}
    graph.invoke({"steps": []}, config)
    print(graph.invoke(Command(resume="r", update={"topic": "upd"}), config))
    states = history(graph, config)
    print(" the first step's checkpoint:")
    show(graph.get_state(states[-2].config))

    single = build_single(checkpointer)
    config = {"configurable": {"thread_id": "single"}}
    single.invoke({"steps": []}, config)
    print(single.invoke(Command(resume="solo"), config))
    history(single, config)


run("InMemorySaver", InMemorySaver())
run("SqliteSaver", SqliteSaver(sqlite3.connect(":memory:", check_same_thread=False)))
