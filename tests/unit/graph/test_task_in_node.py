"""``@task`` calls in ``StateGraph`` nodes: saved with the paused step, on every storage.

What LangGraph also does (counts, streamed updates, failures, retries) is checked
by the differential programs task_in_node*; these tests pin pyctx_web's own
details: SQLite across saver instances, the stored form, async nodes, and tasks
called outside any graph.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pyctx_web.errors import UsageError
from pyctx_web.graph import END, START, StateGraph
from pyctx_web.graph.checkpoint.base import Checkpointer, StoredWrite
from pyctx_web.graph.checkpoint.sqlite import SqliteSaver
from pyctx_web.graph.func import TaskFuture, task
from pyctx_web.graph.state import CompiledStateGraph
from pyctx_web.graph.types import Command, interrupt

from .helpers import State

runs: Counter[str] = Counter()


@task
def call_model(prompt: str) -> str:
    """A costly call whose every run is counted."""
    runs["call_model"] += 1
    return f"answer to {prompt}"


@task
async def acall_model(prompt: str) -> str:
    """The async form of :func:`call_model`."""
    runs["acall_model"] += 1
    await asyncio.sleep(0)
    return f"async answer to {prompt}"


def ask(state: State) -> dict[str, Any]:
    """Call the model, then ask whether its answer is right."""
    answer = call_model(state["topic"]).result()
    verdict = interrupt(answer)
    return {"results": [answer], "answers": [verdict]}


def graph_on(checkpointer: Checkpointer) -> CompiledStateGraph:
    """START -> ask -> END."""
    builder = StateGraph(State)
    builder.add_node("ask", ask)
    builder.add_edge(START, "ask")
    builder.add_edge("ask", END)
    return builder.compile(checkpointer=checkpointer)


def config(thread_id: str) -> dict[str, Any]:
    """The config of thread ``thread_id``."""
    return {"configurable": {"thread_id": thread_id}}


async def write_kinds(checkpointer: Checkpointer, thread_id: str) -> list[str]:
    """The kinds of the pending writes of the thread's latest checkpoint."""
    record = await checkpointer.aget(thread_id)
    assert record is not None
    return [w.kind for w in record.writes]


@pytest.fixture(autouse=True)
def _fresh_counts() -> None:
    runs.clear()


@pytest.mark.asyncio
async def test_task_result_survives_a_new_sqlite_saver_on_the_same_file(tmp_path: Path) -> None:
    """A task run before the pause is not run again by a resume through a new saver instance."""
    path = tmp_path / "threads.db"
    first = SqliteSaver(path)
    paused = await graph_on(first).ainvoke({"topic": "cats"}, config("t"))
    first.close()
    assert runs == {"call_model": 1}
    assert paused["__interrupt__"][0].value == "answer to cats"

    second = SqliteSaver(path)
    try:
        done = await graph_on(second).ainvoke(Command(resume="right"), config("t"))
        assert done["results"] == ["answer to cats"]
        assert done["answers"] == ["right"]
        assert runs == {"call_model": 1}
        # The step completed: its task results are not kept with the next checkpoint.
        assert "tasks" not in await write_kinds(second, "t")
    finally:
        second.close()


@pytest.mark.asyncio
async def test_paused_step_stores_task_results_with_their_task_name(
    checkpointer: Checkpointer,
) -> None:
    """The paused step's ``tasks`` write holds each call's position, task name and result."""
    await graph_on(checkpointer).ainvoke({"topic": "cats"}, config("t"))
    record = await checkpointer.aget("t")
    assert record is not None
    (write,) = [w for w in record.writes if w.kind == "tasks"]
    assert json.loads(write.data)["results"] == [["0", "call_model", "answer to cats"]]


@pytest.mark.asyncio
async def test_results_stored_without_task_names_are_still_returned(
    checkpointer: Checkpointer,
) -> None:
    """A ``tasks`` write of the earlier form ``[position, result]`` is returned to any task."""
    graph = graph_on(checkpointer)
    await graph.ainvoke({"topic": "cats"}, config("t"))
    record = await checkpointer.aget("t")
    assert record is not None
    (write,) = [w for w in record.writes if w.kind == "tasks"]
    legacy = json.dumps({"results": [[0, "an answer saved earlier"]]})
    await checkpointer.aput_writes(
        "t", record.checkpoint.checkpoint_id, [StoredWrite(write.task_id, "tasks", legacy)]
    )
    done = await graph.ainvoke(Command(resume="right"), config("t"))
    assert done["results"] == ["an answer saved earlier"]
    assert runs == {"call_model": 1}


@pytest.mark.asyncio
async def test_async_node_awaits_async_task_once_across_a_resume(
    checkpointer: Checkpointer,
) -> None:
    """An async node awaiting an async task and a sync one runs each once, paused or not."""

    async def answer(state: State) -> dict[str, Any]:
        found = await asyncio.gather(acall_model("a"), acall_model("b"))
        checked = await call_model(found[0])
        verdict = interrupt(list(found))
        return {"results": [*found, checked], "answers": [verdict]}

    builder = StateGraph(State)
    builder.add_node("answer", answer)
    builder.add_edge(START, "answer")
    graph = builder.compile(checkpointer=checkpointer)
    paused = await graph.ainvoke({"topic": "t"}, config("t"))
    assert paused["__interrupt__"][0].value == ["async answer to a", "async answer to b"]
    done = await graph.ainvoke(Command(resume="ok"), config("t"))
    assert done["results"] == [
        "async answer to a",
        "async answer to b",
        "answer to async answer to a",
    ]
    assert runs == {"acall_model": 2, "call_model": 1}


def test_sync_task_outside_any_graph_runs_plainly() -> None:
    """Called outside a node or an entrypoint, a sync task runs at once, every time."""
    first = call_model("x")
    assert isinstance(first, TaskFuture)
    assert first.done()
    assert first.result() == "answer to x"
    assert call_model("x").result() == "answer to x"
    assert runs == {"call_model": 2}


@pytest.mark.asyncio
async def test_async_task_outside_any_graph_runs_plainly() -> None:
    """Called outside a graph in a running loop, an async task runs as an asyncio task."""
    assert await acall_model("y") == "async answer to y"
    assert runs == {"acall_model": 1}


def test_async_task_without_a_loop_names_the_problem() -> None:
    """An async task called where no event loop runs raises UsageError naming the task."""
    with pytest.raises(
        UsageError,
        match=r"^task 'acall_model' is async: call it from an async node or entrypoint$",
    ):
        acall_model("z")
