"""Every error the package raises derives from PyctxError, and the builtin it stands for."""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import typing
from pathlib import Path

import pyctx_web
from pyctx_web.errors import PyctxError

PACKAGE = Path(pyctx_web.__file__).resolve().parent

# Raised while decoding or encoding stored data and turned into CheckpointError or
# SerializationError by their one caller; tests/scenarios/checkpointer_contract.py and
# tests/unit/graph/test_checkpoints.py show the errors that come out.
CONVERTED = {
    ("graph/_engine/records.py", "ValueError"),
    ("graph/_engine/serde.py", "ValueError"),
    ("graph/_engine/serde.py", "_Unsupported"),
    ("graph/_engine/serde_models.py", "ValueError"),
}
# The fetch transport raises the HTTP library's own exceptions (httpx's or httpx2's
# ConnectError, ReadTimeout...), which that library's users and SDKs catch.
LIBRARY_OWN = {("http/_transport.py", "Exception")}
# langgraph.prebuilt raises the built-in classes LangGraph's does: its users catch them, and a
# tool's error reaches the model as its repr ("ValueError('...')") under handle_tool_errors.
LIBRARY_OWN |= {
    ("graph/prebuilt/_errors.py", "ValueError"),
    ("graph/prebuilt/_outputs.py", "ValueError"),
    ("graph/prebuilt/_model.py", "TypeError"),
    ("graph/prebuilt/_model.py", "ValueError"),
    ("graph/prebuilt/chat_agent_executor.py", "ValueError"),
    ("graph/prebuilt/tool_node.py", "ValueError"),
    ("graph/prebuilt/tool_validator.py", "ValueError"),
}
# Control-flow signals derive from BaseException on purpose: `except Exception` must miss them.
SIGNALS = {"GraphInterrupt"}
# A module's __getattr__ must raise AttributeError: that is how Python looks attributes up
# (an event-stream run's __getattr__ too, for the streams it does not have).
PROTOCOL = {("__init__.py", "AttributeError"), ("run_stream.py", "AttributeError")}
# LangGraph's BaseStore leaves its batch methods to subclasses, as an abstract method does.
ABSTRACT = {
    ("graph/store/base/__init__.py", "NotImplementedError"),
    # A stream transformer's hooks, which its subclasses give (LangGraph's raise the same).
    ("graph/stream/_types.py", "NotImplementedError"),
    ("graph/stream/_lifecycle.py", "NotImplementedError"),
    ("graph/store/base/batch.py", "NotImplementedError"),
}


def _raised_names() -> list[tuple[str, str, int]]:
    """``(file, name, line)`` of each ``raise Name(...)``; a local factory gives its return type."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text())
        factories = {
            node.name: ast.unparse(node.returns)
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef) and node.returns is not None
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
                func = node.exc.func
                if isinstance(func, ast.Name):
                    name = factories.get(func.id, func.id)
                    found.append((str(path.relative_to(PACKAGE)), name, node.lineno))
    return found


def test_every_raised_class_is_a_pyctx_error() -> None:
    """Each class named in a raise statement of the package is a PyctxError subclass."""
    offenders = []
    for relative, name, line in _raised_names():
        if (relative, name) in CONVERTED | LIBRARY_OWN | ABSTRACT or (
            Path(relative).name,
            name,
        ) in PROTOCOL:
            continue
        if name in SIGNALS:
            continue
        module_name = "pyctx_web." + relative.removesuffix(".py").replace("/", ".")
        module_name = module_name.removesuffix(".__init__")
        module = importlib.import_module(module_name)
        cls = getattr(module, name, None) or getattr(builtins, name, None)
        if inspect.isfunction(cls):  # an imported factory: the class it is annotated to return
            cls = typing.get_type_hints(cls).get("return")
        if not (isinstance(cls, type) and issubclass(cls, PyctxError)):
            offenders.append(f"{relative}:{line} raises {name}")
    assert offenders == []


def test_argument_errors_are_also_the_builtin_errors() -> None:
    """Argument errors can be caught as the CPython builtin they stand for."""
    assert issubclass(pyctx_web.ArgumentTypeError, TypeError)
    assert issubclass(pyctx_web.ArgumentValueError, ValueError)
    assert issubclass(pyctx_web.ImmutableError, TypeError)
    assert issubclass(pyctx_web.UsageError, RuntimeError)
    assert issubclass(pyctx_web.ContextMissingError, LookupError)
