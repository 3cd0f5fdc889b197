"""An event log that stores a run's events behind its stream, a batch per transaction.

A resumable run stores every event it streams. One transaction per event
would cost a stream more than its steps (an SQLite commit on disk takes
milliseconds), so :meth:`QueuedEventLog.append` queues the event and returns;
a task writes what is queued in one transaction, and what is queued while it
writes in the next. Reading or dropping a run's events first waits for the
queue, so this server always reads what it appended; a failed write is raised
by the next call. Another tab or process reads events once they are written,
within a turn of the event loop.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod

from pyctx_web.server._core import StoredEvent

__all__ = ["QueuedEventLog"]


class QueuedEventLog(ABC):
    """An :class:`~pyctx_web.server._core.EventLog` whose storage writes batches."""

    def __init__(self) -> None:
        self._queue: list[tuple[str, StoredEvent]] = []
        self._writing: asyncio.Task[None] | None = None
        self._failure: Exception | None = None

    @abstractmethod
    async def write(self, batch: list[tuple[str, StoredEvent]]) -> None:
        """Store ``(run_id, event)`` pairs in one transaction, each after its run's others."""

    @abstractmethod
    async def read(self, run_id: str, last_event_id: str | None) -> list[StoredEvent]:
        """The stored events of the run after ``last_event_id``, as :meth:`after` gives them."""

    @abstractmethod
    async def remove(self, run_id: str) -> None:
        """Delete the stored events of the run."""

    async def _write_queue(self) -> None:
        while self._queue:
            batch, self._queue = self._queue, []
            try:
                await self.write(batch)
            except Exception as exc:  # kept: the next call raises it
                self._failure = exc
                return

    def pending(self) -> list[tuple[str, StoredEvent]]:
        """Take the events not yet written, for a storage that closes to write them itself."""
        batch, self._queue = self._queue, []
        return batch

    async def flush(self) -> None:
        """Wait until the queued events are written; raise a write that failed."""
        if self._writing is not None:
            await self._writing
            self._writing = None
        failure, self._failure = self._failure, None
        if failure is not None:
            raise failure

    async def append(self, run_id: str, event: StoredEvent) -> None:
        """Queue ``event`` after the run's others; it is written at the next turn."""
        if self._failure is not None:
            await self.flush()
        self._queue.append((run_id, event))
        if self._writing is None or self._writing.done():
            self._writing = asyncio.ensure_future(self._write_queue())

    async def after(self, run_id: str, last_event_id: str | None) -> list[StoredEvent]:
        """The run's events after the one with ``last_event_id`` (all of them when None;
        none when the run has no event with that id)."""
        await self.flush()
        return await self.read(run_id, last_event_id)

    async def drop(self, run_id: str) -> None:
        """Forget the run's events."""
        await self.flush()
        await self.remove(run_id)
