"""How a run ends, and the state values of a checkpoint whose step is under way."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pyctx_web.graph._engine.records import Checkpoint, Pending

if TYPE_CHECKING:
    from pyctx_web.graph._engine.channels import StateSchema
    from pyctx_web.graph._engine.values import Interrupt

__all__ = ["Outcome", "current_values", "step_writes"]


def step_writes(cp: Checkpoint, pending: Pending) -> list[tuple[str, str, Any]]:
    """``(node, key, value)`` writes of the finished tasks of ``cp``, in task order."""
    out: list[tuple[str, str, Any]] = []
    for task in cp.tasks:
        rec = pending.tasks.get(task.id)
        if rec is not None and rec.result is not None:
            out.extend((task.name, k, v) for k, v in rec.result.updates)
    return out


def current_values(schema: StateSchema, cp: Checkpoint, pending: Pending) -> dict[str, Any]:
    """State values of ``cp``, with finished tasks' writes while its step is paused."""
    if not pending.paused(cp.tasks):
        return cp.values
    return schema.apply(cp.values, step_writes(cp, pending))


@dataclass(slots=True)
class Outcome:
    """How an invocation ended."""

    checkpoint: Checkpoint
    """The checkpoint the run stopped at."""
    values: dict[str, Any]
    """The state values (with the writes of finished tasks while paused)."""
    interrupts: list[Interrupt] = field(default_factory=list)
    """Questions waiting for an answer."""
