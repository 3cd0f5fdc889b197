"""``create_react_agent``'s deprecated keywords, handled as LangGraph handles them."""

from __future__ import annotations

import warnings
from typing import Any

from pyctx_web.errors import ArgumentTypeError
from pyctx_web.graph.warnings import LangGraphDeprecatedSinceV10

__all__ = ["context_schema_of"]

_MISSING: Any = object()


def context_schema_of(context_schema: Any, deprecated: dict[str, Any]) -> Any:
    """The context schema given, or the deprecated ``config_schema`` (with a warning).

    Any other keyword ``create_react_agent`` does not take raises ``ArgumentTypeError``
    (a ``TypeError``, as in LangGraph) naming it.
    """
    config_schema = deprecated.pop("config_schema", _MISSING)
    if config_schema is not _MISSING:
        warnings.warn(
            "`config_schema` is deprecated and will be removed. "
            "Please use `context_schema` instead.",
            category=LangGraphDeprecatedSinceV10,
            stacklevel=3,
        )
        if context_schema is None:
            context_schema = config_schema
    if deprecated:
        raise ArgumentTypeError(
            f"create_react_agent() got unexpected keyword arguments: {deprecated}"
        )
    return context_schema
