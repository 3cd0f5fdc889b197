"""A graph drawn as text, without grandalf: boxes in layers, edges routed between them.

Each node is a box in the layer below every node an edge leads to it from
(edges that lead back up, in loops, are listed under the drawing instead).
An edge that skips layers passes through them as a vertical line. Between
two layers each node whose edges fan out gets a row of its own (a track):
its line drops to the track, runs along it, and drops to each box it leads
to. ``|`` and ``-`` draw an edge, ``:`` and ``.`` a conditional one (dotted);
``+`` joins lines, and where two lines cross without joining the vertical
one is drawn through.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pyctx_web.graph.drawing._model import Edge

__all__ = ["draw_ascii"]

_GAP = 3
"""Columns between two neighbouring items of a layer."""


@dataclass(eq=False)
class _Item:
    """A node's box in a layer, or a point an edge that skips the layer passes through."""

    label: str | None
    """The node id written in the box; ``None`` for a point."""
    rank: int
    """Position in the node order, for ties."""
    conditional: bool = False
    """For a point: whether its edge is conditional (drawn dotted)."""
    left: int = 0
    """Column of the item's left edge."""
    ups: list[_Item] = field(default_factory=list)
    """Items of the layer above with a link to this one."""

    @property
    def width(self) -> int:
        """Columns the item takes: a box's border and padding around its label, or one."""
        return 1 if self.label is None else len(self.label) + 4

    @property
    def center(self) -> int:
        """The column lines leave the item from."""
        return self.left + self.width // 2


@dataclass(frozen=True)
class _Span:
    """The stretch of a track one source's line runs along."""

    low: int
    """Leftmost column."""
    high: int
    """Rightmost column."""
    ends: frozenset[int]
    """Columns where the line turns down to a box it leads to."""
    source: int
    """Column where the line comes down from its source."""

    def apart(self, other: _Span) -> bool:
        """Whether both lines fit in one track: a column apart, or meeting where both end."""
        if self.high + 1 < other.low or other.high + 1 < self.low:
            return True
        meet = self.high if self.high == other.low else other.high
        return (
            (self.high == other.low or other.high == self.low)
            and meet in self.ends & other.ends
            and meet not in (self.source, other.source)
        )


@dataclass(frozen=True)
class _Link:
    """One edge's passage between two neighbouring layers."""

    upper: _Item
    """The item in the layer above (the edge's source, or a point it passes)."""
    lower: _Item
    """The item in the layer below."""
    conditional: bool
    """Whether the edge is conditional: drawn dotted."""


def draw_ascii(nodes: Sequence[str], edges: Sequence[Edge]) -> str:
    """``nodes`` (ids, in order) and ``edges`` as a text drawing, lines joined by newlines."""
    if not nodes:
        return ""
    back = _back_edges(nodes, edges)
    forward = [e for e in edges if e not in back]
    layers, links = _layout(nodes, forward)
    lines = _render(layers, links)
    if back:
        lines += ["", "edges back up:"] + [f"  {_mermaid_edge(e)}" for e in back]
    return "\n".join(line.rstrip() for line in lines)


def _mermaid_edge(edge: Edge) -> str:
    """``edge`` written as in Mermaid: ``a --> b``, ``a -.-> b``, ``a -. label .-> b``."""
    if edge.data is None:
        arrow = " -.-> " if edge.conditional else " --> "
    else:
        arrow = f" -. {edge.data} .-> " if edge.conditional else f" -- {edge.data} --> "
    return f"{edge.source}{arrow}{edge.target}"


def _back_edges(nodes: Sequence[str], edges: Sequence[Edge]) -> list[Edge]:
    """The edges that close a cycle, found depth first from the nodes nothing leads to."""
    out: dict[str, list[Edge]] = {n: [] for n in nodes}
    for edge in edges:
        out[edge.source].append(edge)
    targets = {e.target for e in edges}
    state: dict[str, int] = {}
    back: list[Edge] = []
    for root in [n for n in nodes if n not in targets] + list(nodes):
        if root in state:
            continue
        state[root] = 1
        stack = [(root, iter(out[root]))]
        while stack:
            node, todo = stack[-1]
            step = next(todo, None)
            if step is None:
                state[node] = 2
                stack.pop()
            elif state.get(step.target) == 1:
                back.append(step)
            elif step.target not in state:
                state[step.target] = 1
                stack.append((step.target, iter(out[step.target])))
    return [e for e in edges if e in back]


def _layout(
    nodes: Sequence[str], forward: Sequence[Edge]
) -> tuple[list[list[_Item]], list[list[_Link]]]:
    """Layers of items, ordered and placed, and the links between each layer and the next."""
    depth = {n: 0 for n in nodes}
    pending = {n: 0 for n in nodes}
    for edge in forward:
        pending[edge.target] += 1
    ready = [n for n in nodes if not pending[n]]
    for node in ready:
        for edge in forward:
            if edge.source == node:
                depth[edge.target] = max(depth[edge.target], depth[node] + 1)
                pending[edge.target] -= 1
                if not pending[edge.target]:
                    ready.append(edge.target)
    rank = {n: i for i, n in enumerate(nodes)}
    boxes = {n: _Item(n, rank[n]) for n in nodes}
    layers: list[list[_Item]] = [[] for _ in range(max(depth.values()) + 1)]
    for node in nodes:
        layers[depth[node]].append(boxes[node])
    links: list[list[_Link]] = [[] for _ in layers]
    for edge in forward:
        upper = boxes[edge.source]
        for level in range(depth[edge.source] + 1, depth[edge.target]):
            point = _Item(None, rank[edge.source], edge.conditional)
            layers[level].append(point)
            links[level - 1].append(_Link(upper, point, edge.conditional))
            upper = point
        links[depth[edge.target] - 1].append(_Link(upper, boxes[edge.target], edge.conditional))
    for region in links:
        for link in region:
            link.lower.ups.append(link.upper)
    _place(layers, links)
    return layers, links


def _place(layers: list[list[_Item]], links: list[list[_Link]]) -> None:
    """Order each layer under its items' neighbours above, and give each item its column."""
    for level, items in enumerate(layers):
        index = {id(item): i for i, item in enumerate(layers[level - 1])} if level else {}

        def barycenter(item: _Item, index: dict[int, int] = index) -> tuple[float, bool, int]:
            ups = [index[id(u)] for u in item.ups]
            return (sum(ups) / len(ups) if ups else -1.0, item.label is None, item.rank)

        items.sort(key=barycenter)
        above = {link.upper.center for link in links[level - 1]} if level else set()
        for item, left in zip(items, _pack(items, above), strict=True):
            item.left = left
    low = min(item.left for items in layers for item in items)
    for items in layers:
        for item in items:
            item.left -= low


def _wanted(item: _Item) -> int:
    """The left column that puts ``item`` under the middle of its neighbours above."""
    if not item.ups:
        return 0
    middle = sum(u.center for u in item.ups) // len(item.ups)
    return middle - item.width // 2


def _pack(items: list[_Item], avoid: set[int]) -> list[int]:
    """Left columns as near the wanted ones as the gaps allow; points miss ``avoid``."""
    lefts: list[int] = []
    right: int | None = None
    for item in items:
        left = _wanted(item) if right is None else max(_wanted(item), right + _GAP)
        if item.label is None:
            allowed = {u.center for u in item.ups}
            while left in avoid and left not in allowed:
                left += 1
        lefts.append(left)
        right = left + item.width - 1
    return lefts


def _render(layers: list[list[_Item]], links: list[list[_Link]]) -> list[str]:
    """The drawing's lines: each layer's boxes, and the routed links below it."""
    width = max(item.left + item.width for items in layers for item in items)
    rows: list[list[str]] = []
    for level, items in enumerate(layers):
        rows.extend(_boxes(items, width))
        if level + 1 < len(layers):
            rows.extend(_Region(links[level], width).draw())
    return ["".join(row) for row in rows]


def _boxes(items: list[_Item], width: int) -> list[list[str]]:
    """The three rows of a layer: its boxes, and the lines through its points."""
    rows = [[" "] * width for _ in range(3)]
    for item in items:
        if item.label is None:
            for row in rows:
                row[item.left] = ":" if item.conditional else "|"
            continue
        border = "+" + "-" * (item.width - 2) + "+"
        for row, text in zip(rows, (border, f"| {item.label} |", border), strict=True):
            row[item.left : item.left + item.width] = text
    return rows


class _Region:
    """The rows between two layers: a drop under each source, its track, arrows at the end."""

    def __init__(self, links: list[_Link], width: int) -> None:
        self.links = links
        self.sources = sorted({id(k.upper): k.upper for k in links}.values(), key=_center)
        self.columns = {item.center for item in self.sources}
        self.entries = {id(k.lower): self._entry(k.lower) for k in links}
        fanning = [u for u in self.sources if any(self._end(k) != u.center for k in self._of(u))]
        shared = {id(k.lower) for k in links if len(k.lower.ups) > 1}
        first = [
            u
            for u in fanning
            if any(id(k.lower) in shared and self._end(k) == u.center for k in self._of(u))
        ]
        tracks: list[list[_Span]] = []
        self.track: dict[int, int] = {}
        for upper in first + [u for u in fanning if u not in first]:
            ends = frozenset(self._end(k) for k in self._of(upper))
            span = _Span(min(ends | {upper.center}), max(ends | {upper.center}), ends, upper.center)
            free = [i for i, spans in enumerate(tracks) if all(span.apart(o) for o in spans)]
            if not free:
                tracks.append([])
            index = free[0] if free else len(tracks) - 1
            tracks[index].append(span)
            self.track[id(upper)] = 1 + index
        self.height = len(tracks) + 2
        self.rows = [[" "] * width for _ in range(self.height)]

    def _of(self, upper: _Item) -> list[_Link]:
        """The links from ``upper``."""
        return [k for k in self.links if k.upper is upper]

    def _end(self, link: _Link) -> int:
        """The column where ``link`` enters its lower item."""
        return self.entries[id(link.lower)]

    def _entry(self, lower: _Item) -> int:
        """The column where links enter ``lower``: straight under a source when one is above it."""
        if lower.label is None:
            return lower.left
        inner = range(lower.left + 1, lower.left + lower.width - 1)
        straight = sorted(u.center for u in lower.ups if u.center in inner)
        if straight:
            return straight[0]
        free = [c for c in inner if c not in self.columns]
        near = {c + d for c in self.columns for d in (-1, 1)}
        return min(free, key=lambda c: (c in near, abs(c - lower.center), c))

    def draw(self) -> list[list[str]]:
        """The region's rows."""
        bottom = self.height - 1
        for upper in self.sources:
            links = self._of(upper)
            solid = any(not k.conditional for k in links)
            track = self.track.get(id(upper), bottom)
            for link in links:
                if id(upper) in self.track:
                    self._horizontal(track, upper.center, self._end(link), link.conditional)
            self._vertical(upper.center, 0, track, solid)
            for link in links:
                self._vertical(self._end(link), track + 1, bottom, not link.conditional)
        for upper in self.sources:
            if id(upper) in self.track:
                row = self.track[id(upper)]
                links = self._of(upper)
                self._join(row, upper.center, any(not k.conditional for k in links))
                for link in links:
                    self._join(row, self._end(link), not link.conditional)
        for link in self.links:
            point = link.lower.label is None
            mark = (":" if link.lower.conditional else "|") if point else "v"
            self.rows[bottom][self._end(link)] = mark
        return self.rows

    def _horizontal(self, row: int, start: int, end: int, dotted: bool) -> None:
        """Draw along a track; a solid line covers a dotted one."""
        for col in range(min(start, end), max(start, end) + 1):
            if self.rows[row][col] in (" " if dotted else " ."):
                self.rows[row][col] = "." if dotted else "-"

    def _vertical(self, col: int, start: int, stop: int, solid: bool) -> None:
        """Draw down a column, through tracks it crosses; a solid line covers a dotted one."""
        for row in range(start, stop):
            if self.rows[row][col] in (" -.:" if solid else " -."):
                self.rows[row][col] = "|" if solid else ":"

    def _join(self, row: int, col: int, solid: bool) -> None:
        """Mark where lines meet: ``+``, or ``.`` where only dotted lines do."""
        self.rows[row][col] = "+" if solid or self.rows[row][col] in "|+" else "."


def _center(item: _Item) -> int:
    """Sort key: the item's column."""
    return item.center
