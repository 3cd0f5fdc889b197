"""Interrupt then resume round trip in a browser, with checkpoints in IndexedDB."""

from __future__ import annotations

import statistics
import uuid
from typing import Any, TypedDict

from stats import clock, figure, quantiles

from pyctx_web.graph import END, START, StateGraph
from pyctx_web.graph.types import Command, interrupt

RUNTIMES = ("pyodide-chromium",)


class Ask(TypedDict, total=False):
    """A question and its answer."""

    question: str
    answer: str


def _ask(state: Ask) -> dict[str, str]:
    return {"answer": str(interrupt(state["question"]))}


async def run(runtime: str, *, quick: bool) -> list[dict[str, Any]]:
    """Measure ainvoke-to-interrupt plus resume-to-end, over IndexedDB."""
    from pyctx_web.graph.checkpoint.indexeddb import IndexedDBSaver

    checkpointer = IndexedDBSaver(f"pyctx-bench-{uuid.uuid4().hex[:8]}")
    graph = (
        StateGraph(Ask)
        .add_node("ask", _ask)
        .add_edge(START, "ask")
        .add_edge("ask", END)
        .compile(checkpointer=checkpointer)
    )
    rounds = 10 if quick else 40
    await graph.ainvoke({"question": "warm up?"}, thread_id="warm")  # opens the database
    times = []
    for index in range(rounds):
        thread = f"t{index}"
        start = clock()
        paused = await graph.ainvoke({"question": "name?"}, thread_id=thread)
        done = await graph.ainvoke(Command(resume="Ada"), thread_id=thread)
        times.append((clock() - start) * 1e3)
        if "__interrupt__" not in paused or done.get("answer") != "Ada":
            raise RuntimeError("the interrupt round trip did not pause and resume as expected")
    q1, q2, q3 = quantiles(times)
    return [
        figure(
            "interrupt then resume round trip, IndexedDB",
            runtime,
            q2,
            "ms",
            spread=(q1, q3),
            goal="<= 20 ms",
            met=q2 <= 20,
            note=(
                f"median of {rounds}; best {min(times):.1f} ms, "
                f"mean {statistics.fmean(times):.1f} ms"
            ),
        )
    ]
