"""What importing the package costs: a constant version, and imports of only what is used."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

import pyctx_web

ROOT = Path(__file__).resolve().parents[2]


def test_version_is_a_plain_string_assigned_in_the_package() -> None:
    """__version__ is a str assigned by a literal in pyctx_web/__init__.py, not computed."""
    tree = ast.parse((ROOT / "pyctx_web" / "__init__.py").read_text())
    literals = [
        node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and [ast.unparse(t) for t in node.targets] == ["__version__"]
        and isinstance(node.value, ast.Constant)
    ]
    assert literals == [pyctx_web.__version__]
    assert type(vars(pyctx_web)["__version__"]) is str


def test_pyproject_takes_its_version_from_the_package() -> None:
    """pyproject.toml declares no version of its own: the build reads pyctx_web/__init__.py."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in config["project"]
    assert "version" in config["project"]["dynamic"]
    assert config["tool"]["hatch"]["version"] == {"path": "pyctx_web/__init__.py"}


def test_build_backend_reads_the_package_constant() -> None:
    """The version hatchling writes into the wheel's metadata is pyctx_web.__version__."""
    core = pytest.importorskip("hatchling.metadata.core")
    manager = pytest.importorskip("hatchling.plugin.manager")
    metadata = core.ProjectMetadata(str(ROOT), manager.PluginManager())
    assert metadata.version == pyctx_web.__version__
