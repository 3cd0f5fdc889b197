"""Clients on the fetch transport: httpx or httpx2 clients, the OpenAI SDK, LangChain's ChatOpenAI.

Each function imports its library when called, never before: pyctx_web itself
depends on none of them.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable
from typing import Any, Literal

from pyctx_web._env import IN_PYODIDE
from pyctx_web._homes import publish
from pyctx_web.errors import ArgumentValueError, JsUnavailableError
from pyctx_web.http._headers import DEFAULT_DROPPED_HEADERS, HeaderFilter
from pyctx_web.http._library import LIBRARIES, Library, LibraryMissingError, load
from pyctx_web.http._transport import classes

__all__ = [
    "Credentials",
    "async_client",
    "chat_openai",
    "fetch_transport",
    "openai_client",
    "openai_library",
    "openai_sync_client",
    "sync_client",
]

Credentials = Literal["omit", "same-origin", "include"]
"""fetch's ``credentials`` option: whether cookies and HTTP authentication go along."""

_CREDENTIALS = ("omit", "same-origin", "include")


def _require_pyodide() -> None:
    if not IN_PYODIDE:
        raise JsUnavailableError(
            "pyctx_web.http sends requests through JavaScript's fetch, which needs Pyodide; "
            f"this is {sys.implementation.name} on {sys.platform!r}, where httpx's own "
            "transport works"
        )


def fetch_transport(
    *,
    library: Library | None = None,
    drop_headers: Iterable[str] = DEFAULT_DROPPED_HEADERS,
    keep_headers: Iterable[str] = (),
    credentials: Credentials = "same-origin",
) -> Any:
    """A transport for ``library``'s clients (httpx2 or httpx; default: the one installed,
    httpx2 first) that sends every request through JavaScript's ``fetch``.

    It is the library's ``AsyncBaseTransport`` and ``BaseTransport`` both. Request headers
    named by ``drop_headers`` (default :data:`DEFAULT_DROPPED_HEADERS`; ``"x-stainless-*"``
    is a prefix) are not sent, unless ``keep_headers`` names them. Only in Pyodide.
    """
    _require_pyodide()
    if credentials not in _CREDENTIALS:
        raise ArgumentValueError(
            f"credentials must be 'omit', 'same-origin' or 'include', not {credentials!r}"
        )
    headers = HeaderFilter(drop_headers, keep_headers)
    module = load(library)
    transport_class, _ = classes(module)
    return transport_class(module, headers, credentials)


def _client(
    kind: str,
    library: Library | None,
    drop_headers: Iterable[str],
    keep_headers: Iterable[str],
    credentials: Credentials,
    options: dict[str, Any],
) -> Any:
    """The library's client class ``kind`` (``AsyncClient`` or ``Client``) on fetch."""
    transport = fetch_transport(
        library=library,
        drop_headers=drop_headers,
        keep_headers=keep_headers,
        credentials=credentials,
    )
    return getattr(load(transport.library), kind)(transport=transport, **options)


def async_client(
    *,
    library: Library | None = None,
    drop_headers: Iterable[str] = DEFAULT_DROPPED_HEADERS,
    keep_headers: Iterable[str] = (),
    credentials: Credentials = "same-origin",
    **options: Any,
) -> Any:
    """The library's ``AsyncClient(transport=fetch_transport(...), **options)``."""
    return _client("AsyncClient", library, drop_headers, keep_headers, credentials, options)


def sync_client(
    *,
    library: Library | None = None,
    drop_headers: Iterable[str] = DEFAULT_DROPPED_HEADERS,
    keep_headers: Iterable[str] = (),
    credentials: Credentials = "same-origin",
    **options: Any,
) -> Any:
    """The library's ``Client(transport=fetch_transport(...), **options)``: its requests need
    JSPI (``pyodide.ffi.can_run_sync()``), else they raise :class:`SyncFetchError`."""
    return _client("Client", library, drop_headers, keep_headers, credentials, options)


def _sdk() -> Any:
    """The ``openai`` package, imported now (typed loosely: pyctx_web does not depend on it)."""
    return importlib.import_module("openai")


def openai_library() -> Library:
    """The HTTP library the installed ``openai`` SDK builds its clients on (httpx2 from 3.0)."""
    openai = _sdk()
    for cls in openai.DefaultAsyncHttpxClient.__mro__:
        root = cls.__module__.partition(".")[0]
        for name in LIBRARIES:
            if root == name:
                return name
    raise LibraryMissingError(
        "the installed openai SDK builds its clients on neither httpx2 nor httpx"
    )


_OWN_CLIENTS = ("http_client", "http_async_client")


def _sdk_options(
    api_key: str | None, base_url: str | None, options: dict[str, Any]
) -> dict[str, Any]:
    for name in _OWN_CLIENTS:
        if name in options:
            raise ArgumentValueError(
                f"{name} is what pyctx_web.http provides: to pass a client of your own, "
                "build the SDK's client or ChatOpenAI directly (with async_client() or "
                "sync_client() if it is to use fetch)"
            )
    given = {"api_key": api_key, "base_url": base_url}
    return {**{k: v for k, v in given.items() if v is not None}, **options}


def _openai(
    sdk_class: str,
    client: Callable[..., Any],
    api_key: str | None,
    base_url: str | None,
    drop_headers: Iterable[str],
    keep_headers: Iterable[str],
    credentials: Credentials,
    options: dict[str, Any],
) -> Any:
    """The SDK's class ``sdk_class`` on a fetch client that ``client`` (:func:`async_client`
    or :func:`sync_client`) makes with the SDK's HTTP library."""
    options = _sdk_options(api_key, base_url, options)
    _require_pyodide()
    openai = _sdk()
    http_client = client(
        library=openai_library(),
        drop_headers=drop_headers,
        keep_headers=keep_headers,
        credentials=credentials,
    )
    return getattr(openai, sdk_class)(http_client=http_client, **options)


def openai_client(
    *,
    api_key: str | None = None,
    base_url: str | None = None,
    drop_headers: Iterable[str] = DEFAULT_DROPPED_HEADERS,
    keep_headers: Iterable[str] = (),
    credentials: Credentials = "same-origin",
    **options: Any,
) -> Any:
    """An ``openai.AsyncOpenAI`` whose requests go through fetch; ``options`` are the SDK's
    own (``max_retries``, ``timeout``, ``default_headers``...)."""
    return _openai(
        "AsyncOpenAI",
        async_client,
        api_key,
        base_url,
        drop_headers,
        keep_headers,
        credentials,
        options,
    )


def openai_sync_client(
    *,
    api_key: str | None = None,
    base_url: str | None = None,
    drop_headers: Iterable[str] = DEFAULT_DROPPED_HEADERS,
    keep_headers: Iterable[str] = (),
    credentials: Credentials = "same-origin",
    **options: Any,
) -> Any:
    """An ``openai.OpenAI`` whose requests go through fetch: only where JSPI allows
    (else each request raises :class:`SyncFetchError`); prefer :func:`openai_client`."""
    return _openai(
        "OpenAI", sync_client, api_key, base_url, drop_headers, keep_headers, credentials, options
    )


def chat_openai(
    *,
    model: str,
    api_key: str | None = None,
    base_url: str | None = None,
    drop_headers: Iterable[str] = DEFAULT_DROPPED_HEADERS,
    keep_headers: Iterable[str] = (),
    credentials: Credentials = "same-origin",
    **options: Any,
) -> Any:
    """A ``langchain_openai.ChatOpenAI`` whose requests go through fetch: ``ainvoke`` and
    ``astream`` everywhere, ``invoke`` and ``stream`` only where JSPI allows (else they raise
    :class:`SyncFetchError`). ``options`` are ChatOpenAI's own (``streaming``, ``max_retries``)."""
    options = _sdk_options(api_key, base_url, options)
    _require_pyodide()
    chat_model: Any = importlib.import_module("langchain_openai").ChatOpenAI
    library = openai_library()
    filters: dict[str, Any] = {
        "library": library,
        "drop_headers": frozenset(drop_headers),
        "keep_headers": frozenset(keep_headers),
        "credentials": credentials,
    }
    return chat_model(
        model=model,
        http_async_client=async_client(**filters),
        http_client=sync_client(**filters),
        **options,
    )


publish(
    "pyctx_web.http",
    async_client,
    chat_openai,
    fetch_transport,
    openai_client,
    openai_library,
    openai_sync_client,
    sync_client,
)
