"""``langgraph.checkpoint.memory``: the in-memory saver with LangGraph's saver interface too.

:class:`InMemorySaver` is :class:`pyctx_web.graph.checkpoint.memory.InMemorySaver` that
also takes LangGraph's ``aput(config, checkpoint, metadata, new_versions)``,
``aput_writes``, ``aget_tuple``, ``alist``, ``adelete_thread`` and their sync forms.
A graph stores its steps in it as in the plain one.
"""

from __future__ import annotations

from pyctx_web.graph._lgsaver.saver import LangGraphSaver
from pyctx_web.graph.checkpoint import memory

__all__ = ["InMemorySaver", "MemorySaver"]


class InMemorySaver(LangGraphSaver, memory.InMemorySaver):  # type: ignore[misc]  # the graph's and LangGraph's forms
    """Checkpoints in a dict, read and written by the graph or through LangGraph's interface."""


MemorySaver = InMemorySaver
"""LangGraph's other name for :class:`InMemorySaver`."""
