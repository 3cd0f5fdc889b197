"""``langgraph.checkpoint.base.id``: time-ordered checkpoint ids."""

from __future__ import annotations

from pyctx_web.graph._lgsaver.types import uuid6

__all__ = ["uuid6"]
