"""Persistence guide ("checkpointer" with a pydantic state) and LangChain's structured output
guide (``create_agent(response_format=ToolStrategy(Model))``): pydantic objects in checkpoints.

Three programs, each with an ``InMemorySaver``: a graph whose TypedDict state holds a
pydantic model, read back over two turns and from the snapshot; ``create_react_agent``
(version v2, which sends the state to its tools) with the pydantic ``AgentStatePydantic``;
``create_agent`` whose scripted model answers with the ``Weather`` tool call, its
``structured_response`` read from the result and from the snapshot.
"""

from typing import Annotated

from langchain.agents import create_agent
from langchain.agents.structured_output import ToolStrategy
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.prebuilt import create_react_agent
from langgraph.prebuilt.chat_agent_executor import AgentStatePydantic
from pydantic import BaseModel
from typing_extensions import TypedDict


class Point(BaseModel):
    x: int
    y: int = 0


def moves(current: list, new: list) -> list:
    return current + new


class Walk(TypedDict):
    at: Point
    trail: Annotated[list[Point], moves]


def step(state: Walk):
    here = state["at"]
    print("step reads", type(here).__name__, here)
    ahead = Point(x=here.x + 1, y=here.y)
    return {"at": ahead, "trail": [ahead]}


walk = (
    StateGraph(Walk)
    .add_node("step", step)
    .add_edge(START, "step")
    .add_edge("step", END)
    .compile(checkpointer=InMemorySaver())
)
config = {"configurable": {"thread_id": "walk"}}
print(walk.invoke({"at": Point(x=0), "trail": []}, config))
print(walk.invoke({"trail": [Point(x=9, y=9)]}, config))
snapshot = walk.get_state(config)
print("snapshot", snapshot.values, [type(p).__name__ for p in snapshot.values["trail"]])


class Scripted(BaseChatModel):
    replies: list

    @property
    def _llm_type(self):
        return "scripted"

    def bind_tools(self, tools, **kwargs):
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        return ChatResult(generations=[ChatGeneration(message=self.replies.pop(0))])


@tool
def peek(x: int) -> str:
    """Peek at x."""
    return f"saw {x}"


call = {"name": "peek", "args": {"x": 1}, "id": "p1"}
agent = create_react_agent(
    Scripted(replies=[AIMessage("", tool_calls=[call]), AIMessage("done")]),
    [peek],
    state_schema=AgentStatePydantic,
    checkpointer=InMemorySaver(),
)
config = {"configurable": {"thread_id": "react"}}
out = agent.invoke({"messages": [("user", "hi")]}, config)
print("react", [(m.type, m.content) for m in out["messages"]])
values = agent.get_state(config).values
print("react snapshot", sorted(values), [m.type for m in values["messages"]])


class Weather(BaseModel):
    """The weather in a city."""

    city: str
    degrees: float


answer = {"name": "Weather", "args": {"city": "Oslo", "degrees": 3.5}, "id": "w1"}
agent = create_agent(
    Scripted(replies=[AIMessage("", tool_calls=[answer])]),
    [],
    response_format=ToolStrategy(Weather),
    checkpointer=InMemorySaver(),
)
config = {"configurable": {"thread_id": "weather"}}
out = agent.invoke({"messages": [("user", "weather in Oslo?")]}, config)
print("agent", type(out["structured_response"]).__name__, out["structured_response"])
found = agent.get_state(config).values["structured_response"]
print("agent snapshot", type(found).__name__, found)
