"""Helpers shared by the graph tests: node wrappers and small graphs."""

from __future__ import annotations

import asyncio
import inspect
import operator
from collections import Counter
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

from pyctx_web.graph import CompiledGraph, StateSnapshot


class State(TypedDict, total=False):
    """The state most tests use."""

    topic: str
    log: Annotated[list[str], operator.add]
    answers: Annotated[list[Any], operator.add]
    results: Annotated[list[str], operator.add]
    answer: Any


def node(fn: Callable[..., Any], mode: str) -> Callable[..., Any]:
    """Return ``fn`` itself (mode "sync") or an async node that awaits once, then calls it."""
    if mode == "sync":
        return fn
    if len(inspect.signature(fn).parameters) == 2:

        async def anode2(state: Any, ctx: Any) -> Any:
            await asyncio.sleep(0)
            return fn(state, ctx)

        return anode2

    async def anode(state: Any) -> Any:
        await asyncio.sleep(0)
        return fn(state)

    return anode


def counting(counts: Counter[str], name: str, fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """Wrap ``fn`` so that each call first counts one run of ``name`` (its first line)."""

    def counted(state: Any) -> Any:
        counts[name] += 1
        return fn(state)

    return counted


async def history(graph: CompiledGraph, thread_id: str) -> list[StateSnapshot]:
    """All snapshots of the thread, newest first."""
    return [s async for s in graph.aget_state_history(thread_id)]


def checkpoint_id(snapshot: StateSnapshot) -> str:
    """The checkpoint id a snapshot names."""
    return str(snapshot.config["configurable"]["checkpoint_id"])
