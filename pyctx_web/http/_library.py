"""The HTTP library the transport serves (httpx or httpx2), and its exceptions for fetch's failures.

The two libraries share one API under two names: ``httpx`` (0.28) and its
successor ``httpx2``, which the OpenAI SDK uses from version 3. Neither is a
dependency of pyctx_web: the one asked for, or found installed, is imported when
a transport is made.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from types import ModuleType
from typing import Literal, TypeAlias

from pyctx_web._homes import publish
from pyctx_web.errors import ArgumentValueError, PyctxError

__all__ = [
    "LIBRARIES",
    "SYNC_UNAVAILABLE",
    "FetchFailure",
    "Library",
    "LibraryMissingError",
    "SyncFetchError",
    "choose_library",
    "failure_error",
    "load",
]

Library: TypeAlias = Literal["httpx", "httpx2"]
"""The name of an HTTP library the transport works with."""

LIBRARIES: tuple[Library, ...] = ("httpx2", "httpx")
"""The libraries, in the order of preference when both are installed."""


def _installed(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


class LibraryMissingError(PyctxError, ImportError):
    """The HTTP library (or SDK) a call needs is not installed."""


def choose_library(library: str | None = None) -> Library:
    """The library to use: ``library`` if given (it must be installed), else the first of
    :data:`LIBRARIES` that is installed."""
    if library is not None:
        if library not in LIBRARIES:
            raise ArgumentValueError(f"library must be 'httpx' or 'httpx2', not {library!r}")
        if not _installed(library):
            raise LibraryMissingError(
                f"library={library!r} was asked for, but {library} is not installed"
            )
        return library
    for name in LIBRARIES:
        if _installed(name):
            return name
    raise LibraryMissingError(
        "pyctx_web.http needs httpx2 or httpx, and neither is installed "
        "(in Pyodide: micropip.install('httpx2') or pyodide.loadPackage('httpx'))"
    )


def load(library: str | None = None) -> ModuleType:
    """The module of :func:`choose_library`'s choice, imported."""
    return importlib.import_module(choose_library(library))


@dataclass
class FetchFailure(Exception):
    """What went wrong in one fetch, before it becomes the library's own exception.

    ``stage`` is ``"connect"`` (fetch rejected before any response), ``"headers"`` (no
    response headers within the read timeout), ``"idle"`` (the body sent nothing within the
    read timeout) or ``"body"`` (reading the body failed); ``detail`` is JavaScript's
    account of it (``"TypeError: Failed to fetch"``), ``timeout`` the timeout in seconds.
    """

    stage: Literal["connect", "headers", "idle", "body"]
    url: str
    detail: str = ""
    timeout: float | None = None
    in_browser: bool = False


_CORS_HINT = (
    "In a browser this is also how a CORS refusal looks: the server must allow this page's "
    "origin (Access-Control-Allow-Origin) and the request's headers "
    "(Access-Control-Allow-Headers); the browser console names the cause"
)


def failure_error(failure: FetchFailure) -> tuple[str, str]:
    """The name of the library's exception class for ``failure``, and its message."""
    url, seconds = failure.url, f"{failure.timeout or 0:g}"
    if failure.stage == "connect":
        text = f"fetch could not reach {url} ({failure.detail})"
        return "ConnectError", f"{text}. {_CORS_HINT}." if failure.in_browser else text
    if failure.stage == "headers":
        return "ReadTimeout", f"no response from {url} within the read timeout of {seconds} s"
    if failure.stage == "idle":
        return "ReadTimeout", f"the response from {url} sent nothing for {seconds} s (read timeout)"
    return "ReadError", f"reading the response from {url} failed ({failure.detail})"


class SyncFetchError(PyctxError, RuntimeError):
    """A synchronous request where Pyodide cannot wait for JavaScript synchronously.

    That needs JavaScript Promise Integration (JSPI) in the runtime and a Python call
    stack entered asynchronously (``pyodide.ffi.can_run_sync()``); the message names the
    async form to use instead.
    """


SYNC_UNAVAILABLE = (
    "a synchronous request through fetch needs JavaScript Promise Integration (JSPI), and "
    "pyodide.ffi.can_run_sync() is False here (the runtime lacks JSPI, or this call did not "
    "start from async code): use the async form (an AsyncClient, openai.AsyncOpenAI, "
    "await model.ainvoke(...) or model.astream(...))"
)
"""The message of :class:`SyncFetchError`."""


publish("pyctx_web.http", LibraryMissingError, SyncFetchError, choose_library)
