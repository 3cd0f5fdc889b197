"""The drawable graph ``get_graph()`` returns, with LangGraph's ways to draw it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NoReturn

from pyctx_web._homes import publish
from pyctx_web.errors import ArgumentValueError
from pyctx_web.graph.drawing._ascii import draw_ascii
from pyctx_web.graph.drawing._mermaid import draw_mermaid
from pyctx_web.graph.drawing._model import (
    CurveStyle,
    DrawingUnavailableError,
    Edge,
    Node,
    NodeStyles,
)

__all__ = ["Graph"]


@dataclass
class Graph:
    """The nodes and edges of a compiled graph, to draw: what ``get_graph()`` returns.

    Has the methods of LangGraph's (langchain_core's) ``Graph`` that draw:
    :meth:`draw_mermaid` gives the same text as LangGraph for the same graph;
    :meth:`draw_ascii` is pyctx_web's own drawing (LangGraph's needs grandalf).
    """

    nodes: dict[str, Node] = field(default_factory=dict)
    """Nodes by id, in drawing order."""
    edges: list[Edge] = field(default_factory=list)
    """Edges, in drawing order."""

    def __bool__(self) -> bool:
        return bool(self.nodes)

    def add_node(self, data: Any, id: str, *, metadata: dict[str, Any] | None = None) -> Node:
        """Add node ``id`` and return it."""
        if id in self.nodes:
            raise ArgumentValueError(f"Node with id {id} already exists")
        node = Node(id, id, data, metadata)
        self.nodes[id] = node
        return node

    def remove_node(self, node: Node) -> None:
        """Remove ``node`` and the edges that touch it."""
        self.nodes.pop(node.id)
        self.edges = [e for e in self.edges if node.id not in (e.source, e.target)]

    def add_edge(
        self, source: Node, target: Node, data: str | None = None, conditional: bool = False
    ) -> Edge:
        """Add an edge between two nodes of the graph and return it."""
        for node in (source, target):
            if node.id not in self.nodes:
                raise ArgumentValueError(f"Node {node.id} not in graph")
        edge = Edge(source.id, target.id, data, conditional)
        self.edges.append(edge)
        return edge

    def extend(self, graph: Graph, *, prefix: str = "") -> tuple[Node | None, Node | None]:
        """Add ``graph``'s nodes and edges with ids ``prefix:id``; return its first and last."""

        def prefixed(id_: str) -> str:
            return f"{prefix}:{id_}" if prefix else id_

        self.nodes.update({prefixed(k): v.copy(id=prefixed(k)) for k, v in graph.nodes.items()})
        self.edges.extend(
            e.copy(source=prefixed(e.source), target=prefixed(e.target)) for e in graph.edges
        )
        first, last = graph.first_node(), graph.last_node()
        return (
            first.copy(id=prefixed(first.id)) if first else None,
            last.copy(id=prefixed(last.id)) if last else None,
        )

    def first_node(self) -> Node | None:
        """The one node no edge leads to, or ``None`` if there is none or several."""
        return _single(self, "target")

    def last_node(self) -> Node | None:
        """The one node no edge leaves, or ``None`` if there is none or several."""
        return _single(self, "source")

    def trim_first_node(self) -> None:
        """Remove the first node if it has one outgoing edge and another node then is first."""
        first = self.first_node()
        if (
            first
            and _single(self, "target", exclude=first.id)
            and len({e for e in self.edges if e.source == first.id}) == 1
        ):
            self.remove_node(first)

    def trim_last_node(self) -> None:
        """Remove the last node if it has one incoming edge and another node then is last."""
        last = self.last_node()
        if (
            last
            and _single(self, "source", exclude=last.id)
            and len({e for e in self.edges if e.target == last.id}) == 1
        ):
            self.remove_node(last)

    def to_json(self) -> dict[str, list[dict[str, Any]]]:
        """The nodes and edges as JSON-ready dicts, in the shape of LangGraph's ``to_json()``."""
        nodes = [{"id": node.id, **_node_json(node)} for node in self.nodes.values()]
        edges: list[dict[str, Any]] = []
        for edge in self.edges:
            item: dict[str, Any] = {"source": edge.source, "target": edge.target}
            if edge.data is not None:
                item["data"] = edge.data
            if edge.conditional:
                item["conditional"] = True
            edges.append(item)
        return {"nodes": nodes, "edges": edges}

    def draw_mermaid(
        self,
        *,
        with_styles: bool = True,
        curve_style: CurveStyle | str = CurveStyle.LINEAR,
        node_colors: NodeStyles | None = None,
        wrap_label_n_words: int = 9,
        frontmatter_config: Mapping[str, Any] | None = None,
    ) -> str:
        """The graph in Mermaid syntax: the same text LangGraph writes for the same graph.

        Conditional edges are dotted and carry their router result when it is
        not the target's name; ``frontmatter_config`` is written as YAML above
        the graph, with ``curve_style`` as its ``config.flowchart.curve``.
        """
        first, last = self.first_node(), self.last_node()
        return draw_mermaid(
            self.nodes,
            self.edges,
            first_node=first.id if first else None,
            last_node=last.id if last else None,
            with_styles=with_styles,
            curve_style=curve_style,
            node_styles=node_colors or NodeStyles(),
            wrap_label_n_words=wrap_label_n_words,
            frontmatter_config=frontmatter_config,
        )

    def draw_ascii(self) -> str:
        """The graph as text: boxes in layers from ``__start__`` down, edges between them.

        Dotted lines (``:`` and ``.``) are conditional edges. Edges that lead
        back up (loops) are listed under the drawing, Mermaid-style.
        """
        return draw_ascii(list(self.nodes), self.edges)

    def print_ascii(self) -> None:
        """Print :meth:`draw_ascii`."""
        print(self.draw_ascii())

    def draw_png(self, *args: Any, **kwargs: Any) -> NoReturn:
        """Not available: LangGraph draws PNG with graphviz (:class:`DrawingUnavailableError`)."""
        _unavailable("draw_png()", "graphviz (pygraphviz)")

    def draw_mermaid_png(self, *args: Any, **kwargs: Any) -> NoReturn:
        """Not available: LangGraph renders Mermaid on mermaid.ink or in a headless browser."""
        _unavailable("draw_mermaid_png()", "the mermaid.ink web service or pyppeteer")


def _unavailable(method: str, needs: str) -> NoReturn:
    raise DrawingUnavailableError(
        f"{method} is not available in pyctx_web: LangGraph's needs {needs}. Use "
        "draw_mermaid() for the Mermaid text (render it with mermaid.js, e.g. in a "
        "<pre class='mermaid'> element, or on mermaid.live), or draw_ascii()"
    )


def _single(graph: Graph, role: str, exclude: str | None = None) -> Node | None:
    """The one node (but ``exclude``) that is no edge's ``role`` ("target" or "source")."""
    other = "source" if role == "target" else "target"
    taken = {getattr(e, role) for e in graph.edges if getattr(e, other) != exclude}
    found = [n for n in graph.nodes.values() if n.id != exclude and n.id not in taken]
    return found[0] if len(found) == 1 else None


def _node_json(node: Node) -> dict[str, Any]:
    """What ``to_json()`` tells of a node besides its id."""
    result: dict[str, Any] = {}
    if node.data is not None:
        kind = type(node.data)
        where = getattr(node.data, "__module__", None) or kind.__module__
        what = getattr(node.data, "__qualname__", None) or kind.__qualname__
        result = {
            "type": "runnable",
            "data": {"id": [*where.split("."), *what.split(".")], "name": node.name},
        }
    if node.metadata is not None:
        result["metadata"] = node.metadata
    return result


publish("pyctx_web.graph.drawing", Graph)
