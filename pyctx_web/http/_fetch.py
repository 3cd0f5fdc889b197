"""One request through JavaScript's ``fetch``: its headers awaited, its body read, abortable.

Every wait on JavaScript is bounded by the read timeout, and every way of
leaving a request unfinished aborts it through its ``AbortController``: a timeout,
a failed read, the awaiting task cancelled (which is also how a cancelled graph
run reaches the request), or the response closed before its end. The server
then sees the connection closed rather than writing on to nobody.

The timeout of a wait is a JavaScript timer, cleared when the wait ends, not
``asyncio.timeout``: Pyodide's event loop never clears a cancelled timer, so each
read would leave one scheduled for the whole read timeout (often minutes), and
Node would not exit before the last had fired.
"""

from __future__ import annotations

from typing import Any

from pyctx_web._env import IN_BROWSER, IN_PYODIDE
from pyctx_web.http._library import FetchFailure

if IN_PYODIDE:
    import js
    from pyodide.ffi import JsException, create_once_callable, to_js

__all__ = ["FetchCall", "describe_js_error"]

_MAX_TIMER_MS = 2**31 - 1
"""The longest delay setTimeout takes (a longer one fires at once): a longer timeout is none."""


def describe_js_error(error: Any) -> str:
    """A JavaScript error and its cause: ``"TypeError: fetch failed (connect ECONNREFUSED)"``."""
    text = f"{getattr(error, 'name', 'Error')}: {getattr(error, 'message', error)}"
    cause = getattr(error, "cause", None)
    if cause is not None:
        text += f" ({getattr(cause, 'message', None) or cause})"
    return text


class FetchCall:
    """One fetch of ``url``: :meth:`start` it, :meth:`read` its body, :meth:`abort` it.

    ``headers`` are the pairs to send as they are (already filtered), ``body`` the
    request's bytes (``None`` for none), ``credentials`` fetch's option of that name.
    """

    def __init__(
        self,
        url: str,
        method: str,
        headers: list[tuple[str, str]],
        body: bytes | None,
        credentials: str,
        read_timeout: float | None,
    ) -> None:
        self.url = url
        self.read_timeout = read_timeout
        """The longest wait, in seconds, for the headers and for each piece of the body."""
        self.status = 0
        """The response's status, once :meth:`start` returned."""
        self.headers: list[tuple[str, str]] = []
        """The response's headers, once :meth:`start` returned."""
        self._controller = js.AbortController.new()
        init: dict[str, Any] = {
            "method": method,
            "headers": to_js([list(pair) for pair in headers]),
            "signal": self._controller.signal,
            "credentials": credentials,
        }
        if body:
            init["body"] = to_js(body)
        self._init = to_js(init, dict_converter=js.Object.fromEntries)
        self._reader: Any = None
        self._open = True

    async def _wait(self, promise: Any) -> Any:
        """The value of ``promise``; TimeoutError (the request aborted) after the read timeout."""
        if self.read_timeout is None or self.read_timeout * 1000 > _MAX_TIMER_MS:
            return await promise
        fired: list[bool] = []

        def time_out() -> None:
            fired.append(True)
            self._controller.abort()  # rejects the promise awaited here

        callback = create_once_callable(time_out)
        timer = js.setTimeout(callback, self.read_timeout * 1000)
        try:
            value = await promise
        except JsException:
            if fired:
                raise TimeoutError from None
            raise
        else:
            if fired:  # settled as the timer fired: the request is aborted all the same
                raise TimeoutError
            return value
        finally:
            if not fired:
                js.clearTimeout(timer)
                callback.destroy()

    def _failure(self, stage: Any, detail: str = "") -> FetchFailure:
        self.abort()
        return FetchFailure(stage, self.url, detail, self.read_timeout, IN_BROWSER)

    async def start(self) -> None:
        """Send the request; wait (at most the read timeout) for the status and headers."""
        try:
            response = await self._wait(js.fetch(self.url, self._init))
        except TimeoutError:
            raise self._failure("headers") from None
        except JsException as error:
            raise self._failure("connect", describe_js_error(error)) from error
        except BaseException:
            self.abort()  # cancelled: the task, or the graph run around it
            raise
        self.status = int(response.status)
        self.headers = [(str(k), str(v)) for k, v in response.headers.entries()]
        body = response.body
        if body is None:
            self._open = False  # no body at all (204, HEAD): nothing to abort later
        else:
            self._reader = body.getReader()

    async def read(self) -> bytes | None:
        """The body's next bytes, waited for at most the read timeout; ``None`` at its end."""
        if not self._open:
            return None
        try:
            result = await self._wait(self._reader.read())
        except TimeoutError:
            raise self._failure("idle") from None
        except JsException as error:
            raise self._failure("body", describe_js_error(error)) from error
        except BaseException:
            self.abort()
            raise
        if result.done:
            self._open = False
            return None
        data: bytes = result.value.to_bytes()
        return data

    def abort(self) -> None:
        """Abort the request if it is not over; the server sees its connection closed."""
        if self._open:
            self._open = False
            self._controller.abort()
