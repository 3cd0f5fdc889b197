"""Tools: functions a node calls by name (``runtime.call_tool``), with arguments checked.

``@tool`` makes a :class:`Tool` of a typed function, its JSON Schema read from
the annotations and its description from the docstring, as LangChain's
``@tool`` does; a parameter annotated ``Runtime`` receives the run's
:class:`~pyctx_web.graph.runtime.Runtime`. See :mod:`pyctx_web.graph._runctx.tools`
for the forms a function may take and the schemas accepted.
"""

from __future__ import annotations

from pyctx_web.graph._runctx.tools import Tool, tool

__all__ = ["Tool", "tool"]
