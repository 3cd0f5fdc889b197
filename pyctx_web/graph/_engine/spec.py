"""The checked structure of a graph: nodes, edges and conditional edges."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any

from pyctx_web.graph._engine.channels import StateSchema
from pyctx_web.graph._engine.values import RetryPolicy
from pyctx_web.graph.errors import InvalidGraphError

__all__ = ["Branch", "GraphSpec", "NodeSpec", "accepts_ctx"]


@dataclass(frozen=True, slots=True)
class NodeSpec:
    """A node as the runtime sees it."""

    name: str
    """Unique name of the node."""
    fn: Callable[..., Any]
    """``fn(state)`` or ``fn(state, ctx)``, sync or async."""
    takes_ctx: bool
    """Whether ``fn`` receives the run context as its second parameter."""
    retry: RetryPolicy | None
    """How a failing call is tried again; ``None`` for a single attempt."""


@dataclass(frozen=True, slots=True)
class Branch:
    """A conditional edge: after ``source`` runs, ``router(state)`` picks the next nodes."""

    source: str
    """The node (or START) the router follows."""
    router: Callable[[Any], Any]
    """Returns a node name, a :class:`Send`, END, or a list of them (sync or async)."""
    path_map: Mapping[Hashable, str] | None
    """Maps router results to node names; ``None`` when results are node names."""


@dataclass(frozen=True, slots=True)
class GraphSpec:
    """The checked, immutable structure a :class:`CompiledGraph` runs."""

    schema: StateSchema
    """State keys and reducers."""
    nodes: Mapping[str, NodeSpec]
    """Nodes by name, in the order they were added."""
    edges: Mapping[str, tuple[str, ...]]
    """Static edges: source -> destinations (END included)."""
    branches: Mapping[str, tuple[Branch, ...]]
    """Conditional edges by source."""


def accepts_ctx(name: str, fn: Callable[..., Any]) -> bool:
    """Whether ``fn`` takes ``(state, ctx)``; raise if it takes neither form."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        # Callables without a signature (some builtins): pass the state only.
        return False
    positional = []
    for p in sig.parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            return True
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            positional.append(p)
        elif p.kind is p.KEYWORD_ONLY and p.default is p.empty:
            raise InvalidGraphError(
                f"node {name!r}: function {fn!r} has a required keyword-only parameter "
                f"{p.name!r}; a node is called as fn(state) or fn(state, ctx)"
            )
    required = [p for p in positional if p.default is p.empty]
    if not positional or len(required) > 2:
        raise InvalidGraphError(
            f"node {name!r}: function {fn!r} must take (state) or (state, ctx), "
            f"its signature is {sig}"
        )
    return len(positional) >= 2
