"""Functional API guide: ``@task`` functions called from a ``StateGraph`` node that asks a question.

The guide says tasks can be called from an entrypoint, another task, or a
state graph node. Here a node calls a model-like task (costly, not
deterministic) and a second task on its result, then ``interrupt()``s; on
``Command(resume=...)`` the node runs again from its first line and the tasks'
saved results are returned instead of running them again. Also: the same task
called twice around two questions, a task calling another task, the ``tasks``
stream mode, and a task in a node of a subgraph, streamed with ``subgraphs=True``.
"""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import task
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

runs: dict[str, int] = {}


def ran(name: str) -> None:
    runs[name] = runs.get(name, 0) + 1


@task
def call_model(topic: str) -> str:
    ran("call_model")
    return f"a draft about {topic}"


@task
def polish(text: str, *, style: str = "plain") -> str:
    ran("polish")
    return f"{text.capitalize()} ({style})"


@task
def outline(topic: str) -> str:
    ran("outline")
    return f"outline of {polish(topic).result()}"


class State(TypedDict, total=False):
    topic: str
    essay: str
    verdict: str
    log: Annotated[list, operator.add]


def write(state: State) -> dict:
    draft = call_model(state["topic"]).result()
    essay = polish(draft, style="formal").result()
    verdict = interrupt({"essay": essay, "action": "approve or reject"})
    return {"essay": essay, "verdict": verdict}


def review(state: State) -> dict:
    first = call_model("a first angle").result()
    answer_1 = interrupt("first angle ok?")
    second = call_model("a second angle").result()
    answer_2 = interrupt("second angle ok?")
    plan = outline(state["topic"]).result()
    return {"log": [first, answer_1, second, answer_2, plan]}


def plan(state: State) -> dict:
    # outline() calls polish() itself: that call is outline's, not the node's second one.
    plan = outline(state["topic"]).result()
    title = polish("a title").result()
    verdict = interrupt({"plan": plan, "title": title})
    return {"log": [plan, title, verdict]}


def build(node, checkpointer=None):
    builder = StateGraph(State)
    builder.add_node(node.__name__, node)
    builder.add_edge(START, node.__name__)
    builder.add_edge(node.__name__, END)
    return builder.compile(checkpointer=checkpointer)


def run(title, graph, inputs, **options):
    print(f"== {title}")
    runs.clear()
    config = {"configurable": {"thread_id": title}}
    for given in inputs:
        for chunk in graph.stream(given, config, **options):
            print("  ", chunk)
        print("   runs so far:", dict(sorted(runs.items())))
    state = graph.get_state(config)
    print("   values:", state.values, "next:", state.next)


graph = build(write, InMemorySaver())
print("== invoke")
runs.clear()
config = {"configurable": {"thread_id": "invoke"}}
print("  ", graph.invoke({"topic": "bats"}, config))
print("  ", graph.invoke(Command(resume="approved"), config))
print("   runs:", runs)
run("write", graph, [{"topic": "cats"}, Command(resume="approved")], stream_mode="updates")
run("write values", graph, [{"topic": "dogs"}, Command(resume="rejected")], stream_mode="values")
run("write tasks", graph, [{"topic": "owls"}, Command(resume="approved")], stream_mode="tasks")

run(
    "review",
    build(review, InMemorySaver()),
    [{"topic": "owls"}, Command(resume="yes"), Command(resume="also yes")],
    stream_mode="updates",
)

run(
    "plan",
    build(plan, InMemorySaver()),
    [{"topic": "eels"}, Command(resume="ok")],
    stream_mode="updates",
)

inner = build(write)
outer = StateGraph(State)
outer.add_node("essay", inner)
outer.add_edge(START, "essay")
run(
    "subgraph",
    outer.compile(checkpointer=InMemorySaver()),
    [{"topic": "foxes"}, Command(resume="approved")],
    stream_mode="updates",
    subgraphs=True,
)
