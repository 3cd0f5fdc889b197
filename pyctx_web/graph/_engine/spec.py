"""The checked structure of a graph: nodes, edges and conditional edges."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Hashable, Mapping
from typing import Any, Literal, get_args, get_origin

from pyctx_web._records import record
from pyctx_web.graph._engine.channels import StateSchema
from pyctx_web.graph._engine.signatures import node_hints
from pyctx_web.graph._values import Command, RetryPolicy

__all__ = ["Branch", "GraphSpec", "Join", "NodeSpec", "command_destinations"]


@record(frozen=True, slots=True)
class NodeSpec:
    """A node as the runtime sees it."""

    name: str
    """Unique name of the node."""
    fn: Callable[..., Any]
    """``fn(state, **asked)``, sync or async: ``asked`` are the keywords of :attr:`inject`."""
    retry: RetryPolicy | None
    """How a failing call is tried again; ``None`` for a single attempt."""
    ends: tuple[str, ...] = ()
    """Where a returned ``Command`` may go, from a ``-> Command[Literal[...]]`` annotation."""
    defer: bool = False
    """Whether the node waits until no other node is left to run (``add_node(defer=True)``)."""
    inject: tuple[tuple[str, str], ...] = ()
    """Keyword parameters the node asked for and what each gets: runtime, config, writer, store."""
    reads: StateSchema | None = None
    """The schema the node annotates its state with, when not the graph's: it reads only that."""
    trace_policy: Any = None
    """What LangChain tracers record of the node's input and output (a ``TracePolicy``)."""


@record(frozen=True, slots=True)
class Branch:
    """A conditional edge: after ``source`` runs, ``router(state)`` picks the next nodes."""

    source: str
    """The node (or START) the router follows."""
    router: Callable[[Any], Any]
    """Returns a node name, a :class:`Send`, END, or a list of them (sync or async)."""
    path_map: Mapping[Hashable, str] | None
    """Maps router results to node names; ``None`` when results are node names."""


@record(frozen=True, slots=True)
class Join:
    """An edge from several nodes: ``target`` runs once every source has run since it last did."""

    sources: tuple[str, ...]
    """The nodes that must all finish."""
    target: str
    """The node that runs then."""

    @property
    def key(self) -> str:
        """The name of this join's barrier in a checkpoint."""
        return f"{'|'.join(self.sources)}->{self.target}"


@record(frozen=True, slots=True)
class GraphSpec:
    """The checked, immutable structure a :class:`CompiledStateGraph` runs."""

    schema: StateSchema
    """State keys and reducers."""
    nodes: Mapping[str, NodeSpec]
    """Nodes by name, in the order they were added."""
    edges: Mapping[str, tuple[str, ...]]
    """Static edges: source -> destinations (END included)."""
    branches: Mapping[str, tuple[Branch, ...]]
    """Conditional edges by source."""
    joins: tuple[Join, ...] = ()
    """Edges from several nodes (``add_edge([a, b], c)``)."""
    defers: bool = False
    """Whether any node waits until nothing else is left to run (``defer=True``)."""
    context_schema: type | None = None
    """The type of the runs' context (``StateGraph(..., context_schema=...)``)."""


def command_destinations(fn: Callable[..., Any]) -> tuple[str, ...]:
    """The nodes ``fn`` declares it may go to with ``-> Command[Literal["a", "b"]]``."""
    # A callable object declares its destinations on its __call__ method.
    target = fn if inspect.isroutine(fn) else type(fn).__call__
    try:
        hints = node_hints(target)
    except Exception:
        # Annotations that cannot be resolved declare nothing: the node still runs.
        return ()
    returned = hints.get("return")
    if get_origin(returned) is not Command:
        return ()
    names: list[str] = []
    for arg in get_args(returned):
        options = get_args(arg) if get_origin(arg) is Literal else (arg,)
        names.extend(name for name in options if isinstance(name, str))
    return tuple(names)
