"""``pytest_pyodide.utils``, as far as tests/pyodide/conftest.py uses it."""

from contextlib import AbstractContextManager
from typing import Any

import pytest

def set_webdriver_script_timeout(
    selenium: Any, script_timeout: float | None
) -> AbstractContextManager[None]: ...
def parse_driver_timeout(node: pytest.Item) -> float | None: ...
