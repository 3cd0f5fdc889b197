"""Graph API guide, "Add runtime configuration", and the streaming guide's custom data.

A node takes ``runtime: Runtime[ContextSchema]`` and reads ``runtime.context``
(given as a dataclass and as a dict, which LangGraph turns into the context
schema); another node takes ``config: RunnableConfig`` and reads the thread id;
``get_runtime()`` inside a helper; ``runtime.stream_writer`` and a ``writer``
parameter send custom chunks.
"""

import uuid
from dataclasses import dataclass

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_config
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime, get_runtime
from langgraph.types import StreamWriter
from typing_extensions import TypedDict


@dataclass
class ContextSchema:
    llm_provider: str = "openai"
    user_id: str = "anon"


class State(TypedDict, total=False):
    provider: str
    thread: str
    greeting: str


def who() -> str:
    runtime = get_runtime(ContextSchema)
    return runtime.context.user_id


def pick_model(state: State, runtime: Runtime[ContextSchema]):
    runtime.stream_writer({"progress": f"using {runtime.context.llm_provider}"})
    return {"provider": runtime.context.llm_provider}


def read_config(state: State, config: RunnableConfig):
    thread = config["configurable"]["thread_id"]
    print("same config:", get_config()["configurable"]["thread_id"] == thread)
    return {"thread": str(thread)}


def greet(state: State, writer: StreamWriter):
    writer({"progress": "greeting"})
    return {"greeting": f"hello {who()} via {state['provider']}"}


builder = StateGraph(State, context_schema=ContextSchema)
builder.add_sequence([pick_model, read_config, greet])
builder.add_edge(START, "pick_model")
builder.add_edge("greet", END)
graph = builder.compile(checkpointer=InMemorySaver())

config = {"configurable": {"thread_id": "thread-1"}}
print(graph.invoke({}, config, context=ContextSchema(llm_provider="anthropic", user_id="ada")))

config = {"configurable": {"thread_id": uuid.uuid4()}}
for mode, chunk in graph.stream(
    {}, config, stream_mode=["custom", "updates"], context={"user_id": "bob"}
):
    print(mode, chunk)
