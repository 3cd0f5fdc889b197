"""Which edges a graph's drawing has: a dry run of its trigger channels, as LangGraph's.

LangGraph does not draw the edges as they were added: it runs the graph's
steps without calling any node, every node writing the channels its edges
write and, the first time it runs, those its routers' ``path_map`` (or
``Literal`` return annotation) and its ``Command[Literal[...]]`` annotation
declare; the edges drawn are the ones that carried a node to the next. The
same rules here give the same drawing: a router that declares nothing adds no
edge, an edge to END next to other edges disappears, a node no edge leaves
gets an edge to END, and a loop with no way out ends in a dotted edge to END.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import (
    Any,
    Literal,
    NamedTuple,
    Protocol,
    get_args,
    get_origin,
    get_type_hints,
    runtime_checkable,
)

from pyctx_web._homes import publish
from pyctx_web.graph._engine.spec import GraphSpec
from pyctx_web.graph.constants import END, START
from pyctx_web.graph.drawing._graph import Graph

__all__ = ["Drawable", "draw_graph", "subgraph_of"]

LIMIT = 250
"""Steps LangGraph's dry run takes at most (a graph that loops forever stops there)."""


@runtime_checkable
class Drawable(Protocol):
    """A compiled graph as the drawing reads it; a node that runs one is a subgraph."""

    spec: GraphSpec
    interrupt_before: frozenset[str]
    interrupt_after: frozenset[str]

    def get_graph(self, config: Any = None, *, xray: int | bool = False) -> Graph:
        """The graph's drawing."""
        ...


def subgraph_of(fn: object) -> Drawable | None:
    """The compiled graph a node runs: the node's function itself, or its ``subgraph``."""
    for candidate in (fn, getattr(fn, "subgraph", None)):
        if isinstance(candidate, Drawable):
            return candidate
    return None


def _to(node: str) -> str:
    return f"branch:to:{node}"


class _Trigger(NamedTuple):
    """A channel a node wrote, whether a router or ``Command`` chose it, and its label."""

    channel: str
    conditional: bool
    label: str | None


class _Found(NamedTuple):
    """An edge the dry run found: ``source`` led to ``target``."""

    source: str
    target: str
    conditional: bool
    label: str | None


def _order(edge: tuple[str, str, bool, str | None]) -> tuple[str, str, bool, bool, str]:
    """Sort key of found edges: LangGraph's tuple order, unlabelled first."""
    return (edge[0], edge[1], edge[2], edge[3] is not None, edge[3] or "")


@dataclass(slots=True)
class _Channel:
    """A trigger channel: a node's ``branch:to:`` channel, a join's barrier, or the input."""

    names: frozenset[str] | None
    """The sources a join waits for; ``None`` for a channel that holds one value."""
    after_finish: bool
    """Whether the channel is read only once no other node is left (``defer=True``)."""
    value: bool = False
    """Whether a one-value channel holds a value."""
    seen: set[str] = field(default_factory=set)
    """The sources that reached a join."""
    finished: bool = False
    """Whether an ``after_finish`` channel was released."""

    def full(self) -> bool:
        """Whether it holds a value, or every source reached the join."""
        return self.value if self.names is None else self.seen == self.names

    def available(self) -> bool:
        """Whether it can trigger its nodes now."""
        return self.full() and (self.finished or not self.after_finish)

    def update(self, values: list[str | None]) -> bool:
        """Take a step's writes (none: the step passed); whether the channel changed."""
        if self.names is not None:
            new = {v for v in values if v is not None} - self.seen
            self.seen |= new
            return bool(new)
        if not values:
            cleared = self.value and not self.after_finish
            self.value = self.value and self.after_finish
            return cleared
        self.value, self.finished = True, False
        return True

    def consume(self) -> bool:
        """Empty it once its node ran, if it is emptied so; whether it changed."""
        if self.available() if self.after_finish else self.names is not None and self.full():
            self.value, self.seen, self.finished = False, set(), False
            return True
        return False

    def finish(self) -> bool:
        """Release a deferred value when no other node is left; whether it changed."""
        if self.after_finish and not self.finished and self.full():
            self.finished = True
            return True
        return False


def router_ends(router: Callable[..., Any], path_map: Mapping[Any, str] | None) -> dict[Any, str]:
    """Where a router may lead: its ``path_map``, else its ``-> Literal[...]`` annotation."""
    if path_map is not None:
        return dict(path_map)
    try:
        returned = get_type_hints(router).get("return")
    except Exception:
        # As LangGraph: a router whose annotations cannot be read declares nothing.
        return {}
    if get_origin(returned) is Literal:
        return {name: name for name in get_args(returned)}
    return {}


class _DryRun:
    """LangGraph's dry run of a graph's steps, recording the edges that carried each step on."""

    def __init__(self, spec: GraphSpec) -> None:
        names = [START, *spec.nodes]
        self.channels: dict[str, _Channel] = {START: _Channel(None, False)}
        self.triggers: dict[str, list[str]] = {START: [START]}
        self.writes: dict[str, list[tuple[str, str | None]]] = {name: [] for name in names}
        self.declared: dict[str, list[tuple[str, str | None]]] = {name: [] for name in names}
        for name, node in spec.nodes.items():
            self.channels[_to(name)] = _Channel(None, node.defer)
            self.triggers[name] = [_to(name)]
        for src, dsts in spec.edges.items():
            self.writes[src].extend((_to(dst), None) for dst in dsts if dst != END)
        for join in spec.joins:
            key = f"join:{'+'.join(join.sources)}:{join.target}"
            if join.target == END or key in self.channels:
                continue
            defer = spec.nodes[join.target].defer
            self.channels[key] = _Channel(frozenset(join.sources), defer)
            self.triggers[join.target].append(key)
            for src in join.sources:
                self.writes[src].append((key, src))
        for name in names:
            if name in spec.nodes:
                self.declared[name].extend((dst, None) for dst in spec.nodes[name].ends)
            for branch in spec.branches.get(name, ()):
                ends = router_ends(branch.router, branch.path_map)
                self.declared[name].extend((dst, str(key)) for key, dst in ends.items())
        self.trigger_to_nodes: dict[str, list[str]] = {}
        for name, channels in self.triggers.items():
            for channel in channels:
                self.trigger_to_nodes.setdefault(channel, []).append(name)
        self.versions: dict[str, int] = {}
        self.seen: dict[str, dict[str, int]] = {}
        self.found: set[_Found] = set()
        self.sources: dict[str, set[_Trigger]] = {}
        self.step_sources: dict[str, set[_Trigger]] = {}
        self.static: dict[str, set[_Trigger]] = {}

    def run(self) -> None:
        """Run the steps from the input on, up to :data:`LIMIT` of them."""
        self.channels[START].update([START])
        self.versions[START] = 1
        tasks = self._next({START})
        for _ in range(-1, LIMIT):
            if not tasks:
                break
            tasks = self._step(tasks)

    def _step(self, tasks: list[str]) -> list[str]:
        """Run one step's ``tasks``: record the edges to the next step's; return those."""
        conditional: dict[tuple[str, str], str | None] = {}
        written: dict[str, list[tuple[str, str | None]]] = {}
        for name in tasks:
            written[name] = list(self.writes[name])
            if name in self.static:
                continue
            self.static[name] = set()
            for dst, label in self.declared[name]:
                if dst == END:
                    self.found.add(_Found(name, END, True, label))
                    continue
                conditional[(name, _to(dst))] = label
                self.static[name].add(_Trigger(_to(dst), True, label))
                written[name].append((_to(dst), None))
        self.step_sources = {
            name: {
                _Trigger(ch, False, None)
                if value is not None
                else _Trigger(ch, (name, ch) in conditional, conditional.get((name, ch)))
                for ch, value in written[name]
            }
            | self.static[name]
            for name in tasks
        }
        self.sources.update(self.step_sources)
        by_trigger: dict[str, set[tuple[str, bool, str | None]]] = {}
        for src, triggers in self.sources.items():
            for channel, cond, label in triggers:
                by_trigger.setdefault(channel, set()).add((src, cond, label))
        following = self._next(self._apply(tasks, written))
        for task in following:
            added = False
            for channel in self.triggers[task]:
                for src, cond, label in by_trigger.get(channel, ()):
                    self.found.add(_Found(src, task, cond, label))
                    if _Trigger(channel, cond, label) in self.step_sources.get(src, ()):
                        added = True
                    else:
                        self.sources[src].discard(_Trigger(channel, cond, label))
            if not added:
                self.found.update(_Found(src, task, True, None) for src in self.step_sources)
        return following

    def _apply(
        self, tasks: list[str], written: Mapping[str, list[tuple[str, str | None]]]
    ) -> set[str]:
        """Apply a step's writes as LangGraph's ``apply_writes``; return the updated channels."""
        for name in tasks:
            seen = self.seen.setdefault(name, {})
            seen.update(
                {ch: self.versions[ch] for ch in self.triggers[name] if ch in self.versions}
            )
        version = max(self.versions.values(), default=0) + 1
        for channel in {ch for name in tasks for ch in self.triggers[name]}:
            if self.channels[channel].consume():
                self.versions[channel] = version
        pending: dict[str, list[str | None]] = {}
        for name in tasks:
            for channel, value in written[name]:
                pending.setdefault(channel, []).append(value)
        updated: set[str] = set()
        for channel, values in pending.items():
            self._changed(channel, self.channels[channel].update(values), version, updated)
        for channel, chan in self.channels.items():
            if chan.available() and channel not in updated:
                self._changed(channel, chan.update([]), version, updated)
        if updated.isdisjoint(self.trigger_to_nodes):
            for channel, chan in self.channels.items():
                self._changed(channel, chan.finish(), version, updated)
        return updated

    def _changed(self, channel: str, changed: bool, version: int, updated: set[str]) -> None:
        """Give a changed channel the step's version; note it if it can trigger."""
        if changed:
            self.versions[channel] = version
            if self.channels[channel].available():
                updated.add(channel)

    def _next(self, updated: Collection[str]) -> list[str]:
        """The nodes the next step runs: those with a trigger updated since they last ran."""
        if updated:
            candidates = sorted({n for ch in updated for n in self.trigger_to_nodes.get(ch, ())})
        else:
            candidates = list(self.triggers) if self.versions else []
        return [
            name
            for name in candidates
            if any(
                self.channels[ch].available()
                and self.versions.get(ch, 0) > self.seen.get(name, {}).get(ch, 0)
                for ch in self.triggers[name]
            )
        ]


def draw_graph(
    spec: GraphSpec,
    *,
    interrupt_before: Collection[str],
    interrupt_after: Collection[str],
    subgraphs: Mapping[str, Graph],
) -> Graph:
    """The drawable graph of ``spec``: its nodes, and the edges the dry run found.

    ``subgraphs`` are the drawings of nodes that are compiled graphs
    (``xray``): each replaces its node, its ids prefixed ``node:``.
    """
    run = _DryRun(spec)
    run.run()
    graph = Graph()
    # The first node takes the input: its data is the state type (to_json names it).
    graph.add_node(spec.schema.state_type, START)
    for name, node in spec.nodes.items():
        metadata: dict[str, Any] = {"defer": True} if node.defer else {}
        breaks = (("before", interrupt_before), ("after", interrupt_after))
        when = [w for w, names in breaks if name in names]
        if when:
            metadata["__interrupt"] = ",".join(when)
        graph.add_node(subgraph_of(node.fn) or node.fn, name, metadata=metadata or None)
    found = sorted(run.found, key=_order)
    for src, dst, cond, label in found:
        _add_edge(graph, src, dst, label if label != dst else None, cond)
    termini = {f.target for f in found if f.target != END} - {f.source for f in found}
    if termini:
        for src in sorted(termini):
            _add_edge(graph, src, END, None, False)
    elif len(run.step_sources) == 1 and not any(f.target == END for f in found):
        _add_edge(graph, next(iter(run.step_sources)), END, None, True)
    for name, subgraph in subgraphs.items():
        _expand(graph, name, subgraph)
    return graph


def _add_edge(graph: Graph, src: str, dst: str, label: str | None, conditional: bool) -> None:
    """Add an edge unless one joins the same nodes; add END at its first edge."""
    if any(e.source == src and e.target == dst for e in graph.edges):
        return
    if dst == END and END not in graph.nodes:
        graph.add_node(None, END)
    graph.add_edge(graph.nodes[src], graph.nodes[dst], label, conditional)


def _expand(graph: Graph, name: str, subgraph: Graph) -> None:
    """Replace node ``name`` by ``subgraph``, less its own start and end when they can go."""
    if not (
        len(subgraph.nodes) > 1
        and name in graph.nodes
        and subgraph.first_node()
        and subgraph.last_node()
    ):
        return
    subgraph.trim_first_node()
    subgraph.trim_last_node()
    graph.nodes.pop(name)
    first, last = graph.extend(subgraph, prefix=name)
    for key in subgraph.nodes:
        # As LangGraph's: a node drawn inside an expanded subgraph is named by its full id.
        inner = graph.nodes[f"{name}:{key}"]
        graph.nodes[inner.id] = inner.copy(name=inner.id)
    assert first is not None
    assert last is not None
    for index, edge in enumerate(graph.edges):
        if edge.source == name:
            edge = edge.copy(source=last.id)
        if edge.target == name:
            edge = edge.copy(target=first.id)
        graph.edges[index] = edge


publish("pyctx_web.graph.drawing", Drawable)
