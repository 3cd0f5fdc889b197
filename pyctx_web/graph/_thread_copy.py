"""Copying a thread's checkpoints to another thread id (the API's ``POST /threads/{id}/copy``).

The copy has the same checkpoints, with the same ids and pending writes, so
that it reads, resumes and branches as the original does from then on; the
checkpoints of its subgraphs (stored under the thread's key and their
namespace) come along. Each checkpoint's metadata names the new thread where
it named the old one, as the LangGraph Server's copy does.
"""

from __future__ import annotations

import json
from typing import Any

from pyctx_web.errors import ArgumentValueError
from pyctx_web.graph._engine.options import NAMESPACE_SEPARATOR
from pyctx_web.graph.checkpoint.base import Checkpointer, StoredCheckpoint

__all__ = ["acopy_thread"]


async def acopy_thread(checkpointer: Checkpointer, source: str, target: str) -> int:
    """Copy every checkpoint of thread ``source`` (and its subgraphs') to ``target``.

    Returns how many checkpoints were copied (0 for a thread that has none).
    A ``target`` that already has checkpoints is refused with
    :class:`~pyctx_web.errors.ArgumentValueError`: a copy never mixes threads.
    """
    if await checkpointer.aget(target) is not None:
        raise ArgumentValueError(f"cannot copy thread {source!r} to {target!r}: it has checkpoints")
    return await _copy_key(checkpointer, source, target, (source, target))


async def _copy_key(
    checkpointer: Checkpointer, key: str, new_key: str, threads: tuple[str, str]
) -> int:
    """Copy the checkpoints stored under ``key`` to ``new_key``, then its subgraphs' keys."""
    records = [record async for record in checkpointer.alist(key)]
    latest: str | None = None
    places: dict[str, None] = {}
    for record in reversed(records):  # oldest first, as they were written
        stored = record.checkpoint
        document = json.loads(stored.data)
        _rename_thread(document, *threads)
        copied = StoredCheckpoint(
            new_key,
            stored.checkpoint_id,
            stored.parent_id,
            stored.created_at,
            json.dumps(document, ensure_ascii=False, separators=(",", ":")),
        )
        await checkpointer.aput_with_writes(copied, record.writes, latest=latest)
        latest = stored.checkpoint_id
        for task in document.get("tasks", ()):
            places.setdefault(f"{task['name']}:{task['id']}")
    count = len(records)
    for place in places:
        # A subgraph run by the task (a subgraph node, or one called in the node) keeps
        # its checkpoints under the task's namespace: most tasks have none.
        child, new_child = (NAMESPACE_SEPARATOR.join((k, place)) for k in (key, new_key))
        count += await _copy_key(checkpointer, child, new_child, threads)
    return count


def _rename_thread(document: dict[str, Any], source: str, target: str) -> None:
    """Name ``target`` in the checkpoint's metadata where it named ``source``."""
    meta = document.get("meta")
    if isinstance(meta, dict) and meta.get("thread_id") == source:
        meta["thread_id"] = target
