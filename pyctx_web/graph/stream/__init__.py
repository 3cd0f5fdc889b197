"""The vocabulary of LangGraph's event streams (``langgraph.stream``), for code that extends them.

LangGraph's ``stream_events(version="v3")`` runs a graph's events through
transformers (``compile(transformers=[...])``) into per-channel streams. pyctx_web's
graphs have no ``stream_events``: ``stream``/``astream`` with ``stream_mode`` are
their streams, and ``compile()`` accepts ``transformers`` without running them. What
is here lets code written for LangGraph's streams (LangChain's agents and middleware)
import and declare its transformers:

- :class:`StreamTransformer`, the base class of a transformer, and
  :data:`TransformerFactory`; :class:`ProtocolEvent`, the events they see.
- :class:`StreamChannel`, a buffered channel of items a transformer pushes and a
  reader iterates (it works on its own, sync).
- The classes of LangGraph's event-stream runs (:class:`StreamMux`,
  :class:`GraphRunStream`, :class:`SubgraphRunStream` and their async forms) and
  built-in transformers (:class:`MessagesTransformer`, ...), which may be
  subclassed; making one raises :class:`~pyctx_web.errors.UsageError`, since no
  pyctx_web run drives them.

Under ``install_as_langgraph()`` this module is ``langgraph.stream`` and its
``_types``, ``_mux``, ``stream_channel``, ``run_stream`` and ``transformers``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any, ClassVar, Generic, Literal, TypeAlias, TypedDict, TypeVar

from pyctx_web.errors import UsageError

__all__ = [
    "AsyncGraphRunStream",
    "AsyncSubgraphRunStream",
    "GraphRunStream",
    "LifecyclePayload",
    "MessagesTransformer",
    "ProtocolEvent",
    "StreamChannel",
    "StreamMux",
    "StreamTransformer",
    "SubgraphRunStream",
    "SubgraphStatus",
    "TransformerFactory",
]

T = TypeVar("T")


class ProtocolEvent(TypedDict, total=False):
    """An event of LangGraph's event stream: ``method`` (the stream mode) and ``params``."""

    type: Literal["event"]
    event_id: str
    seq: int
    method: str
    params: dict[str, Any]


class LifecyclePayload(TypedDict, total=False):
    """What a lifecycle event of a (sub)graph run says: its status and what caused it."""

    event: str
    graph_name: str
    error: str
    cause: Any


SubgraphStatus: TypeAlias = Literal["started", "completed", "failed", "interrupted", "drained"]
"""Where a subgraph's run stands, in a lifecycle event."""


class StreamTransformer(ABC):
    """A transformer of a run's events into streams of its own (LangGraph's extension point).

    ``scope`` is the namespace it works in (``()`` for the root graph). A subclass
    gives :meth:`init` (its streams by name) and :meth:`process`.
    """

    requires_async: ClassVar[bool] = False
    supports_sync: ClassVar[bool] = False
    required_stream_modes: ClassVar[tuple[str, ...]] = ()
    before_builtins: ClassVar[bool] = False

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        self.scope = tuple(scope)

    @abstractmethod
    def init(self) -> dict[str, Any]:
        """The streams this transformer adds to a run, by name."""

    def process(self, event: ProtocolEvent) -> bool:
        """Look at (or change) ``event``; ``False`` drops it from the run's main stream."""
        return True

    def finalize(self) -> None:  # noqa: B027  # an optional hook
        """Called once when the run ends."""

    def fail(self, err: BaseException) -> None:  # noqa: B027  # an optional hook
        """Called once when the run fails with ``err``."""


TransformerFactory: TypeAlias = Callable[[tuple[str, ...]], StreamTransformer]
"""What ``compile(transformers=[...])`` takes: makes a transformer for a scope."""


class StreamChannel(Generic[T]):
    """Items pushed by a writer, read in order by iterating; ``maxlen`` keeps the newest only."""

    def __init__(self, name: str | None = None, *, maxlen: int | None = None) -> None:
        self.name = name
        self._items: deque[T] = deque(maxlen=maxlen)
        self._closed = False
        self._error: BaseException | None = None

    def push(self, item: T) -> None:
        """Add ``item``; raises :class:`UsageError` once the channel is closed."""
        if self._closed:
            raise UsageError(f"stream channel {self.name!r} is closed: nothing can be pushed")
        self._items.append(item)

    def close(self) -> None:
        """End the channel: readers get what was pushed, then stop."""
        self._closed = True

    def fail(self, err: BaseException) -> None:
        """End the channel with ``err``, which readers get after what was pushed."""
        self._error = err
        self._closed = True

    def __iter__(self) -> Iterator[T]:
        while self._items:
            yield self._items.popleft()
        if self._error is not None:
            raise self._error
        if not self._closed:
            raise UsageError(
                f"stream channel {self.name!r} is still open: nothing more can be read "
                "without a run driving it"
            )


class _Undriven:
    """A class of LangGraph's event-stream runs, which no pyctx_web run drives."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise UsageError(
            f"{type(self).__name__} belongs to LangGraph's stream_events(version='v3'), "
            "which pyctx_web's graphs do not have: use stream() or astream() with stream_mode"
        )


class StreamMux(_Undriven):
    """LangGraph's dispatcher of a run's events to its transformers."""


class GraphRunStream(_Undriven):
    """LangGraph's sync handle on a run's event streams."""


class AsyncGraphRunStream(_Undriven):
    """LangGraph's async handle on a run's event streams."""


class SubgraphRunStream(GraphRunStream):
    """LangGraph's sync handle on a subgraph run's event streams."""


class AsyncSubgraphRunStream(AsyncGraphRunStream):
    """LangGraph's async handle on a subgraph run's event streams."""


class _BuiltinTransformer(_Undriven, StreamTransformer):
    """A built-in transformer of LangGraph's event streams."""

    def init(self) -> dict[str, Any]:
        """Never called: the transformer cannot be made."""
        return {}


class MessagesTransformer(_BuiltinTransformer):
    """LangGraph's transformer of chat model events into message streams."""


class _TasksLifecycleBase(_BuiltinTransformer):
    """LangGraph's base of the transformers that follow subgraph runs' lifecycles."""
