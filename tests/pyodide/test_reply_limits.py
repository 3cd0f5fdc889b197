"""The demo's OpenAI-compatible model in Pyodide: comments, deadlines and huge replies are bounded.

It fetches from the real scripted server on 127.0.0.1 (see openai_support).
"""

from __future__ import annotations

from typing import Any

from tests.e2e.openai_server import OpenAIServer, Pause, Stream, comments_only, huge_text_reply, sse

from .openai_support import app, chunk, complete, server

__all__ = ["app", "server"]


def test_a_stream_of_only_comments_stops_at_the_idle_timeout(
    app: Any, server: OpenAIServer
) -> None:
    """Keep-alive comments do not restart the idle wait; the request is aborted."""
    result = complete(app, server, comments_only(30), idle_timeout_s=0.5)
    assert result == {
        "error": "The model API sent only keep-alive comments for 0.5 s; the reply was stopped.",
        "tokens": [],
    }
    (served,) = server.wait_served(1)
    assert served.closed_early


def test_a_reply_whose_parts_keep_coming_stops_at_its_deadline(
    app: Any, server: OpenAIServer
) -> None:
    """Parts that each come within the idle timeout do not carry a reply past its deadline."""
    pieces: list[str | Pause] = []
    for _ in range(300):
        pieces += [*sse(chunk({"content": "."})), Pause(0.1)]
    result = complete(app, server, Stream(pieces), idle_timeout_s=5, deadline_s=1)
    assert result["error"] == "The model API's reply took longer than 1 s; it was stopped."
    assert 0 < len(result["tokens"]) < 300
    (served,) = server.wait_served(1)
    assert served.closed_early


def test_a_10_mb_reply_stops_at_the_size_cap(app: Any, server: OpenAIServer) -> None:
    """A 10 MB streamed answer ends at 1,000,000 characters with an error naming the cap."""
    result = complete(app, server, huge_text_reply(10_000_000))
    assert result["error"] == (
        "The model's reply is longer than 1,000,000 characters, the most this page takes; "
        "it was stopped."
    )
    assert sum(len(token) for token in result["tokens"]) == 1_000_000


def test_the_size_cap_is_a_setting(app: Any, server: OpenAIServer) -> None:
    """max_reply_chars lowers the cap; a reply within it is whole."""
    result = complete(app, server, huge_text_reply(5_000), max_reply_chars=5_000)
    assert result["content"] == "".join(result["tokens"])
    assert len(result["content"]) == 5_000
    result = complete(app, server, huge_text_reply(5_000), max_reply_chars=4_999)
    assert result["error"] == (
        "The model's reply is longer than 4,999 characters, the most this page takes; "
        "it was stopped."
    )
