"""What the demo's API model tells a person when the API answered an error status.

The OpenAI SDK sends the requests and retries them (429, 408, 409 and 5xx, honouring
``Retry-After`` up to two minutes; a longer wait asked for is not retried).
:func:`status_message` words the error a person reads for the final status, with the
server's own text (:func:`server_detail`) and how long a rate limit asks to wait
(:func:`parse_retry_after`).
"""

from __future__ import annotations

import email.utils
import json
import time
from typing import Any

from pyctx_web.jsonparse import MESSAGE_CHARS, parse_json

__all__ = ["error_text", "parse_retry_after", "server_detail", "status_message"]


def error_text(error: Any) -> str:
    """The message of an API error object (``{"message": ...}``, or a bare string)."""
    if isinstance(error, dict):
        message = error.get("message") or error.get("detail") or error.get("type")
        if isinstance(message, str) and message.strip():
            return message.strip()
        return json.dumps(error)[:300]
    return str(error).strip()[:300]


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """The seconds a ``Retry-After`` header asks to wait (0 for a date past), or ``None``."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    if value.isascii() and value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # RFC 9110 dates are in GMT
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def server_detail(body: str) -> str:
    """The server's own message in an error body: its JSON ``error``, or the text's start."""
    try:
        decoded: Any = parse_json(body, source="the error body", max_chars=MESSAGE_CHARS)
    except ValueError:
        return " ".join(body.split())[:300]
    if isinstance(decoded, dict):
        for key in ("error", "detail", "message"):
            if key in decoded:
                return error_text(decoded[key])
    return " ".join(body.split())[:300]


def status_message(
    status: int,
    detail: str,
    *,
    url: str,
    model: str,
    attempts: int = 1,
    retry_after: float | None = None,
) -> str:
    """The message a person reads when the API answered ``status`` (after ``attempts`` tries)."""
    said = f" The server said: {detail}" if detail else ""
    tries = f" after {attempts} attempts" if attempts > 1 else ""
    if status in (401, 403):
        return (
            f"The API refused the key (HTTP {status}): check the API key in the model "
            f"settings.{said}"
        )
    if status == 404:
        return (
            f"The API has no model {model!r} at {url} (HTTP 404): check the model name, and "
            f"the base URL (it usually ends in /v1).{said}"
        )
    if status == 429:
        wait = (
            f" It asks to wait {retry_after:.0f} s before the next request."
            if retry_after is not None
            else ""
        )
        return (
            f"The API is limiting requests (HTTP 429){tries}: wait a moment and send again."
            f"{wait}{said}"
        )
    if status >= 500:
        return f"The API failed (HTTP {status}){tries}: try again later.{said}"
    return f"The API refused the request (HTTP {status}).{said}"
