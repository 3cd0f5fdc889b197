"""Acceptance items 9-11: breakpoints, aupdate_state, history and forks, errors, retries."""

from __future__ import annotations

import itertools
import uuid
from collections import Counter
from typing import Any

import pytest

from pyctx_web.graph import END, START, StateGraph
from pyctx_web.graph.checkpoint.base import Checkpointer
from pyctx_web.graph.errors import InvalidUpdateError
from pyctx_web.graph.state import CompiledStateGraph
from pyctx_web.graph.types import Command, RetryPolicy, interrupt

from .helpers import EMPTY, State, checkpoint_id, counting, history, node


def _appender(name: str) -> Any:
    """A node body appending ``name`` to the log."""
    return lambda state: {"log": [name]}


def _chain(
    checkpointer: Checkpointer, mode: str, counts: Counter[str], **compile_kw: Any
) -> CompiledStateGraph:
    """a -> b -> c, each appending its name to the log."""
    builder = StateGraph(State)
    for name in "abc":
        builder.add_node(name, node(counting(counts, name, _appender(name)), mode))
    builder.add_edge(START, "a").add_edge("a", "b").add_edge("b", "c").add_edge("c", END)
    return builder.compile(checkpointer=checkpointer, **compile_kw)


@pytest.mark.asyncio
async def test_interrupt_before_pauses_and_none_continues(
    checkpointer: Checkpointer, mode: str
) -> None:
    """interrupt_before stops before the node runs; ainvoke(None) runs it and goes on."""
    counts: Counter[str] = Counter()
    graph = _chain(checkpointer, mode, counts, interrupt_before=["b"])
    out = await graph.ainvoke({"log": []}, thread_id="t")
    assert out == {**EMPTY, "log": ["a"]}
    assert (await graph.aget_state("t")).next == ("b",)
    assert counts == Counter({"a": 1})
    final = await graph.ainvoke(None, thread_id="t")
    assert final == {**EMPTY, "log": ["a", "b", "c"]}
    assert counts == Counter({"a": 1, "b": 1, "c": 1})


@pytest.mark.asyncio
async def test_interrupt_after_pauses_and_none_continues(
    checkpointer: Checkpointer, mode: str
) -> None:
    """interrupt_after stops once the node ran; ainvoke(None) continues with the next node."""
    counts: Counter[str] = Counter()
    graph = _chain(checkpointer, mode, counts, interrupt_after=["a"], interrupt_before=["c"])
    assert await graph.ainvoke({"log": []}, thread_id="t") == {**EMPTY, "log": ["a"]}
    assert (await graph.aget_state("t")).next == ("b",)
    assert await graph.ainvoke(None, thread_id="t") == {**EMPTY, "log": ["a", "b"]}
    assert (await graph.aget_state("t")).next == ("c",)
    assert await graph.ainvoke(None, thread_id="t") == {**EMPTY, "log": ["a", "b", "c"]}
    assert counts == Counter({"a": 1, "b": 1, "c": 1})


@pytest.mark.asyncio
async def test_breakpoints_at_one_boundary_pause_once_and_stream_an_empty_interrupt(
    checkpointer: Checkpointer, mode: str
) -> None:
    """interrupt_after a and interrupt_before b pause once, streaming {"__interrupt__": ()}."""
    counts: Counter[str] = Counter()
    graph = _chain(checkpointer, mode, counts, interrupt_after=["a"], interrupt_before=["b"])
    first = [c async for c in graph.astream({"log": []}, thread_id="t")]
    assert first == [{"a": {"log": ["a"]}}, {"__interrupt__": ()}]
    assert (await graph.aget_state("t")).next == ("b",)
    rest = [c async for c in graph.astream(None, thread_id="t")]
    assert rest == [{"b": {"log": ["b"]}}, {"c": {"log": ["c"]}}]
    assert counts == Counter({"a": 1, "b": 1, "c": 1})


@pytest.mark.asyncio
async def test_update_state_applies_reducers_as_last_node_then_run_continues(
    checkpointer: Checkpointer, mode: str
) -> None:
    """aupdate_state at a breakpoint applies reducers as the last node; the run then goes on."""
    counts: Counter[str] = Counter()
    graph = _chain(checkpointer, mode, counts, interrupt_before=["b"])
    await graph.ainvoke({"log": []}, thread_id="t")
    config = await graph.aupdate_state("t", {"log": ["human"]})
    state = await graph.aget_state("t")
    assert state.config == config
    assert state.values == {**EMPTY, "log": ["a", "human"]}
    assert state.next == ("b",)
    assert state.metadata is not None
    assert state.metadata["source"] == "update"
    assert state.metadata == {"source": "update", "step": state.metadata["step"], "parents": {}}
    final = await graph.ainvoke(None, thread_id="t")
    assert final == {**EMPTY, "log": ["a", "human", "b", "c"]}
    assert counts == Counter({"a": 1, "b": 1, "c": 1})


@pytest.mark.asyncio
async def test_update_state_as_named_node_plans_from_its_edges(checkpointer: Checkpointer) -> None:
    """aupdate_state(as_node="b") writes as b, so the run continues with c."""
    counts: Counter[str] = Counter()
    graph = _chain(checkpointer, "sync", counts, interrupt_before=["b"])
    await graph.ainvoke({"log": []}, thread_id="t")
    await graph.aupdate_state("t", {"log": ["as-b"]}, as_node="b")
    assert (await graph.aget_state("t")).next == ("c",)
    assert await graph.ainvoke(None, thread_id="t") == {**EMPTY, "log": ["a", "as-b", "c"]}
    assert counts == Counter({"a": 1, "c": 1})


@pytest.mark.asyncio
async def test_update_state_as_end_clears_pending_interrupt(
    checkpointer: Checkpointer, mode: str
) -> None:
    """aupdate_state(as_node=END) drops the pending question and ends the run."""
    counts: Counter[str] = Counter()
    graph = (
        StateGraph(State)
        .add_node("ask", node(counting(counts, "ask", lambda s: {"answer": interrupt("q")}), mode))
        .add_edge(START, "ask")
        .compile(checkpointer=checkpointer)
    )
    await graph.ainvoke({"log": []}, thread_id="t")
    await graph.aupdate_state("t", {"answer": "given"}, as_node=END)
    state = await graph.aget_state("t")
    assert state.next == ()
    assert state.interrupts == ()
    assert await graph.ainvoke(None, thread_id="t") == {**EMPTY, "answer": "given"}
    assert counts == Counter({"ask": 1})


@pytest.mark.asyncio
async def test_update_state_while_a_node_waits_asks_its_question_again(
    checkpointer: Checkpointer, mode: str
) -> None:
    """An update while a node waits plans the node afresh: no question is pending until it
    runs again, asks under a new id and then sees the updated state."""
    graph = (
        StateGraph(State)
        .add_node("a", node(lambda s: {"topic": "cats"}, mode))
        .add_node("ask", node(lambda s: {"answer": f"{s['topic']}:{interrupt('q')}"}, mode))
        .add_edge(START, "a")
        .add_edge("a", "ask")
        .compile(checkpointer=checkpointer)
    )
    [q] = (await graph.ainvoke({"log": []}, thread_id="t"))["__interrupt__"]
    await graph.aupdate_state("t", {"topic": "dogs"}, as_node="a")
    state = await graph.aget_state("t")
    assert (state.next, state.interrupts) == (("ask",), ())
    assert [(t.name, t.interrupts) for t in state.tasks] == [("ask", ())]
    [again] = (await graph.ainvoke(None, thread_id="t"))["__interrupt__"]
    assert again.value == "q"
    assert again.id != q.id
    final = await graph.ainvoke(Command(resume={again.id: "yes"}), thread_id="t")
    assert final["answer"] == "dogs:yes"


@pytest.mark.asyncio
async def test_update_state_leaves_out_unknown_keys_and_rejects_unknown_node(
    checkpointer: Checkpointer,
) -> None:
    """aupdate_state leaves out keys outside the state schema and names an unknown as_node."""
    counts: Counter[str] = Counter()
    graph = _chain(checkpointer, "sync", counts, interrupt_before=["b"])
    await graph.ainvoke({"log": []}, thread_id="t")
    await graph.aupdate_state("t", {"nope": 1, "log": ["u"]})
    state = await graph.aget_state("t")
    assert state.values == {**EMPTY, "log": ["a", "u"]}
    assert state.metadata is not None
    assert state.metadata["source"] == "update"
    with pytest.raises(
        InvalidUpdateError,
        match=(r"^update_state\(\): as_node 'zzz' is not a node \(known nodes: 'a', 'b', 'c'\)$"),
    ):
        await graph.aupdate_state("t", {"log": ["x"]}, as_node="zzz")


@pytest.mark.asyncio
async def test_history_gives_each_finished_task_its_result(
    checkpointer: Checkpointer, mode: str
) -> None:
    """In the history and at an earlier checkpoint, a task that finished has its update as
    its result; the paused task has none."""
    counts: Counter[str] = Counter()
    graph = _asking_chain(checkpointer, mode, counts)
    await graph.ainvoke({"log": []}, thread_id="t")
    snaps = await history(graph, "t")
    assert [[(t.name, t.result) for t in s.tasks] for s in snaps] == [
        [("ask", None)],
        [("a", {"log": ["a"]})],
        [("__start__", {"log": []})],
    ]
    assert [s.next for s in snaps] == [("ask",), ("a",), ("__start__",)]
    at = await graph.aget_state(
        {"configurable": {"thread_id": "t", **snaps[1].config["configurable"]}}
    )
    assert [(t.name, t.result) for t in at.tasks] == [("a", {"log": ["a"]})]
    [paged] = [s async for s in graph.aget_state_history("t", before=snaps[0].config, limit=1)]
    assert [(t.name, t.result) for t in paged.tasks] == [("a", {"log": ["a"]})]


def _asking_chain(
    checkpointer: Checkpointer, mode: str, counts: Counter[str]
) -> CompiledStateGraph:
    """a -> ask -> c; ask records the answer."""
    return (
        StateGraph(State)
        .add_node("a", node(counting(counts, "a", lambda s: {"log": ["a"]}), mode))
        .add_node("ask", node(counting(counts, "ask", lambda s: {"answer": interrupt("q")}), mode))
        .add_node("c", node(counting(counts, "c", lambda s: {"log": [f"c:{s['answer']}"]}), mode))
        .add_edge(START, "a")
        .add_edge("a", "ask")
        .add_edge("ask", "c")
        .compile(checkpointer=checkpointer)
    )


@pytest.mark.asyncio
async def test_history_newest_first_with_sources_limit_and_before(
    checkpointer: Checkpointer, mode: str
) -> None:
    """History lists checkpoints newest first, down to the input one; limit and before page it."""
    counts: Counter[str] = Counter()
    graph = _asking_chain(checkpointer, mode, counts)
    await graph.ainvoke({"log": []}, thread_id="t")
    await graph.aupdate_state("t", {"log": ["note"]})
    await graph.ainvoke(Command(resume="yes"), thread_id="t")
    snaps = await history(graph, "t")
    sources = [s.metadata["source"] for s in snaps if s.metadata]
    assert sources == ["loop", "loop", "update", "loop", "loop", "input"]
    assert [s.metadata["step"] for s in snaps if s.metadata] == [4, 3, 2, 1, 0, -1]
    assert snaps[0].values == {**EMPTY, "log": ["a", "note", "c:yes"], "answer": "yes"}
    assert snaps[0].next == ()
    assert (snaps[-1].values, snaps[-1].next) == (EMPTY, ("__start__",))
    assert [t.name for t in snaps[-1].tasks] == ["__start__"]
    assert (snaps[-2].values, snaps[-2].next) == ({**EMPTY, "log": []}, ("a",))
    assert snaps[-1].parent_config is None
    for newer, older in itertools.pairwise(snaps):
        assert newer.parent_config == older.config
    ids = [checkpoint_id(s) for s in snaps]
    assert ids == sorted(ids, reverse=True)
    assert [str(uuid.UUID(i)) for i in ids] == ids
    assert snaps[0].config == {
        "configurable": {"thread_id": "t", "checkpoint_ns": "", "checkpoint_id": ids[0]}
    }
    limited = [s async for s in graph.aget_state_history("t", limit=2)]
    assert limited == snaps[:2]
    below = [s async for s in graph.aget_state_history("t", before=snaps[2].config)]
    assert below == snaps[3:]
    below_id = [
        s async for s in graph.aget_state_history("t", before=checkpoint_id(snaps[2]), limit=1)
    ]
    assert below_id == snaps[3:4]


@pytest.mark.asyncio
async def test_running_from_old_checkpoint_refires_interrupt_and_forks(
    checkpointer: Checkpointer, mode: str
) -> None:
    """Invoking with an older checkpoint id asks again and forks; the old branch stays intact."""
    counts: Counter[str] = Counter()
    graph = _asking_chain(checkpointer, mode, counts)
    await graph.ainvoke({"log": []}, thread_id="t")
    first = await graph.ainvoke(Command(resume="first"), thread_id="t")
    old_branch = await history(graph, "t")
    paused_at = next(s for s in old_branch if s.next == ("ask",))
    refired = await graph.ainvoke(None, config=paused_at.config)
    [q] = refired["__interrupt__"]
    assert q.value == "q"
    assert counts["a"] == 1
    second = await graph.ainvoke(Command(resume="second"), thread_id="t")
    assert first["log"] == ["a", "c:first"]
    assert second["log"] == ["a", "c:second"]
    new_history = await history(graph, "t")
    assert new_history[len(new_history) - len(old_branch) :] == old_branch
    sources = [s.metadata["source"] for s in new_history if s.metadata]
    assert "fork" in sources
    old_final = await graph.aget_state(old_branch[0].config)
    assert old_final.values["log"] == ["a", "c:first"]
    fork = next(s for s in new_history if s.metadata and s.metadata["source"] == "fork")
    assert fork.parent_config == paused_at.config
    assert fork.metadata is not None
    assert paused_at.metadata is not None
    assert fork.metadata["step"] == paused_at.metadata["step"] + 1


@pytest.mark.asyncio
async def test_failing_node_keeps_sibling_writes_and_continues_after_fix(
    checkpointer: Checkpointer, mode: str
) -> None:
    """A node's error propagates; the finished sibling's writes stay and it is not re-run after."""
    counts: Counter[str] = Counter()
    broken = {"on": True}

    def flaky(state: State) -> dict[str, Any]:
        if broken["on"]:
            raise ValueError("service down")
        return {"log": ["flaky"]}

    graph = (
        StateGraph(State)
        .add_node("ok", node(counting(counts, "ok", lambda s: {"log": ["ok"]}), mode))
        .add_node("flaky", node(counting(counts, "flaky", flaky), mode))
        .add_edge(START, "ok")
        .add_edge(START, "flaky")
        .compile(checkpointer=checkpointer)
    )
    with pytest.raises(ValueError, match=r"^service down$"):
        await graph.ainvoke({"log": []}, thread_id="t")
    state = await graph.aget_state("t")
    assert state.values["log"] == ["ok"]
    assert state.next == ("flaky",)
    assert [t.error for t in state.tasks] == [None, "ValueError('service down')"]
    broken["on"] = False
    # A step's writes apply by task path, as LangGraph's: "flaky" before "ok".
    assert await graph.ainvoke(None, thread_id="t") == {**EMPTY, "log": ["flaky", "ok"]}
    assert counts == Counter({"ok": 1, "flaky": 2})


@pytest.mark.asyncio
async def test_retry_policy_retries_errors(checkpointer: Checkpointer, mode: str) -> None:
    """A node with a RetryPolicy is tried again until it succeeds."""
    counts: Counter[str] = Counter()

    def twice_broken(state: State) -> dict[str, Any]:
        if counts["n"] < 3:
            raise ConnectionError("retry me")
        return {"log": ["done"]}

    graph = (
        StateGraph(State)
        .add_node(
            "n",
            node(counting(counts, "n", twice_broken), mode),
            retry=RetryPolicy(initial_interval=0, jitter=False, max_attempts=3),
        )
        .add_edge(START, "n")
        .compile(checkpointer=checkpointer)
    )
    assert await graph.ainvoke({"log": []}, thread_id="t") == {**EMPTY, "log": ["done"]}
    assert counts["n"] == 3


@pytest.mark.asyncio
async def test_retry_policy_gives_up_and_skips_unlisted_errors(checkpointer: Checkpointer) -> None:
    """Retries stop at max_attempts, and errors outside retry_on are not retried."""
    counts: Counter[str] = Counter()

    def always(state: State) -> dict[str, Any]:
        raise ConnectionError("down") if state.get("topic") == "net" else KeyError("bad")

    graph = (
        StateGraph(State)
        .add_node(
            "n",
            counting(counts, "n", always),
            retry=RetryPolicy(initial_interval=0, jitter=False, retry_on=ConnectionError),
        )
        .add_edge(START, "n")
        .compile(checkpointer=checkpointer)
    )
    with pytest.raises(ConnectionError):
        await graph.ainvoke({"topic": "net"}, thread_id="t1")
    assert counts["n"] == 3
    with pytest.raises(KeyError):
        await graph.ainvoke({"topic": "other"}, thread_id="t2")
    assert counts["n"] == 4


@pytest.mark.asyncio
async def test_interrupts_are_never_retried(checkpointer: Checkpointer, mode: str) -> None:
    """A node with a RetryPolicy that calls interrupt() runs once and pauses."""
    counts: Counter[str] = Counter()
    graph = (
        StateGraph(State)
        .add_node(
            "ask",
            node(counting(counts, "ask", lambda s: {"answer": interrupt("q")}), mode),
            # BaseException, wider than retry_on's Exception types: interrupt() must still pause.
            retry=RetryPolicy(initial_interval=0, jitter=False, retry_on=BaseException),  # type: ignore[arg-type]
        )
        .add_edge(START, "ask")
        .compile(checkpointer=checkpointer)
    )
    out = await graph.ainvoke({"log": []}, thread_id="t")
    assert [i.value for i in out["__interrupt__"]] == ["q"]
    assert counts["ask"] == 1
