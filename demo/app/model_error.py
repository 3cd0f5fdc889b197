"""The one error a model raises: its own module, so that the worker starts without the models.

:mod:`protocol` exports it with the rest of what the models speak; the worker imports it
from here, and imports a model (with its reply types) when the first message needs one.
"""

from __future__ import annotations

__all__ = ["ModelError"]


class ModelError(Exception):
    """A model could not answer: a bad setting, an HTTP error, a malformed stream."""
