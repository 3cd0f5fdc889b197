"""Building a graph: :class:`StateGraph` collects nodes and edges, ``compile()`` checks them."""

from __future__ import annotations

import itertools
import types
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from pyctx_web.errors import ArgumentTypeError
from pyctx_web.graph._compiled import CompiledStateGraph
from pyctx_web.graph._engine.channels import StateSchema
from pyctx_web.graph._engine.injection import node_input_type, node_parameters
from pyctx_web.graph._engine.spec import (
    Branch,
    GraphSpec,
    Join,
    NodeSpec,
    command_destinations,
)
from pyctx_web.graph._node_action import node_action, node_ends, retry_of, router_function
from pyctx_web.graph._runctx.services import GraphServices
from pyctx_web.graph._values import RetryPolicy
from pyctx_web.graph.constants import END, START
from pyctx_web.graph.errors import GraphConfigError, InvalidGraphError

if TYPE_CHECKING:
    from pyctx_web.graph._engine.extension import MemoryProvider
    from pyctx_web.graph._internal._runnable import RunnableCallable
    from pyctx_web.graph._runctx.middleware import AgentMiddleware
    from pyctx_web.graph._runctx.tools import Tool
    from pyctx_web.graph.checkpoint.base import Checkpointer

__all__ = ["CompiledStateGraph", "StateGraph"]

_RESERVED_CHARS = ("|", ":", "\n")


def _no_cache(cache: Any) -> None:
    if cache is not None:
        raise GraphConfigError(
            f"compile(cache=...) is not supported: pyctx_web does not cache nodes, "
            f"pass cache=None (got {type(cache).__qualname__!r})"
        )


class StateGraph:
    """A graph of nodes that read and update a shared state.

    ``state_schema`` is a ``TypedDict``, a dataclass or a pydantic model; keys
    annotated with ``Annotated[T, reducer]`` combine writes with the reducer.
    ``context_schema`` types the runs' context (``invoke(..., context=...)``);
    ``input_schema`` and ``output_schema`` restrict what a run takes and
    returns. Add nodes and edges, then :meth:`compile` to get a runnable
    :class:`CompiledStateGraph`.
    """

    __class_getitem__: ClassVar[Any] = classmethod(types.GenericAlias)  # StateGraph[State, ...]

    def __init__(
        self,
        state_schema: type,
        context_schema: type | None = None,
        *,
        input_schema: type | None = None,
        output_schema: type | None = None,
    ) -> None:
        self.schema = StateSchema(state_schema)
        self.context_schema = context_schema
        if input_schema is not None:
            self.schema.input_keys = self._extend(input_schema)
        if output_schema is not None:
            self.schema.output_keys = self._extend(output_schema)
        self._nodes: dict[str, NodeSpec] = {}
        self._edges: list[tuple[str, str]] = []
        self._branches: list[Branch] = []
        self._joins: list[Join] = []
        self.node_metadata: dict[str, dict[str, Any]] = {}
        """The ``metadata=`` each node was added with."""

    def add_node(
        self,
        name: str | Callable[..., Any] | CompiledStateGraph | Any,
        fn: Callable[..., Any] | CompiledStateGraph | Any = None,
        *,
        defer: bool = False,
        metadata: Mapping[str, Any] | None = None,
        input_schema: type | None = None,
        retry_policy: RetryPolicy | None = None,
        retry: RetryPolicy | None = None,
        destinations: Mapping[str, str] | tuple[str, ...] | None = None,
        trace_policy: Any = None,
    ) -> StateGraph:
        """Add node ``name`` running ``fn(state)`` or ``fn(state, ctx)``; return the graph.

        ``add_node(fn)`` names the node after the function. ``fn`` may be sync
        or async and returns a dict of updates, a :class:`Command`, a list of
        Commands or ``None``; or it is a compiled graph, which runs as a
        subgraph on the keys the two graphs share; or a LangChain ``Runnable``,
        run with ``ainvoke(state, config)``. ``input_schema`` (else the type
        ``fn`` annotates its state with) is what the node reads. ``destinations``
        names where its ``Command`` may go (else its ``-> Command[Literal[...]]``
        annotation). ``metadata`` is kept for the graph's drawing. When a run's
        config has LangChain ``callbacks``, each node call is a chain run of theirs;
        ``trace_policy`` (a ``TracePolicy``) says what their tracers record of it.
        """
        name, fn = node_action(name, fn, lambda: frozenset(self.schema.annotations))
        self._check_new_node(name)
        if not callable(fn):
            raise ArgumentTypeError(f"add_node() function of {name!r} must be callable, not {fn!r}")
        retry = retry_of(retry_policy, retry)
        inject = node_parameters(name, fn)
        ends = node_ends(destinations, command_destinations(fn))
        state_in = node_input_type(fn) if input_schema is None else input_schema
        reads = None
        if state_in is not None and state_in is not self.schema.state_type:
            # As in LangGraph, the node reads only the keys of its input schema (or of the
            # type it annotates its state with), and those keys become channels of the graph.
            reads = StateSchema(state_in)
            self.schema.extend(reads)
        spec = NodeSpec(name, fn, retry, ends, bool(defer), inject, reads, trace_policy)
        self._nodes[name] = spec
        self.node_metadata[name] = dict(metadata or {})
        return self

    def _check_new_node(self, name: Any) -> None:
        if not isinstance(name, str) or not name:
            raise InvalidGraphError(f"node name must be a non-empty str, not {name!r}")
        if name in (START, END):
            raise InvalidGraphError(f"node name {name!r} is reserved for the graph's {name} node")
        for ch in _RESERVED_CHARS:
            if ch in name:
                raise InvalidGraphError(f"node name {name!r} must not contain {ch!r}")
        if name in self._nodes:
            raise InvalidGraphError(f"node {name!r} is already present in the graph")

    def _extend(self, schema: type) -> tuple[str, ...]:
        """Add the keys of ``schema`` to the graph's channels and return them."""
        other = StateSchema(schema)
        self.schema.extend(other)
        return tuple(other.annotations)

    def add_sequence(
        self, nodes: Sequence[Callable[..., Any] | tuple[str, Callable[..., Any]]]
    ) -> StateGraph:
        """Add ``nodes`` (functions, or ``(name, function)`` pairs) with an edge from each to
        the next; return the graph. The first has no incoming edge yet: add one from START."""
        if not isinstance(nodes, list | tuple) or not nodes:
            raise ArgumentTypeError(
                f"add_sequence() takes a non-empty list of nodes, not {nodes!r}"
            )
        names = []
        for item in nodes:
            if isinstance(item, tuple):
                self.add_node(*item)
                names.append(item[0])
            else:
                self.add_node(item)
                names.append(getattr(item, "__name__", ""))
        for src, dst in itertools.pairwise(names):
            self.add_edge(src, dst)
        return self

    def add_edge(self, src: str | Sequence[str], dst: str) -> StateGraph:
        """Run ``dst`` in the step after ``src``; return the graph.

        With a list of sources, ``dst`` runs once every one of them has run
        (since ``dst`` last ran), as in LangGraph.
        """
        if not isinstance(dst, str) or not (
            isinstance(src, str)
            or (isinstance(src, Sequence) and src and all(isinstance(s, str) for s in src))
        ):
            raise ArgumentTypeError(
                f"add_edge() takes a node name (or a list of them) and a node name, "
                f"not {src!r} and {dst!r}"
            )
        sources = [src] if isinstance(src, str) else list(src)
        if END in sources:
            raise InvalidGraphError("add_edge(): END cannot be the source of an edge")
        if dst == START:
            raise InvalidGraphError("add_edge(): START cannot be the destination of an edge")
        if isinstance(src, str):
            self._edges.append((src, dst))
        else:
            self._joins.append(Join(tuple(sources), dst))
        return self

    def add_conditional_edges(
        self,
        src: str,
        router: Callable[[Any], Any] | RunnableCallable,
        path_map: Mapping[Hashable, str] | Sequence[str] | None = None,
    ) -> StateGraph:
        """After ``src`` runs, call ``router(state)`` to choose the next nodes; return the graph.

        ``router`` is a function or a ``RunnableCallable`` (its function is called).

        The router returns a node name, END, a :class:`Send`, or a list of them.
        ``path_map`` maps its results to node names (a list means "these names").
        """
        if not isinstance(src, str):
            raise ArgumentTypeError(
                f"add_conditional_edges() source must be a node name, not {src!r}"
            )
        if src == END:
            raise InvalidGraphError("add_conditional_edges(): END cannot be a source")
        router = router_function(router)
        if not callable(router):
            raise ArgumentTypeError(
                f"add_conditional_edges() router must be callable, not {router!r}"
            )
        mapping: dict[Hashable, str] | None
        if path_map is None:
            mapping = None
        elif isinstance(path_map, Mapping):
            mapping = dict(path_map)
        elif isinstance(path_map, Sequence) and not isinstance(path_map, str):
            mapping = {name: name for name in path_map}
        else:
            raise ArgumentTypeError(
                f"path_map must be a dict, a list of node names or None, not {path_map!r}"
            )
        self._branches.append(Branch(src, router, mapping))
        return self

    def set_entry_point(self, name: str) -> StateGraph:
        """Same as ``add_edge(START, name)``."""
        return self.add_edge(START, name)

    def set_finish_point(self, name: str) -> StateGraph:
        """Same as ``add_edge(name, END)``."""
        return self.add_edge(name, END)

    def _check_name(self, name: str, where: str, *, allow: tuple[str, ...]) -> None:
        if name in self._nodes or name in allow:
            return
        known = ", ".join(repr(n) for n in self._nodes) or "none"
        raise InvalidGraphError(f"{where}: unknown node {name!r} (known nodes: {known})")

    def validate(self) -> GraphSpec:
        """Check the graph and return its immutable structure; raise on the first problem."""
        if not self._nodes:
            raise InvalidGraphError("graph has no nodes: add one with add_node()")
        for node in self._nodes.values():
            for dst in node.ends:
                self._check_name(dst, f"the Command destinations of {node.name!r}", allow=(END,))
        edges: dict[str, list[str]] = {}
        for src, dst in self._edges:
            where = f"add_edge({src!r}, {dst!r})"
            self._check_name(src, where, allow=(START,))
            self._check_name(dst, where, allow=(END,))
            targets = edges.setdefault(src, [])
            if dst not in targets:
                targets.append(dst)
        branches: dict[str, list[Branch]] = {}
        for branch in self._branches:
            where = f"add_conditional_edges({branch.source!r}, ...)"
            self._check_name(branch.source, where, allow=(START,))
            for dst in (branch.path_map or {}).values():
                self._check_name(dst, f"{where} path_map", allow=(END,))
            branches.setdefault(branch.source, []).append(branch)
        for join in self._joins:
            where = f"add_edge({list(join.sources)!r}, {join.target!r})"
            for src in join.sources:
                self._check_name(src, where, allow=(START,))
            self._check_name(join.target, where, allow=(END,))
        if START not in edges and START not in branches:
            raise InvalidGraphError(
                "graph has no entry point: add an edge from START, "
                "e.g. add_edge(START, 'first_node')"
            )
        return GraphSpec(
            schema=self.schema,
            nodes=dict(self._nodes),
            edges={src: tuple(dsts) for src, dsts in edges.items()},
            branches={src: tuple(bs) for src, bs in branches.items()},
            joins=tuple(self._joins),
            defers=any(node.defer for node in self._nodes.values()),
            context_schema=self.context_schema,
        )

    def compile(
        self,
        checkpointer: Checkpointer | None = None,
        *,
        interrupt_before: Sequence[str] | str | None = None,
        interrupt_after: Sequence[str] | str | None = None,
        name: str | None = None,
        context: Any = None,
        middleware: Sequence[AgentMiddleware[Any]] = (),
        memory: MemoryProvider | None = None,
        tools: Sequence[Tool] = (),
        multitask: str = "reject",
        store: Any = None,
        cache: Any = None,
        debug: bool = False,
        transformers: Sequence[Any] | None = None,
    ) -> CompiledStateGraph:
        """Check the graph and return a :class:`CompiledStateGraph` that runs it.

        ``interrupt_before``/``interrupt_after`` name nodes to pause before or after
        (``"*"`` for all; ``None``, the default, for none); they need a ``checkpointer``.
        ``context`` is the default of every run's ``runtime.context`` (each run gets a
        shallow copy; a run's ``context=`` replaces it, or sets fields of a dataclass
        default); ``middleware`` (:class:`~pyctx_web.graph.middleware.AgentMiddleware`,
        outermost first), ``memory`` and ``tools`` serve every run. ``multitask`` says what
        a second run of a running thread does: ``"reject"`` raises ``ThreadBusyError``,
        ``"enqueue"`` waits. ``store`` (a :class:`~pyctx_web.graph.store.base.BaseStore`)
        is every run's ``runtime.store`` and :func:`~pyctx_web.graph.config.get_store`.
        LangGraph's ``cache`` must be ``None``; ``transformers`` (stream transformer
        factories) add streams to ``stream_events(version="v3")`` runs; ``debug`` is unused.
        """
        _no_cache(cache)
        services = GraphServices.build(
            name or "graph",
            context=context,
            middleware=middleware,
            memory=memory,
            tools=tools,
        )
        spec = self.validate()
        before = self._breakpoints(interrupt_before, "interrupt_before")
        after = self._breakpoints(interrupt_after, "interrupt_after")
        if (before or after) and checkpointer is None:
            raise InvalidGraphError(
                "interrupt_before/interrupt_after need a checkpointer to pause and resume: "
                "compile(checkpointer=InMemorySaver(), ...)"
            )
        compiled = CompiledStateGraph(
            spec,
            checkpointer=checkpointer,
            interrupt_before=before,
            interrupt_after=after,
            name=name or "graph",
            services=services,
            multitask=multitask,
            store=store,
        )
        compiled.stream_transformers = tuple(transformers or ())
        return compiled

    def _breakpoints(self, names: Sequence[str] | str | None, what: str) -> frozenset[str]:
        if names is None:
            return frozenset()
        if names == "*":
            return frozenset(self._nodes)
        if isinstance(names, str):
            names = (names,)
        for n in names:
            self._check_name(n, f"compile({what}=...)", allow=())
        return frozenset(names)
