"""Graph API guide, "Add runtime configuration": the config a node, a tool and a task see.

A node reads its task's config (a ``config`` parameter and ``get_config()``):
the caller's ``configurable`` with the task's ``checkpoint_ns`` (``"node:task_id"``)
and ``checkpoint_map``, and a ``metadata`` with the thread and the task's
``langgraph_step``, ``langgraph_node``, ``langgraph_triggers``, ``langgraph_path``
and ``langgraph_checkpoint_ns``. Shown for a plain node, a node of a subgraph
(nested namespace), a Send's task, a node resumed after ``interrupt()``, a tool
run by ``ToolNode``, a graph without a checkpointer, and the functional API's
``@entrypoint`` and ``@task``; the ``messages`` stream of a node's chat model
called with the node's config carries that metadata.
"""

import operator
from typing import Annotated, Any, TypedDict

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolCall
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_config
from langgraph.func import entrypoint, task
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from langgraph.types import Command, Send, interrupt


def show(label: str, config: Any, leave_out: tuple[str, ...] = ()) -> None:
    configurable = {k: v for k, v in config["configurable"].items() if not k.startswith("__")}
    metadata = {k: v for k, v in config["metadata"].items() if k not in leave_out}
    others = sorted(k for k in config if k not in ("configurable", "metadata", "callbacks"))
    print(label, "configurable", configurable)
    print(label, "metadata", metadata)
    print(label, "others", others, config.get("tags"), config.get("recursion_limit"))


class State(TypedDict):
    steps: Annotated[list[str], operator.add]


def plain(state: State, config: RunnableConfig) -> dict[str, Any]:
    show("plain", config)
    print("get_config() is the same:", get_config() == config)
    return {"steps": ["plain"]}


def inner_step(state: State) -> dict[str, Any]:
    show("subgraph node", get_config())
    return {"steps": ["inner"]}


inner = StateGraph(State).add_node(inner_step).add_edge(START, "inner_step").compile()


def fan_out(state: State) -> list[Send]:
    return [Send("sent", {"steps": ["x"]})]


def sent(state: State) -> dict[str, Any]:
    show("send", get_config())
    return {"steps": ["sent"]}


def ask(state: State) -> dict[str, Any]:
    answer = interrupt("ok?")
    show("resumed", get_config())
    return {"steps": [answer]}


graph = (
    StateGraph(State)
    .add_node(plain)
    .add_node("sub", inner)
    .add_node(sent)
    .add_node(ask)
    .add_edge(START, "plain")
    .add_edge("plain", "sub")
    .add_conditional_edges("sub", fan_out, ["sent"])
    .add_edge("sent", "ask")
    .compile(checkpointer=InMemorySaver())
)
config: Any = {
    "configurable": {"thread_id": "1", "user": "bob"},
    "metadata": {"who": "me"},
    "tags": ["t1"],
    "recursion_limit": 12,
}
graph.invoke({"steps": []}, config)
print(graph.invoke(Command(resume="yes"), config))


@tool
def lookup(city: str, config: RunnableConfig) -> str:
    """Look a city up."""
    show("tool", config)
    return f"{city}: sunny"


call = ToolCall(name="lookup", args={"city": "Paris"}, id="call-1")
tools = (
    StateGraph(MessagesState)
    .add_node("tools", ToolNode([lookup]))
    .add_edge(START, "tools")
    .compile(checkpointer=InMemorySaver())
)
tools.invoke({"messages": [AIMessage("", tool_calls=[call])]}, {"configurable": {"thread_id": "2"}})

model = GenericFakeChatModel(messages=iter([AIMessage("hello there", id="ai-1")]))


def chat(state: MessagesState, config: RunnableConfig) -> dict[str, Any]:
    return {"messages": [model.invoke(state["messages"], config)]}


chatting = (
    StateGraph(MessagesState)
    .add_node(chat)
    .add_edge(START, "chat")
    .compile(checkpointer=InMemorySaver())
)
seen = set()
for message, metadata in chatting.stream(
    {"messages": [("user", "hi")]},
    {"configurable": {"thread_id": "3"}, "metadata": {"who": "you"}},
    stream_mode="messages",
):
    if message.id not in seen:
        seen.add(message.id)
        keys = ("thread_id", "who", "langgraph_step", "langgraph_node", "langgraph_triggers")
        keys += ("langgraph_path", "langgraph_checkpoint_ns")
        print("messages metadata", {key: metadata.get(key) for key in keys})


plain_graph = StateGraph(State).add_node(plain).add_edge(START, "plain").compile()
plain_graph.invoke({"steps": []})


@task
def double(x: int) -> int:
    # pyctx_web's entrypoint runs a step later than LangGraph's: the step is left out.
    show("@task", get_config(), ("langgraph_step",))
    return 2 * x


@entrypoint(checkpointer=InMemorySaver())
def flow(x: int) -> int:
    show("@entrypoint", get_config(), ("langgraph_step", "langgraph_triggers"))
    return double(x).result()


print(flow.invoke(3, {"configurable": {"thread_id": "4"}}))
