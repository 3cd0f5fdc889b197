"""Which request headers a fetch transport sends, and which response headers it reports.

A browser refuses to let a page set its *forbidden request headers* (``Host``,
``Content-Length``, ``Cookie``, every ``Sec-*`` and ``Proxy-*`` name...), and any
header a cross-origin server does not list in ``Access-Control-Allow-Headers``
fails the request's CORS preflight. HTTP client libraries and SDKs add such
headers to every request (``User-Agent``, ``Accept-Encoding``, the OpenAI SDK's
``X-Stainless-*``), so the transport drops them by default.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from pyctx_web._homes import publish
from pyctx_web.errors import ArgumentTypeError, ArgumentValueError

__all__ = ["DEFAULT_DROPPED_HEADERS", "HeaderFilter"]

FORBIDDEN_REQUEST_HEADERS: Final = frozenset(
    {
        "accept-charset",
        "accept-encoding",
        "access-control-request-headers",
        "access-control-request-method",
        "access-control-request-private-network",
        "connection",
        "content-length",
        "cookie",
        "cookie2",
        "date",
        "dnt",
        "expect",
        "host",
        "keep-alive",
        "origin",
        "referer",
        "set-cookie",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "via",
        "proxy-*",
        "sec-*",
    }
)
"""The Fetch standard's forbidden request header names (``*`` ends a prefix)."""

DEFAULT_DROPPED_HEADERS: Final = FORBIDDEN_REQUEST_HEADERS | {"user-agent", "x-stainless-*"}
"""What the transport drops unless told otherwise: the forbidden request headers, and the
headers that HTTP libraries and the OpenAI SDK add which servers rarely allow through CORS.
Lower-case names; a name ending in ``*`` stands for every name it begins."""

RESPONSE_HEADERS_DROPPED: Final = frozenset({"content-encoding", "content-length"})
"""Response headers that describe the body as it was sent, not as fetch hands it over:
fetch has already decoded a compressed body, which the library must not decode again."""


def _patterns(names: Iterable[str], argument: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """``names`` split into exact lower-case names and prefixes (the ``*`` entries)."""
    if isinstance(names, str):
        raise ArgumentTypeError(f"{argument} must be an iterable of header names, not a string")
    exact: set[str] = set()
    prefixes: list[str] = []
    for name in names:
        if not isinstance(name, str):
            raise ArgumentTypeError(f"{argument} holds {name!r}, which is not a header name")
        stem = name.strip().lower()
        wildcard = stem.endswith("*")
        stem = stem.removesuffix("*")
        if not stem or "*" in stem or any(c.isspace() or c == ":" for c in stem):
            raise ArgumentValueError(
                f"{argument} holds {name!r}: a header name, or a prefix ending in '*'"
            )
        if wildcard:
            prefixes.append(stem)
        else:
            exact.add(stem)
    return frozenset(exact), tuple(prefixes)


class HeaderFilter:
    """Decides which request headers go out: those of ``drop`` are dropped, unless ``keep``
    names them. Both hold lower-case or mixed-case names; ``"x-stainless-*"`` is a prefix."""

    __slots__ = ("_drop", "_keep")

    def __init__(
        self, drop: Iterable[str] = DEFAULT_DROPPED_HEADERS, keep: Iterable[str] = ()
    ) -> None:
        self._drop = _patterns(drop, "drop_headers")
        self._keep = _patterns(keep, "keep_headers")

    @staticmethod
    def _matches(name: str, patterns: tuple[frozenset[str], tuple[str, ...]]) -> bool:
        exact, prefixes = patterns
        return name in exact or name.startswith(prefixes)

    def drops(self, name: str) -> bool:
        """Whether a request header called ``name`` is left out."""
        lower = name.lower()
        return self._matches(lower, self._drop) and not self._matches(lower, self._keep)

    def request_headers(self, headers: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
        """The ``(name, value)`` pairs of ``headers`` that go out, in order."""
        return [(name, value) for name, value in headers if not self.drops(name)]


def response_headers(headers: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """The response headers to report: those fetch's decoding made untrue left out."""
    return [(k, v) for k, v in headers if k.lower() not in RESPONSE_HEADERS_DROPPED]


publish("pyctx_web.http", HeaderFilter)
