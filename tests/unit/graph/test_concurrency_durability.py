"""Acceptance items 12 and 13: concurrent threads on one graph, runs surviving a new process."""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pyctx_web.graph import START, StateGraph
from pyctx_web.graph.checkpoint.base import Checkpointer
from pyctx_web.graph.checkpoint.memory import InMemorySaver as InMemoryCheckpointer
from pyctx_web.graph.checkpoint.sqlite import SqliteSaver as SQLiteCheckpointer
from pyctx_web.graph.config import get_stream_writer
from pyctx_web.graph.runtime import RunContext
from pyctx_web.graph.types import Command, interrupt

from . import durable_app
from .helpers import State, node

REPO_ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.asyncio
async def test_fifty_concurrent_threads_keep_their_interrupts_and_resumes(
    checkpointer: Checkpointer, mode: str
) -> None:
    """50 runs started together, with sleeps and call_later, see only their own questions."""
    rng = random.Random(12)
    delays = {f"t{i}": (rng.uniform(0, 0.02), rng.uniform(0, 0.02)) for i in range(50)}
    mismatches: list[str] = []

    async def prepare(state: State, ctx: RunContext[Any]) -> dict[str, Any]:
        tid = state["topic"]
        await asyncio.sleep(delays[tid][0])
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[str | None] = loop.create_future()

        def later() -> None:
            # The callback runs in the context captured by call_later: the node's run.
            get_stream_writer()({"tid": tid})
            fut.set_result(ctx.thread_id)

        loop.call_later(delays[tid][1], later)
        if await fut != tid:
            mismatches.append(tid)
        return {"answers": [interrupt({"tid": tid, "round": 1})]}

    def confirm(state: State, ctx: RunContext[Any]) -> dict[str, Any]:
        if ctx.thread_id != state["topic"]:
            mismatches.append(state["topic"])
        return {"answer": interrupt({"tid": state["topic"], "round": 2})}

    graph = (
        StateGraph(State)
        .add_node("prepare", prepare)
        .add_node("confirm", node(confirm, mode))
        .add_edge(START, "prepare")
        .add_edge("prepare", "confirm")
        .compile(checkpointer=checkpointer)
    )
    tids = list(delays)

    async def start(tid: str) -> list[tuple[str, Any]]:
        return [
            chunk
            async for chunk in graph.astream(
                {"topic": tid, "answers": []}, thread_id=tid, stream_mode=["custom", "updates"]
            )
        ]

    streams = await asyncio.gather(*(start(t) for t in tids))
    for tid, chunks in zip(tids, streams, strict=True):
        assert ("custom", {"tid": tid}) in chunks
        custom = [c for m, c in chunks if m == "custom"]
        assert custom == [{"tid": tid}]
        [(_, last)] = [c for c in chunks if c[0] == "updates" and "__interrupt__" in c[1]]
        assert [i.value for i in last["__interrupt__"]] == [{"tid": tid, "round": 1}]

    async def answer(tid: str, text: str) -> dict[str, Any]:
        await asyncio.sleep(rng.uniform(0, 0.01))
        return await graph.ainvoke(Command(resume=f"{text}-{tid}"), thread_id=tid)

    round2 = await asyncio.gather(*(answer(t, "one") for t in tids))
    for tid, out in zip(tids, round2, strict=True):
        assert [i.value for i in out["__interrupt__"]] == [{"tid": tid, "round": 2}]
        assert out["answers"] == [f"one-{tid}"]
    finals = await asyncio.gather(*(answer(t, "two") for t in tids))
    for tid, out in zip(tids, finals, strict=True):
        assert out == {"topic": tid, "answers": [f"one-{tid}"], "answer": f"two-{tid}"}
    assert mismatches == []


def test_sync_invoke_from_os_threads_share_one_graph(tmp_path: Path) -> None:
    """Sync invoke from 8 OS threads on one graph and one SQLite file keeps every thread apart."""
    saver = SQLiteCheckpointer(tmp_path / "threads.db")
    graph = (
        StateGraph(State)
        .add_node("ask", lambda s: {"answer": f"{s['topic']}:{interrupt(s['topic'])}"})
        .add_edge(START, "ask")
        .compile(checkpointer=saver)
    )
    results: dict[str, Any] = {}

    def worker(tid: str) -> None:
        paused = graph.invoke({"topic": tid}, thread_id=tid)
        assert [i.value for i in paused["__interrupt__"]] == [tid]
        results[tid] = graph.invoke(Command(resume=f"ok-{tid}"), thread_id=tid)

    threads = [threading.Thread(target=worker, args=(f"os{i}",)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    saver.close()
    assert results == {f"os{i}": {"topic": f"os{i}", "answer": f"os{i}:ok-os{i}"} for i in range(8)}


def _run_app(db: Path, counts: Path, mode: str, action: str) -> dict[str, Any]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), str(Path(__file__).parent)]),
    }
    proc = subprocess.run(
        [sys.executable, durable_app.__file__, str(db), str(counts), mode, action],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def _counts(path: Path) -> Counter[str]:
    return Counter(path.read_text(encoding="utf-8").split()) if path.exists() else Counter()


def test_new_process_sees_pending_interrupt_and_resumes_to_same_result(
    tmp_path: Path, mode: str
) -> None:
    """A new process on the same SQLite file shows the question without running nodes."""
    db, counts = tmp_path / "durable.db", tmp_path / "counts.txt"
    started = _run_app(db, counts, mode, "start")
    [pending] = started["interrupts"]
    assert pending["value"] == {"question": "name?", "after": ["a"]}
    assert _counts(counts) == Counter({"a": 1, "ask": 1})

    inspected = _run_app(db, counts, mode, "inspect")
    assert inspected["interrupts"] == [pending]
    assert inspected["values"]["next"] == ["ask"]
    assert inspected["values"]["values"] == {"log": ["a"]}
    assert _counts(counts) == Counter({"a": 1, "ask": 1})

    resumed = _run_app(db, counts, mode, "resume")
    assert resumed == {"values": {"log": ["a", "hello Ada"], "answer": "Ada"}, "interrupts": []}
    assert _counts(counts) == Counter({"a": 1, "ask": 2, "c": 1})

    reference_counts = tmp_path / "reference.txt"
    reference = durable_app.build(InMemoryCheckpointer(), reference_counts, mode)

    async def in_process() -> dict[str, Any]:
        await reference.ainvoke({"log": []}, thread_id="ref")
        return await reference.ainvoke(Command(resume="Ada"), thread_id="ref")

    assert asyncio.run(in_process()) == resumed["values"]
