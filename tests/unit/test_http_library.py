"""pyctx_web.http on CPython: choosing httpx or httpx2, the errors of fetch's failures, no fetch."""

from __future__ import annotations

import re
import subprocess
import sys
from typing import Any

import httpx
import httpx2
import pytest

from pyctx_web.errors import ArgumentValueError, JsUnavailableError
from pyctx_web.http import (
    LibraryMissingError,
    async_client,
    chat_openai,
    choose_library,
    fetch_transport,
    openai_client,
    openai_sync_client,
    sync_client,
)
from pyctx_web.http._library import FetchFailure, failure_error

URL = "https://api.example.com/v1/chat/completions"


def test_httpx2_is_chosen_when_both_libraries_are_installed() -> None:
    """With no library named, httpx2 (the one the OpenAI SDK uses from 3.0) is preferred."""
    assert choose_library() == "httpx2"


@pytest.mark.parametrize("name", ["httpx", "httpx2"])
def test_a_named_library_is_chosen(name: str) -> None:
    """A library named explicitly is the one used."""
    assert choose_library(name) == name


def test_an_unknown_library_name_is_refused() -> None:
    """A name other than httpx or httpx2 is a clear error."""
    with pytest.raises(
        ArgumentValueError, match=r"^library must be 'httpx' or 'httpx2', not 'requests'$"
    ):
        choose_library("requests")


def test_a_library_that_is_not_installed_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """Naming a library that cannot be imported is LibraryMissingError, an ImportError."""
    monkeypatch.setitem(sys.modules, "httpx2", None)  # what Python does for a blocked import
    message = "library='httpx2' was asked for, but httpx2 is not installed"
    with pytest.raises(LibraryMissingError, match=rf"^{re.escape(message)}$"):
        choose_library("httpx2")


def test_no_library_installed_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    """With neither library importable, the error says how to install one in Pyodide."""
    monkeypatch.setitem(sys.modules, "httpx2", None)
    monkeypatch.setitem(sys.modules, "httpx", None)
    message = (
        "pyctx_web.http needs httpx2 or httpx, and neither is installed "
        "(in Pyodide: micropip.install('httpx2') or pyodide.loadPackage('httpx'))"
    )
    with pytest.raises(ImportError, match=rf"^{re.escape(message)}$"):
        choose_library()


def test_only_httpx_installed_is_chosen(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without httpx2, httpx is the library."""
    monkeypatch.setitem(sys.modules, "httpx2", None)
    assert choose_library() == "httpx"


def test_a_refused_fetch_is_a_connect_error() -> None:
    """fetch rejecting before any response is ConnectError, naming the URL and the cause."""
    failure = FetchFailure("connect", URL, "TypeError: fetch failed (connect ECONNREFUSED)")
    assert failure_error(failure) == (
        "ConnectError",
        f"fetch could not reach {URL} (TypeError: fetch failed (connect ECONNREFUSED))",
    )


def test_in_a_browser_the_connect_error_says_it_may_be_cors() -> None:
    """A browser's fetch cannot tell a CORS refusal from a network error: the message says so."""
    failure = FetchFailure("connect", URL, "TypeError: Failed to fetch", in_browser=True)
    name, message = failure_error(failure)
    assert name == "ConnectError"
    assert message == (
        f"fetch could not reach {URL} (TypeError: Failed to fetch). In a browser this is also "
        "how a CORS refusal looks: the server must allow this page's origin "
        "(Access-Control-Allow-Origin) and the request's headers (Access-Control-Allow-Headers); "
        "the browser console names the cause."
    )


@pytest.mark.parametrize(
    ("stage", "name", "message"),
    [
        ("headers", "ReadTimeout", f"no response from {URL} within the read timeout of 2.5 s"),
        ("idle", "ReadTimeout", f"the response from {URL} sent nothing for 2.5 s (read timeout)"),
        ("body", "ReadError", f"reading the response from {URL} failed (TypeError: terminated)"),
    ],
)
def test_timeouts_and_failed_reads_become_the_library_errors(
    stage: str, name: str, message: str
) -> None:
    """No headers or no body within the read timeout is ReadTimeout; a failed read ReadError."""
    failure = FetchFailure(stage, URL, "TypeError: terminated", 2.5)  # type: ignore[arg-type]
    assert failure_error(failure) == (name, message)
    for library in (httpx, httpx2):
        assert issubclass(getattr(library, name), library.TransportError)


@pytest.mark.parametrize(
    "build",
    [fetch_transport, async_client, sync_client, openai_client, openai_sync_client, chat_openai],
)
def test_without_pyodide_there_is_no_fetch_transport(build: Any) -> None:
    """On CPython the builders say that fetch needs Pyodide, and which transport works here."""
    message = (
        "pyctx_web.http sends requests through JavaScript's fetch, which needs Pyodide; "
        f"this is cpython on {sys.platform!r}, where httpx's own transport works"
    )
    with pytest.raises(JsUnavailableError, match=rf"^{re.escape(message)}$"):
        build(model="m") if build is chat_openai else build()


def test_importing_pyctx_web_http_imports_no_http_library() -> None:
    """httpx, httpx2, openai and langchain_openai are imported only by the calls that use them."""
    code = (
        "import sys, pyctx_web.http\n"
        "print(sorted(m for m in ('httpx', 'httpx2', 'openai', 'langchain_openai') "
        "if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("build", [openai_client, openai_sync_client, chat_openai])
@pytest.mark.parametrize("option", ["http_client", "http_async_client"])
def test_a_client_of_ones_own_is_refused_with_the_way_to_pass_it(build: Any, option: str) -> None:
    """The SDK builders refuse an http client of the caller's, saying how to pass one."""
    message = (
        f"{option} is what pyctx_web.http provides: to pass a client of your own, build the "
        "SDK's client or ChatOpenAI directly (with async_client() or sync_client() if it is to "
        "use fetch)"
    )
    options: dict[str, Any] = {option: None}
    if build is chat_openai:
        options["model"] = "m"
    with pytest.raises(ArgumentValueError, match=rf"^{re.escape(message)}$"):
        build(**options)
