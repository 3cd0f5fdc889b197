"""A store whose async calls made together run as one batch: ``AsyncBatchedBaseStore``.

Subclasses implement ``abatch``; ``aget``/``aput``/``asearch``... made in the
same turn of the event loop are gathered by a background task, deduplicated
(equal reads run once; the last put of a key wins) and run in one ``abatch``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from typing import Any

from pyctx_web.graph.store.base import BaseStore
from pyctx_web.graph.store.base._types import GetOp, ListNamespacesOp, Op, PutOp, Result, SearchOp

__all__ = ["AsyncBatchedBaseStore"]

_Pending = tuple[Op, "asyncio.Future[Result]"]


def _dedupe_ops(ops: list[Op]) -> tuple[list[int] | None, list[Op]]:
    """The ops to run and, for each given op, the position of the op answering it."""
    if len(ops) <= 1:
        return None, list(ops)
    kept: list[Op] = []
    answered_by: list[int] = []
    puts: dict[tuple[tuple[str, ...], str], int] = {}
    for op in ops:
        if isinstance(op, PutOp):
            at = puts.setdefault((op.namespace, op.key), len(kept))
            if at == len(kept):
                kept.append(op)
            else:
                kept[at] = op
        elif isinstance(op, (GetOp, SearchOp, ListNamespacesOp)) and op in kept:
            # Equality, not hashing: a SearchOp's filter is a dict.
            at = kept.index(op)
        else:
            at = len(kept)
            kept.append(op)
        answered_by.append(at)
    return answered_by, kept


class AsyncBatchedBaseStore(BaseStore):
    """A :class:`BaseStore` that runs concurrent async calls as one ``abatch``."""

    def __init__(self) -> None:
        self._queue: asyncio.Queue[_Pending] | None = None
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _ensure_task(self) -> asyncio.Queue[_Pending]:
        loop = asyncio.get_running_loop()
        if self._queue is None or self._loop is not loop:
            self._queue, self._loop, self._task = asyncio.Queue(), loop, None
        if self._task is None or self._task.done():
            self._task = loop.create_task(self._drain(self._queue))
        return self._queue

    async def _drain(self, queue: asyncio.Queue[_Pending]) -> None:
        while True:
            pending = [await queue.get()]
            await asyncio.sleep(0)  # let the calls of this turn of the loop join
            while not queue.empty():
                pending.append(queue.get_nowait())
            live = [(op, fut) for op, fut in pending if not fut.done()]
            if live:
                await self._run(live)

    async def _run(self, pending: list[_Pending]) -> None:
        answered_by, ops = _dedupe_ops([op for op, _ in pending])
        try:
            results = await self.abatch(ops)
        except Exception as error:
            for _, fut in pending:
                if not fut.done():
                    fut.set_exception(error)
            return
        for i, (_, fut) in enumerate(pending):
            if not fut.done():
                fut.set_result(results[i if answered_by is None else answered_by[i]])

    async def _submit(self, op: Op) -> Any:
        queue = self._ensure_task()
        fut: asyncio.Future[Result] = asyncio.get_running_loop().create_future()
        queue.put_nowait((op, fut))
        return await fut

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Not offered: this store is async; subclasses may run ops synchronously."""
        raise NotImplementedError(f"{type(self).__name__} runs ops only through abatch()")

    async def aget(
        self, namespace: tuple[str, ...], key: str, *, refresh_ttl: bool | None = None
    ) -> Any:
        """:meth:`BaseStore.aget`, batched with the concurrent calls."""
        return await self._submit(self._get_op(namespace, key, refresh_ttl))

    async def asearch(self, namespace_prefix: tuple[str, ...], /, **fields: Any) -> Any:
        """:meth:`BaseStore.asearch`, batched with the concurrent calls."""
        fields = {
            "query": None,
            "filter": None,
            "limit": 10,
            "offset": 0,
            "refresh_ttl": None,
            **fields,
        }
        return await self._submit(self._search_op(namespace_prefix, **fields))

    async def aput(
        self, namespace: tuple[str, ...], key: str, value: Any, index: Any = None, **kw: Any
    ) -> None:
        """:meth:`BaseStore.aput`, batched with the concurrent calls."""
        await self._submit(self._put_op(namespace, key, value, index, kw.get("ttl", _no_ttl())))

    async def adelete(self, namespace: tuple[str, ...], key: str) -> None:
        """:meth:`BaseStore.adelete`, batched with the concurrent calls."""
        await self._submit(self._delete_op(namespace, key))

    async def alist_namespaces(self, **fields: Any) -> Any:
        """:meth:`BaseStore.alist_namespaces`, batched with the concurrent calls."""
        op = self._list_op(
            fields.get("prefix"),
            fields.get("suffix"),
            fields.get("max_depth"),
            fields.get("limit", 100),
            fields.get("offset", 0),
        )
        return await self._submit(op)

    def __del__(self) -> None:
        task = getattr(self, "_task", None)
        if task is not None and not task.done():
            with contextlib.suppress(RuntimeError):  # its loop may be closed already
                task.cancel()


def _no_ttl() -> Any:
    from pyctx_web.graph.store.base._types import NOT_PROVIDED

    return NOT_PROVIDED
