"""The demo assistant's models, chosen in the settings panel: offline rules or an OpenAI API.

Both speak :class:`protocol.ChatModel`; :func:`make_model` builds one from the
panel's settings.
"""

from __future__ import annotations

from typing import Any

from offline_model import OfflineModel
from protocol import ChatModel, ModelError

__all__ = ["make_model"]


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
