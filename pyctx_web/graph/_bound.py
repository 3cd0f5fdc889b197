"""A compiled graph's bound config: what ``with_config()`` merges under every call's own."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Protocol, TypeVar

from pyctx_web.errors import ArgumentTypeError

__all__ = ["bind_config", "bound_config", "merge_configs"]


class _Configured(Protocol):
    """A compiled graph, as far as its bound config goes."""

    config: dict[str, Any] | None


G = TypeVar("G", bound=_Configured)

_MERGED_MAPS = ("configurable", "metadata")
"""Keys whose mappings merge key by key (the later config's values win)."""


def merge_configs(*configs: Mapping[str, Any] | None) -> dict[str, Any]:
    """``configs`` merged left to right, as LangGraph merges a runnable's configs.

    ``configurable`` and ``metadata`` merge key by key, ``tags`` and list
    ``callbacks`` add up (each tag once); any other key takes the later value.
    """
    merged: dict[str, Any] = {}
    for config in configs:
        if config is None:
            continue
        if not isinstance(config, Mapping):
            raise ArgumentTypeError(f"config must be a dict, not {type(config).__qualname__!r}")
        for key, value in config.items():
            before = merged.get(key)
            if key in _MERGED_MAPS and isinstance(before, Mapping) and value is not None:
                merged[key] = {**before, **value}
            elif key == "tags" and before is not None and value is not None:
                merged[key] = list(dict.fromkeys([*before, *value]))
            elif key == "callbacks" and isinstance(before, list) and isinstance(value, list):
                merged[key] = [*before, *value]
            else:
                merged[key] = dict(value) if key in _MERGED_MAPS and value is not None else value
    return merged


def bind_config(graph: G, config: Mapping[str, Any] | None, values: Mapping[str, Any]) -> G:
    """A copy of ``graph`` whose calls merge ``config`` and ``values`` under their own config.

    The copy shares the graph's nodes, checkpointer, store and running runs.
    """
    bound = copy.copy(graph)
    bound.config = merge_configs(graph.config, config, values)
    return bound


def bound_config(graph: _Configured, config: Any) -> Any:
    """``config`` of a call to ``graph``, under the config ``with_config()`` bound (if any)."""
    if not graph.config:
        return config
    return merge_configs(graph.config, config)
