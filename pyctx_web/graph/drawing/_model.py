"""The pieces of a drawable graph: nodes, edges, Mermaid styles, and the drawing error."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, NamedTuple

from pyctx_web._homes import publish
from pyctx_web.graph.errors import GraphError

__all__ = [
    "CurveStyle",
    "DrawingUnavailableError",
    "Edge",
    "MermaidDrawMethod",
    "Node",
    "NodeStyles",
]


class DrawingUnavailableError(GraphError, ImportError):
    """A drawing needs what pyctx_web does without: a network renderer or graphviz.

    An ``ImportError``, as LangGraph's ``draw_png()`` raises without pygraphviz.
    """


class CurveStyle(Enum):
    """How Mermaid draws edges (``draw_mermaid(curve_style=...)``), as langchain_core's."""

    BASIS = "basis"
    BUMP_X = "bumpX"
    BUMP_Y = "bumpY"
    CARDINAL = "cardinal"
    CATMULL_ROM = "catmullRom"
    LINEAR = "linear"
    MONOTONE_X = "monotoneX"
    MONOTONE_Y = "monotoneY"
    NATURAL = "natural"
    STEP = "step"
    STEP_AFTER = "stepAfter"
    STEP_BEFORE = "stepBefore"


class MermaidDrawMethod(Enum):
    """How LangGraph renders Mermaid to PNG; pyctx_web renders none (``draw_mermaid_png``)."""

    PYPPETEER = "pyppeteer"
    API = "api"


@dataclass
class NodeStyles:
    """The Mermaid styles of ordinary, first and last nodes (``draw_mermaid(node_colors=...)``)."""

    default: str = "fill:#f2f0ff,line-height:1.2"
    """Style of every node but the first and the last."""
    first: str = "fill-opacity:0"
    """Style of the node no edge leads to (``__start__``)."""
    last: str = "fill:#bfb6fc"
    """Style of the node no edge leaves (``__end__``)."""


class Node(NamedTuple):
    """A node of a drawable graph."""

    id: str
    """Unique id: the node's name, ``parent:child`` inside an expanded subgraph."""
    name: str
    """The node's name, as drawn."""
    data: Any
    """The node's function or compiled subgraph, the state type for ``__start__``; ``None``
    for ``__end__``."""
    metadata: dict[str, Any] | None
    """``defer`` and ``__interrupt`` (breakpoints), as LangGraph shows them; or ``None``."""

    def copy(self, *, id: str | None = None, name: str | None = None) -> Node:
        """This node with another ``id`` or ``name``."""
        return Node(id or self.id, name or self.name, self.data, self.metadata)


class Edge(NamedTuple):
    """An edge of a drawable graph."""

    source: str
    """Id of the node the edge leaves."""
    target: str
    """Id of the node the edge leads to."""
    data: str | None = None
    """Label: the router result that takes this edge, when it is not the target's name."""
    conditional: bool = False
    """Whether the edge is taken only sometimes (a router, a ``Command``): drawn dotted."""

    def copy(self, *, source: str | None = None, target: str | None = None) -> Edge:
        """This edge with another ``source`` or ``target``."""
        return Edge(source or self.source, target or self.target, self.data, self.conditional)


publish(
    "pyctx_web.graph.drawing",
    CurveStyle,
    DrawingUnavailableError,
    Edge,
    MermaidDrawMethod,
    Node,
    NodeStyles,
)
