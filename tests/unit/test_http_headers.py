"""pyctx_web.http's header rules: which request headers go out, which response headers stay."""

from __future__ import annotations

import re

import pytest

from pyctx_web.errors import ArgumentTypeError, ArgumentValueError
from pyctx_web.http import DEFAULT_DROPPED_HEADERS, HeaderFilter
from pyctx_web.http._headers import response_headers

SDK_HEADERS = [
    ("host", "api.example.com"),
    ("accept", "application/json"),
    ("accept-encoding", "gzip, deflate"),
    ("connection", "keep-alive"),
    ("user-agent", "AsyncOpenAI/Python 3.57.0"),
    ("x-stainless-lang", "python"),
    ("x-stainless-retry-count", "0"),
    ("content-length", "42"),
    ("content-type", "application/json"),
    ("authorization", "Bearer sk-test"),
    ("Sec-Fetch-Mode", "cors"),
    ("Proxy-Authorization", "Basic x"),
    ("openai-organization", "org-1"),
]


def test_the_default_drops_forbidden_and_cors_hostile_headers() -> None:
    """By default only headers a page may set and servers commonly allow go out, in order."""
    assert HeaderFilter().request_headers(SDK_HEADERS) == [
        ("accept", "application/json"),
        ("content-type", "application/json"),
        ("authorization", "Bearer sk-test"),
        ("openai-organization", "org-1"),
    ]


def test_the_default_names_the_sdk_and_forbidden_headers() -> None:
    """DEFAULT_DROPPED_HEADERS holds User-Agent, the SDK's prefix and the forbidden names."""
    assert {"user-agent", "x-stainless-*", "host", "cookie", "sec-*", "proxy-*"} <= (
        DEFAULT_DROPPED_HEADERS
    )


def test_keep_headers_lets_named_headers_and_prefixes_through() -> None:
    """A name or prefix in keep_headers is sent although the drop list names it."""
    kept = HeaderFilter(keep=["X-Stainless-*", "User-Agent"])
    assert not kept.drops("x-stainless-lang")
    assert not kept.drops("user-agent")
    assert kept.drops("host")


def test_drop_headers_replaces_the_default() -> None:
    """An explicit drop list is the whole list: what it does not name goes out."""
    only = HeaderFilter(drop=["x-debug", "x-trace-*"])
    assert only.request_headers(SDK_HEADERS) == SDK_HEADERS
    assert only.drops("X-Debug")
    assert only.drops("x-trace-id")
    assert not only.drops("x-debugger")


@pytest.mark.parametrize("bad", ["", "*", "x-*-y", "x stainless", "x:y"])
def test_a_malformed_header_pattern_is_refused(bad: str) -> None:
    """A pattern that is no header name nor a prefix ending in '*' is a clear error."""
    message = f"drop_headers holds {bad!r}: a header name, or a prefix ending in '*'"
    with pytest.raises(ArgumentValueError, match=rf"^{re.escape(message)}$"):
        HeaderFilter(drop=[bad])


def test_a_string_instead_of_a_list_of_names_is_refused() -> None:
    """keep_headers="user-agent" (a string, not a list) is refused rather than read by letter."""
    message = "keep_headers must be an iterable of header names, not a string"
    with pytest.raises(ArgumentTypeError, match=rf"^{message}$"):
        HeaderFilter(keep="user-agent")


def test_a_name_that_is_no_string_is_refused() -> None:
    """A pattern of another type than str is refused with its value named."""
    with pytest.raises(
        ArgumentTypeError, match=r"^drop_headers holds 7, which is not a header name$"
    ):
        HeaderFilter(drop=["x-a", 7])  # type: ignore[list-item]


def test_response_headers_describing_the_encoded_body_are_left_out() -> None:
    """Content-Encoding and Content-Length go: fetch hands over the body already decoded."""
    sent = [
        ("Content-Type", "application/json"),
        ("Content-Encoding", "gzip"),
        ("content-length", "120"),
        ("retry-after", "2"),
    ]
    assert response_headers(sent) == [("Content-Type", "application/json"), ("retry-after", "2")]
