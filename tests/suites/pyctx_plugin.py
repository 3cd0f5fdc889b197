"""pytest plugin of the pyctx side: pyctx_web stands in for LangGraph before a suite imports it.

Loaded with ``-p pyctx_plugin`` (tests/suites/run.py), so it runs before the suite's
conftest files, in a venv where the ``langgraph`` distribution is not installed.
"""

from pyctx_web.graph import install_as_langgraph

install_as_langgraph()
