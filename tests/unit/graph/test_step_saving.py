"""How a run's steps are saved to an in-memory checkpointer and recorded in its log."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from types import EllipsisType
from typing import Any, TypedDict

import pytest

from pyctx_web.graph import END, START, StateGraph
from pyctx_web.graph.checkpoint.memory import InMemorySaver
from pyctx_web.graph.errors import ThreadBusyError
from pyctx_web.graph.runtime import Runtime
from pyctx_web.graph.state import CompiledStateGraph


class Counter(TypedDict):
    """A step counter."""

    n: int


def _chain(saver: InMemorySaver | None, steps: int, before: Any = None) -> CompiledStateGraph:
    async def step(state: Counter) -> dict[str, int]:
        if before is not None:
            await before(state)
        return {"n": state["n"] + 1}

    def again(state: Counter) -> str:
        return "step" if state["n"] < steps else END

    builder = StateGraph(Counter).add_node("step", step).add_edge(START, "step")
    return builder.add_conditional_edges("step", again).compile(checkpointer=saver)


class WatchedSaver(InMemorySaver):
    """An in-memory checkpointer that lists the checkpoint ids given to aput_document."""

    def __init__(self) -> None:
        super().__init__()
        self.documents: list[str] = []

    async def aput_document(
        self,
        thread_id: str,
        checkpoint_id: str,
        parent_id: str | None,
        created_at: str,
        document: Any,
        to_text: Callable[[Any], str],
        *,
        latest: str | EllipsisType | None = ...,
    ) -> None:
        self.documents.append(checkpoint_id)
        await super().aput_document(
            thread_id, checkpoint_id, parent_id, created_at, document, to_text, latest=latest
        )


def test_a_subclass_that_overrides_aput_document_is_given_every_checkpoint() -> None:
    """A subclass of InMemorySaver overriding aput_document sees each checkpoint of a run."""
    saver = WatchedSaver()
    config = {"configurable": {"thread_id": "t"}}
    assert asyncio.run(_chain(saver, 3).ainvoke({"n": 0}, config)) == {"n": 3}
    assert saver.document_store() is None
    history = asyncio.run(_history(_chain(saver, 3), config))
    assert saver.documents == history[::-1]
    assert len(history) == 5  # the input, its step, and three of the node


def test_a_checkpoint_written_by_another_writer_during_a_step_stops_the_run() -> None:
    """A step whose thread got a checkpoint from elsewhere while it ran is refused, not saved."""
    saver = InMemorySaver()
    config = {"configurable": {"thread_id": "t"}}

    async def flow() -> None:
        async def meddle(state: Counter) -> None:
            if state["n"] == 1:
                await other.aupdate_state(config, {"n": 10})

        other = _chain(saver, 3)
        before = await _history(other, config)
        with pytest.raises(ThreadBusyError):
            await _chain(saver, 3, before=meddle).ainvoke({"n": 0}, config)
        after = await _history(other, config)
        # The input, its step, the first node's step, then the other writer's checkpoint.
        assert len(after) == len(before) + 4
        assert (await other.aget_state(config)).values == {"n": 10}

    asyncio.run(flow())


def test_step_records_place_each_node_run_within_its_run() -> None:
    """runtime.log's StepRecords start in order within the run and last no less than zero."""

    async def flow() -> None:
        seen: list[int] = []

        async def step(state: Counter, runtime: Runtime[Any]) -> dict[str, int]:
            await asyncio.sleep(0.001)
            seen.append(len(runtime.log.steps))
            return {"n": state["n"] + 1}

        def again(state: Counter) -> str:
            return "step" if state["n"] < 3 else END

        builder = StateGraph(Counter).add_node("step", step).add_edge(START, "step")
        handle = builder.add_conditional_edges("step", again).compile().start({"n": 0})
        await handle
        log = handle.log
        assert log.finished_at is not None
        steps = log.steps
        assert [(s.node, s.step, s.status) for s in steps] == [
            ("step", i, "done") for i in (1, 2, 3)
        ]
        assert log.steps == steps
        assert all(a is b for a, b in zip(log.steps, steps, strict=True))
        for earlier, later in itertools.pairwise(steps):
            assert earlier.started_at + earlier.duration_ms / 1000 <= later.started_at + 1e-6
        assert log.started_at <= steps[0].started_at
        assert steps[-1].started_at + steps[-1].duration_ms / 1000 <= log.finished_at + 1e-6
        assert all(s.duration_ms >= 0 for s in steps)
        assert seen == [0, 1, 2]  # a node run is in the log once it has finished

    asyncio.run(flow())


async def _history(graph: CompiledStateGraph, config: dict[str, Any]) -> list[str]:
    return [
        s.config["configurable"]["checkpoint_id"] async for s in graph.aget_state_history(config)
    ]
