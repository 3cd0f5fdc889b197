"""The run config's values that LangGraph adds to the metadata of every checkpoint a run writes.

LangGraph's savers copy the entries of the config's ``metadata``, then of its
``configurable``, into each checkpoint's metadata: text, numbers and booleans only,
the first of a key winning, and never a key of the checkpoint's own metadata
(``source``, ``step``, ``parents``), one starting with ``__`` or one of the
checkpoint coordinates and per-task keys of :data:`EXCLUDED_KEYS`. pyctx_web's
engine keeps them in the checkpoint itself, so that every checkpointer stores them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = ["EXCLUDED_KEYS", "EXTRA_METADATA_KEY", "config_metadata"]

EXCLUDED_KEYS: Final = frozenset(
    {
        "thread_id",
        "checkpoint_id",
        "checkpoint_ns",
        "checkpoint_map",
        "langgraph_step",
        "langgraph_node",
        "langgraph_triggers",
        "langgraph_path",
        "langgraph_checkpoint_ns",
    }
)
"""Config keys never copied into checkpoint metadata."""

EXTRA_METADATA_KEY: Final = "__pyctx_web_checkpoint_metadata__"
"""A ``configurable`` entry that makes the run's checkpoints keep metadata as a LangGraph
Server's checkpointer does (:func:`_as_server_stores`), with the entry's mapping added as
given, none excluded (the thread id)."""

_OWN_KEYS: Final = frozenset({"source", "step", "parents"})
"""The checkpoint's own metadata keys, which a config value does not replace."""


def config_metadata(config: Mapping[str, Any]) -> dict[str, Any] | None:
    """The values of ``config`` each checkpoint of its run adds to its metadata (see the
    module), NUL characters taken out of text; ``None`` when there are none."""
    configurable = config.get("configurable")
    extra = configurable.get(EXTRA_METADATA_KEY) if isinstance(configurable, Mapping) else None
    if isinstance(extra, Mapping):
        stored = _as_server_stores(config)
        stored.update((k, v) for k, v in extra.items() if k not in _OWN_KEYS)
        return stored or None
    meta: dict[str, Any] = {}
    for source in (config.get("metadata"), configurable):
        if not isinstance(source, Mapping):
            continue
        for key, value in source.items():
            if (
                not isinstance(key, str)
                or key in meta
                or key in _OWN_KEYS
                or key in EXCLUDED_KEYS
                or key.startswith("__")
            ):
                continue
            if isinstance(value, str):
                meta[key] = value.replace("\x00", "")
            elif isinstance(value, int | float):  # bool is an int
                meta[key] = value
    return meta or None


def _as_server_stores(config: Mapping[str, Any]) -> dict[str, Any]:
    """What a LangGraph Server's checkpointer adds: the ``configurable`` entries but the
    run's and checkpoint's coordinates, then the whole ``metadata`` (a subgraph's
    ``langgraph_*`` and ``checkpoint_ns`` too), of any type."""
    meta: dict[str, Any] = {}
    configurable = config.get("configurable")
    if isinstance(configurable, Mapping):
        meta.update(
            (k, v)
            for k, v in configurable.items()
            if isinstance(k, str) and not k.startswith("__") and k not in _SERVER_EXCLUDED
        )
    metadata = config.get("metadata")
    if isinstance(metadata, Mapping):
        meta.update((k, v) for k, v in metadata.items() if k not in _SERVER_TRANSIENT)
    for key in _OWN_KEYS:
        meta.pop(key, None)
    return meta


_SERVER_EXCLUDED: Final = frozenset({"checkpoint_ns", "checkpoint_id", "run_id", "thread_id"})
"""The ``configurable`` entries a LangGraph Server's checkpointer leaves out."""

_SERVER_TRANSIENT: Final = frozenset(
    {
        "langgraph_request_id",
        "langgraph_auth_user",
        "langgraph_auth_user_id",
        "langgraph_auth_permissions",
    }
)
"""Entries of one request a LangGraph Server's checkpointer never stores."""
