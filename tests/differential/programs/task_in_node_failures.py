"""Functional API guide: ``@task`` calls in a ``StateGraph`` node that fails, is retried or changes.

Follows the guide's rule that tasks may be called from a state graph node,
with what happens around failures: a node that raises after its task ran is
continued with ``invoke(None)`` and gets the task's saved result; a task that
raised is not saved, so it runs again when the node is resumed; a retry of the
node (``retry_policy``) runs its tasks again; a node that calls another task
at the same place on resume runs that task; and the results are not kept once
the node's step has completed.
"""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import task
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, RetryPolicy, interrupt

runs: dict[str, int] = {}
failures = {"left": 0}


def ran(name: str) -> None:
    runs[name] = runs.get(name, 0) + 1


@task
def call_model(prompt: str) -> str:
    ran("call_model")
    return f"answer to {prompt}"


@task
def search(query: str) -> str:
    ran("search")
    return f"results for {query}"


@task
def flaky(query: str) -> str:
    ran("flaky")
    raise KeyError(query)


class State(TypedDict, total=False):
    log: Annotated[list, operator.add]


def fail_once(where: str) -> None:
    failures[where] = failures.get(where, 0) + 1
    if failures[where] == 1:
        raise ValueError(f"{where} failed once")


def raises_after_task(state: State) -> dict:
    answer = call_model("q1").result()
    fail_once("raises_after_task")
    return {"log": [answer]}


def catches_task_error(state: State) -> dict:
    try:
        found = flaky("q2").result()
    except KeyError as error:
        found = f"caught {error!r}"
    verdict = interrupt(found)
    return {"log": [found, verdict]}


def retried(state: State) -> dict:
    answer = call_model("q3").result()
    fail_once("retried")
    verdict = interrupt(answer)
    return {"log": [answer, verdict]}


turns = {"n": 0}


def changes_its_mind(state: State) -> dict:
    turns["n"] += 1
    tool = call_model if turns["n"] == 1 else search
    found = tool("q4").result()
    verdict = interrupt(found)
    return {"log": [found, verdict]}


def looped(state: State) -> dict:
    answer = call_model(f"round {len(state['log'])}").result()
    verdict = interrupt(answer)
    return {"log": [verdict]}


def build(node, *, retry=None, loop=False):
    builder = StateGraph(State)
    builder.add_node(node.__name__, node, retry_policy=retry)
    builder.add_edge(START, node.__name__)
    if loop:
        builder.add_conditional_edges(
            node.__name__, lambda state: END if len(state["log"]) >= 2 else node.__name__
        )
    else:
        builder.add_edge(node.__name__, END)
    return builder.compile(checkpointer=InMemorySaver())


def run(title, graph, inputs):
    print(f"== {title}")
    runs.clear()
    config = {"configurable": {"thread_id": title}}
    for given in inputs:
        try:
            for chunk in graph.stream(given, config, stream_mode="updates"):
                print("  ", chunk)
        except ValueError as error:
            print("   raised:", repr(error))
        print("   runs so far:", dict(sorted(runs.items())))
    state = graph.get_state(config)
    print("   values:", state.values, "next:", state.next)


print("== raises after task")
graph = build(raises_after_task)
config = {"configurable": {"thread_id": "raises after task"}}
try:
    graph.invoke({"log": []}, config)
except ValueError as error:
    print("   raised:", repr(error))
print("   runs so far:", dict(sorted(runs.items())))
print("  ", graph.invoke(None, config))
print("   runs so far:", dict(sorted(runs.items())))
run("catches task error", build(catches_task_error), [{"log": []}, Command(resume="ok")])
retry = RetryPolicy(initial_interval=0.001, jitter=False, retry_on=ValueError)
run("retried", build(retried, retry=retry), [{"log": []}, Command(resume="ok")])
run("changes its mind", build(changes_its_mind), [{"log": []}, Command(resume="ok")])
run("looped", build(looped, loop=True), [{"log": []}, Command(resume="a"), Command(resume="b")])
