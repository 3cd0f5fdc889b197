"""The messages a person reads for the API's error statuses, and the Retry-After they quote."""

from __future__ import annotations

import email.utils
from typing import TypedDict

import pytest
from http_policy import parse_retry_after, server_detail, status_message

NOW = 1_700_000_000.0


def test_retry_after_in_seconds_and_as_an_http_date() -> None:
    """Retry-After is read as delta-seconds or as an HTTP date (0 once past); junk is None."""
    assert parse_retry_after("3", NOW) == 3.0
    assert parse_retry_after(" 0 ", NOW) == 0.0
    assert parse_retry_after(email.utils.formatdate(NOW + 7, usegmt=True), NOW) == 7.0
    assert parse_retry_after(email.utils.formatdate(NOW - 60, usegmt=True), NOW) == 0.0
    for junk in (None, "", "soon", "-1", "1.5", "Mon, 99 Foo 2024"):
        assert parse_retry_after(junk, NOW) is None


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        ('{"error": {"message": "Invalid key sk-1", "type": "auth"}}', "Invalid key sk-1"),
        ('{"error": "model not loaded"}', "model not loaded"),
        ('{"detail": "Not Found"}', "Not Found"),
        ('{"message": "slow down"}', "slow down"),
        ("<html>\n  <h1>Bad   Gateway</h1></html>", "<html> <h1>Bad Gateway</h1></html>"),
        ("", ""),
    ],
)
def test_server_detail_is_the_servers_own_message(body: str, detail: str) -> None:
    """The detail is the JSON error's message, or the body's text with whitespace folded."""
    assert server_detail(body) == detail


class Where(TypedDict):
    """The API and model a status message names."""

    url: str
    model: str


def test_messages_say_what_to_do() -> None:
    """Each status gets a message naming the likely cause and what to change."""
    args = Where(url="http://h/v1", model="m1")
    assert status_message(401, "bad key", **args).startswith(
        "The API refused the key (HTTP 401): check the API key"
    )
    assert "bad key" in status_message(401, "bad key", **args)
    assert status_message(403, "", **args).startswith("The API refused the key (HTTP 403)")
    assert status_message(404, "", **args).startswith(
        "The API has no model 'm1' at http://h/v1 (HTTP 404): check the model name, and the "
        "base URL"
    )
    limited = status_message(429, "", **args, attempts=3, retry_after=30)
    assert limited.startswith("The API is limiting requests (HTTP 429) after 3 attempts")
    assert "wait 30 s" in limited
    assert status_message(500, "boom", **args) == (
        "The API failed (HTTP 500): try again later. The server said: boom"
    )
    assert status_message(400, "bad tools", **args) == (
        "The API refused the request (HTTP 400). The server said: bad tools"
    )
