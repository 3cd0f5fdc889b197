"""A small graph on an SQLite file, run in subprocesses by the durability test.

Usage: ``python durable_app.py DB COUNTS MODE start|inspect|resume``; prints JSON.
Every node run appends the node's name to the COUNTS file.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from pyctx_web.graph import START, StateGraph
from pyctx_web.graph.checkpoint.base import Checkpointer
from pyctx_web.graph.checkpoint.sqlite import SqliteSaver as SQLiteCheckpointer
from pyctx_web.graph.state import CompiledStateGraph as CompiledGraph
from pyctx_web.graph.types import Command, interrupt

try:
    from .helpers import State, node
except ImportError:  # run as a script in a fresh process
    from helpers import State, node  # type: ignore[no-redef,import-not-found]


def build(checkpointer: Checkpointer, counts: Path, mode: str) -> CompiledGraph:
    """a -> ask -> c, counting each node run in ``counts``."""

    def count(name: str) -> None:
        with counts.open("a", encoding="utf-8") as f:
            f.write(name + "\n")

    def a(state: State) -> dict[str, Any]:
        count("a")
        return {"log": ["a"]}

    def ask(state: State) -> dict[str, Any]:
        count("ask")
        return {"answer": interrupt({"question": "name?", "after": state["log"]})}

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


async def main(db: str, counts: str, mode: str, action: str) -> dict[str, Any]:
    """Run one action against the thread "durable" and describe the outcome."""
    with SQLiteCheckpointer(db) as saver:
        graph = build(saver, Path(counts), mode)
        if action == "start":
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
    print(json.dumps(asyncio.run(main(*sys.argv[1:5]))))
