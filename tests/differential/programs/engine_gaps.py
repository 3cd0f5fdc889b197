"""What LangChain's agents and LangGraph's prebuilt agents ask of the graph engine.

Combines parts of the Graph API guide (reducers, ``Command``, node input
schemas, subgraph navigation with ``Command.PARENT``) and the interrupts guide
(``response_schema``) the way LangChain's ``create_agent`` uses them: a reducer
inside ``Required[...]``/``NotRequired[...]`` (as LangChain's
``AgentState.messages``), ``compile(interrupt_before=None)``, a node returning a
list of ``Command`` objects, ``with_config()``, ``add_node(input_schema=...)``,
a LangChain ``Runnable`` as a node, ``Command(graph=Command.PARENT)`` from a
subgraph, ``interrupt(response_schema=<model>)`` and a LangChain tool returning
a ``Command``.
"""

import operator
from typing import Annotated, Any, NotRequired, Required

from langchain_core.runnables import RunnableLambda
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import GraphRecursionError
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt
from pydantic import BaseModel
from typing_extensions import TypedDict


class State(TypedDict):
    log: Required[Annotated[list[str], operator.add]]
    extra: NotRequired[Annotated[list[str], operator.add]]
    n: NotRequired[int]


class Private(TypedDict):
    n: int
    secret: str


def fan_out(state: State) -> Any:
    return [
        Command(update={"log": ["fan1"], "extra": ["e1"]}, goto="runnable"),
        {"extra": ["e2"]},
        Command(update={"log": ["fan2"], "n": 1}),
    ]


def reads_private(state: Private) -> dict[str, Any]:
    return {"log": [f"private:{sorted(state)}:{state['n']}"]}


builder = StateGraph(State)
builder.add_node("fan_out", fan_out)
builder.add_node("runnable", RunnableLambda(lambda state: {"log": [f"runnable:{state['n']}"]}))
builder.add_node("writes_private", lambda state: {"secret": "s"}, input_schema=Private)
builder.add_node("reads_private", reads_private, input_schema=Private)
builder.add_edge(START, "fan_out")
builder.add_edge("runnable", "writes_private")
builder.add_edge("writes_private", "reads_private")
app = builder.compile(interrupt_before=None, interrupt_after=None)
print(app.invoke({"log": ["start"]}))


def loop(state: State) -> dict[str, Any]:
    return {"log": ["loop"]}


looping = StateGraph(State)
looping.add_node("loop", loop)
looping.add_edge(START, "loop")
looping.add_conditional_edges("loop", lambda state: "loop" if len(state["log"]) < 10 else END)
try:
    looping.compile().with_config(recursion_limit=3).invoke({"log": []})
except GraphRecursionError:
    print("with_config recursion_limit=3: GraphRecursionError")
print(len(looping.compile().invoke({"log": []})["log"]))


def child_node(state: State) -> Command[Any]:
    return Command(graph=Command.PARENT, goto="other", update={"log": ["from child"]})


child = StateGraph(State)
child.add_node("child_node", child_node)
child.add_node("never", lambda state: {"log": ["never"]})
child.add_edge(START, "child_node")
child.add_edge("child_node", "never")
parent = StateGraph(State)
parent.add_node("sub", child.compile())
parent.add_node("other", lambda state: {"log": ["other"]})
parent.add_node("after", lambda state: {"log": ["after"]})
parent.add_edge(START, "sub")
parent.add_edge("sub", "after")
print(sorted(parent.compile().invoke({"log": []})["log"]))


class Decision(BaseModel):
    ok: bool
    note: str = ""


def ask(state: State) -> dict[str, Any]:
    decision = interrupt("approve?", response_schema=Decision)
    return {"log": [f"{type(decision).__name__} ok={decision.ok} note={decision.note}"]}


asking = StateGraph(State)
asking.add_node("ask", ask)
asking.add_edge(START, "ask")
memory = asking.compile(checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "1"}}
question = memory.invoke({"log": []}, config)["__interrupt__"][0]
print(question.value, question.response_schema)
print(memory.invoke(Command(resume={"ok": True, "note": "fine"}), config))


@tool
def hand_off(target: str) -> Command:
    """Hand the conversation to ``target``."""
    return Command(update={"log": [f"to {target}"]}, goto=target)


out = hand_off.invoke({"type": "tool_call", "name": "hand_off", "args": {"target": "b"}, "id": "1"})
print(type(out).__name__, out.update, out.goto)
