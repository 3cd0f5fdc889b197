"""Runs whose tab or process went away: how a shared storage tells them and what it records.

A storage that several tabs or processes share (:mod:`.store_sqlite`,
:mod:`.store_indexeddb`) knows, for each run it stores, its *owner*: the store
that first stored it pending or running. The owner holds the run from then
until its thread's record leaves ``busy`` (or the thread or run is deleted):
in a browser with a Web Lock, which the browser frees when the tab or worker
goes away; in SQLite with an owner column naming the process and the open
store. A run whose record is still ``pending`` or ``running`` but that nobody
holds is *lost*: its page was reloaded or closed, its process died, its store
was closed. Reading it settles it as the LangGraph Server records a run that
failed: the run ``error``; its thread, if no held run keeps it ``busy``,
``error`` with :data:`LOST_ERROR`. Every settling write is conditional (the
run still pending or running, the thread still busy), so a run that ends at
the same moment keeps its own ending.
"""

from __future__ import annotations

from typing import Any, Final, Protocol

from pyctx_web.server._core import utc_now

__all__ = ["LIVE_STATUSES", "LOST_ERROR", "Owners", "settled_runs", "settled_thread"]

LIVE_STATUSES: Final = ("pending", "running")
"""The statuses of a run that has not ended."""

LOST_ERROR: Final = {
    "error": "RunLost",
    "message": "the run's page or process went away before the run ended",
}
"""The ``error`` of a thread whose run was lost."""


class Owners(Protocol):
    """What a shared storage gives :func:`settled_thread` and :func:`settled_runs`."""

    async def held(self, runs: list[dict[str, Any]]) -> set[str]:
        """The ids of those of ``runs`` that their owner still holds."""
        ...

    async def thread_runs(self, thread_id: str) -> list[dict[str, Any]]:
        """The thread's run records as stored, in the order they were first stored."""
        ...

    async def replace_run(
        self, run: dict[str, Any], only_if: tuple[str, ...]
    ) -> dict[str, Any] | None:
        """Store ``run`` if its stored status is one of ``only_if``, in one transaction;
        the record stored once done (None when there is none)."""
        ...

    async def replace_thread(
        self, thread: dict[str, Any], only_if: tuple[str, ...]
    ) -> dict[str, Any] | None:
        """Store ``thread`` if its stored status is one of ``only_if``, in one transaction;
        the record stored once done (None when there is none)."""
        ...


async def _lose_run(owners: Owners, run: dict[str, Any], at: str) -> dict[str, Any] | None:
    """``run`` marked ``error`` and stored, unless it ended meanwhile: then as it ended
    (None once deleted)."""
    lost = {**run, "status": "error", "updated_at": at}
    return await owners.replace_run(lost, LIVE_STATUSES)


async def settled_runs(owners: Owners, runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``runs`` with each lost one settled (stored as ``error``)."""
    live = [run for run in runs if run.get("status") in LIVE_STATUSES]
    if not live:
        return runs
    held = await owners.held(live)
    settled = []
    for run in runs:
        if run.get("status") in LIVE_STATUSES and run["run_id"] not in held:
            stored = await _lose_run(owners, run, utc_now())
            if stored is None:  # deleted meanwhile
                continue
            run = stored
        settled.append(run)
    return settled


async def settled_thread(owners: Owners, thread: dict[str, Any]) -> dict[str, Any] | None:
    """``thread``, or, when it is ``busy`` and none of its runs is held, the thread
    settled as ``error`` (its lost runs too); None once it was deleted meanwhile."""
    if thread.get("status") != "busy":
        return thread
    runs = await owners.thread_runs(thread["thread_id"])
    if await owners.held(runs):
        return thread
    now = utc_now()
    for run in runs:
        if run.get("status") in LIVE_STATUSES:
            await _lose_run(owners, run, now)
    settled = {**thread, "status": "error", "updated_at": now, "error": dict(LOST_ERROR)}
    return await owners.replace_thread(settled, ("busy",))
