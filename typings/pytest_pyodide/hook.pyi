"""``pytest_pyodide.hook``, as far as tests/pyodide/conftest.py uses it."""

class PytestWrapper:
    """pytest-pyodide's options of the session."""

    pyodide_runtimes: set[str]

pytest_wrapper: PytestWrapper
