"""What the OpenAI-compatible model does with an HTTP answer that is not a stream.

:func:`retry_delay` says whether a status is worth another attempt and after how
long: 429 (rate limited) and 502, 503 and 504 (a gateway or an overloaded
server) are retried, honouring ``Retry-After`` (seconds or an HTTP date) or
else backing off exponentially; 500 and the other statuses are not, since
another attempt gets the same answer. :func:`status_message` words the error
a person reads for the final status.
"""

from __future__ import annotations

import email.utils
import time
from typing import Any

from completion_stream import error_text

from pyctx_web.jsonparse import MESSAGE_CHARS, parse_json

__all__ = [
    "RETRIED_STATUSES",
    "parse_retry_after",
    "retry_delay",
    "server_detail",
    "status_message",
]

RETRIED_STATUSES = frozenset({429, 502, 503, 504})
"""Statuses that another attempt may get past."""


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


def retry_delay(
    status: int,
    retry_after: str | None,
    attempt: int,
    *,
    backoff_s: float,
    max_wait_s: float,
    now: float | None = None,
) -> float | None:
    """Seconds to wait before attempt ``attempt + 1`` after ``status``, or ``None``: do not retry.

    ``None`` as well when the server asks for a longer wait than ``max_wait_s``.
    """
    if status not in RETRIED_STATUSES:
        return None
    asked = parse_retry_after(retry_after, now)
    if asked is None:
        return min(max_wait_s, backoff_s * 2.0 ** (attempt - 1))
    return asked if asked <= max_wait_s else None


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
