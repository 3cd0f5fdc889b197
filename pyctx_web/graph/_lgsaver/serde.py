"""``langgraph.checkpoint.serde`` and ``.serde.types``: special write channels, serializer."""

from __future__ import annotations

from pyctx_web.graph._lgsaver.types import (
    ERROR,
    INTERRUPT,
    RESUME,
    SCHEDULED,
    JsonValueSerializer,
)

__all__ = ["ERROR", "INTERRUPT", "RESUME", "SCHEDULED", "JsonValueSerializer"]
