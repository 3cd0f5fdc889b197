"""Where a run's stream chunks go: its caller's stream, its parent's stream, the console.

A run puts its chunks in one queue (``Run.queue``). Most runs have one reader:
the caller's ``stream()``, or the parent's stream for a subgraph run as a node.
Three cases need more, and get a :class:`ChunkSink` as that queue:

- a graph run on another event loop than its parent's stream (a sync call in a
  node) hands its chunks to that loop, at once if it runs in this thread;
- a graph streamed from inside a node of a running graph (``agent.stream(...)``
  in a node or a tool) is a subgraph of that node's task, as in LangGraph: its
  chunks go to the caller's stream, and also to the parent's when the parent
  streams subgraphs (``subgraphs=True``), with their namespace;
- ``print_mode`` prints the chunks of those modes, as LangGraph's does:
  ``[mode] payload`` in bold, ``[graph=namespace]`` in yellow before a
  subgraph's payload. ``debug=True`` is LangGraph's ``print_mode=["updates",
  "values"]``. ``invoke`` prints too; it streams nothing else.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any

from pyctx_web._records import record
from pyctx_web.errors import ArgumentTypeError
from pyctx_web.graph._engine.frames import Namespaced
from pyctx_web.graph._engine.options import RunOptions, stream_modes

__all__ = ["ChunkSink", "printed_modes", "stream_of"]

DEBUG_MODES = frozenset({"updates", "values"})
"""What ``debug=True`` prints, as LangGraph's."""


def printed_modes(options: RunOptions) -> frozenset[str]:
    """The modes a call prints: its ``print_mode``, with ``updates`` and ``values`` for debug."""
    given: str | Sequence[str] = options.get("print_mode") or ()
    modes = stream_modes(given)[0] if given else frozenset()
    debug = options.get("debug")
    if debug is not None and not isinstance(debug, bool):
        raise ArgumentTypeError(f"debug must be a bool, not {type(debug).__qualname__!r}")
    return modes | DEBUG_MODES if debug else modes


@record(frozen=True, slots=True)
class _Reader:
    """One reader of a run's chunks: its queue, modes, loop, and whether it takes subgraphs'."""

    queue: asyncio.Queue[tuple[str, Any]] | None
    modes: frozenset[str]
    subgraphs: bool
    loop: asyncio.AbstractEventLoop | None = None
    foreign: bool = False

    def takes(self, mode: str, chunk: Any, namespace: tuple[str, ...]) -> bool:
        """Whether this reader wants ``chunk`` of ``mode``, from a run at ``namespace``."""
        if mode not in self.modes:
            return False
        # A reader that does not stream subgraphs takes only the run's own chunks.
        return self.subgraphs or not isinstance(chunk, Namespaced) or chunk.namespace == namespace

    def put(self, item: tuple[str, Any]) -> None:
        """Hand ``item`` to the reader, on its loop if the run executes on another."""
        if self.queue is None:
            return
        if self.foreign and self.loop is not None and not _runs_here(self.loop):
            self.loop.call_soon_threadsafe(self.queue.put_nowait, item)
        else:
            self.queue.put_nowait(item)


class ChunkSink(asyncio.Queue[tuple[str, Any]]):
    """A run's queue that hands each chunk to its readers and prints those of the printed modes.

    ``join()`` waits for the caller's stream to take what it was handed, so the
    run's steps keep pace with its caller as with a plain queue.
    """

    def __init__(
        self,
        namespace: tuple[str, ...],
        readers: Sequence[_Reader],
        printed: _Reader | None,
    ) -> None:
        super().__init__()
        self._namespace = namespace
        self._readers = tuple(readers)
        self._printed = printed

    def put_nowait(self, item: tuple[str, Any]) -> None:
        mode, chunk = item
        printed = self._printed
        if printed is not None and printed.takes(mode, chunk, self._namespace):
            _print(mode, chunk, printed.subgraphs)
        for reader in self._readers:
            if reader.takes(mode, chunk, self._namespace):
                reader.put(item)

    async def join(self) -> None:
        own = self._readers[0].queue if self._readers else None
        if own is not None and not self._readers[0].foreign:
            await own.join()


def _print(mode: str, chunk: Any, subgraphs: bool) -> None:
    """Print a chunk as LangGraph's ``print_mode`` does."""
    namespace: tuple[str, ...] = ()
    if isinstance(chunk, Namespaced):
        namespace, chunk = chunk.namespace, chunk.chunk
    parts = [f"\033[1m[{mode}]\033[0m"]
    if subgraphs and namespace:
        parts.append(f"\033[1;3;33m[graph={namespace}]\033[0m")
    parts.append(repr(chunk))
    print(" ".join(parts))


def stream_of(
    own: dict[str, Any],
    parent: dict[str, Any],
    options: RunOptions | None,
    namespace: tuple[str, ...] = (),
) -> dict[str, Any]:
    """The stream fields of a run (``Run(queue=..., stream_modes=...)``).

    ``own`` describes the caller's stream (``astream``'s queue and modes),
    ``parent`` the parent's stream a subgraph forwards to; ``options`` give the
    printed modes.
    """
    printed = printed_modes(options) if options else frozenset()
    crossing = bool(parent.get("foreign_loop"))
    if not printed and not crossing and not (own.get("queue") is not None and parent):
        # One reader (or none): the run puts its chunks in that reader's queue.
        return own if own.get("queue") is not None or not parent else parent
    subgraphs = bool(own.get("subgraphs")) if own.get("queue") is not None else False
    loop = own.get("loop") or _running_loop()
    readers = []
    if own.get("queue") is not None:
        readers.append(_Reader(own["queue"], own["stream_modes"], subgraphs, loop))
    if parent:
        readers.append(
            _Reader(
                parent["queue"],
                parent["stream_modes"],
                True,
                parent["loop"],
                parent["foreign_loop"],
            )
        )
    shown = _Reader(None, printed, bool(options and options.get("subgraphs"))) if printed else None
    sink = ChunkSink(namespace, readers, shown)
    return {
        "queue": sink,
        "stream_modes": frozenset().union(printed, *(r.modes for r in readers)),
        "subgraphs": any(r.subgraphs for r in readers) or bool(shown and shown.subgraphs),
        "loop": loop,
        "message_events": bool(own.get("message_events") or parent.get("message_events")),
    }


def _runs_here(loop: asyncio.AbstractEventLoop) -> bool:
    """Whether ``loop`` runs in this thread, hidden below a sync call (see ``sync_form``).

    Its queue is then fed at once: the loop waits for that call, and a chunk
    handed over later would come after what the call's node returns.
    """
    return getattr(loop, "_thread_id", None) == threading.get_ident()


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
