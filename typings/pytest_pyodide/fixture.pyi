"""``pytest_pyodide.fixture``, as far as tests/pyodide/conftest.py uses it."""

from contextlib import AbstractContextManager
from typing import Any

import pytest

# A Pyodide runner (pytest-pyodide's Selenium-like wrapper of a Node process or browser page).
def selenium_common(
    request: pytest.FixtureRequest,
    runtime: str,
    web_server_main: Any,
    load_pyodide: bool = True,
    browsers: dict[str, Any] | None = None,
    jspi: bool = False,
    worker: bool = False,
) -> AbstractContextManager[Any]: ...
