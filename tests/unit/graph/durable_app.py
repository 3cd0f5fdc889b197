"""A small graph on an SQLite file, run in subprocesses by the durability test.

Usage: ``python durable_app.py DB COUNTS MODE start|inspect|resume [AT]``; prints JSON.
Every node run appends the node's name to the COUNTS file. With AT (a wall-clock
time), resume waits until then and node ask takes a second once answered, so that two processes
resuming together both read the thread before either writes; a ThreadBusyError
is printed as ``{"busy": thread_id}``.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from pyctx_web.graph import START, StateGraph
from pyctx_web.graph.checkpoint.base import Checkpointer
from pyctx_web.graph.checkpoint.sqlite import SqliteSaver
from pyctx_web.graph.errors import ThreadBusyError
from pyctx_web.graph.state import CompiledStateGraph
from pyctx_web.graph.types import Command, interrupt

try:
    from .helpers import State, node
except ImportError:  # run as a script in a fresh process
    # mypy reads this file as part of the tests package, where only .helpers resolves.
    from helpers import State, node  # type: ignore[no-redef,import-not-found]


def build(
    checkpointer: Checkpointer, counts: Path, mode: str, slow: float = 0.0
) -> CompiledStateGraph:
    """a -> ask -> c, counting each node run in ``counts``; answered, ask takes ``slow`` s."""

    def count(name: str) -> None:
        with counts.open("a", encoding="utf-8") as f:
            f.write(name + "\n")

    def a(state: State) -> dict[str, Any]:
        count("a")
        return {"log": ["a"]}

    def ask(state: State) -> dict[str, Any]:
        count("ask")
        answer = interrupt({"question": "name?", "after": state["log"]})
        time.sleep(slow)
        return {"answer": answer}

    def c(state: State) -> dict[str, Any]:
        count("c")
        return {"log": [f"hello {state['answer']}"]}

    return (
        StateGraph(State)
        .add_node("a", node(a, mode))
        .add_node("ask", node(ask, mode))
        .add_node("c", node(c, mode))
        .add_edge(START, "a")
        .add_edge("a", "ask")
        .add_edge("ask", "c")
        .compile(checkpointer=checkpointer)
    )


async def main(
    db: str, counts: str, mode: str, action: str, at: str | None = None
) -> dict[str, Any]:
    """Run one action against the thread "durable" and describe the outcome."""
    with SqliteSaver(db) as saver:
        graph = build(saver, Path(counts), mode, slow=1.0 if at else 0.0)
        if at is not None:
            await asyncio.sleep(max(0.0, float(at) - time.time()))
            try:
                out = await graph.ainvoke(Command(resume=f"pid{os.getpid()}"), thread_id="durable")
            except ThreadBusyError as e:
                return {"busy": e.thread_id}
        elif action == "start":
            out = await graph.ainvoke({"log": []}, thread_id="durable")
        elif action == "resume":
            out = await graph.ainvoke(Command(resume="Ada"), thread_id="durable")
        else:
            state = await graph.aget_state("durable")
            out = {
                "values": state.values,
                "next": list(state.next),
                "__interrupt__": state.interrupts,
            }
    pending = [{"id": i.id, "value": i.value} for i in out.pop("__interrupt__", [])]
    return {"values": out, "interrupts": pending}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(*sys.argv[1:6]))))
