"""The agent server's threads, runs and events in IndexedDB, beside the checkpoints (browser).

``AgentServer(graphs, storage=IndexedDBStorage("pyctx_web"))``, in a page or a
Web Worker under Pyodide, keeps the checkpoints in the IndexedDB database
``"pyctx_web"`` (an :class:`~pyctx_web.graph.checkpoint.indexeddb.IndexedDBSaver`)
and the server's records next to them in the database ``"pyctx_web:server"``
(version 1): object stores ``threads`` (key ``thread_id``), ``runs`` (key
``run_id``, an index on ``[thread_id, seq]``) and ``events`` (key ``[run_id,
seq]``), each record as its JSON text, ``seq`` the order it was first stored
in. A reloaded page, or another tab of the origin, sees every thread, run and
stored event (``js/serverstore.js`` runs each operation as one transaction).

A run stored pending or running holds the Web Lock
``pyctx_web:<database>:run:<run_id>`` of the tab that stored it until its
thread leaves ``busy``; another tab reads the thread as busy while that lock
is held (the browser frees it when the tab is closed or reloaded), then
settles the run as lost (:mod:`.store_lost`). The thread's own run, once the
graph runs it, holds the checkpointer's Web Lock of the thread as well (see
:mod:`pyctx_web.graph.checkpoint._tabs`).

Streamed events are written behind the run, a batch per transaction
(:mod:`.store_events`); events still queued when the storage closes are not
written. Outside Pyodide in a browser, constructing the storage
raises :class:`~pyctx_web.errors.JsUnavailableError`.
"""

from __future__ import annotations

import json
import weakref
from typing import Any, Final

from pyctx_web._js import load_js
from pyctx_web.errors import ArgumentValueError
from pyctx_web.graph.checkpoint._idb import Database, failed
from pyctx_web.graph.checkpoint.indexeddb import IndexedDBSaver
from pyctx_web.jsonparse import STORED_CHARS, parse_json
from pyctx_web.server._core import ServerStorage, ServerStorageError, StoredEvent
from pyctx_web.server.store_events import QueuedEventLog
from pyctx_web.server.store_lost import LIVE_STATUSES, settled_runs, settled_thread

__all__ = [
    "SCHEMA_VERSION",
    "IndexedDBEventLog",
    "IndexedDBRunStore",
    "IndexedDBStorage",
    "IndexedDBThreadStore",
]

SCHEMA_VERSION: Final = 1
"""The IndexedDB version of the layout the module docstring describes."""

_scripts: dict[str, Any] = {}


def _js(name: str) -> Any:
    """``tabs.js``'s helpers, or ``serverstore.js``'s operations; made once."""
    if name not in _scripts:
        made = load_js(name)
        _scripts[name] = made(load_js("idb")) if name == "serverstore" else made
    return _scripts[name]


class _Held:
    """The runs this storage holds, each by its Web Lock: run id -> [thread id, lock, live]."""

    def __init__(self, database: str) -> None:
        self.database = database
        self.runs: dict[str, list[Any]] = {}

    def lock_name(self, run_id: str) -> str:
        return f"pyctx_web:{self.database}:run:{run_id}"

    async def take(self, run_id: str, thread_id: str | None) -> None:
        lock = await _js("tabs").hold(self.lock_name(run_id), False)
        if not lock.granted:
            raise ServerStorageError(
                f"hold run {run_id!r}", getattr(lock, "error", None) or "another tab holds it"
            )
        self.runs[run_id] = [thread_id, lock, True]

    def release(self, run_id: str) -> None:
        entry = self.runs.pop(run_id, None)
        if entry is not None:
            entry[1].release()

    def release_ended(self, thread_id: str) -> None:
        """Stop holding the thread's runs that ended: the thread has left ``busy``."""
        for run_id, (thread, _, live) in list(self.runs.items()):
            if thread == thread_id and not live:
                self.release(run_id)

    def release_all(self) -> None:
        for run_id in list(self.runs):
            self.release(run_id)


class _Owners:
    """What :mod:`.store_lost` reads and writes, on the IndexedDB stores."""

    def __init__(self, db: Database, held: _Held) -> None:
        self.db, self.held_runs = db, held

    async def call(self, operation: str, *args: Any, what: str) -> Any:
        outcome = await self.db.call(operation, *args, what=what)
        if outcome["status"] != "ok":
            raise ServerStorageError(what, failed(outcome))
        return outcome["value"]

    async def held(self, runs: list[dict[str, Any]]) -> set[str]:
        if not runs:
            return set()
        text = await _js("serverstore").held()
        names = parse_json(text, source="the held Web Locks", max_chars=STORED_CHARS)
        if names is None:  # no Web Locks: nothing tells that a tab went away
            return {run["run_id"] for run in runs}
        held = set(names)
        return {run["run_id"] for run in runs if self.held_runs.lock_name(run["run_id"]) in held}

    async def thread_runs(self, thread_id: str) -> list[dict[str, Any]]:
        runs: list[dict[str, Any]] = await self.call(
            "list", "runs", thread_id, what=f"read the runs of thread {thread_id!r}"
        )
        return runs

    async def write(
        self,
        name: str,
        key: str,
        record: dict[str, Any],
        only_if: tuple[str, ...] | None,
        not_if: tuple[str, ...] = (),
    ) -> dict[str, Any]:
        """Store ``record`` in ``name`` (only over a status in ``only_if``, when given; never
        over one in ``not_if``)."""
        payload = {
            "key": record[key],
            "thread_id": record.get("thread_id"),
            "status": record.get("status"),
            "data": json.dumps(record),
            "only_if": None if only_if is None else list(only_if),
            "not_if": list(not_if),
        }
        done: dict[str, Any] = await self.call(
            "put", name, json.dumps(payload), what=f"write {key} {record[key]!r}"
        )
        return done

    async def replace_run(
        self, run: dict[str, Any], only_if: tuple[str, ...]
    ) -> dict[str, Any] | None:
        stored: dict[str, Any] | None = (await self.write("runs", "run_id", run, only_if))["stored"]
        return stored

    async def replace_thread(
        self, thread: dict[str, Any], only_if: tuple[str, ...]
    ) -> dict[str, Any] | None:
        done = await self.write("threads", "thread_id", thread, only_if)
        stored: dict[str, Any] | None = done["stored"]
        return stored


class IndexedDBThreadStore:
    """A :class:`~pyctx_web.server._core.ThreadStore` in the object store ``threads``."""

    def __init__(self, owners: _Owners) -> None:
        self._owners = owners

    async def get(self, thread_id: str) -> dict[str, Any] | None:
        """The thread's record (settled if its run was lost), or None when there is none."""
        thread = await self._owners.call("get", "threads", thread_id, what=f"read {thread_id!r}")
        return None if thread is None else await settled_thread(self._owners, thread)

    async def put(self, thread: dict[str, Any]) -> None:
        """Store ``thread``; once it is not busy, its ended runs stop being held here."""
        await self._write(thread, not_if=())

    async def claim(self, thread: dict[str, Any]) -> bool:
        """Store ``thread`` unless the stored record is busy; False when it is."""
        return await self._write(thread, not_if=("busy",))

    async def _write(self, thread: dict[str, Any], *, not_if: tuple[str, ...]) -> bool:
        done = await self._owners.write("threads", "thread_id", thread, None, not_if=not_if)
        written: bool = done["written"]
        if written and thread.get("status") != "busy":
            self._owners.held_runs.release_ended(thread["thread_id"])
        return written

    async def delete(self, thread_id: str) -> bool:
        """Forget the thread; False when there was none."""
        what = f"delete thread {thread_id!r}"
        deleted: bool = await self._owners.call("remove", "threads", thread_id, what=what)
        self._owners.held_runs.release_ended(thread_id)
        return deleted

    async def all(self) -> list[dict[str, Any]]:
        """Every record (settled), in the order they were first stored."""
        stored = await self._owners.call("list", "threads", None, what="read the threads")
        threads = []
        for thread in stored:
            settled = await settled_thread(self._owners, thread)
            if settled is not None:
                threads.append(settled)
        return threads


class IndexedDBRunStore:
    """A :class:`~pyctx_web.server._core.RunStore` in the object store ``runs``."""

    def __init__(self, owners: _Owners) -> None:
        self._owners = owners

    async def get(self, run_id: str) -> dict[str, Any] | None:
        """The run's record (settled if it was lost), or None when there is none."""
        run = await self._owners.call("get", "runs", run_id, what=f"read run {run_id!r}")
        if run is None:
            return None
        settled = await settled_runs(self._owners, [run])
        return settled[0] if settled else None

    async def put(self, run: dict[str, Any]) -> None:
        """Store ``run``; stored pending or running first here, this tab holds it."""
        run_id, live = run["run_id"], run.get("status") in LIVE_STATUSES
        held = self._owners.held_runs
        taken = live and run_id not in held.runs
        if taken:  # before the record exists, so that no tab ever sees it unheld
            await held.take(run_id, run.get("thread_id"))
        try:
            done = await self._owners.write("runs", "run_id", run, None)
        except BaseException:
            if taken:
                held.release(run_id)
            raise
        if taken and not done["created"]:  # another tab stored it first: it holds it
            held.release(run_id)
        if run_id in held.runs:
            held.runs[run_id][2] = live

    async def delete(self, run_id: str) -> bool:
        """Forget the run; False when there was none."""
        deleted: bool = await self._owners.call(
            "remove", "runs", run_id, what=f"delete run {run_id!r}"
        )
        self._owners.held_runs.release(run_id)
        return deleted

    async def of_thread(self, thread_id: str) -> list[dict[str, Any]]:
        """The thread's runs (settled), in the order they were first stored."""
        return await settled_runs(self._owners, await self._owners.thread_runs(thread_id))


class IndexedDBEventLog(QueuedEventLog):
    """An :class:`~pyctx_web.server._core.EventLog` in the object store ``events``, written
    behind the stream (:mod:`.store_events`)."""

    def __init__(self, owners: _Owners) -> None:
        super().__init__()
        self._owners = owners

    async def write(self, batch: list[tuple[str, StoredEvent]]) -> None:
        """Store ``batch`` in one transaction."""
        rows = [[run_id, i, name, bytes(data).decode("utf-8")] for run_id, (i, name, data) in batch]
        await self._owners.call("append", json.dumps(rows), what="store events")

    async def read(self, run_id: str, last_event_id: str | None) -> list[StoredEvent]:
        """The run's stored events after the one with ``last_event_id``."""
        rows = await self._owners.call(
            "after", run_id, last_event_id, what=f"read the events of run {run_id!r}"
        )
        return [(str(i), str(name), str(data).encode("utf-8")) for i, name, data in rows]

    async def remove(self, run_id: str) -> None:
        """Delete the run's stored events."""
        await self._owners.call("drop", run_id, what=f"drop the events of run {run_id!r}")


class IndexedDBStorage(ServerStorage):
    """Checkpoints in IndexedDB database ``database_name``, the server's records in
    ``"<database_name>:server"``; :meth:`close` closes both and frees the runs' locks."""

    def __init__(self, database_name: str = "pyctx_web") -> None:
        if not isinstance(database_name, str) or not database_name:
            raise ArgumentValueError(
                f"database_name must be a non-empty str, not {database_name!r}"
            )
        saver = IndexedDBSaver(database_name)  # raises outside a browser
        self.database_name = database_name
        self.server_database = f"{database_name}:server"
        self._db = Database(
            "serverstore",
            self.server_database,
            SCHEMA_VERSION,
            error=ServerStorageError,
            source="the stored server records",
        )
        self._held = _Held(self.server_database)
        # A storage dropped without close() frees its runs' locks, as a closed one does.
        self._finalizer = weakref.finalize(self, self._held.release_all)
        owners = _Owners(self._db, self._held)
        super().__init__(
            checkpointer=saver,
            threads=IndexedDBThreadStore(owners),
            runs=IndexedDBRunStore(owners),
            events=IndexedDBEventLog(owners),
        )

    def __repr__(self) -> str:
        return f"IndexedDBStorage({self.database_name!r})"

    def close(self) -> None:
        """Close the connections; the runs this storage held and that have not ended are lost."""
        self._finalizer()
        self._db.close()
        if isinstance(self.checkpointer, IndexedDBSaver):
            self.checkpointer.close()
