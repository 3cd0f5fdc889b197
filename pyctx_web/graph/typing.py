"""The type variables of LangGraph's generic classes, as ``langgraph.typing`` names them.

``StateT`` is a graph's state type, ``ContextT`` its run context's type (``None``
when it has none), ``InputT``/``OutputT`` its input and output schemas and
``NodeInputT`` what a node receives. Code written against LangGraph (LangChain's
agents) declares its own generic classes with them.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING or sys.version_info >= (3, 13):
    from typing import TypeVar
else:
    try:
        # Defaults need Python 3.13's TypeVar or typing_extensions' (LangChain has it).
        from typing_extensions import TypeVar
    except ImportError:  # pragma: no cover - depends on the environment
        import typing

        def TypeVar(name: str, *, default: Any = None, **kwargs: Any) -> Any:
            """A type variable without its default (no TypeVar here takes one)."""
            return typing.TypeVar(name, **kwargs)


__all__ = [
    "ContextT",
    "ContextT_contra",
    "InputT",
    "NodeInputT",
    "NodeInputT_contra",
    "OutputT",
    "StateT",
    "StateT_co",
    "StateT_contra",
]

StateT = TypeVar("StateT")
StateT_co = TypeVar("StateT_co", covariant=True)
StateT_contra = TypeVar("StateT_contra", contravariant=True)
ContextT = TypeVar("ContextT", default=None)
ContextT_contra = TypeVar("ContextT_contra", contravariant=True, default=None)
InputT = TypeVar("InputT", default=Any)
OutputT = TypeVar("OutputT", default=Any)
NodeInputT = TypeVar("NodeInputT")
NodeInputT_contra = TypeVar("NodeInputT_contra", contravariant=True)
