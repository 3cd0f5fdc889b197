"""``langgraph.checkpoint.serde`` (and ``.serde.base``, ``.serde.types``): special write
channels, the serializer protocol and pyctx_web's serializer."""

from __future__ import annotations

from pyctx_web.graph._lgsaver.names import TASKS, SerializerProtocol, _DeltaSnapshot
from pyctx_web.graph._lgsaver.types import (
    ERROR,
    INTERRUPT,
    RESUME,
    SCHEDULED,
    JsonValueSerializer,
)

__all__ = [
    "ERROR",
    "INTERRUPT",
    "RESUME",
    "SCHEDULED",
    "TASKS",
    "JsonValueSerializer",
    "SerializerProtocol",
    "_DeltaSnapshot",
]
