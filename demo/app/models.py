"""The demo assistant's models: offline rules or an OpenAI-compatible API, chosen per run.

Both speak :class:`protocol.ChatModel`. A run names its model in its
``context`` (``{"model": {"kind": "offline", ...} | {"kind": "openai",
"base_url", "model", ...}}``, see :func:`model_for`); no context, or one without
a model, is the offline model. The API key is never part of a run, which the
server stores: the worker keeps the keys it was given (:func:`remember_key`, by
base URL) in memory, and a server outside the page reads ``OPENAI_API_KEY``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any, Final

from offline_model import OfflineModel
from protocol import ChatModel, ModelError

__all__ = ["forget_models", "make_model", "model_for", "remember_key"]

_KEYS: dict[str, str] = {}
"""API keys by base URL, as the page's settings gave them to this worker."""
_MADE: dict[str, ChatModel] = {}
"""Models already made, by their settings: a turn's nodes share one."""
_MADE_LIMIT: Final = 8


def make_model(config: Any) -> ChatModel:
    """Build a model from the settings panel's ``{kind, ...}``; ``ModelError`` names a bad field."""
    if not isinstance(config, dict):
        raise ModelError("The model settings must be an object with a kind.")
    kind = config.get("kind")
    delay = config.get("token_delay_ms", None)
    if delay is not None and (not isinstance(delay, int | float) or not 0 <= delay <= 5000):
        raise ModelError("token_delay_ms must be a number from 0 to 5000.")
    if kind == "offline":
        return OfflineModel() if delay is None else OfflineModel(token_delay_ms=delay)
    if kind == "openai":
        # Imported when chosen: the page starts with the offline model.
        from openai_model import OpenAICompatibleModel

        return OpenAICompatibleModel.from_settings(config, 0 if delay is None else delay)
    raise ModelError(f"Unknown model kind {kind!r}: choose offline or openai.")


def remember_key(base_url: str, api_key: str) -> None:
    """Keep ``api_key`` for runs whose model is the API at ``base_url`` (in memory only)."""
    _KEYS[base_url.rstrip("/")] = api_key
    forget_models()


def forget_models() -> None:
    """Drop the models made so far (their keys may have changed)."""
    _MADE.clear()


def model_for(context: Any) -> ChatModel:
    """The model a run's ``context`` names (``context["model"]``), else the offline one.

    An ``openai`` model takes the key remembered for its base URL, else the
    ``OPENAI_API_KEY`` environment variable; a context that carries a key itself is
    refused, since the server stores every run's context.
    """
    settings = context.get("model") if isinstance(context, Mapping) else None
    if settings is None:
        settings = {"kind": "offline"}
    if not isinstance(settings, Mapping):
        raise ModelError("The run's context.model must be an object with a kind.")
    if "api_key" in settings:
        raise ModelError(
            "A run's context must not carry the API key (runs are stored): "
            "give it to the worker's configure_model, or to the server as OPENAI_API_KEY."
        )
    config = dict(settings)
    if config.get("kind") == "openai" and isinstance(config.get("base_url"), str):
        key = _KEYS.get(config["base_url"].rstrip("/")) or os.environ.get("OPENAI_API_KEY")
        if key:
            config["api_key"] = key
    known = json.dumps(config, sort_keys=True, default=str)
    model = _MADE.get(known)
    if model is None:
        model = make_model(config)
        if len(_MADE) >= _MADE_LIMIT:
            _MADE.clear()
        _MADE[known] = model
    return model
