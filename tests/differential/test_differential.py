"""Each program prints the same on real LangGraph and on pyctx_web, as its expected file says.

Real LangGraph runs from ``.venv-langgraph`` (``./build.sh setup`` creates it);
pyctx_web runs in this Python through ``launcher.py``. See ``support.py``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.differential import support

NAMES = support.program_names()


def _expected(name: str) -> str:
    path = support.expected_path(name)
    if not path.exists():
        pytest.fail(f"{path} is missing: python -m tests.differential.support --update {name}")
    return path.read_text(encoding="utf-8")


def _check(name: str, side: str, cwd: Path) -> None:
    result = support.run(name, side, cwd)
    actual = support.normalize(result.stdout)
    diff = support.difference(name, _expected(name), actual, side)
    if result.returncode != 0:
        pytest.fail(f"{result.failure()}\n{diff or ''}", pytrace=False)
    if diff is not None:
        pytest.fail(f"{name} printed otherwise on {side}:\n{diff}", pytrace=False)


@pytest.mark.parametrize("name", NAMES)
def test_langgraph_prints_expected(name: str, tmp_path: Path) -> None:
    """Real LangGraph still prints the program's expected output, once normalized."""
    if not support.REFERENCE_PYTHON.exists():
        pytest.skip(f"{support.REFERENCE_PYTHON} is missing: ./build.sh setup creates it")
    _check(name, "langgraph", tmp_path)


@pytest.mark.parametrize("name", NAMES)
def test_pyctx_web_prints_what_langgraph_prints(
    name: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """pyctx_web, installed under LangGraph's module names, prints what real LangGraph prints."""
    if name in support.LATER:
        request.applymarker(pytest.mark.xfail(reason=support.LATER[name], strict=True))
    _check(name, "pyctx_web", tmp_path)


def test_tier_has_enough_programs() -> None:
    """The tier has at least 15 programs besides the later ones, each with its expected output."""
    counted = support.counted_names()
    assert len(counted) >= support.MIN_PROGRAMS, counted
    assert set(support.LATER) <= set(NAMES)
    assert set(counted) >= support.PYODIDE
    assert [name for name in NAMES if not support.expected_path(name).exists()] == []
    orphans = {path.stem for path in support.EXPECTED.glob("*.txt")} - set(NAMES)
    assert orphans == set()


@pytest.mark.parametrize("name", NAMES)
def test_program_names_its_guide(name: str) -> None:
    """Every program opens with a docstring that names the LangGraph guide it follows."""
    tree = ast.parse(support.program_path(name).read_text(encoding="utf-8"))
    docstring = ast.get_docstring(tree) or ""
    assert "guide" in docstring.lower() or "README" in docstring or "page" in docstring


@pytest.mark.parametrize("name", sorted(support.PYODIDE))
def test_pyodide_program_is_async_throughout(name: str) -> None:
    """A program run in Pyodide defines ``async def main()`` and only runs it as ``__main__``."""
    tree = ast.parse(support.program_path(name).read_text(encoding="utf-8"))
    mains = [n for n in tree.body if isinstance(n, ast.AsyncFunctionDef) and n.name == "main"]
    assert len(mains) == 1
    guard = tree.body[-1]
    assert isinstance(guard, ast.If)
    assert ast.unparse(guard.body[0]) == "asyncio.run(main())"
    assert len(guard.body) == 1


@pytest.mark.parametrize(
    ("text", "normalized"),
    [
        ("id='bce344019719a821bb98e8ac77437801'", "id='<hex-1>'"),
        (
            "{'thread_id': 'ab87445a-ee8d-49e1-a82d-2d231b1e6361', 'checkpoint_id': 'ckpt-7'}",
            "{'thread_id': '<uuid-1>', 'checkpoint_id': '<uuid-2>'}",
        ),
        (
            "a 1f1e74d9-e9f2-606b-8002-4a66bfa49855 b 1F1E74D9-E9F2-606B-8002-4A66BFA49855",
            "a <uuid-1> b <uuid-1>",
        ),
        ("created_at='2024-08-29T19:19:38.821749+00:00'", "created_at='<time>'"),
        ("<function f at 0x7f3a2b1c0d40>  \r\nnext", "<function f at 0x<addr>>\nnext"),
    ],
)
def test_normalize_masks_ids_times_and_addresses(text: str, normalized: str) -> None:
    """Ids are numbered by first appearance (equal ids stay equal), times and addresses masked."""
    assert support.normalize(text) == normalized
