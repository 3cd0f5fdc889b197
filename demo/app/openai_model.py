"""Chat completions from any OpenAI-compatible API, streamed with the browser's ``fetch``.

:class:`OpenAICompatibleModel` posts the conversation and the tools with
``stream: true``, reads the server-sent events as they arrive (or the one JSON
body of a server that does not stream) and returns a :class:`~protocol.Reply`.
Every failure is a :class:`~protocol.ModelError` a person can act on: a refused
key, a wrong model or base URL, a rate limit (retried as ``Retry-After`` asks,
see :mod:`http_policy`), a server that does not answer in time or stops sending,
a malformed stream. Cancelling the awaiting task, and any timeout, aborts the
request, so the server sees the connection close. The API key lives in the
object only: it is sent in the ``Authorization`` header and is in no repr,
description or error.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from completion_stream import CompletionStream, reply_from_completion
from csp import blocked_message, connect_allowed, origin_of
from http_policy import parse_retry_after, retry_delay, server_detail, status_message
from protocol import ModelError, Reply, TokenSink
from reply_watch import ReplyLimits, ReplyWatch
from sse import SSEParser

from pyctx_web import IN_PYODIDE
from pyctx_web.errors import JsonLimitError
from pyctx_web.jsonparse import MESSAGE_CHARS, parse_json

if TYPE_CHECKING:  # only Pyodide has pyodide.ffi
    from pyodide.ffi import JsException, JsProxy

_T = TypeVar("_T")

__all__ = ["OpenAICompatibleModel", "page_policy"]


@dataclass(frozen=True, slots=True)
class _Refused:
    """An attempt the API answered with an error status."""

    status: int
    retry_after: str | None
    detail: str


def page_policy() -> tuple[str | None, str]:
    """The Content-Security-Policy the worker was served with, and the worker's origin.

    ``worker.js`` reads the policy at start (``demo_bridge.content_security_policy``);
    outside the demo's worker there is none to check.
    """
    if not IN_PYODIDE:
        return None, ""
    try:
        from demo_bridge import content_security_policy
    except ImportError:
        return None, ""
    try:
        from js import location

        origin = str(location.origin)
    except ImportError:  # Node has no location
        origin = ""
    policy = content_security_policy
    return (policy if isinstance(policy, str) else None), origin


def _header(response: JsProxy, name: str) -> str | None:
    """A response header's value; ``None`` for a missing one (JavaScript's null)."""
    value = response.headers.get(name)
    return value if isinstance(value, str) else None


class OpenAICompatibleModel:
    """A :class:`~protocol.ChatModel` over ``POST {base_url}/chat/completions``.

    ``connect_timeout_s`` bounds the wait for the response headers,
    ``idle_timeout_s`` the wait between two parts of the answer (event-stream
    comments are not parts), ``deadline_s`` the whole reply, retries included,
    and ``max_reply_chars`` its text and tool-call arguments (see
    :mod:`reply_watch`; the settings panel's message may set all three). A status
    worth retrying gets up to ``max_attempts`` attempts, ``backoff_s`` doubling
    between them unless ``Retry-After`` says otherwise; a server that asks for
    more than ``max_retry_wait_s`` is not retried. With ``content_security_policy``
    (and the ``page_origin`` it applies to), a base URL the policy does not let
    the page fetch is refused here, with the flag that allows it.
    """

    kind: str = "openai"

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str,
        token_delay_ms: float = 0,
        *,
        connect_timeout_s: float = 30.0,
        idle_timeout_s: float = 60.0,
        deadline_s: float = 300.0,
        max_reply_chars: int = 1_000_000,
        max_attempts: int = 3,
        backoff_s: float = 1.0,
        max_retry_wait_s: float = 20.0,
        content_security_policy: str | None = None,
        page_origin: str = "",
    ) -> None:
        if not isinstance(base_url, str) or not re.match(r"^https?://[^\s/?#]+", base_url):
            raise ModelError(f"The base URL must start with http:// or https://, not {base_url!r}.")
        if not isinstance(model, str) or not model.strip():
            raise ModelError("Name the model to use.")
        if not isinstance(api_key, str):
            raise ModelError("The API key must be text.")
        self.base_url = base_url.strip().rstrip("/")
        self.model = model.strip()
        self._api_key = api_key.strip()
        self.token_delay_ms = token_delay_ms
        self.connect_timeout_s = connect_timeout_s
        self.limits = ReplyLimits(idle_timeout_s, deadline_s, max_reply_chars)
        self.max_attempts = max(1, max_attempts)
        self.backoff_s = backoff_s
        self.max_retry_wait_s = max_retry_wait_s
        if not connect_allowed(content_security_policy, self.url, page_origin):
            raise ModelError(blocked_message(self.url))

    @classmethod
    def from_settings(cls, config: dict[str, Any], token_delay_ms: float) -> OpenAICompatibleModel:
        """The model the settings panel describes, checked against the page's policy."""
        for name, label in (
            ("base_url", "a base URL"),
            ("model", "a model"),
            ("api_key", "an API key"),
        ):
            if not isinstance(config.get(name), str) or not config[name].strip():
                raise ModelError(f"The OpenAI-compatible model needs {label}.")
        limits = ReplyLimits.from_settings(config)
        policy, origin = page_policy()
        return cls(
            config["base_url"],
            config["model"],
            config["api_key"],
            token_delay_ms,
            idle_timeout_s=limits.idle_timeout_s,
            deadline_s=limits.deadline_s,
            max_reply_chars=limits.max_reply_chars,
            content_security_policy=policy,
            page_origin=origin,
        )

    @property
    def url(self) -> str:
        """The chat completions endpoint."""
        return f"{self.base_url}/chat/completions"

    def __repr__(self) -> str:
        return f"OpenAICompatibleModel(base_url={self.base_url!r}, model={self.model!r})"

    def describe(self) -> dict[str, Any]:
        """What the page may show of this model: never the key."""
        return {
            "kind": self.kind,
            "base_url": self.base_url,
            "model": self.model,
            "token_delay_ms": self.token_delay_ms,
        }

    def request_body(
        self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] = ()
    ) -> str:
        """The JSON text posted for ``messages`` and ``tools``."""
        body: dict[str, Any] = {"model": self.model, "messages": list(messages), "stream": True}
        if tools:
            body["tools"] = list(tools)
        return json.dumps(body)

    async def complete(
        self,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]] = (),
        *,
        on_token: TokenSink | None = None,
    ) -> Reply:
        """Answer ``messages``, offered ``tools``; await ``on_token`` with each text piece."""
        if not IN_PYODIDE:
            raise ModelError(
                "The OpenAI-compatible model fetches with the browser and needs Pyodide."
            )
        body = self.request_body(messages, tools)
        watch = ReplyWatch(self.limits, time.monotonic())
        try:
            return await self._complete(body, on_token, watch)
        except ModelError as error:
            message = str(error)
            if self._api_key and self._api_key in message:
                raise ModelError(message.replace(self._api_key, "[API key]")) from None
            raise

    async def _complete(self, body: str, on_token: TokenSink | None, watch: ReplyWatch) -> Reply:
        attempt = 1
        while True:
            answer = await self._attempt(body, on_token, watch)
            if isinstance(answer, Reply):
                return answer
            delay = None
            if attempt < self.max_attempts:
                delay = retry_delay(
                    answer.status,
                    answer.retry_after,
                    attempt,
                    backoff_s=self.backoff_s,
                    max_wait_s=self.max_retry_wait_s,
                )
            if delay is None:
                raise ModelError(
                    status_message(
                        answer.status,
                        answer.detail,
                        url=self.base_url,
                        model=self.model,
                        attempts=attempt,
                        retry_after=parse_retry_after(answer.retry_after),
                    )
                )
            if delay >= watch.left_s(time.monotonic()):
                raise watch.past_deadline()
            await asyncio.sleep(delay)
            attempt += 1

    async def _attempt(
        self, body: str, on_token: TokenSink | None, watch: ReplyWatch
    ) -> Reply | _Refused:
        """One request: its reply, or the error status it got."""
        from js import AbortController, Object, fetch
        from pyodide.ffi import JsException, to_js

        controller = AbortController.new()
        headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        options = to_js(
            {"method": "POST", "headers": headers, "body": body, "signal": controller.signal},
            dict_converter=Object.fromEntries,
        )
        try:
            wait = min(self.connect_timeout_s, watch.left_s(time.monotonic()))
            try:
                response = await asyncio.wait_for(fetch(self.url, options), wait)
            except TimeoutError:
                if wait < self.connect_timeout_s:
                    raise watch.past_deadline() from None
                raise ModelError(
                    f"The model API at {self.base_url} did not answer within "
                    f"{self.connect_timeout_s:g} s."
                ) from None
            except JsException as error:
                raise ModelError(self._unreachable(error)) from None
            if not response.ok:
                text = await self._text(response, watch)
                return _Refused(
                    response.status, _header(response, "retry-after"), server_detail(text)
                )
            if "json" in (_header(response, "content-type") or "").lower():
                return await self._json_reply(response, on_token, watch)
            return await self._stream_reply(response, on_token, watch)
        finally:
            # Stops the request if it is still running (cancelled, timed out, stopped
            # reading after [DONE]): the server sees the connection close.
            controller.abort()

    def _unreachable(self, error: JsException) -> str:
        origin = origin_of(self.url)
        # The page's policy was checked when the model was set (csp.py): a refused origin
        # never gets here, so --api-origin is not what helps.
        return (
            f"Could not reach the model API at {origin} ({error}): the server may be down or "
            f"unreachable, or its CORS headers do not allow this page and the Authorization "
            f"header."
        )

    async def _next(self, awaitable: Awaitable[_T], watch: ReplyWatch) -> _T:
        """``awaitable``'s result, or ``ModelError`` once the watch's idle wait or deadline ends."""
        from pyodide.ffi import JsException

        try:
            return await asyncio.wait_for(awaitable, watch.wait_s(time.monotonic()))
        except TimeoutError:
            raise watch.expired() from None
        except JsException as error:
            raise ModelError(f"The connection to the model API broke: {error}") from None

    async def _text(self, response: JsProxy, watch: ReplyWatch) -> str:
        return str(await self._next(response.text(), watch))

    async def _json_reply(
        self, response: JsProxy, on_token: TokenSink | None, watch: ReplyWatch
    ) -> Reply:
        """The reply of a server that answered one JSON body although a stream was asked."""
        text = await self._text(response, watch)
        try:
            decoded = parse_json(text, source="The model API's answer", max_chars=MESSAGE_CHARS)
        except JsonLimitError as error:
            raise ModelError(str(error)) from None
        except ValueError:
            raise ModelError(f"The model API answered malformed JSON: {text[:200]!r}") from None
        reply = reply_from_completion(decoded)
        arguments = sum(len(json.dumps(call.arguments)) for call in reply.tool_calls)
        watch.grow(len(reply.content) + arguments)
        if reply.content and on_token is not None:
            await on_token(reply.content)
        return reply

    async def _stream_reply(
        self, response: JsProxy, on_token: TokenSink | None, watch: ReplyWatch
    ) -> Reply:
        """The reply read from the response's server-sent events as they arrive."""
        from js import Object, TextDecoder
        from pyodide.ffi import to_js

        parser, stream = SSEParser(), CompletionStream()
        if not response.body:  # null for a body-less answer
            raise ModelError("The model API answered with an empty body.")
        reader = response.body.getReader()
        decoder = TextDecoder.new("utf-8")
        streaming = to_js({"stream": True}, dict_converter=Object.fromEntries)
        text_chars = 0
        while not stream.done:
            chunk = await self._next(reader.read(), watch)
            if chunk.done:
                events = [*parser.feed(decoder.decode()), *parser.close()]
            else:
                events = parser.feed(decoder.decode(chunk.value, streaming))
            if events:
                watch.part(time.monotonic())
            else:
                watch.heard()
            for event in events:
                piece = stream.feed(event.data, event.event)
                text_chars += len(piece)
                watch.grow(text_chars + sum(len(c.arguments) for c in stream.calls.values()))
                if piece and on_token is not None:
                    await on_token(piece)
            if chunk.done:
                break
        if not stream.complete:
            raise ModelError("The model API's stream ended before the reply was complete.")
        return stream.reply()
