"""The structure: no import cycles, layers kept apart, small modules and functions, one runner.

The last part is the tests' own: each scenario module of ``tests/scenarios/``
has one runner per tier. A test module runs a scenario module when it names it
(``load("<name>")``, an import of ``tests.scenarios.<name>``, or the name as a
string) or when it runs every scenario module through
``tests.scenario_support.cases``.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.scenario_support import PACKAGE as SCENARIOS
from tests.scenario_support import module_names

PACKAGE = Path(__file__).resolve().parents[2] / "pyctx_web"

MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60

ENGINE = "pyctx_web.graph._engine"
"""The graph engine: spec, channels, step loop, checkpoint records, serde."""

RUN_CONTEXT_LAYER = (
    "pyctx_web.graph._runctx",
    "pyctx_web.graph.runtime",
    "pyctx_web.graph.middleware",
    "pyctx_web.graph.tools",
    "pyctx_web.graph.memory",
)
"""The run-context layer, which plugs into the engine through the interface it declares."""

FRONT = ("pyctx_web.graph.state", "pyctx_web.graph._compiled", "pyctx_web.graph._sync")
"""The builder and the compiled graph, which assemble the engine and the run-context layer."""

LAYERS: tuple[tuple[str, ...], ...] = (
    (
        "pyctx_web.errors",
        "pyctx_web._env",
        "pyctx_web._homes",
        "pyctx_web._records",
        "pyctx_web.jsonparse",
    ),
    ("pyctx_web.context", "pyctx_web.execution", "pyctx_web"),
    ("pyctx_web._js", "pyctx_web.jsbridge", "pyctx_web.http"),
    ("pyctx_web.graph.errors", "pyctx_web.graph.constants", "pyctx_web.graph._values"),
    ("pyctx_web.graph.checkpoint",),
    ("pyctx_web.graph._engine",),
    ("pyctx_web.graph._runctx",),
    ("pyctx_web.graph",),
    ("pyctx_web.server",),
)
"""The layers, bottom first: a module imports only from its own layer and those below.

An entry names a module and everything under it, except ``pyctx_web`` (the
package's own ``__init__``), which names only itself; a module belongs to the
longest entry that names it. The graph's public facades (``state``, ``types``,
``runtime``, ``middleware``, ``drawing``...) and its private front
(``_compiled``, ``_sync``...) are ``pyctx_web.graph``.
"""

DEPRECATED_NAMES = re.compile(r"^_*(MOVED|DEPRECATED|RENAMED|OLD_NAMES|ALIASES)\b")
"""Module-level names that keep old names alive: a table of moved or renamed names."""


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _imports(name: str, path: Path, known: set[str]) -> Iterator[str]:
    """Every package module ``name`` imports, at any level, under TYPE_CHECKING or in a function."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".")
                anchor = anchor if is_package else anchor[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                yield target


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {name: set(_imports(name, path, known)) for name, path in modules.items()}


def _is_ancestor_package(importer: str, imported: str) -> bool:
    # Importing a submodule runs its packages' __init__ first: not an edge back.
    return importer.startswith(imported + ".")


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    edges = {
        name: {t for t in targets if not _is_ancestor_package(name, t)}
        for name, targets in graph.items()
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in edges[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in edges:
        if node not in index:
            visit(node)
    return found


def test_no_import_cycles() -> None:
    """No module imports itself back, counting TYPE_CHECKING and function-level imports."""
    assert _cycles(_graph()) == []


def test_engine_never_imports_the_run_context_layer() -> None:
    """The engine knows the run-context layer only through the interface it declares."""
    wrong = [
        f"{name} -> {target}"
        for name, targets in _graph().items()
        if name.startswith(ENGINE)
        for target in targets
        if target.startswith(RUN_CONTEXT_LAYER + FRONT)
    ]
    assert wrong == []


def test_modules_are_short() -> None:
    """Every module of the package has at most 400 lines."""
    long = {
        name: n
        for name, path in _modules().items()
        if (n := len(path.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}


def test_functions_are_short() -> None:
    """Every function of the package has at most 60 lines, its docstring included."""
    long = []
    for name, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                size = (node.end_lineno or node.lineno) - first + 1
                if size > MAX_FUNCTION_LINES:
                    long.append(f"{name}.{node.name}: {size}")
    assert long == []


def _private_writes(path: Path) -> Iterator[str]:
    """Assignments to another object's private attribute: ``other._x = ...``, ``setattr``."""
    for node in ast.walk(ast.parse(path.read_text())):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            if (
                isinstance(target, ast.Attribute)
                and target.attr.startswith("_")
                and not target.attr.startswith("__")
                and not (isinstance(target.value, ast.Name) and target.value.id in {"self", "cls"})
            ):
                yield f"{path.name}:{target.lineno} {ast.unparse(target)}"
        if (
            isinstance(node, ast.Call)
            and ast.unparse(node.func) in {"setattr", "object.__setattr__"}
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and str(node.args[1].value).startswith("_")
            and not (isinstance(node.args[0], ast.Name) and node.args[0].id in {"self", "cls"})
        ):
            yield f"{path.name}:{node.lineno} {ast.unparse(node)}"


@pytest.mark.parametrize("name", sorted(_modules()))
def test_no_module_writes_private_attributes_of_another(name: str) -> None:
    """A module sets private attributes only on ``self`` or ``cls``."""
    assert list(_private_writes(_modules()[name])) == []


def _layer_of(module: str) -> int:
    best, found = -1, -1
    for index, layer in enumerate(LAYERS):
        for entry in layer:
            exact = module == entry
            under = entry != "pyctx_web" and module.startswith(entry + ".")
            if (exact or under) and len(entry) > best:
                best, found = len(entry), index
    return found


def test_every_module_has_a_layer() -> None:
    """Each module of the package belongs to one of the listed layers."""
    assert [name for name in _modules() if _layer_of(name) < 0] == []


def test_no_module_imports_from_a_higher_layer() -> None:
    """Imports run down the layers only, counting TYPE_CHECKING and function-level imports."""
    wrong = [
        f"{name} -> {target}"
        for name, targets in _graph().items()
        for target in targets
        if not _is_ancestor_package(name, target) and _layer_of(target) > _layer_of(name)
    ]
    assert wrong == []


def _keeps_old_names(path: Path) -> Iterator[str]:
    """A table of moved names, or a module ``__getattr__`` that warns of a deprecation."""
    for node in ast.parse(path.read_text()).body:
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Name) and DEPRECATED_NAMES.match(target.id):
                yield f"{path.name}:{node.lineno} {target.id}"
        if (
            isinstance(node, ast.FunctionDef)
            and node.name == "__getattr__"
            and "DeprecationWarning" in ast.unparse(node)
        ):
            yield f"{path.name}:{node.lineno} __getattr__ warns DeprecationWarning"


@pytest.mark.parametrize("name", sorted(_modules()))
def test_no_deprecated_aliases(name: str) -> None:
    """No module keeps an old name alive: the package has never been released."""
    assert list(_keeps_old_names(_modules()[name])) == []


@pytest.mark.parametrize(
    "name", [n for n in sorted(_modules()) if not any(p.startswith("_") for p in n.split("."))]
)
def test_no_public_type_names_a_private_module(name: str) -> None:
    """What a public module exports names no private module as its ``__module__``."""
    module = importlib.import_module(name)
    private = [
        f"{member}: {value.__module__}"
        for member in getattr(module, "__all__", ())
        if inspect.isclass(value := getattr(module, member)) or inspect.isfunction(value)
        if any(part.startswith("_") for part in value.__module__.split("."))
    ]
    assert private == []


# --- the tests' own layout ---------------------------------------------------------------

TESTS = Path(__file__).resolve().parents[1]
TIERS = ("unit", "pyodide")
"""The tiers whose runners run the scenario modules of ``tests/scenarios/``."""


def _imports_cases(node: ast.AST) -> bool:
    """Whether ``node`` imports ``cases``, the runners' list of every scenario."""
    return (
        isinstance(node, ast.ImportFrom)
        and node.module == "tests.scenario_support"
        and any(alias.name == "cases" for alias in node.names)
    )


def _runs(path: Path, scenario_modules: list[str]) -> set[str]:
    """The scenario modules the test module at ``path`` runs."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    named: set[str] = set()
    for node in ast.walk(tree):
        if _imports_cases(node):
            return set(scenario_modules)
        if isinstance(node, ast.ImportFrom) and node.module:
            named.add(node.module.removeprefix(f"{SCENARIOS}."))
            if node.module == SCENARIOS:
                named.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            named.update(alias.name.removeprefix(f"{SCENARIOS}.") for alias in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            named.add(node.value)
    return named & set(scenario_modules)


def _runners(tier: str) -> dict[str, list[str]]:
    """Each scenario module, and the test modules of ``tier`` that run it."""
    scenario_modules = module_names()
    found: dict[str, list[str]] = defaultdict(list)
    for path in sorted((TESTS / tier).rglob("test_*.py")):
        for module in _runs(path, scenario_modules):
            found[module].append(str(path.relative_to(TESTS)))
    return dict(found)


@pytest.mark.parametrize("tier", TIERS)
def test_each_scenario_module_has_one_runner_per_tier(tier: str) -> None:
    """No scenario module is run by two test modules of one tier, and each is run by one."""
    found = _runners(tier)
    assert {module: paths for module, paths in found.items() if len(paths) > 1} == {}
    assert sorted(found) == module_names()
