"""The events of an event-stream run and the base class of the transformers that read them."""

from __future__ import annotations

import asyncio
import logging
from abc import ABC, abstractmethod
from collections.abc import Coroutine
from typing import Any, ClassVar, Literal, NotRequired, TypedDict

from pyctx_web._homes import publish
from pyctx_web.errors import UsageError

__all__ = ["ProtocolEvent", "StreamTransformer", "transformer_requires_async"]

_log = logging.getLogger(__name__)


class _ProtocolEventParams(TypedDict):
    """Where an event comes from (``namespace``), when (ms since the epoch) and its ``data``."""

    namespace: list[str]
    timestamp: int
    data: Any
    interrupts: NotRequired[tuple[Any, ...]]


class ProtocolEvent(TypedDict):
    """One event of a run: ``method`` (a stream mode, or a channel's name) and ``params``.

    ``seq`` numbers the events of the root run's log in order.
    """

    type: Literal["event"]
    event_id: NotRequired[str]
    seq: NotRequired[int]
    method: str
    params: _ProtocolEventParams


class StreamTransformer(ABC):
    """Reads a run's events and builds streams of its own from them (``init()`` names them).

    ``process`` (or ``aprocess`` on an async run) sees each event in turn and
    returns ``False`` to keep it out of the run's main log. ``finalize`` /
    ``fail`` end the run. Class settings: ``required_stream_modes`` (the graph's
    stream modes it reads), ``before_builtins`` (runs before the built-in
    transformers), ``requires_async`` / ``supports_sync`` (which runs it may
    join: one overriding an async hook joins only async runs unless it says
    ``supports_sync``), and ``_native`` (its streams are attributes of the run).
    """

    requires_async: ClassVar[bool] = False
    supports_sync: ClassVar[bool] = False
    required_stream_modes: ClassVar[tuple[str, ...]] = ()
    before_builtins: ClassVar[bool] = False

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        self.scope: tuple[str, ...] = scope

    @abstractmethod
    def init(self) -> dict[str, Any]:
        """The streams (and other values) this transformer adds to the run, by name."""

    def _on_register(self, mux: Any) -> None:  # noqa: B027  # an optional hook
        """Called once the mux has taken this transformer in."""

    def process(self, event: ProtocolEvent) -> bool:
        """See ``event`` on a sync run; ``False`` keeps it out of the main log."""
        raise NotImplementedError(f"{type(self).__name__} must override process() or aprocess()")

    async def aprocess(self, event: ProtocolEvent) -> bool:
        """See ``event`` on an async run (by default, :meth:`process`)."""
        return self.process(event)

    def finalize(self) -> None:  # noqa: B027  # an optional hook
        """The run ended well (its channels are closed by the mux)."""

    async def afinalize(self) -> None:
        """The async run ended well (by default, :meth:`finalize`)."""
        self.finalize()

    def fail(self, err: BaseException) -> None:  # noqa: B027  # an optional hook
        """The run failed with ``err`` (its channels are failed by the mux)."""

    async def afail(self, err: BaseException) -> None:
        """The async run failed with ``err`` (by default, :meth:`fail`)."""
        self.fail(err)

    def schedule(
        self, coro: Coroutine[Any, Any, Any], *, on_error: Literal["log", "raise"] = "log"
    ) -> asyncio.Task[Any]:
        """Run ``coro`` beside the run; the mux awaits it before the run ends.

        ``on_error="log"`` logs what it raises; ``"raise"`` fails the run with it.
        Only in an async run.
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            raise UsageError(
                f"{type(self).__name__}.schedule() needs a running event loop: "
                "the transformer runs under astream_events(), not stream_events(); "
                "set requires_async=True on the class"
            ) from None
        task = asyncio.create_task(_logged(coro) if on_error == "log" else coro)
        tasks = self._scheduled()
        tasks.add(task)
        task.add_done_callback(tasks.discard)
        return task

    def _scheduled(self) -> set[asyncio.Task[Any]]:
        # Made here, not in __init__: a subclass may not call super().__init__().
        tasks: set[asyncio.Task[Any]] | None = getattr(self, "_stream_scheduled_tasks", None)
        if tasks is None:
            tasks = set()
            self._stream_scheduled_tasks = tasks
        return tasks


async def _logged(coro: Coroutine[Any, Any, Any]) -> Any:
    try:
        return await coro
    except asyncio.CancelledError:
        raise
    except Exception:
        _log.exception("a task scheduled by a stream transformer failed")
        return None


def transformer_requires_async(transformer: StreamTransformer) -> bool:
    """Whether ``transformer`` can join only async runs."""
    if transformer.requires_async:
        return True
    if transformer.supports_sync:
        return False
    kind = type(transformer)
    return any(
        getattr(kind, hook) is not getattr(StreamTransformer, hook)
        for hook in ("aprocess", "afinalize", "afail")
    )


publish("pyctx_web.graph.stream", ProtocolEvent, StreamTransformer, transformer_requires_async)
