"""install_as_langgraph() beside LangGraph's add-ons, which share the langgraph folder."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

REFUSAL = (
    "refused: install_as_langgraph() refuses to shadow the real langgraph package, which is "
    "importable here; import langgraph itself, or uninstall it"
)


def _distribution(site: Path, name: str, files: dict[str, str]) -> None:
    """Install a distribution ``name`` 0.1 into ``site``: its files and real .dist-info metadata."""
    for relative, text in files.items():
        (site / relative).parent.mkdir(parents=True, exist_ok=True)
        (site / relative).write_text(text)
    info = site / f"{name.replace('-', '_')}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "RECORD").write_text("".join(f"{relative},,\n" for relative in files))


def _addon(site: Path) -> None:
    """Install two fake add-ons: one below langgraph.checkpoint, one directly below langgraph."""
    _distribution(
        site,
        "langgraph-checkpoint-fake",
        {
            "langgraph/checkpoint/fake/__init__.py": (
                "from langgraph.checkpoint.memory import InMemorySaver\n"
                "from langgraph.checkpoint.fake.part import PART\n"
            ),
            "langgraph/checkpoint/fake/part.py": "PART = 'part'\n",
        },
    )
    _distribution(site, "langgraph-extra", {"langgraph/extra/__init__.py": "NAME = 'extra'\n"})


def _run(code: str, site: Path) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter whose site directory is ``site``, with this checkout."""
    prelude = f"import site; site.addsitedir({str(site)!r})\n"
    return subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        check=False,
        timeout=60,
    )


INSTALL = """
from pyctx_web.errors import UsageError
from pyctx_web.graph import install_as_langgraph
try:
    install_as_langgraph()
except UsageError as error:
    print("refused:", error)
    raise SystemExit(0)
"""


def test_addon_modules_load_on_top_of_pyctx_web(tmp_path: Path) -> None:
    """With only add-ons installed, their modules import from their folders and see pyctx_web's."""
    _addon(tmp_path)
    done = _run(
        INSTALL
        + """
install_as_langgraph()  # a second call changes nothing
import langgraph.checkpoint.fake as fake
import langgraph.extra
import langgraph.graph
print(fake.InMemorySaver.__module__, fake.PART, langgraph.extra.NAME)
print(fake.__file__.endswith("langgraph/checkpoint/fake/__init__.py"), langgraph.graph.__name__)
""",
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [
        "pyctx_web.graph.saver",
        "part",
        "extra",
        "True",
        "pyctx_web.graph",
    ]


def test_a_module_no_one_provides_still_fails_to_import(tmp_path: Path) -> None:
    """Beside add-ons, a module neither they nor pyctx_web have raises ModuleNotFoundError."""
    _addon(tmp_path)
    done = _run(INSTALL + "import langgraph.checkpoint.nowhere\n", tmp_path)
    assert "ModuleNotFoundError: No module named 'langgraph.checkpoint.nowhere'" in done.stderr


def test_refuses_the_langgraph_distribution_beside_addons(tmp_path: Path) -> None:
    """With the langgraph distribution installed (metadata only), install_as_langgraph() refuses."""
    _addon(tmp_path)
    _distribution(tmp_path, "langgraph", {"langgraph/version.py": "VERSION = '0.1'\n"})
    done = _run(INSTALL + "print('installed')\n", tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == REFUSAL


def test_refuses_a_langgraph_source_tree_without_metadata(tmp_path: Path) -> None:
    """A langgraph folder holding LangGraph's engine (pregel/) is real even with no metadata."""
    _addon(tmp_path)
    (tmp_path / "langgraph" / "pregel").mkdir()
    (tmp_path / "langgraph" / "pregel" / "__init__.py").write_text("")
    done = _run(INSTALL + "print('installed')\n", tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == REFUSAL
