"""Drawing a graph: ``graph.get_graph()`` and what it returns, as LangGraph's.

``get_graph()`` returns a :class:`Graph` whose :meth:`~Graph.draw_mermaid`
writes the same Mermaid text as LangGraph for the same graph, and whose
:meth:`~Graph.draw_ascii` draws it as text without any other package.
``get_graph(xray=True)`` (or a depth) draws the nodes of subgraphs, ids
prefixed ``parent:child``, inside a Mermaid ``subgraph`` block.
"""

from __future__ import annotations

from typing import Any

from pyctx_web.graph.drawing._graph import Graph
from pyctx_web.graph.drawing._model import (
    CurveStyle,
    DrawingUnavailableError,
    Edge,
    MermaidDrawMethod,
    Node,
    NodeStyles,
)
from pyctx_web.graph.drawing._trace import Drawable, draw_graph, subgraph_of

__all__ = [
    "CurveStyle",
    "Drawable",
    "DrawingUnavailableError",
    "Edge",
    "Graph",
    "MermaidDrawMethod",
    "Node",
    "NodeStyles",
    "graph_of",
]


def graph_of(graph: Drawable, config: Any = None, *, xray: int | bool = False) -> Graph:
    """The drawable graph of ``graph``; ``xray`` draws the inside of subgraphs, to that depth.

    ``xray=True`` expands subgraphs at every depth, ``xray=n`` to ``n`` levels.
    ``config`` is passed on to subgraphs; the drawing does not depend on it.
    """
    subgraphs: dict[str, Graph] = {}
    if xray:
        deeper = xray if isinstance(xray, bool) or xray <= 0 else xray - 1
        for name, node in graph.spec.nodes.items():
            if (inner := subgraph_of(node.fn)) is not None:
                subgraphs[name] = inner.get_graph(config, xray=deeper)
    return draw_graph(
        graph.spec,
        interrupt_before=graph.interrupt_before,
        interrupt_after=graph.interrupt_after,
        subgraphs=subgraphs,
    )
