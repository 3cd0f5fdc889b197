"""The HTTP headers of the demo's files: one source for ``demo/serve.py`` and the ``_headers`` file.

Every response carries the page's Content-Security-Policy (:func:`content_security_policy`)
and ``X-Content-Type-Options: nosniff``. Its ``Cache-Control`` depends on its name
(:func:`cache_control`): a content-hashed name (``pyodide-0123456789ab/…``,
``app-0123456789ab.zip``: :data:`HASHED_NAME`) never changes content, so it is cached for a
year without revalidation; any other name (``index.html``, the unbuilt layout's files) is
revalidated on every use.

A file may have precompressed siblings (``NAME.br``, ``NAME.gz``: :data:`ENCODINGS`), which
:func:`choose_encoding` picks by the request's ``Accept-Encoding``.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Collection, Sequence

LOCAL_CONNECT_SOURCES = ("'self'", "http://127.0.0.1:*", "http://localhost:*")
"""Where the page may connect without any ``--api-origin``: itself and local ports."""

_ORIGIN = re.compile(r"^(https?|wss?)://(\*\.)?[A-Za-z0-9.-]+(:(\d{1,5}|\*))?$")


def content_security_policy(api_origins: Sequence[str] = ()) -> str:
    """The page's policy; ``api_origins`` are added to its ``connect-src``."""
    return "; ".join(
        [
            "default-src 'self'",
            "script-src 'self' 'wasm-unsafe-eval'",
            "worker-src 'self'",
            "connect-src " + " ".join([*LOCAL_CONNECT_SOURCES, *api_origins]),
            "style-src 'self'",
            "img-src 'self' data:",
            "object-src 'none'",
            "base-uri 'none'",
            "frame-ancestors 'none'",
            "form-action 'none'",
        ]
    )


def api_origin(text: str) -> str:
    """An ``--api-origin`` value: ``scheme://host[:port]``; ``ArgumentTypeError`` otherwise."""
    origin = text.strip().rstrip("/")
    if not _ORIGIN.match(origin):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an origin such as https://api.example.com "
            "(a scheme, a host, an optional port, and no path)"
        )
    return origin


HASH_LENGTH = 12
"""Hex digits of SHA-256 in a content-hashed name."""

HASHED_NAME = re.compile(rf"^/[A-Za-z0-9_]+-[0-9a-f]{{{HASH_LENGTH}}}(/|\.[A-Za-z0-9]+$)")
"""A URL path under a content-hashed folder (``/js-<hash>/…``) or of a hashed file
(``/app-<hash>.zip``)."""

IMMUTABLE = "public, max-age=31536000, immutable"
"""The ``Cache-Control`` of a content-hashed name: a year, never revalidated."""

REVALIDATE = "no-cache"
"""The ``Cache-Control`` of any other name: stored, but revalidated on every use."""

ENCODINGS = (("br", ".br"), ("gzip", ".gz"))
"""``Content-Encoding`` values and their siblings' suffixes, in the order the server prefers."""

TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".wasm": "application/wasm",
    ".mjs": "text/javascript; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".whl": "application/zip",
    ".zip": "application/zip",
    ".py": "text/plain; charset=utf-8",
    ".snapshot": "application/octet-stream",
}
"""``Content-Type`` by suffix, where Python's ``mimetypes`` lacks one or guesses otherwise."""


def cache_control(path: str) -> str:
    """The ``Cache-Control`` of the URL path ``path``: :data:`IMMUTABLE` for a hashed name."""
    return IMMUTABLE if HASHED_NAME.match(path.split("?", 1)[0]) else REVALIDATE


def headers_for(path: str, policy: str) -> dict[str, str]:
    """The headers every response of ``path`` carries, whatever its encoding."""
    return {
        "Content-Security-Policy": policy,
        "X-Content-Type-Options": "nosniff",
        "Cache-Control": cache_control(path),
    }


def _codings(accept_encoding: str) -> dict[str, float]:
    """``Accept-Encoding``'s codings (lower case) and their q-values; a bad q counts as 0."""
    codings: dict[str, float] = {}
    for part in accept_encoding.split(","):
        name, *params = (piece.strip() for piece in part.split(";"))
        if not name:
            continue
        quality = 1.0
        for param in params:
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        codings[name.lower()] = quality
    return codings


def choose_encoding(accept_encoding: str | None, available: Collection[str]) -> str | None:
    """The coding of :data:`ENCODINGS` in ``available`` to send for ``accept_encoding``.

    The client's highest q-value wins, the server's order breaks ties; a coding the
    client does not name is acceptable only through ``*``. ``None``: send the file as it is.
    """
    codings = _codings(accept_encoding or "")
    best: tuple[float, int, str] | None = None
    for rank, (coding, _suffix) in enumerate(ENCODINGS):
        if coding not in available:
            continue
        quality = codings.get(coding, codings.get("*", 0.0))
        if quality > 0 and (best is None or (quality, -rank) > best[:2]):
            best = (quality, -rank, coding)
    return best[2] if best else None


def suffix_of(coding: str) -> str:
    """The sibling suffix of a coding of :data:`ENCODINGS`."""
    return dict(ENCODINGS)[coding]


def headers_file(paths: Sequence[str], policy: str) -> str:
    """The ``_headers`` file (Netlify's and Cloudflare Pages' format) for the URL paths ``paths``.

    One rule per path, so that no header is given twice (Cloudflare Pages would join the
    values); a folder given as ``/name/*`` covers the files under it.
    """
    lines: list[str] = []
    for path in paths:
        lines.append(path)
        lines.extend(f"  {name}: {value}" for name, value in headers_for(path, policy).items())
    return "\n".join(lines) + "\n"
