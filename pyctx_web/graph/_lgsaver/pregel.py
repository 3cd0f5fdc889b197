"""``langgraph.pregel`` and ``langgraph.pregel._checkpoint``: what of LangGraph's engine module
code written against its savers imports (``copy_checkpoint``).

pyctx_web's own engine (:mod:`pyctx_web.graph._engine`) runs the graphs; LangGraph's
``Pregel`` class has no counterpart here.
"""

from __future__ import annotations

from pyctx_web.graph._lgsaver.names import copy_checkpoint

__all__ = ["copy_checkpoint"]
