"""LangGraph's saver interface on pyctx_web's savers (memory, SQLite, IndexedDB).

:class:`LangGraphSaver` is a base of each pyctx_web saver. Its methods take LangGraph's
arguments (a config, a ``Checkpoint`` dict, metadata, versions) and keep each checkpoint
as one stored checkpoint of the saver's own kind, in the config's thread: its document
is the checkpoint, metadata, namespace and parent as JSON, and each pending write is a
stored write whose kind is ``lg:<index>``. The graph's own calls (a
:class:`~pyctx_web.graph.checkpoint.base.StoredCheckpoint`, a thread id) go straight to
the saver, so a run pays one type check per call.

The savers LangGraph's names import (``langgraph.checkpoint.memory``, ``.sqlite``) are
these: :mod:`.memory`, :mod:`.sqlite`.
"""

from __future__ import annotations

import base64
import builtins
from collections.abc import AsyncIterator, Coroutine, Iterator, Sequence
from types import EllipsisType
from typing import Any, TypeVar

from pyctx_web.errors import ArgumentTypeError, UsageError
from pyctx_web.graph._engine.serde import JsonSerde
from pyctx_web.graph._lgsaver.names import get_checkpoint_metadata
from pyctx_web.graph._lgsaver.types import (
    WRITES_IDX_MAP,
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    JsonValueSerializer,
    config_parts,
)
from pyctx_web.graph.checkpoint.base import CheckpointRecord, StoredCheckpoint, StoredWrite

__all__ = ["LangGraphSaver", "run_now"]

_T = TypeVar("_T")
_MARK = "langgraph_checkpoint"
_CODEC = JsonSerde()


def run_now(coroutine: Coroutine[Any, Any, _T], method: str) -> _T:
    """The result of a coroutine that never waits (memory, SQLite), for the sync forms."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    coroutine.close()
    raise UsageError(f"this saver stores asynchronously: use a{method}(), not {method}()")


def _native_id(namespace: str, checkpoint_id: str) -> str:
    # Namespaces share the thread; the id keeps each one's checkpoints apart.
    return checkpoint_id if not namespace else f"{namespace}\x1f{checkpoint_id}"


def _config(thread_id: str, namespace: str, checkpoint_id: str) -> dict[str, Any]:
    return {
        "configurable": {
            "thread_id": thread_id,
            "checkpoint_ns": namespace,
            "checkpoint_id": checkpoint_id,
        }
    }


def _document(record: CheckpointRecord) -> dict[str, Any]:
    """The LangGraph document of a stored checkpoint, made up for one a graph stored."""
    data = record.checkpoint.data
    document: dict[str, Any] = JsonSerde.loads(data)
    if _MARK in document:
        return document
    stored = record.checkpoint
    values = document.get("values") if isinstance(document, dict) else None
    return {
        "ns": "",
        "parent": stored.parent_id,
        "graph": True,
        "checkpoint": {
            "v": 1,
            "id": stored.checkpoint_id,
            "ts": stored.created_at,
            "channel_values": values if isinstance(values, dict) else {},
            "channel_versions": {},
            "versions_seen": {},
            "pending_sends": [],
            "updated_channels": None,
        },
        "metadata": {
            "source": document.get("source"),
            "step": document.get("step"),
            "parents": {},
            **(document.get("meta") or {}),  # the config values of the run that wrote it
        },
    }


def _dumped(serde: Any, value: Any, key: str) -> Any:
    """A value in a stored document: the JSON codec's form, or ``[type, base64]`` of ``serde``."""
    if type(serde) is JsonValueSerializer:  # the default: values stay readable JSON
        return _CODEC.encode(value, key=key)
    kind, data = serde.dumps_typed(value)
    # The codec's marker key: no dict the codec makes of a value looks like this one.
    return {"__pyctx__": "serde", "type": kind, "data": base64.b64encode(data).decode("ascii")}


def _loaded(serde: Any, stored: Any) -> Any:
    """The value :func:`_dumped` stored."""
    if isinstance(stored, dict) and stored.get("__pyctx__") == "serde":
        return serde.loads_typed((stored["type"], base64.b64decode(stored["data"])))
    return _decoded(stored)


def _decoded(value: Any) -> Any:
    try:
        return _CODEC.decode(value)
    except ValueError:
        # A graph's dataclass or enum needs the graph's schema to be rebuilt: without
        # it the value is given in its stored JSON form.
        return value


def _tuple(record: CheckpointRecord, document: dict[str, Any], serde: Any) -> CheckpointTuple:
    thread_id = record.checkpoint.thread_id
    namespace = document["ns"]
    checkpoint: Checkpoint = {k: v for k, v in document["checkpoint"].items()}  # type: ignore[assignment]
    values = document.get("values", document["checkpoint"]["channel_values"])
    checkpoint["channel_values"] = {k: _loaded(serde, v) for k, v in values.items()}
    parent = document["parent"]
    writes = []
    for write in record.writes:
        if write.kind.startswith("lg:"):
            stored = JsonSerde.loads(write.data)
            writes.append((write.task_id, stored["channel"], _loaded(serde, stored["value"])))
        elif document.get("graph"):
            # A graph's own write: its kind as the channel, its JSON document as the value.
            writes.append((write.task_id, write.kind, JsonSerde.loads(write.data)))
    return CheckpointTuple(
        _config(thread_id, namespace, checkpoint["id"]),
        checkpoint,
        _CODEC.decode(document["metadata"]),
        None if parent is None else _config(thread_id, namespace, parent),
        writes,
    )


class LangGraphSaver(BaseCheckpointSaver[Any]):
    """LangGraph's saver methods over a pyctx_web saver's own (see the module).

    Listed before the saver in a class's bases: ``class S(LangGraphSaver, OwnSaver)``.
    """

    def _native(self) -> Any:
        # The saver's own methods: the classes after BaseCheckpointSaver in the order.
        return super(BaseCheckpointSaver, self)

    async def aput(
        self,
        config: Any,
        checkpoint: Any = None,
        metadata: Any = None,
        new_versions: Any = None,
        *,
        latest: str | EllipsisType | None = ...,
    ) -> Any:
        """Store a checkpoint: LangGraph's ``(config, checkpoint, metadata, new_versions)``."""
        if isinstance(config, StoredCheckpoint):
            return await self._native().aput(config, latest=latest)
        return await self._lg_put(config, checkpoint, metadata, new_versions)

    async def _lg_put(
        self,
        config: dict[str, Any],
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> dict[str, Any]:
        thread_id, namespace, parent = config_parts(config)
        if not isinstance(checkpoint, dict) or "id" not in checkpoint:
            raise ArgumentTypeError("checkpoint must be a Checkpoint dict with an 'id'")
        body: dict[str, Any] = dict(checkpoint)
        values: dict[str, Any] = body.pop("channel_values", None) or {}
        document = {
            _MARK: 1,
            "ns": namespace,
            "parent": parent,
            "checkpoint": _CODEC.encode({**body, "channel_values": {}}, key="checkpoint"),
            "values": {k: _dumped(self.serde, v, k) for k, v in values.items()},
            "metadata": _CODEC.encode(
                dict(get_checkpoint_metadata(config, metadata or {})), key="metadata"
            ),
        }
        current = await self._native_get(thread_id, None)
        stored = StoredCheckpoint(
            thread_id,
            _native_id(namespace, str(checkpoint["id"])),
            None if parent is None else _native_id(namespace, parent),
            str(checkpoint.get("ts", "")),
            JsonSerde.dumps(document),
        )
        latest = None if current is None else current.checkpoint.checkpoint_id
        await self._native().aput(stored, latest=latest)
        return _config(thread_id, namespace, str(checkpoint["id"]))

    async def _native_get(self, thread_id: str, checkpoint_id: str | None) -> Any:
        return await self._native().aget(thread_id, checkpoint_id)

    async def aget(self, config: Any, checkpoint_id: str | None = None) -> Any:
        """The graph's record by thread id, or LangGraph's checkpoint by config."""
        if isinstance(config, str):
            return await self._native_get(config, checkpoint_id)
        found = await self.aget_tuple(config)
        return None if found is None else found.checkpoint

    async def aput_writes(
        self,
        config: Any,
        writes: Sequence[Any],
        task_id: Any = "",
        task_path: str = "",
    ) -> None:
        """Pending writes: the graph's ``(thread_id, checkpoint_id, writes)``, or LangGraph's."""
        if isinstance(config, str):
            await self._native().aput_writes(config, writes, task_id)  # thread, checkpoint, writes
            return
        thread_id, namespace, checkpoint_id = config_parts(config)
        if checkpoint_id is None:
            raise ArgumentTypeError("aput_writes needs a config naming its checkpoint_id")
        native = _native_id(namespace, checkpoint_id)
        record = await self._native_get(thread_id, native)
        have = set() if record is None else {(w.task_id, w.kind) for w in record.writes}
        batch = []
        for index, (channel, value) in enumerate(writes):
            position = WRITES_IDX_MAP.get(channel, index)
            kind = f"lg:{position}"
            if position >= 0 and (task_id, kind) in have:
                continue  # a task's regular write is kept as first stored
            data = {
                "channel": channel,
                "path": task_path,
                "value": _dumped(self.serde, value, channel),
            }
            batch.append(StoredWrite(str(task_id), kind, JsonSerde.dumps(data)))
        if batch:
            await self._native().aput_writes(thread_id, native, batch)

    async def aget_tuple(self, config: dict[str, Any]) -> CheckpointTuple | None:
        """The checkpoint the config names, or the latest of its namespace without an id."""
        thread_id, namespace, checkpoint_id = config_parts(config)
        if checkpoint_id is not None:
            record = await self._native_get(thread_id, _native_id(namespace, checkpoint_id))
            document = None if record is None else _document(record)
            if document is None or document["ns"] != namespace:
                return None
            return _tuple(record, document, self.serde)
        async for found in self._lg_list(thread_id, namespace, None, None, 1):
            return found
        return None

    def alist(
        self,
        config: Any,
        *,
        filter: dict[str, Any] | None = None,
        before: Any = None,
        limit: int | None = None,
    ) -> AsyncIterator[Any]:
        """The graph's records by thread id, or LangGraph's tuples by config, newest first."""
        if isinstance(config, str):
            return self._native().alist(config, limit=limit, before=before)  # type: ignore[no-any-return]
        thread_id = None if config is None else config_parts(config)[0]
        configurable = (config or {}).get("configurable") or {}
        namespace = configurable.get("checkpoint_ns") if "checkpoint_ns" in configurable else None
        cursor = None if before is None else config_parts(before)[2]
        return self._lg_list(thread_id, namespace, filter, cursor, limit)

    async def _lg_thread_ids(self) -> builtins.list[str]:
        """Every thread the saver holds, for a listing by metadata alone (``list(None)``)."""
        raise UsageError(
            f"{type(self).__name__} lists one thread at a time: "
            "give list() a config naming its thread_id"
        )

    async def _lg_list(
        self,
        thread_id: str | None,
        namespace: str | None,
        wanted: dict[str, Any] | None,
        before: str | None,
        limit: int | None,
    ) -> AsyncIterator[CheckpointTuple]:
        # Each thread in the saver's own order, newest first: the order they were stored in.
        left = limit
        threads = [thread_id] if thread_id is not None else await self._lg_thread_ids()
        for thread in threads:
            passed = before is None
            async for record in self._native().alist(thread):
                document = _document(record)
                if not passed:
                    passed = document["checkpoint"]["id"] == before
                    continue
                if namespace is not None and document["ns"] != namespace:
                    continue
                metadata = document["metadata"]
                if wanted and any(
                    metadata.get(k) != _CODEC.encode(v, key=k) for k, v in wanted.items()
                ):
                    continue
                if left is not None:
                    if left <= 0:
                        return
                    left -= 1
                yield _tuple(record, document, self.serde)

    async def adelete_thread(self, thread_id: str) -> None:
        """Delete every checkpoint and write of the thread, in every namespace."""
        await self._native().adelete_thread(thread_id)

    def get_tuple(self, config: dict[str, Any]) -> CheckpointTuple | None:
        """:meth:`aget_tuple`, for a saver that never waits."""
        return run_now(self.aget_tuple(config), "get_tuple")

    def put(
        self,
        config: dict[str, Any],
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> dict[str, Any]:
        """:meth:`aput`, for a saver that never waits."""
        return run_now(self._lg_put(config, checkpoint, metadata, new_versions), "put")

    def put_writes(
        self,
        config: dict[str, Any],
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """:meth:`aput_writes`, for a saver that never waits."""
        run_now(self.aput_writes(config, writes, task_id, task_path), "put_writes")

    def list(
        self,
        config: dict[str, Any] | None,
        *,
        filter: dict[str, Any] | None = None,
        before: dict[str, Any] | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        """:meth:`alist`, for a saver that never waits."""
        iterator = self.alist(config, filter=filter, before=before, limit=limit)

        async def gather() -> builtins.list[CheckpointTuple]:
            return [item async for item in iterator]

        return iter(run_now(gather(), "list"))

    def delete_thread(self, thread_id: str) -> None:
        """:meth:`adelete_thread`, for a saver that never waits."""
        run_now(self.adelete_thread(thread_id), "delete_thread")
