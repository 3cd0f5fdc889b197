"""How the engine reads and writes a thread: checkpoints and pending writes, encoded."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pyctx_web.graph._engine.records import (
    Checkpoint,
    Pending,
    TaskRecord,
    TaskSpec,
    decode_record,
    encode_checkpoint,
    encode_input_update,
    encode_write,
)
from pyctx_web.graph._engine.streams import emit_checkpoint
from pyctx_web.graph.constants import START
from pyctx_web.graph.errors import GraphConfigError

if TYPE_CHECKING:
    from pyctx_web.graph._engine.channels import StateSchema
    from pyctx_web.graph._engine.frames import Run
    from pyctx_web.graph._engine.serde import JsonSerde
    from pyctx_web.graph.checkpoint.base import Checkpointer

__all__ = ["Store"]


class Store:
    """The engine's access to its checkpointer (none for a graph compiled without one)."""

    checkpointer: Checkpointer | None
    serde: JsonSerde
    schema: StateSchema
    run: Run

    async def save_checkpoint(self, cp: Checkpoint) -> None:
        """Write ``cp`` if the graph has a checkpointer; without one nothing is encoded."""
        if self.checkpointer is not None:
            await self.checkpointer.aput(encode_checkpoint(self.serde, cp))
        emit_checkpoint(self.run, self.schema, cp)

    async def save_writes(
        self,
        cp: Checkpoint,
        items: Sequence[tuple[TaskSpec | None, str, TaskRecord]],
        *,
        input_updates: Sequence[tuple[str, Any]] | None = None,
    ) -> None:
        """Write pending writes of ``cp`` in one transaction.

        ``input_updates`` replaces the step's stored ``Command(update=...)`` writes.
        """
        if self.checkpointer is None or not (items or input_updates is not None):
            return
        writes = [encode_write(self.serde, task, kind, rec) for task, kind, rec in items]
        if input_updates is not None:
            writes.append(encode_input_update(self.serde, input_updates))
        await self.checkpointer.aput_writes(cp.thread_id, cp.id, writes)

    def require_thread(self, thread_id: str | None, what: str) -> str:
        """``thread_id``, or :class:`GraphConfigError` when ``what`` cannot run without one."""
        if self.checkpointer is None:
            raise GraphConfigError(
                f"{what} needs a checkpointer: compile(checkpointer=InMemorySaver())"
            )
        if thread_id is None:
            raise GraphConfigError(
                f"{what} needs a thread_id because the graph has a checkpointer: pass "
                f"config={{'configurable': {{'thread_id': '...'}}}} (or thread_id='...')"
            )
        return thread_id

    async def load(
        self, thread_id: str, checkpoint_id: str | None
    ) -> tuple[Checkpoint, Pending] | None:
        """The thread's latest checkpoint (or ``checkpoint_id``) and its pending writes.

        ``None`` when the thread has none; :class:`GraphConfigError` when the named
        checkpoint does not exist. ``Command(update=...)`` writes given to a paused
        step are applied to the values, as the step's tasks see them.
        """
        assert self.checkpointer is not None
        record = await self.checkpointer.aget(thread_id, checkpoint_id)
        if record is None:
            if checkpoint_id is not None:
                raise GraphConfigError(f"thread {thread_id!r} has no checkpoint {checkpoint_id!r}")
            return None
        cp, pending = decode_record(self.serde, record)
        if pending.input_updates:
            starts = [(START, k, v) for k, v in pending.input_updates]
            cp.values = self.schema.apply(cp.values, starts)
        return cp, pending
