"""``pyodide.code``, as far as this project uses it."""

from typing import Any

# Whatever the JavaScript evaluates to, converted as Pyodide converts a JavaScript value.
def run_js(code: str, /) -> Any: ...
