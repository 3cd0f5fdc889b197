"""pyctx_web.jsbridge on plain CPython: it imports, and what needs JavaScript says so clearly."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from pyctx_web import jsbridge
from pyctx_web.errors import CallbackConsumedError, JsUnavailableError, PyctxError


def test_imports_and_counts_no_live_callbacks() -> None:
    """The package imports on CPython and reports no live callbacks."""
    assert jsbridge.live_callbacks() == 0
    assert jsbridge.is_contained() is False


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda: jsbridge.bind_js(print), id="bind_js"),
        # No promise exists on CPython: None stands for one, refused before it is read.
        pytest.param(lambda: jsbridge.then(None, print), id="then"),  # type: ignore[arg-type]
        pytest.param(lambda: jsbridge.set_timeout(print, 0), id="set_timeout"),
        pytest.param(lambda: jsbridge.set_interval(print, 10), id="set_interval"),
        pytest.param(lambda: jsbridge.queue_microtask(print), id="queue_microtask"),
        pytest.param(lambda: jsbridge.request_animation_frame(print), id="request_animation_frame"),
        pytest.param(lambda: jsbridge.add_event_listener(object(), "x", print), id="listener"),
        pytest.param(jsbridge.contain, id="contain"),
        pytest.param(jsbridge.release, id="release"),
    ],
)
def test_javascript_only_calls_raise_a_clear_error(call: Callable[[], Any]) -> None:
    """Every JavaScript-only call raises JsUnavailableError naming the call and Pyodide."""
    with pytest.raises(
        JsUnavailableError,
        match=r"^\w+\(\) needs Pyodide \(Python running on a JavaScript runtime\); "
        r"this is cpython on '[^']+'$",
    ) as info:
        call()
    assert isinstance(info.value, PyctxError)
    assert isinstance(info.value, RuntimeError)
    assert jsbridge.live_callbacks() == 0


def test_new_errors_derive_from_the_package_base() -> None:
    """CallbackConsumedError is a PyctxError and a RuntimeError."""
    assert issubclass(CallbackConsumedError, PyctxError)
    assert issubclass(CallbackConsumedError, RuntimeError)
