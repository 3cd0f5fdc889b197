"""``graph.nodes``: a compiled graph's nodes by name, each callable on its own, as LangGraph's.

``graph.nodes["tools"].invoke(state, config)`` runs that node outside a graph run, as
LangGraph's ``PregelNode.invoke`` does: an object with ``invoke`` (a ``ToolNode``, a
LangChain Runnable) is invoked with the config; a function is called with the state
and what its parameters ask for, read from the config: ``config``, and ``runtime``
(``config["configurable"]["__pregel_runtime"]``, LangGraph's key), with its stream
writer and store. Iterating the mapping gives the node names in the order they were
added.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from pyctx_web._records import record
from pyctx_web.graph._sync import run_sync

if TYPE_CHECKING:
    from pyctx_web.graph._engine.spec import NodeSpec

__all__ = ["NodeView", "NodeViews"]


def _runtime_of(config: Mapping[str, Any] | None) -> Any:
    return ((config or {}).get("configurable") or {}).get("__pregel_runtime")


def _asked(spec: NodeSpec, config: Mapping[str, Any] | None) -> dict[str, Any]:
    """The keywords the node's function asks for, from ``config`` (see the module)."""
    runtime = _runtime_of(config)
    parts = {
        "runtime": runtime,
        "config": dict(config or {}),
        "writer": getattr(runtime, "stream_writer", None),
        "store": getattr(runtime, "store", None),
    }
    return {param: parts.get(kind) for param, kind in spec.inject}


@record(frozen=True, slots=True)
class NodeView:
    """One node of a compiled graph, run on its own by :meth:`invoke` or :meth:`ainvoke`."""

    name: str
    """The node's name."""
    spec: NodeSpec
    """What the graph runs for it."""

    def _start(self, input: Any, config: Mapping[str, Any] | None, method: str) -> Any:
        fn = self.spec.fn
        own = getattr(fn, method, None)
        if callable(own) and not inspect.isroutine(fn):
            return own(input, config)
        return fn(input, **_asked(self.spec, config)) if self.spec.inject else fn(input)

    def invoke(self, input: Any, config: Mapping[str, Any] | None = None) -> Any:
        """The node's return for ``input`` (its state); an async node runs to its end."""
        out = self._start(input, config, "invoke")
        if inspect.isawaitable(out):

            async def finish() -> Any:
                return await out

            return run_sync("invoke", finish())
        return out

    async def ainvoke(self, input: Any, config: Mapping[str, Any] | None = None) -> Any:
        """The node's return for ``input``, async."""
        out = self._start(input, config, "ainvoke")
        return await out if inspect.isawaitable(out) else out


class NodeViews(Mapping[str, NodeView]):
    """A compiled graph's nodes by name, in the order they were added (see the module)."""

    __slots__ = ("_specs",)

    def __init__(self, specs: Mapping[str, NodeSpec]) -> None:
        self._specs = specs

    def __getitem__(self, name: str) -> NodeView:
        return NodeView(name, self._specs[name])

    def __iter__(self) -> Iterator[str]:
        return iter(self._specs)

    def __len__(self) -> int:
        return len(self._specs)

    def __repr__(self) -> str:
        return f"NodeViews({list(self._specs)})"
