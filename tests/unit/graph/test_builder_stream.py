"""Graph building errors, routing, streaming and the sync forms."""

from __future__ import annotations

import dataclasses
import operator
from typing import Annotated, Any, TypedDict

import pytest

import pyctx_web.graph._sync as compiled_module
from pyctx_web.errors import ContextMissingError
from pyctx_web.graph import END, START, StateGraph
from pyctx_web.graph.checkpoint.base import Checkpointer
from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.graph.config import get_stream_writer
from pyctx_web.graph.errors import (
    GraphRecursionError,
    InvalidGraphError,
    InvalidUpdateError,
    SyncUnavailableError,
)
from pyctx_web.graph.runtime import Runtime
from pyctx_web.graph.types import Command, Send, interrupt

from .helpers import EMPTY, State, node


def _noop(state: State) -> None:
    return None


def test_add_node_rejects_reserved_duplicate_and_bad_names() -> None:
    """add_node refuses START/END, duplicates, empty names and bad signatures, naming each."""
    builder = StateGraph(State).add_node("a", _noop)
    with pytest.raises(
        InvalidGraphError,
        match=r"^node name '__start__' is reserved for the graph's __start__ node$",
    ):
        builder.add_node(START, _noop)
    with pytest.raises(
        InvalidGraphError, match=r"^node name '__end__' is reserved for the graph's __end__ node$"
    ):
        builder.add_node(END, _noop)
    with pytest.raises(InvalidGraphError, match=r"^node 'a' is already present in the graph$"):
        builder.add_node("a", _noop)
    with pytest.raises(InvalidGraphError, match=r"^node name must be a non-empty str, not ''$"):
        builder.add_node("", _noop)
    with pytest.raises(
        InvalidGraphError,
        match=(
            r"^node 'three': function <function .*> takes the state and may ask for runtime, "
            r"config, writer or store; nothing is given for its parameter 'b' "
            r"\(signature \(a, b, c\)\)$"
        ),
    ):
        builder.add_node("three", lambda a, b, c: None)
    with pytest.raises(
        InvalidGraphError,
        match=(
            r"^node 'none': function <function .*> must take the state as its first parameter, "
            r"its signature is \(\)$"
        ),
    ):
        builder.add_node("none", lambda: None)
    with pytest.raises(TypeError, match=r"^add_node\(\) function of 'x' must be callable, not 42$"):
        builder.add_node("x", 42)  # a non-callable is under test


def test_add_node_names_node_after_function() -> None:
    """add_node(fn) uses the function's name."""

    def greet(state: State) -> None:
        return None

    graph = StateGraph(State).add_node(greet).add_edge(START, "greet").compile()
    assert tuple(graph.nodes) == ("greet",)


def test_compile_rejects_unknown_nodes_and_missing_entry() -> None:
    """compile names the edge with an unknown node, and a graph without an entry point."""
    with pytest.raises(
        InvalidGraphError,
        match=r"^add_edge\('a', 'ghost'\): unknown node 'ghost' \(known nodes: 'a'\)$",
    ):
        StateGraph(State).add_node("a", _noop).add_edge(START, "a").add_edge("a", "ghost").compile()
    with pytest.raises(
        InvalidGraphError,
        match=r"^add_edge\('ghost', 'a'\): unknown node 'ghost' \(known nodes: 'a'\)$",
    ):
        StateGraph(State).add_node("a", _noop).add_edge("ghost", "a").compile()
    with pytest.raises(
        InvalidGraphError,
        match=(
            r"^graph has no entry point: add an edge from START, e\.g\. "
            r"add_edge\(START, 'first_node'\)$"
        ),
    ):
        StateGraph(State).add_node("a", _noop).compile()
    with pytest.raises(InvalidGraphError, match=r"^graph has no nodes: add one with add_node\(\)$"):
        StateGraph(State).compile()
    with pytest.raises(
        InvalidGraphError, match=r"^add_edge\(\): END cannot be the source of an edge$"
    ):
        StateGraph(State).add_edge(END, "a")
    with pytest.raises(
        InvalidGraphError, match=r"^add_edge\(\): START cannot be the destination of an edge$"
    ):
        StateGraph(State).add_edge("a", START)
    with pytest.raises(
        InvalidGraphError,
        match=(
            r"^add_conditional_edges\('a', \.\.\.\) path_map: unknown node 'ghost' "
            r"\(known nodes: 'a'\)$"
        ),
    ):
        (
            StateGraph(State)
            .add_node("a", _noop)
            .add_edge(START, "a")
            .add_conditional_edges("a", lambda s: "x", {"x": "ghost"})
            .compile()
        )
    with pytest.raises(
        InvalidGraphError,
        match=r"^compile\(interrupt_before=\.\.\.\): unknown node 'zz' \(known nodes: 'a'\)$",
    ):
        StateGraph(State).add_node("a", _noop).add_edge(START, "a").compile(
            checkpointer=InMemorySaver(), interrupt_before=["zz"]
        )
    with pytest.raises(
        InvalidGraphError,
        match=(
            r"^interrupt_before/interrupt_after need a checkpointer to pause and "
            r"resume: compile\(checkpointer=InMemorySaver\(\), \.\.\.\)$"
        ),
    ):
        StateGraph(State).add_node("a", _noop).add_edge(START, "a").compile(interrupt_before=["a"])


def test_state_type_must_be_typeddict_or_dataclass() -> None:
    """StateGraph refuses a state type that is not a TypedDict, a dataclass or a pydantic model."""
    with pytest.raises(
        TypeError,
        match=(
            r"^StateGraph\(\) state type must be a TypedDict, a dataclass or a "
            r"pydantic model, not <class 'dict'>$"
        ),
    ):
        StateGraph(dict)

    class Bad(TypedDict):
        xs: Annotated[list[str], len]

    with pytest.raises(
        InvalidGraphError,
        match=(
            r"^reducer of state key 'xs' must take two arguments \(current, "
            r"update\), got <built-in function len>$"
        ),
    ):
        StateGraph(Bad)


@pytest.mark.asyncio
async def test_update_with_unknown_key_names_node_and_key(mode: str) -> None:
    """A node writing a key outside the schema fails with an error naming both."""
    graph = (
        StateGraph(State)
        .add_node("writer", node(lambda s: {"oops": 1}, mode))
        .add_edge(START, "writer")
        .compile()
    )
    with pytest.raises(
        InvalidUpdateError,
        match=(
            r"^node 'writer' wrote state key 'oops', which is not in State \(keys: "
            r"topic, log, answers, results, answer\)$"
        ),
    ) as info:
        await graph.ainvoke({"log": []})
    assert (info.value.node, info.value.key) == ("writer", "oops")
    with pytest.raises(
        InvalidUpdateError,
        match=(
            r"^the input wrote state key 'nope', which is not in State \(keys: "
            r"topic, log, answers, results, answer\)$"
        ),
    ):
        await graph.ainvoke({"nope": 1})
    bad_return = StateGraph(State).add_node("w", node(lambda s: 42, mode)).add_edge(START, "w")
    with pytest.raises(
        InvalidUpdateError,
        match=r"^node 'w' must give a dict of state updates, a Command or None, not 'int'$",
    ):
        await bad_return.compile().ainvoke({})


@pytest.mark.asyncio
async def test_two_writes_to_plain_key_in_one_step_are_refused(mode: str) -> None:
    """Two parallel nodes writing a key without reducer raise an error telling to add one."""
    graph = (
        StateGraph(State)
        .add_node("a", node(lambda s: {"topic": "a"}, mode))
        .add_node("b", node(lambda s: {"topic": "b"}, mode))
        .add_edge(START, "a")
        .add_edge(START, "b")
        .compile()
    )
    with pytest.raises(
        InvalidUpdateError,
        match=(
            r"^At key 'topic': Can receive only one value per step\. Use an "
            r"Annotated key to handle multiple values\.$"
        ),
    ) as info:
        await graph.ainvoke({})
    assert info.value.key == "topic"
    assert info.value.node in {"a", "b"}


@pytest.mark.asyncio
async def test_routers_path_maps_command_goto_and_node_context(mode: str) -> None:
    """Routers (sync or async), path maps, Command(goto) and a node's runtime steer the run."""
    seen: list[tuple[str, int]] = []

    def start(state: State, runtime: Runtime[Any]) -> Command[str]:
        assert runtime.execution_info is not None
        seen.append(("start", runtime.execution_info.node_attempt))
        return Command(update={"log": ["start"]}, goto=[Send("fan", "s1"), "middle"])

    async def route(state: State) -> str:
        return "yes" if "middle" in state["log"] else "no"

    graph = (
        StateGraph(State)
        .add_node("start", node(start, mode))
        .add_node("fan", node(lambda arg: {"log": [f"fan:{arg}"]}, mode))
        .add_node("middle", node(lambda s: {"log": ["middle"]}, mode))
        .add_node("done", node(lambda s: {"log": ["done"]}, mode))
        .add_edge(START, "start")
        .add_conditional_edges("middle", route, {"yes": "done", "no": END})
        .compile()
    )
    out = await graph.ainvoke({"log": []})
    # The step's writes apply by task path, as LangGraph's: the node's own task before a Send's.
    assert out["log"] == ["start", "middle", "fan:s1", "done"]
    assert seen == [("start", 1)]


@pytest.mark.asyncio
async def test_router_returning_unknown_node_is_named() -> None:
    """A router choosing a node that does not exist fails naming it."""
    graph = (
        StateGraph(State)
        .add_node("a", _noop)
        .add_edge(START, "a")
        .add_conditional_edges("a", lambda s: "ghost")
        .compile()
    )
    with pytest.raises(
        InvalidUpdateError,
        match=r"^the router of 'a' chose 'ghost', which is not a node \(known nodes: 'a'\)$",
    ):
        await graph.ainvoke({})


@pytest.mark.asyncio
async def test_recursion_limit_stops_endless_loops() -> None:
    """A loop that never ends raises GraphRecursionError at the limit."""
    graph = (
        StateGraph(State)
        .add_node("spin", lambda s: {"log": ["x"]})
        .add_edge(START, "spin")
        .add_edge("spin", "spin")
        .compile()
    )
    with pytest.raises(
        GraphRecursionError,
        match=(
            r"^recursion limit of 5 steps reached without the graph ending; raise "
            r"it with config=\{'recursion_limit': n\}$"
        ),
    ) as info:
        await graph.ainvoke({"log": []}, config={"recursion_limit": 5})
    assert info.value.limit == 5


@dataclasses.dataclass
class Counter2:
    """A dataclass state with defaults."""

    n: int = 0
    seen: Annotated[list[int], operator.add] = dataclasses.field(default_factory=list)


@pytest.mark.asyncio
async def test_dataclass_state_nodes_get_instances(mode: str) -> None:
    """With a dataclass schema, nodes receive instances and defaults fill missing fields."""
    graph = (
        StateGraph(Counter2)
        .add_node("inc", node(lambda s: {"n": s.n + 1, "seen": [s.n]}, mode))
        .add_edge(START, "inc")
        .compile()
    )
    assert await graph.ainvoke({}) == {"n": 1, "seen": [0]}
    assert await graph.ainvoke(Counter2(n=5)) == {"n": 6, "seen": [5]}


def _streaming_graph(checkpointer: Checkpointer, mode: str) -> Any:
    def a(state: State) -> dict[str, Any]:
        get_stream_writer()("from-a")
        return {"log": ["a"]}

    def b(state: State, runtime: Runtime[Any]) -> dict[str, Any]:
        runtime.stream_writer("from-b")
        return {"answer": interrupt("q")}

    return (
        StateGraph(State)
        .add_node("a", node(a, mode))
        .add_node("b", node(b, mode))
        .add_edge(START, "a")
        .add_edge("a", "b")
        .compile(checkpointer=checkpointer)
    )


@pytest.mark.asyncio
async def test_astream_modes(checkpointer: Checkpointer, mode: str) -> None:
    """astream yields updates, values (with a pause's interrupts), custom chunks or mode pairs."""
    graph = _streaming_graph(checkpointer, mode)
    updates = [c async for c in graph.astream({"log": []}, thread_id="u")]
    assert updates[0] == {"a": {"log": ["a"]}}
    assert [i.value for i in updates[1]["__interrupt__"]] == ["q"]
    assert len(updates) == 2
    values = [c async for c in graph.astream({"log": []}, thread_id="v", stream_mode="values")]
    *steps, paused = values
    assert steps == [{**EMPTY, "log": []}, {**EMPTY, "log": ["a"]}]
    assert [i.value for i in paused.pop("__interrupt__")] == ["q"]
    assert paused == {**EMPTY, "log": ["a"]}
    custom = [c async for c in graph.astream({"log": []}, thread_id="c", stream_mode="custom")]
    assert custom == ["from-a", "from-b"]
    both = [
        c async for c in graph.astream({"log": []}, thread_id="m", stream_mode=["custom", "values"])
    ]
    assert both[:4] == [
        ("values", {**EMPTY, "log": []}),
        ("custom", "from-a"),
        ("values", {**EMPTY, "log": ["a"]}),
        ("custom", "from-b"),
    ]
    assert [(m, set(c)) for m, c in both[4:]] == [("values", {*EMPTY, "__interrupt__"})]
    resumed = [c async for c in graph.astream(Command(resume="x"), thread_id="u")]
    assert resumed == [{"b": {"answer": "x"}}]
    resumed_values = [
        c async for c in graph.astream(Command(resume="x"), thread_id="v", stream_mode="values")
    ]
    assert resumed_values == [{**EMPTY, "log": ["a"]}, {**EMPTY, "log": ["a"], "answer": "x"}]
    with pytest.raises(
        ValueError,
        match=(
            r"^unknown stream_mode 'everything'; expected one of checkpoints, "
            r"custom, debug, messages, tasks, tools, updates, values$"
        ),
    ):
        [c async for c in graph.astream({}, thread_id="z", stream_mode="everything")]


def test_get_stream_writer_outside_run_raises() -> None:
    """get_stream_writer() outside a run raises ContextMissingError."""
    with pytest.raises(
        ContextMissingError, match=r"^get_stream_writer\(\) was called outside a graph run$"
    ):
        get_stream_writer()


def test_sync_forms_run_async_nodes(checkpointer: Checkpointer, mode: str) -> None:
    """The sync forms work without a running loop, also when the nodes are async."""
    graph = _streaming_graph(checkpointer, mode)
    paused = graph.invoke({"log": []}, thread_id="t")
    assert [i.value for i in paused["__interrupt__"]] == ["q"]
    assert graph.get_state("t").next == ("b",)
    graph.update_state("t", {"log": ["human"]})
    assert [c for c in graph.stream(Command(resume="ok"), thread_id="t")] == [
        {"b": {"answer": "ok"}}
    ]
    assert graph.get_state("t").values == {**EMPTY, "log": ["a", "human"], "answer": "ok"}
    sources = [s.metadata["source"] for s in graph.get_state_history("t") if s.metadata]
    assert sources == ["loop", "update", "loop", "loop", "input"]


def test_sync_forms_refuse_in_pyodide(monkeypatch: pytest.MonkeyPatch) -> None:
    """In Pyodide the sync forms raise an error telling to use the async form."""
    monkeypatch.setattr(compiled_module, "IN_PYODIDE", True)
    graph = (
        StateGraph(State)
        .add_node("a", _noop)
        .add_edge(START, "a")
        .compile(checkpointer=InMemorySaver())
    )
    with pytest.raises(
        SyncUnavailableError,
        match=(
            r"^invoke\(\) is not available in Pyodide here: this JavaScript runtime "
            r"has no JavaScript Promise Integration \(JSPI\), which "
            r"pyodide\.ffi\.run_sync needs; use `await graph\.ainvoke\(\.\.\.\)`$"
        ),
    ):
        graph.invoke({}, thread_id="t")
    with pytest.raises(
        SyncUnavailableError,
        match=(
            r"^get_state\(\) is not available in Pyodide here: this JavaScript "
            r"runtime has no JavaScript Promise Integration \(JSPI\), which "
            r"pyodide\.ffi\.run_sync needs; use `await graph\.aget_state\(\.\.\.\)`$"
        ),
    ):
        graph.get_state("t")
    with pytest.raises(
        SyncUnavailableError,
        match=(
            r"^update_state\(\) is not available in Pyodide here: this JavaScript "
            r"runtime has no JavaScript Promise Integration \(JSPI\), which "
            r"pyodide\.ffi\.run_sync needs; use `await "
            r"graph\.aupdate_state\(\.\.\.\)`$"
        ),
    ):
        graph.update_state("t", {})
