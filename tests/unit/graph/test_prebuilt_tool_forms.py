"""ToolNode's sync and async paths, and what it injects into tools with a schema of their own."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

import pytest

pytest.importorskip("langchain_core")

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import StructuredTool
from pydantic import BaseModel

from pyctx_web.graph import START, MessagesState, StateGraph
from pyctx_web.graph.prebuilt import InjectedState, ToolNode, ToolRuntime
from pyctx_web.graph.prebuilt.tool_node import ToolCallRequest


class Where(BaseModel):
    city: str


def _weather(city: str, runtime: ToolRuntime, state: Annotated[Any, InjectedState]) -> str:
    """The weather in a city."""
    return f"{city}: {runtime.tool_call_id}, {len(state['messages'])} messages"


def _named(city: str, runtime: Any) -> str:
    """What a city's runtime is."""
    return f"{city}: {type(runtime).__name__}"


def _graph(node: ToolNode) -> Any:
    return StateGraph(MessagesState).add_node("tools", node).add_edge(START, "tools").compile()


def _asking(name: str) -> dict[str, Any]:
    call = {"name": name, "args": {"city": "Oslo"}, "id": "c1", "type": "tool_call"}
    return {"messages": [HumanMessage("hi"), AIMessage("", tool_calls=[call])]}


def _answer(result: dict[str, Any]) -> str:
    last = result["messages"][-1]
    assert isinstance(last, ToolMessage)
    return str(last.content)


def _logged_node(log: list[str]) -> ToolNode:
    def wrap(request: ToolCallRequest, handler: Callable[[ToolCallRequest], Any]) -> Any:
        log.append("sync")
        return handler(request)

    async def awrap(
        request: ToolCallRequest, handler: Callable[[ToolCallRequest], Awaitable[Any]]
    ) -> Any:
        log.append("async")
        return await handler(request)

    tool = StructuredTool.from_function(_named, name="named")
    return ToolNode([tool], wrap_tool_call=wrap, awrap_tool_call=awrap)


def test_each_graph_call_takes_the_tool_path_of_its_kind() -> None:
    """ToolNode calls wrap_tool_call under invoke() and awrap_tool_call under ainvoke()."""
    log: list[str] = []
    _graph(_logged_node(log)).invoke(_asking("named"))
    asyncio.run(_graph(_logged_node(log)).ainvoke(_asking("named")))
    assert log == ["sync", "async"]


def test_a_tool_with_its_own_schema_gets_what_its_function_asks_for() -> None:
    """A tool whose schema lists only the model's arguments still gets its ToolRuntime and state."""
    tool = StructuredTool.from_function(_weather, name="weather", args_schema=Where)
    result = _graph(ToolNode([tool])).invoke(_asking("weather"))
    assert _answer(result) == "Oslo: c1, 2 messages"


def test_a_parameter_named_runtime_gets_the_tool_runtime() -> None:
    """A tool parameter named runtime gets the ToolRuntime whatever its annotation."""
    tool = StructuredTool.from_function(_named, name="named")
    assert _answer(_graph(ToolNode([tool])).invoke(_asking("named"))) == "Oslo: ToolRuntime"


def test_a_traced_runs_tool_calls_are_runs_of_the_tools_node() -> None:
    """In a run given LangChain callbacks, each tool call is a run of the ToolNode's node run."""
    from langchain_core.tracers.base import BaseTracer
    from langchain_core.tracers.schemas import Run

    class Kept(BaseTracer):
        def __init__(self) -> None:
            super().__init__()
            self.runs: list[Run] = []

        def _persist_run(self, run: Run) -> None:
            return None

        def _on_chain_end(self, run: Run) -> None:
            self.runs.append(run)

        def _on_tool_end(self, run: Run) -> None:
            self.runs.append(run)

    tool = StructuredTool.from_function(_named, name="named")
    tracer = Kept()
    _graph(ToolNode([tool])).invoke(_asking("named"), {"callbacks": [tracer]})
    by_name = {run.name: run for run in tracer.runs}
    assert by_name["named"].parent_run_id == by_name["tools"].id
