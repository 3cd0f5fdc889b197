"""What the OpenAI SDK needs in the demo: its packages, loaded when chosen, and a guarded transport.

:func:`load_sdk` loads the ``openai`` package and its dependencies from the Pyodide
distribution the first time an API model is chosen (the offline model and the first
screen load none of it). :func:`guarded_transport` is the SDK's HTTP transport:
``pyctx_web.http``'s fetch transport (httpx's own on CPython), with

* a bound on the wait for each attempt's response headers (``connect_timeout_s``),
  separate from the reply's idle timeout, which the model applies per event;
* an :class:`EventTap` on every response body, which refuses an event-stream event
  nested too deep or too long before the SDK's ``json.loads`` sees it (parsing it
  would overflow Pyodide's stack, a fatal error), notes whether the stream said
  ``[DONE]``, and counts the bytes that came (keep-alive comments included, which the
  SDK's parser drops), so the model can tell a silent server from a chatty one.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import re
from collections.abc import AsyncIterator
from typing import Any

from protocol import ModelError

from pyctx_web import IN_PYODIDE
from pyctx_web.errors import JsonLimitError
from pyctx_web.jsonparse import EVENT_CHARS, MAX_DEPTH, nesting

__all__ = ["SDK_PACKAGES", "EventTap", "guarded_transport", "load_sdk", "start_loading"]

SDK_PACKAGES = ("openai",)
"""The distribution's packages the API model loads (with their dependencies)."""

WARM_MODULES = ("openai", "openai.types.chat", "openai.resources.chat.completions")
"""What the first request would import: imported once the packages are loaded."""

_EVENT_END = re.compile(rb"(?>\r\n|\r|\n)(?>\r\n|\r|\n)")
"""A blank line, which ends an event (a CR LF pair is one line end, never two)."""

_DONE = re.compile(rb"(?:^|[\r\n])data: ?\[DONE\]")

_SOURCE = "A stream event of the model API"

_loading: asyncio.Task[None] | None = None


def start_loading() -> None:
    """Start loading the SDK's packages, when an event loop runs and they are not loaded:
    the first reply then finds them loaded, or under way."""
    global _loading
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return  # nothing to load in the background with: the first reply loads them
    if importlib.util.find_spec("openai") is not None:
        return
    if _loading is None or (_loading.done() and _loading.exception() is not None):
        _loading = asyncio.ensure_future(_load_packages())
        # Its error is the first reply's to report: marked as seen, not logged meanwhile.
        _loading.add_done_callback(lambda task: task.cancelled() or task.exception())


async def load_sdk() -> None:
    """Make ``openai`` importable, loading its packages once; ``ModelError`` if they fail."""
    if importlib.util.find_spec("openai") is not None:
        return
    start_loading()
    if _loading is not None:  # always, with the loop this runs in
        await asyncio.shield(_loading)


async def _load_packages() -> None:
    if not IN_PYODIDE:
        raise ModelError("The OpenAI SDK is not installed: pip install openai.")
    import pyodide_js
    from pyodide.ffi import create_proxy, to_js

    errors: list[str] = []
    quiet = create_proxy(lambda message: None)
    failed = create_proxy(lambda message: errors.append(str(message).strip()))
    try:
        await pyodide_js.loadPackage(  # type: ignore[attr-defined]  # not in its stubs
            to_js(list(SDK_PACKAGES)), messageCallback=quiet, errorCallback=failed
        )
    finally:
        quiet.destroy()
        failed.destroy()
    importlib.invalidate_caches()
    if errors or importlib.util.find_spec("openai") is None:
        detail = "; ".join(errors) or "the package is not in the distribution"
        raise ModelError(f"The OpenAI SDK could not be loaded: {detail}")
    # Imported now, while the person writes the first message, not when it is sent; between
    # the imports, the worker handles what came meanwhile.
    for name in WARM_MODULES:
        await asyncio.sleep(0)
        importlib.import_module(name)


class EventTapMethods:
    """A response body passed on unchanged, watched event by event (see the module's doc)."""

    def __init__(self, library: Any, inner: Any, request: Any) -> None:
        self._library = library
        self._inner = inner
        self._request = request
        self._event = b""  # the bytes of the event not yet ended
        self.received = 0
        """The body's bytes so far."""
        self.done = False
        """Whether the stream said ``[DONE]``."""

    def _check(self, event: bytes) -> None:
        if len(event) > EVENT_CHARS * 4:  # UTF-8: at most 4 bytes a character
            raise JsonLimitError(_SOURCE, kind="characters", limit=EVENT_CHARS, found=len(event))
        opened = event.count(b"[") + event.count(b"{")
        if opened > MAX_DEPTH and nesting(event.decode("utf-8", "replace")) > MAX_DEPTH:
            raise JsonLimitError(_SOURCE, kind="depth", limit=MAX_DEPTH)
        if not self.done and b"[DONE]" in event and _DONE.search(event):
            self.done = True

    def _watch(self, chunk: bytes) -> None:
        self.received += len(chunk)
        # A blank line may straddle two chunks: the search starts at the event's last bytes.
        start = max(0, len(self._event) - 3)
        pending = self._event + chunk
        while (found := _EVENT_END.search(pending, start)) is not None:
            self._check(pending[: found.start()])
            pending, start = pending[found.end() :], 0
        if len(pending) > EVENT_CHARS * 4:
            self._check(pending)  # too long already: refused before it ends
        self._event = pending

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            self._watch(chunk)
            yield chunk
        if self._event.strip():
            self._check(self._event)  # a last event the stream did not end with a blank line
            self._event = b""

    async def aclose(self) -> None:
        await self._inner.aclose()


def EventTap(library: Any, inner: Any, request: Any) -> Any:  # a class, made late
    """An :class:`EventTapMethods` that is ``library``'s ``AsyncByteStream``."""
    tap_class = type("EventTap", (EventTapMethods, library.AsyncByteStream), {})
    return tap_class(library, inner, request)


def guarded_transport(connect_timeout_s: float) -> Any:
    """The async transport of the SDK's HTTP library for the demo's API model."""
    from pyctx_web.http import openai_library

    name = openai_library()
    library = importlib.import_module(name)
    if IN_PYODIDE:
        from pyctx_web.http import fetch_transport

        inner = fetch_transport(library=name)
    else:
        inner = library.AsyncHTTPTransport()

    class GuardedTransport(library.AsyncBaseTransport):  # type: ignore[misc, name-defined]
        """Each attempt waits for its response headers at most ``connect_timeout_s``."""

        async def handle_async_request(self, request: Any) -> Any:
            try:
                async with asyncio.timeout(connect_timeout_s):
                    response = await inner.handle_async_request(request)
            except TimeoutError:
                raise library.ReadTimeout(
                    f"no response within {connect_timeout_s:g} s", request=request
                ) from None
            response.stream = EventTap(library, response.stream, request)
            # The client wraps the stream: the model finds the tap here.
            response.extensions["event_tap"] = response.stream
            return response

        async def aclose(self) -> None:
            await inner.aclose()

    return GuardedTransport()
