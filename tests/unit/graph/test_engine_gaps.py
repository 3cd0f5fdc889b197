"""LangGraph behaviours the engine gained for LangGraph's prebuilt agents and LangChain's agents."""

from __future__ import annotations

import dataclasses
import operator
import subprocess
import sys
from typing import Annotated, Any, NotRequired, Required, get_origin

import pytest
from typing_extensions import ReadOnly, TypedDict

from pyctx_web.errors import ArgumentTypeError
from pyctx_web.graph import END, START, StateGraph
from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.graph.errors import (
    GraphConfigError,
    GraphRecursionError,
    InvalidUpdateError,
    ParentCommand,
)
from pyctx_web.graph.runtime import ExecutionInfo, RunControl, Runtime, ServerInfo
from pyctx_web.graph.state import CompiledStateGraph
from pyctx_web.graph.types import Command, Send, interrupt


def _appends(state_type: type) -> Any:
    graph = StateGraph(state_type)
    graph.add_node("a", lambda state: {"x": [2]})
    graph.add_edge(START, "a")
    graph.add_edge("a", END)
    return graph.compile().invoke({"x": [1]})


class _Required(TypedDict):
    x: Required[Annotated[list[int], operator.add]]


class _NotRequired(TypedDict, total=False):
    x: NotRequired[Annotated[list[int], operator.add]]


class _ReadOnly(TypedDict):
    x: ReadOnly[Annotated[list[int], operator.add]]


class _Nested(TypedDict):
    x: Required[ReadOnly[Annotated[list[int], operator.add]]]


class _Inside(TypedDict):
    x: Annotated[NotRequired[list[int]], operator.add]


@pytest.mark.parametrize("state_type", [_Required, _NotRequired, _ReadOnly, _Nested, _Inside])
def test_reducer_inside_key_qualifiers_applies(state_type: type) -> None:
    """A reducer declared inside Required/NotRequired/ReadOnly (nested or not) combines writes."""
    assert _appends(state_type) == {"x": [1, 2]}


def test_reducer_inside_not_required_starts_from_empty() -> None:
    """A NotRequired reduced key without a value starts empty and takes two writes of one step."""

    class State(TypedDict):
        n: int
        x: NotRequired[Annotated[list[int], operator.add]]

    graph = StateGraph(State)
    graph.add_node("a", lambda state: {"x": [2]})
    graph.add_node("b", lambda state: {"x": [3]})
    graph.add_edge(START, "a")
    graph.add_edge(START, "b")
    assert graph.compile().invoke({"n": 1}) == {"n": 1, "x": [2, 3]}


def _one_node() -> StateGraph:
    class State(TypedDict):
        x: int

    graph = StateGraph(State)
    graph.add_node("a", lambda state: {"x": state["x"] + 1})
    graph.add_edge(START, "a")
    return graph


def test_compile_takes_none_breakpoints() -> None:
    """compile(interrupt_before=None, interrupt_after=None), LangGraph's defaults, pause nowhere."""
    app = _one_node().compile(interrupt_before=None, interrupt_after=None)
    assert app.invoke({"x": 1}) == {"x": 2}


_TWICE = (
    r"^At key 'y': Can receive only one value per step\. "
    r"Use an Annotated key to handle multiple values\.$"
)


_PARENT_REPR = r"^Command\(graph='__parent__', update=\{'x': \['child'\]\}, goto='other'\)$"
_BAD_GRAPH = (
    r"^node 'n' returned Command\(graph='elsewhere'\); graph must be None \(this graph\) "
    r"or Command\.PARENT$"
)


_BAD_SCHEMA = (
    r"^interrupt\(\) response_schema must be a JSON Schema dict or a type \(a pydantic model, "
    r"TypedDict or dataclass\), not 'int'$"
)


_CACHE = (
    r"^compile\(cache=\.\.\.\) is not supported: pyctx_web does not cache nodes, "
    r"pass cache=None \(got 'object'\)$"
)


class _Log(TypedDict):
    x: Annotated[list[str], operator.add]
    y: int


def _commands_graph(first: Any) -> Any:
    graph = StateGraph(_Log)
    graph.add_node("a", first)
    graph.add_node("b", lambda state: {"x": ["b"]})
    graph.add_node("c", lambda state: {"x": [f"c{state['y']}"]})
    graph.add_edge(START, "a")
    return graph.compile()


def test_node_returns_list_of_commands() -> None:
    """A node's list of Commands applies every update in order and goes to every goto."""
    app = _commands_graph(
        lambda state: [
            Command(update={"x": ["a1"]}, goto="b"),
            Command(update={"x": ["a2"], "y": 1}, goto=["c", Send("c", {"x": [], "y": 5})]),
        ]
    )
    updates = list(app.stream({"x": [], "y": 0}, stream_mode="updates"))
    assert updates[0] == {"a": [{"x": ["a1"]}, {"x": ["a2"]}, {"y": 1}]}
    assert app.invoke({"x": [], "y": 0}) == {"x": ["a1", "a2", "b", "c1", "c5"], "y": 1}


def test_node_returns_mixed_list() -> None:
    """A list mixing dicts of updates and Commands applies the dicts too."""
    app = _commands_graph(lambda state: [{"x": ["m"], "y": 2}, Command(goto="c")])
    assert list(app.stream({"x": [], "y": 0}, stream_mode="updates")) == [
        {"a": {"x": ["m"], "y": 2}},
        {"c": {"x": ["c2"]}},
    ]


def test_list_of_commands_writing_one_key_twice_is_refused() -> None:
    """Two Commands of one list writing a last-value key is a concurrent update."""
    app = _commands_graph(lambda state: [Command(update={"y": 1}), Command(update={"y": 2})])
    with pytest.raises(InvalidUpdateError, match=_TWICE):
        app.invoke({"x": [], "y": 0})


def _counter() -> StateGraph:
    class State(TypedDict):
        n: int

    graph = StateGraph(State)
    graph.add_node("a", lambda state: {"n": state["n"] + 1})
    graph.add_edge(START, "a")
    graph.add_conditional_edges("a", lambda state: END if state["n"] >= 5 else "a")
    return graph


def test_with_config_binds_recursion_limit() -> None:
    """with_config(recursion_limit=...) applies to every run of the copy, not to the graph."""
    app = _counter().compile()
    with pytest.raises(GraphRecursionError):
        app.with_config(recursion_limit=2).invoke({"n": 0})
    assert app.config is None
    assert app.invoke({"n": 0}) == {"n": 5}


def test_with_config_binds_thread() -> None:
    """A thread bound by with_config() serves runs and state calls; a call's own config wins."""
    app = _counter().compile(checkpointer=InMemorySaver())
    bound = app.with_config({"configurable": {"thread_id": "t1"}}, tags=["x"])
    assert bound.config == {"configurable": {"thread_id": "t1"}, "tags": ["x"]}
    assert bound.invoke({"n": 3}) == {"n": 5}
    assert bound.get_state({}).values == {"n": 5}
    assert app.get_state({"configurable": {"thread_id": "t1"}}).values == {"n": 5}
    bound.invoke({"n": 4}, {"configurable": {"thread_id": "t2"}})
    assert app.get_state({"configurable": {"thread_id": "t2"}}).values == {"n": 5}


def test_graph_classes_are_generic() -> None:
    """StateGraph[...] and CompiledStateGraph[...] subscript, as LangGraph's generic classes do."""
    builder: Any = StateGraph  # the subscripts are for runtime annotations, as in LangGraph
    compiled: Any = CompiledStateGraph
    assert get_origin(builder[_Log, None, _Log, _Log]) is StateGraph
    assert get_origin(compiled[_Log, None, _Log, _Log]) is CompiledStateGraph
    assert isinstance(builder[_Log](_Log), StateGraph)


def test_runtime_has_langgraph_fields_in_order() -> None:
    """Runtime's public fields are LangGraph 1.2's, in its order."""
    names = [f.name for f in dataclasses.fields(Runtime) if not f.name.startswith("_")]
    assert names == [
        "context",
        "store",
        "stream_writer",
        "heartbeat",
        "previous",
        "execution_info",
        "server_info",
        "control",
    ]
    info = [f.name for f in dataclasses.fields(ExecutionInfo)]
    assert info[-1] == "node_first_attempt_time"


def test_node_runtime_has_no_server_and_no_drain() -> None:
    """A node's runtime has server_info None, a no-op heartbeat and no drain request."""
    seen: list[Any] = []

    def node(state: _Log, runtime: Runtime[None]) -> dict[str, Any]:
        runtime.heartbeat()
        assert runtime.execution_info is not None
        patched = runtime.patch_execution_info(node_attempt=7)
        seen.extend([runtime.server_info, runtime.control, runtime.drain_requested])
        seen.extend([runtime.drain_reason, patched.execution_info.node_attempt])  # type: ignore[union-attr]
        return {}

    graph = StateGraph(_Log)
    graph.add_node("n", node)
    graph.add_edge(START, "n")
    graph.compile().invoke({"x": [], "y": 0})
    assert seen == [None, None, False, None, 7]


def test_runtime_drain_follows_its_control() -> None:
    """A Runtime given a RunControl reports the drain asked of it; merge keeps the control."""
    control = RunControl()
    runtime: Runtime[None] = Runtime(control=control, server_info=ServerInfo("asst", "g"))
    control.request_drain("deploy")
    assert (runtime.drain_requested, runtime.drain_reason) == (True, "deploy")
    merged = Runtime[None]().merge(runtime)
    assert merged.control is control
    assert merged.server_info == ServerInfo("asst", "g")


class _Private(TypedDict):
    y: int
    secret: str


def test_add_node_input_schema_chooses_what_the_node_reads() -> None:
    """add_node(input_schema=...) gives the node only that schema's keys, adding the new ones."""
    seen: list[Any] = []

    def read(state: Any) -> dict[str, Any]:
        seen.append(dict(state))
        return {}

    graph = StateGraph(_Log)
    graph.add_node("w", lambda state: {"secret": "s"}, input_schema=_Private)
    graph.add_node("r", read, input_schema=_Private)
    graph.add_edge(START, "w")
    graph.add_edge("w", "r")
    assert graph.compile().invoke({"x": ["a"], "y": 3}) == {"x": ["a"], "y": 3}
    assert seen == [{"y": 3, "secret": "s"}]


class _AsyncRunnable:
    """A Runnable as LangChain's: ainvoke/invoke, not callable."""

    name = "echo"

    def __init__(self) -> None:
        self.configs: list[Any] = []

    async def ainvoke(self, state: Any, config: Any = None) -> Any:
        self.configs.append(config)
        return {"x": [f"async{state['y']}"]}

    def invoke(self, state: Any, config: Any = None) -> Any:
        raise AssertionError("the engine awaits ainvoke")


class _SyncRunnable:
    def invoke(self, state: Any, config: Any = None) -> Any:
        return [Command(update={"x": ["sync"]})]


def test_add_node_runs_a_runnable_with_the_run_config() -> None:
    """A non-callable Runnable node runs with ainvoke(state, config), or invoke() alone."""
    runnable = _AsyncRunnable()
    graph = StateGraph(_Log)
    graph.add_node(runnable)
    graph.add_node("s", _SyncRunnable())
    graph.add_edge(START, "echo")
    graph.add_edge("echo", "s")
    app = graph.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    assert app.invoke({"x": [], "y": 1}, config) == {"x": ["async1", "sync"], "y": 1}
    assert runnable.configs[0]["configurable"]["thread_id"] == "t"


def test_add_node_runs_a_langchain_runnable() -> None:
    """A langchain_core RunnableLambda is a node, as in LangGraph."""
    runnables = pytest.importorskip("langchain_core.runnables")
    graph = StateGraph(_Log)
    graph.add_node("lam", runnables.RunnableLambda(lambda state: {"x": ["lam"]}))
    graph.add_edge(START, "lam")
    assert graph.compile().invoke({"x": [], "y": 0}) == {"x": ["lam"], "y": 0}


def _to_parent(state: _Log) -> Command[Any]:
    return Command(graph=Command.PARENT, goto="other", update={"x": ["child"]})


def _parent_of(child: Any) -> StateGraph:
    parent = StateGraph(_Log)
    parent.add_node("sub", child)
    parent.add_node("other", lambda state: {"x": ["other"]})
    parent.add_node("after", lambda state: {"x": ["after"]})
    parent.add_edge(START, "sub")
    parent.add_edge("sub", "after")
    return parent


def test_command_to_parent_updates_and_routes_the_parent() -> None:
    """Command(graph=Command.PARENT) in a subgraph node is the parent node's return value."""
    child = StateGraph(_Log)
    child.add_node("to_parent", _to_parent)
    child.add_node("never", lambda state: {"x": ["never"]})
    child.add_edge(START, "to_parent")
    child.add_edge("to_parent", "never")
    app = _parent_of(child.compile()).compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "p"}}
    updates = list(app.stream({"x": [], "y": 0}, config, stream_mode="updates"))
    assert updates[0] == {"sub": {"x": ["child"]}}
    assert app.get_state(config).values == {"x": ["child", "after", "other"], "y": 0}


def test_command_to_parent_of_top_graph_raises() -> None:
    """Command(graph=Command.PARENT) in a graph without parent raises ParentCommand."""
    graph = StateGraph(_Log)
    graph.add_node("to_parent", _to_parent)
    graph.add_edge(START, "to_parent")
    with pytest.raises(ParentCommand, match=_PARENT_REPR) as caught:
        graph.compile().invoke({"x": [], "y": 0})
    assert caught.value.command.goto == "other"


def test_command_to_unknown_graph_is_refused() -> None:
    """A Command's graph is None or Command.PARENT."""
    graph = StateGraph(_Log)
    graph.add_node("n", lambda state: Command(graph="elsewhere"))
    graph.add_edge(START, "n")
    with pytest.raises(InvalidUpdateError, match=_BAD_GRAPH):
        graph.compile().invoke({"x": [], "y": 0})


def test_interrupt_response_schema_type_describes_and_checks_the_answer() -> None:
    """interrupt(response_schema=<pydantic model>) surfaces its JSON Schema and returns the
    answer validated into the model; an answer that does not fit raises ValidationError."""
    pydantic = pytest.importorskip("pydantic")

    class Decision(pydantic.BaseModel):  # type: ignore[name-defined,misc]
        ok: bool

    class Answer(TypedDict):
        answer: str

    def ask(state: Answer) -> dict[str, Any]:
        decision = interrupt("approve?", response_schema=Decision)
        return {"answer": f"{type(decision).__name__}:{decision.ok}"}

    graph = StateGraph(Answer)
    graph.add_node("ask", ask)
    graph.add_edge(START, "ask")
    app = graph.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "i"}}
    question = app.invoke({"answer": ""}, config)["__interrupt__"][0]
    assert question.response_schema == Decision.model_json_schema()
    assert app.invoke(Command(resume={"ok": True}), config) == {"answer": "Decision:True"}
    app.invoke({"answer": ""}, {"configurable": {"thread_id": "j"}})
    with pytest.raises(pydantic.ValidationError):
        app.invoke(Command(resume={"ok": "maybe"}), {"configurable": {"thread_id": "j"}})


def test_interrupt_response_schema_of_another_kind_is_refused() -> None:
    """interrupt(response_schema=...) takes a dict or a type, nothing else."""

    def ask(state: _Log) -> dict[str, Any]:
        interrupt("?", response_schema=3)  # type: ignore[arg-type]
        return {}

    graph = StateGraph(_Log)
    graph.add_node("ask", ask)
    graph.add_edge(START, "ask")
    with pytest.raises(ArgumentTypeError, match=_BAD_SCHEMA):
        graph.compile(checkpointer=InMemorySaver()).invoke(
            {"x": [], "y": 0}, {"configurable": {"thread_id": "k"}}
        )


_TOOL_RETURNS_COMMAND = """
{first}
from langchain_core.messages.tool import ToolOutputMixin
from langchain_core.tools import tool

@tool
def hand_off(x: int) -> Command:
    '''Hand off.'''
    return Command(update={{"x": x}}, goto="other")

out = hand_off.invoke({{"type": "tool_call", "name": "hand_off", "args": {{"x": 1}}, "id": "c1"}})
print(type(out).__name__, isinstance(Command(), ToolOutputMixin))
"""


@pytest.mark.parametrize(
    "first",
    [
        "from pyctx_web.graph.types import Command",
        "import langchain_core.tools\nfrom pyctx_web.graph.types import Command",
    ],
)
def test_a_langchain_tool_returns_a_command_as_it_is(first: str) -> None:
    """A LangChain tool returning a Command returns it unwrapped, whichever is imported first."""
    pytest.importorskip("langchain_core")
    code = _TOOL_RETURNS_COMMAND.format(first=first)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "Command True\n"


def test_compile_takes_langchain_agent_options() -> None:
    """compile() takes create_agent's cache=None, debug and transformers; a cache is refused."""
    app = _one_node().compile(cache=None, debug=False, transformers=[object])
    assert app.invoke({"x": 1}) == {"x": 2}
    with pytest.raises(GraphConfigError, match=_CACHE):
        _one_node().compile(cache=object())


def test_a_config_run_id_is_the_runs_execution_run_id() -> None:
    """A run given ``config["run_id"]`` (as a server's run is) runs under it: a node's
    ``runtime.execution_info.run_id`` is that id."""
    seen: list[Any] = []

    def node(state: _Log, runtime: Runtime[None]) -> dict[str, Any]:
        assert runtime.execution_info is not None
        seen.append(runtime.execution_info.run_id)
        return {}

    graph = StateGraph(_Log).add_node("node", node).add_edge(START, "node").compile()
    run_id = "0a8e5a2e-0000-4000-8000-000000000001"
    graph.invoke({"x": []}, {"run_id": run_id})
    graph.invoke({"x": []})
    assert seen[0] == run_id
    assert seen[1] != run_id
