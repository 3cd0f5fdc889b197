"""The connect-src check that lets the model settings name --api-origin, not a failed fetch."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from csp import blocked_message, connect_allowed, origin_of

# demo/serve.py is loaded from its file: demo/ on sys.path would make its js/
# folder importable as the package "js", which pyctx_web takes for Pyodide's.
_SPEC = importlib.util.spec_from_file_location(
    "demo_serve", Path(__file__).resolve().parents[3] / "demo" / "serve.py"
)
assert _SPEC is not None
assert _SPEC.loader is not None
_SERVE = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_SERVE)
content_security_policy = _SERVE.content_security_policy

PAGE = "http://127.0.0.1:8000"


@pytest.mark.parametrize(
    ("url", "allowed"),
    [
        ("http://127.0.0.1:8000/v1/chat/completions", True),
        ("http://127.0.0.1:11434/v1/chat/completions", True),
        ("http://localhost:8080/v1/chat/completions", True),
        ("https://api.openai.com/v1/chat/completions", False),
        ("http://192.168.1.5:8080/v1/chat/completions", False),
    ],
)
def test_the_demo_policy_allows_local_apis_only(url: str, allowed: bool) -> None:
    """The demo's default policy lets the page fetch its own origin and local ports only."""
    assert connect_allowed(content_security_policy(), url, PAGE) is allowed


def test_an_api_origin_flag_allows_that_origin() -> None:
    """An origin added to connect-src is allowed, and other origins still are not."""
    policy = content_security_policy(["https://api.example.com"])
    assert connect_allowed(policy, "https://api.example.com/v1/chat/completions", PAGE)
    assert not connect_allowed(policy, "https://api.example.org/v1/chat/completions", PAGE)
    assert not connect_allowed(policy, "https://api.example.com:8443/v1/chat/completions", PAGE)


@pytest.mark.parametrize(
    ("sources", "url", "allowed"),
    [
        ("*", "https://x.test/a", True),
        ("'none'", "http://127.0.0.1:8000/a", False),
        ("'self'", "http://127.0.0.1:8000/a", True),
        ("'self'", "https://127.0.0.1:443/a", False),
        ("https:", "https://x.test/a", True),
        ("http:", "https://x.test/a", True),
        ("https:", "http://x.test/a", False),
        ("https://*.example.com", "https://a.b.example.com/v1", True),
        ("https://*.example.com", "https://example.com/v1", False),
        ("api.example.com", "http://api.example.com/v1", True),
        ("http://api.example.com", "https://api.example.com/v1", True),
        ("https://api.example.com", "http://api.example.com/v1", False),
        ("https://api.example.com:*", "https://api.example.com:9/v1", True),
        ("https://api.example.com/v1/", "https://api.example.com/v1/chat", True),
        ("https://api.example.com/v2/", "https://api.example.com/v1/chat", False),
        ("https://api.example.com/v1/chat", "https://api.example.com/v1/chat", True),
        ("'nonce-abc' 'strict-dynamic'", "https://api.example.com/", False),
    ],
)
def test_source_expressions(sources: str, url: str, allowed: bool) -> None:
    """Source expressions match as CSP Level 3 says for fetches to http(s) URLs."""
    assert connect_allowed(f"connect-src {sources}", url, PAGE) is allowed


def test_default_src_stands_in_and_every_policy_must_allow() -> None:
    """Without connect-src default-src decides; a policy with neither allows; all policies apply."""
    url = "https://api.example.com/v1"
    assert not connect_allowed("default-src 'self'", url, PAGE)
    assert connect_allowed("default-src 'self'; connect-src https:", url, PAGE)
    assert connect_allowed("script-src 'self'", url, PAGE)
    assert connect_allowed(None, url, PAGE)
    assert not connect_allowed("connect-src https:, connect-src 'self'", url, PAGE)
    assert connect_allowed("CONNECT-SRC https://API.example.com", url, PAGE)


def test_the_message_names_the_flag() -> None:
    """The blocked message names the origin and the ./build.sh demo flag that allows it."""
    assert origin_of("https://user:pw@api.example.com:8443/v1") == "https://api.example.com:8443"
    assert blocked_message("https://api.example.com/v1/chat/completions") == (
        "The page's Content-Security-Policy does not allow connecting to "
        "https://api.example.com; serve the demo with ./build.sh demo --api-origin "
        "https://api.example.com"
    )
