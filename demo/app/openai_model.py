"""Chat completions from any OpenAI-compatible API, through the official OpenAI SDK.

:class:`OpenAICompatibleModel` posts the conversation and the tools with
``stream: true`` through ``openai.AsyncOpenAI``, whose requests go through the
browser's ``fetch`` (``pyctx_web.http``; see :mod:`sdk_transport`), reads the chunks
as they arrive (or the one JSON body of a server that does not stream) and returns a
:class:`~protocol.Reply`. The SDK and its packages are loaded when the model is
chosen, not before. Every failure is a :class:`~protocol.ModelError` a person can act
on: a refused key, a wrong model or base URL, a rate limit (the SDK retries it as
``Retry-After`` asks), a server that does not answer in time or stops sending, a
malformed stream. Cancelling the awaiting task, and any timeout, aborts the request,
so the server sees the connection close. The API key lives in the object only: it is
sent in the ``Authorization`` header and is in no repr, description or error.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Sequence
from typing import Any

from csp import blocked_message, connect_allowed, origin_of
from http_policy import parse_retry_after, server_detail, status_message
from protocol import ModelError, Reply, TokenSink
from reply_watch import ReplyLimits, ReplyWatch
from sdk_reply import ChunkReply, reply_from_completion
from sdk_transport import guarded_transport, load_sdk, start_loading

from pyctx_web import IN_PYODIDE
from pyctx_web.errors import JsonLimitError
from pyctx_web.jsonparse import MESSAGE_CHARS, parse_json

__all__ = ["OpenAICompatibleModel", "page_policy"]


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


class OpenAICompatibleModel:
    """A :class:`~protocol.ChatModel` over ``POST {base_url}/chat/completions``.

    ``connect_timeout_s`` bounds each attempt's wait for the response headers,
    ``idle_timeout_s`` the wait between two parts of the answer (event-stream comments
    are not parts), ``deadline_s`` the whole reply, retries included, and
    ``max_reply_chars`` its text and tool-call arguments (see :mod:`reply_watch`; the
    settings panel's message may set all three). The SDK makes up to ``max_attempts``
    attempts of a request that may succeed later (see :mod:`http_policy`). With
    ``content_security_policy`` (and the ``page_origin`` it applies to), a base URL
    the policy does not let the page fetch is refused here, with the flag that allows it.
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
        if not connect_allowed(content_security_policy, self.url, page_origin):
            raise ModelError(blocked_message(self.url))
        self._client: Any = None

    @classmethod
    def from_settings(cls, config: dict[str, Any], token_delay_ms: float) -> OpenAICompatibleModel:
        """The model the settings panel describes, checked against the page's policy; the SDK
        starts loading now (the first reply awaits it)."""
        for name, label in (
            ("base_url", "a base URL"),
            ("model", "a model"),
            ("api_key", "an API key"),
        ):
            if not isinstance(config.get(name), str) or not config[name].strip():
                raise ModelError(f"The OpenAI-compatible model needs {label}.")
        limits = ReplyLimits.from_settings(config)
        policy, origin = page_policy()
        model = cls(
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
        start_loading()
        return model

    @property
    def url(self) -> str:
        """The chat completions endpoint."""
        return f"{self.base_url}/chat/completions"

    def __repr__(self) -> str:
        return f"OpenAICompatibleModel(base_url={self.base_url!r}, model={self.model!r})"

    def describe(self) -> dict[str, Any]:
        """What the page may show of this model, and the settings a run's context names it
        with (its reply limits included): never the key."""
        return {
            "kind": self.kind,
            "base_url": self.base_url,
            "model": self.model,
            "token_delay_ms": self.token_delay_ms,
            "idle_timeout_s": self.limits.idle_timeout_s,
            "deadline_s": self.limits.deadline_s,
            "max_reply_chars": self.limits.max_reply_chars,
        }

    def request(
        self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] = ()
    ) -> dict[str, Any]:
        """The arguments of ``chat.completions.create`` for ``messages`` and ``tools``."""
        body: dict[str, Any] = {"model": self.model, "messages": list(messages), "stream": True}
        if tools:  # no empty list: some servers refuse one
            body["tools"] = list(tools)
        return body

    async def client(self) -> Any:
        """The SDK's ``AsyncOpenAI`` for this model, its packages loaded at the first call."""
        if self._client is None:
            await load_sdk()
            import openai

            self._client = openai.AsyncOpenAI(
                api_key=self._api_key,
                base_url=self.base_url,
                max_retries=self.max_attempts - 1,
                timeout=None,  # each wait is bounded here and in the transport
                http_client=_http_client(self.connect_timeout_s),
            )
        return self._client

    async def complete(
        self,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]] = (),
        *,
        on_token: TokenSink | None = None,
    ) -> Reply:
        """Answer ``messages``, offered ``tools``; await ``on_token`` with each text piece."""
        try:
            client = await self.client()
            # The reply's clock starts once the SDK is loaded: loading it is not the API's time.
            watch = ReplyWatch(self.limits, time.monotonic())
            return await self._complete(client, self.request(messages, tools), on_token, watch)
        except ModelError as error:
            message = str(error)
            if self._api_key and self._api_key in message:
                raise ModelError(message.replace(self._api_key, "[API key]")) from None
            raise

    async def _complete(
        self, client: Any, request: dict[str, Any], on_token: TokenSink | None, watch: ReplyWatch
    ) -> Reply:
        try:
            async with asyncio.timeout(watch.left_s(time.monotonic())):
                raw = await client.chat.completions.with_raw_response.create(**request)
        except TimeoutError:
            raise watch.past_deadline() from None
        except Exception as error:
            raise self._error(error, started=False) from None
        response = raw.http_response
        # The idle wait starts with the response: the SDK's own work before it (building the
        # request, retries) is bounded by the deadline and each attempt's wait for headers.
        watch.part(time.monotonic())
        if "json" in response.headers.get("content-type", "").lower():
            return await self._json_reply(response, on_token, watch)
        stream = raw.parse()
        try:
            return await self._stream_reply(
                stream, response.extensions["event_tap"], on_token, watch
            )
        except (ModelError, asyncio.CancelledError):
            raise
        except Exception as error:
            raise self._error(error, started=True) from None
        finally:
            await stream.close()  # aborts the request unless the body was read to its end

    async def _stream_reply(
        self, stream: Any, tap: Any, on_token: TokenSink | None, watch: ReplyWatch
    ) -> Reply:
        """The reply read from the SDK's chunks as they arrive, within the watch's limits."""
        reply, chunks = ChunkReply(), aiter(stream)
        heard_at = tap.received
        while True:
            try:
                async with asyncio.timeout(watch.wait_s(time.monotonic())):
                    chunk = await anext(chunks)
            except StopAsyncIteration:
                break
            except TimeoutError:
                if tap.received > heard_at:  # only what the SDK drops: comments
                    watch.heard()
                raise watch.expired() from None
            watch.part(time.monotonic())
            heard_at = tap.received
            piece = reply.feed(chunk)
            watch.grow(reply.chars)
            if piece and on_token is not None:
                await on_token(piece)
        if not (tap.done or reply.finish_reason):
            raise ModelError("The model API's stream ended before the reply was complete.")
        return reply.reply()

    async def _json_reply(
        self, response: Any, on_token: TokenSink | None, watch: ReplyWatch
    ) -> Reply:
        """The reply of a server that answered one JSON body although a stream was asked."""
        try:
            async with asyncio.timeout(watch.wait_s(time.monotonic())):
                data = await response.aread()
        except TimeoutError:
            raise watch.expired() from None
        except Exception as error:
            raise self._error(error, started=True) from None
        text = data.decode("utf-8", "replace")
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

    def _error(self, error: Exception, *, started: bool) -> ModelError:
        """The message a person reads for an error of the SDK or of the stream."""
        import openai

        if isinstance(error, JsonLimitError):
            return ModelError(str(error))
        if isinstance(error, json.JSONDecodeError):
            return ModelError(
                f"The model API sent a stream event that is not JSON: {error.doc[:200]!r}"
            )
        if isinstance(error, openai.APIStatusError):
            return ModelError(self._status_message(error.response))
        if isinstance(error, openai.APITimeoutError):
            return ModelError(
                f"The model API at {self.base_url} did not answer within "
                f"{self.connect_timeout_s:g} s."
            )
        cause = error.__cause__ or error
        if isinstance(error, openai.APIConnectionError) and not started:
            return ModelError(self._unreachable(cause))
        if isinstance(error, openai.APIConnectionError):
            return ModelError(f"The connection to the model API broke: {cause}")
        if isinstance(error, openai.APIError):
            return ModelError(f"The model API reported an error: {error.message}")
        return ModelError(f"The model API's answer could not be read: {error}")

    def _status_message(self, response: Any) -> str:
        retries = response.request.headers.get("x-stainless-retry-count", "0")
        return status_message(
            response.status_code,
            server_detail(response.text),
            url=self.base_url,
            model=self.model,
            attempts=int(retries) + 1 if retries.isdigit() else 1,
            retry_after=parse_retry_after(response.headers.get("retry-after")),
        )

    def _unreachable(self, error: BaseException) -> str:
        origin = origin_of(self.url)
        # The page's policy was checked when the model was set (csp.py): a refused origin
        # never gets here, so --api-origin is not what helps.
        return (
            f"Could not reach the model API at {origin} ({error}): the server may be down or "
            f"unreachable, or its CORS headers do not allow this page and the Authorization "
            f"header."
        )


def _http_client(connect_timeout_s: float) -> Any:
    """The SDK's HTTP client over :func:`sdk_transport.guarded_transport`."""
    import importlib

    from pyctx_web.http import openai_library

    library = importlib.import_module(openai_library())
    return library.AsyncClient(transport=guarded_transport(connect_timeout_s), timeout=None)
