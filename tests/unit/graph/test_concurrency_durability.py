"""OS threads on one graph; a paused run in a new process; two processes on one thread.

Concurrent async threads and new checkpointer objects in one process are the graph
scenarios of tests/scenarios/graph_scenarios.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from pyctx_web.graph import START, StateGraph
from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.graph.checkpoint.sqlite import SqliteSaver
from pyctx_web.graph.types import Command, interrupt

from . import durable_app
from .helpers import EMPTY, State

REPO_ROOT = Path(__file__).resolve().parents[3]


def test_sync_invoke_from_os_threads_share_one_graph(tmp_path: Path) -> None:
    """Sync invoke from 8 OS threads on one graph and one SQLite file keeps every thread apart."""
    saver = SqliteSaver(tmp_path / "threads.db")
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
    assert results == {
        f"os{i}": {**EMPTY, "topic": f"os{i}", "answer": f"os{i}:ok-os{i}"} for i in range(8)
    }


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
    assert inspected["values"]["values"] == {**EMPTY, "log": ["a"]}
    assert _counts(counts) == Counter({"a": 1, "ask": 1})

    resumed = _run_app(db, counts, mode, "resume")
    assert resumed == {
        "values": {**EMPTY, "log": ["a", "hello Ada"], "answer": "Ada"},
        "interrupts": [],
    }
    assert _counts(counts) == Counter({"a": 1, "ask": 2, "c": 1})

    reference_counts = tmp_path / "reference.txt"
    reference = durable_app.build(InMemorySaver(), reference_counts, mode)

    async def in_process() -> dict[str, Any]:
        await reference.ainvoke({"log": []}, thread_id="ref")
        return await reference.ainvoke(Command(resume="Ada"), thread_id="ref")

    assert asyncio.run(in_process()) == resumed["values"]


def test_two_processes_resuming_one_thread_store_one_run(tmp_path: Path, mode: str) -> None:
    """Two processes resume one paused thread at once: one run is stored, the other writes none."""
    db, counts = tmp_path / "durable.db", tmp_path / "counts.txt"
    _run_app(db, counts, mode, "start")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), str(Path(__file__).parent)]),
    }
    # Both wait for the same moment, then read the thread; the answered node takes a
    # second, so both have read it before either writes, and the second writer loses.
    at = str(time.time() + 3.0)
    command = [sys.executable, durable_app.__file__, str(db), str(counts), mode, "resume", at]
    procs = [
        subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
        )
        for _ in range(2)
    ]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [err for _, err in outputs]
    results = [json.loads(out) for out, _ in outputs]
    [winner] = [r for r in results if "values" in r]
    assert [r for r in results if "values" not in r] == [{"busy": "durable"}]
    assert _counts(counts) == Counter({"a": 1, "ask": 3, "c": 1})

    with SqliteSaver(db) as saver:
        graph = durable_app.build(saver, counts, mode)
        state = graph.get_state({"configurable": {"thread_id": "durable"}})
        history = list(graph.get_state_history({"configurable": {"thread_id": "durable"}}))
    assert state.values == winner["values"]
    assert state.values["answer"].startswith("pid")
    # One line of checkpoints: no checkpoint has two children.
    parents = [s.parent_config["configurable"]["checkpoint_id"] for s in history if s.parent_config]
    assert len(parents) == len(set(parents)) == len(history) - 1
