"""The static site's headers (tools/site_headers.py): caching by name, encodings, _headers."""

from __future__ import annotations

import pytest

from tools.site_headers import (
    IMMUTABLE,
    REVALIDATE,
    cache_control,
    choose_encoding,
    content_security_policy,
    headers_file,
)

BOTH = ("br", "gzip")


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/pyodide-0123456789ab/pyodide.asm.wasm", IMMUTABLE),
        ("/page-0123456789ab/js/boot.js", IMMUTABLE),
        ("/app-0123456789ab.zip", IMMUTABLE),
        ("/demo-0123456789ab.snapshot?v=1", IMMUTABLE),
        ("/", REVALIDATE),
        ("/index.html", REVALIDATE),
        ("/pyodide/pyodide.mjs", REVALIDATE),
        ("/pyodide-lock.json", REVALIDATE),
        ("/app.zip", REVALIDATE),
        ("/app-0123456789a.zip", REVALIDATE),
        ("/js/page-0123456789ab/main.js", REVALIDATE),
    ],
)
def test_only_content_hashed_names_are_cached_as_immutable(path: str, expected: str) -> None:
    """A name hashed at the site's top (12 hex digits) is immutable; any other revalidates."""
    assert cache_control(path) == expected


@pytest.mark.parametrize(
    ("accept", "available", "expected"),
    [
        ("gzip, deflate, br, zstd", BOTH, "br"),
        ("gzip, deflate", BOTH, "gzip"),
        ("br;q=0, gzip", BOTH, "gzip"),
        ("br;q=0.5, gzip;q=0.8", BOTH, "gzip"),
        ("GZIP;Q=1, BR;Q=1", BOTH, "br"),
        ("*", BOTH, "br"),
        ("*;q=0.5, br;q=0", BOTH, "gzip"),
        ("identity", BOTH, None),
        ("", BOTH, None),
        (None, BOTH, None),
        ("br", ("gzip",), None),
        ("gzip;q=bad, br", BOTH, "br"),
        ("gzip;q=bad", BOTH, None),
        ("gzip, br", (), None),
    ],
)
def test_encoding_follows_accept_encoding_with_brotli_first_on_ties(
    accept: str | None, available: tuple[str, ...], expected: str | None
) -> None:
    """The available coding with the highest q wins, brotli on a tie; q=0 and unnamed ones never."""
    assert choose_encoding(accept, available) == expected


def test_headers_file_gives_each_path_one_rule_with_the_policy_and_its_caching() -> None:
    """Each path has one rule (no header twice), carrying the policy, nosniff and Cache-Control."""
    policy = content_security_policy(["https://api.example.com"])
    text = headers_file(["/", "/pyodide-0123456789ab/*"], policy)
    assert text == (
        "/\n"
        f"  Content-Security-Policy: {policy}\n"
        "  X-Content-Type-Options: nosniff\n"
        "  Cache-Control: no-cache\n"
        "/pyodide-0123456789ab/*\n"
        f"  Content-Security-Policy: {policy}\n"
        "  X-Content-Type-Options: nosniff\n"
        "  Cache-Control: public, max-age=31536000, immutable\n"
    )
    assert (
        "connect-src 'self' http://127.0.0.1:* http://localhost:* https://api.example.com;"
        in policy
    )
