"""The graph behind an ``@entrypoint``: one node, the function, on three channels.

The channels are the run's ``input``, the function's ``output`` and what it
saved for ``previous``. The graph shows callers the output alone: as the
result of ``invoke``, in ``values`` chunks, snapshots and the node's
``updates`` chunk, as LangGraph's functional API does.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Coroutine, Mapping
from typing import Any, TypedDict

from pyctx_web.graph._compiled import CompiledStateGraph, RunOptions
from pyctx_web.graph._engine.frames import Run
from pyctx_web.graph._engine.outcome import EngineResult
from pyctx_web.graph._engine.runtime import Runtime
from pyctx_web.graph._engine.signatures import signature
from pyctx_web.graph._runctx.lifecycle import Admission
from pyctx_web.graph._subgraph import ChildPlace
from pyctx_web.graph._values import Command, RetryPolicy, StateSnapshot
from pyctx_web.graph.checkpoint.base import Checkpointer
from pyctx_web.graph.config import get_config
from pyctx_web.graph.constants import START
from pyctx_web.graph.state import StateGraph

__all__ = ["FunctionalGraph", "entry_graph"]


class _Channels(TypedDict, total=False):
    """The state of an entrypoint's graph."""

    input: Any
    output: Any
    previous: Any


class FunctionalGraph(CompiledStateGraph):
    """What ``@entrypoint`` makes of a function: a compiled graph that shows only its output."""

    def _prepare(
        self,
        input: Any,
        config: Mapping[str, Any] | None,
        options: RunOptions,
        place: ChildPlace | None = None,
        **stream: Any,
    ) -> tuple[Run, Admission, Coroutine[Any, Any, EngineResult]]:
        if input is not None and not isinstance(input, Command):
            input = {"input": input}
        return super()._prepare(input, config, options, place, **stream)

    def _result(self, outcome: EngineResult) -> Any:
        return _shown(outcome.values, list(outcome.interrupts) if outcome.interrupts else None)

    def _present(self, mode: str, chunk: Any) -> Any:
        if mode == "values" and isinstance(chunk, dict):
            interrupts = chunk.get("__interrupt__")
            return _shown(chunk, interrupts)
        if mode == "updates" and isinstance(chunk, dict) and self.name in chunk:
            return {self.name: (chunk[self.name] or {}).get("output")}
        return chunk

    def _view(self, state: StateSnapshot) -> StateSnapshot:
        if not state.values and state.metadata is None:
            return state
        return dataclasses.replace(state, values=state.values.get("output"))


def _shown(values: Mapping[str, Any], interrupts: Any) -> Any:
    """The output, with the pending questions when the run paused."""
    output = values.get("output")
    if interrupts is None:
        return output
    if isinstance(output, dict):
        return {**output, "__interrupt__": interrupts}
    return {"__interrupt__": interrupts}


def _arguments(fn: Callable[..., Any]) -> list[str]:
    """The parameters after the input that ``fn`` asks for: previous, runtime, config, ..."""
    try:
        params = list(signature(fn).parameters)
    except (TypeError, ValueError):
        return []
    return [p for p in params[1:] if p in {"previous", "runtime", "config", "writer", "store"}]


def _node(fn: Callable[..., Any], final_type: type) -> Callable[..., Any]:
    """The node that runs ``fn`` on the input and writes its output and saved value."""
    wanted = _arguments(fn)

    def arguments(state: _Channels, runtime: Runtime[Any]) -> dict[str, Any]:
        previous = state.get("previous")
        given = {
            "previous": previous,
            "runtime": dataclasses.replace(runtime, previous=previous),
            "writer": runtime.stream_writer,
            "store": runtime.store,
        }
        return {name: get_config() if name == "config" else given[name] for name in wanted}

    def written(value: Any) -> dict[str, Any]:
        if isinstance(value, final_type):
            return {"output": value.value, "previous": value.save}  # type: ignore[attr-defined]
        return {"output": value, "previous": value}

    if inspect.iscoroutinefunction(fn):

        async def run_async(state: _Channels, runtime: Runtime[Any]) -> dict[str, Any]:
            return written(await fn(state.get("input"), **arguments(state, runtime)))

        run_async.__name__ = getattr(fn, "__name__", "entrypoint")
        return run_async

    def run(state: _Channels, runtime: Runtime[Any]) -> dict[str, Any]:
        return written(fn(state.get("input"), **arguments(state, runtime)))

    run.__name__ = getattr(fn, "__name__", "entrypoint")
    return run


def entry_graph(
    fn: Callable[..., Any],
    *,
    checkpointer: Checkpointer | None,
    store: Any = None,
    context_schema: type | None,
    retry_policy: RetryPolicy | None,
    final_type: type,
) -> FunctionalGraph:
    """The graph that runs ``fn`` as an entrypoint."""
    name = getattr(fn, "__name__", "entrypoint")
    builder = StateGraph(_Channels, context_schema)
    builder.add_node(name, _node(fn, final_type), retry_policy=retry_policy)
    builder.add_edge(START, name)
    compiled = builder.compile(checkpointer=checkpointer, name=name, store=store)
    return FunctionalGraph(
        compiled.spec,
        checkpointer=checkpointer,
        interrupt_before=frozenset(),
        interrupt_after=frozenset(),
        name=name,
        services=compiled.services,
        store=compiled.store,
    )
