"""tools/bytecode.py: wheels and zips compiled to sourceless, unchecked-hash bytecode.

``./build.sh setup`` runs it inside Pyodide; here it runs on the host CPython, whose
own bytecode the compiled archives then hold.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import io
import marshal
import subprocess
import sys
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

TOOL = Path(__file__).resolve().parents[2] / "tools" / "bytecode.py"


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pyctx_bytecode_tool", TOOL)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bytecode = _tool()


def _zip(entries: dict[str, str]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in entries.items():
            archive.writestr(name, text)
    return out.getvalue()


def _wheel() -> bytes:
    files = {
        "demo_pkg/__init__.py": "from demo_pkg.inner import VALUE\n",
        "demo_pkg/inner.py": '"""Inner."""\nVALUE = 42\n',
        "demo_pkg/data.js": "export const x = 1;\n",
        "demo_pkg-1.0.dist-info/METADATA": "Metadata-Version: 2.4\nName: demo-pkg\nVersion: 1.0\n",
        "demo_pkg-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n",
    }
    record = "".join(f"{name},,\n" for name in files) + "demo_pkg-1.0.dist-info/RECORD,,\n"
    return _zip({**files, "demo_pkg-1.0.dist-info/RECORD": record})


def _run(code: str, *path: Path) -> str:
    command = [
        sys.executable,
        "-B",
        "-c",
        f"import sys; sys.path[:0] = {list(map(str, path))}\n{code}",
    ]
    return subprocess.run(command, capture_output=True, text=True, check=True, timeout=60).stdout


def test_pyc_is_unchecked_hash_of_its_source() -> None:
    """The pyc carries this interpreter's magic, the unchecked-hash flag and the source's hash."""
    source = b"x = 1\n"
    data = bytecode.compile_source(source, "/somewhere/x.py")
    assert data[:4] == importlib.util.MAGIC_NUMBER
    assert int.from_bytes(data[4:8], "little") == 0b01
    assert data[8:16] == importlib.util.source_hash(source)


def test_wheel_is_retagged_and_its_record_lists_the_compiled_files(tmp_path: Path) -> None:
    """The compiled wheel has no .py, keeps data files, names this CPython and a true RECORD."""
    name, data = bytecode.compile_wheel(
        _wheel(), "demo_pkg-1.0-py3-none-any.whl", "emscripten_5_0_3_wasm32", "/site/"
    )
    python = f"cp{sys.version_info.major}{sys.version_info.minor}"
    assert name == f"demo_pkg-1.0-{python}-{python}-emscripten_5_0_3_wasm32.whl"
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = set(archive.namelist())
        assert {"demo_pkg/__init__.pyc", "demo_pkg/inner.pyc", "demo_pkg/data.js"} <= names
        assert not [n for n in names if n.endswith(".py")]
        wheel = archive.read("demo_pkg-1.0.dist-info/WHEEL").decode()
        assert f"Tag: {python}-{python}-emscripten_5_0_3_wasm32" in wheel
        assert "py3-none-any" not in wheel
        for line in archive.read("demo_pkg-1.0.dist-info/RECORD").decode().splitlines():
            entry, digest, size = line.split(",")
            if entry.endswith("RECORD"):
                continue
            content = archive.read(entry)
            expected = base64.urlsafe_b64encode(hashlib.sha256(content).digest()).rstrip(b"=")
            assert (digest, size) == (f"sha256={expected.decode()}", str(len(content)))
        archive.extractall(tmp_path)
    out = _run(
        "import demo_pkg, demo_pkg.inner as m\n"
        "print(demo_pkg.inner.VALUE, type(m.__spec__.loader).__name__, m.__file__)",
        tmp_path,
    )
    assert out.split() == ["42", "SourcelessFileLoader", str(tmp_path / "demo_pkg" / "inner.pyc")]


def test_wheel_code_names_its_site_packages_source() -> None:
    """A traceback of the compiled code names the module where the site-packages would hold it."""
    _, data = bytecode.compile_wheel(
        _wheel(), "demo_pkg-1.0-py3-none-any.whl", "emscripten_5_0_3_wasm32", "/site/"
    )
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        pyc = archive.read("demo_pkg/inner.pyc")
    assert marshal.loads(pyc[16:]).co_filename == "/site/demo_pkg/inner.py"


def test_not_a_wheel_name_is_refused() -> None:
    """A file name without the wheel's five parts is refused with the name."""
    with pytest.raises(
        ValueError, match=r"^'demo\.whl' is not a wheel name such as name-1\.0-py3-none-any\.whl$"
    ):
        bytecode.compile_wheel(_wheel(), "demo.whl", "emscripten_5_0_3_wasm32", "/site/")


def test_wheel_entries_are_stored_uncompressed() -> None:
    """Every entry of the compiled wheel is stored: loadPyctxWeb writes them without inflating."""
    _, data = bytecode.compile_wheel(
        _wheel(), "demo_pkg-1.0-py3-none-any.whl", "emscripten_5_0_3_wasm32", "/site/"
    )
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert {info.compress_type for info in archive.infolist()} == {zipfile.ZIP_STORED}


def test_folder_of_modules_imports_from_bytecode(tmp_path: Path) -> None:
    """A folder's modules become stored top-level pycs that import each other, sourceless."""
    data = bytecode.compile_folder(
        {"app.py": b"from helper import f\nVALUE = f()\n", "helper.py": b"def f(): return 5\n"},
        f"{tmp_path}/",
    )
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert sorted(archive.namelist()) == ["app.pyc", "helper.pyc"]
        assert {info.compress_type for info in archive.infolist()} == {zipfile.ZIP_STORED}
        code = marshal.loads(archive.read("helper.pyc")[16:])
        archive.extractall(tmp_path)
    assert code.co_filename == f"{tmp_path}/helper.py"
    out = _run("import app\nprint(app.VALUE, type(app.__spec__.loader).__name__)", tmp_path)
    assert out.split() == ["5", "SourcelessFileLoader"]


def test_folder_takes_only_module_file_names() -> None:
    """A name that is not a top-level .py file is refused, naming it."""
    with pytest.raises(
        ValueError, match=r"^'pkg/app\.py' is not a module file name such as app\.py$"
    ):
        bytecode.compile_folder({"pkg/app.py": b""}, "/x/")


def test_stdlib_zip_imports_from_bytecode(tmp_path: Path) -> None:
    """Every module of the compiled zip imports from its pyc through the zip importer."""
    stock = _zip(
        {"zpkg/__init__.py": "from zpkg.mod import f\n", "zpkg/mod.py": "def f(): return 7\n"}
    )
    archive = tmp_path / "lib.zip"
    archive.write_bytes(bytecode.compile_stdlib(stock, f"{archive}/"))
    with zipfile.ZipFile(archive) as compiled:
        assert sorted(compiled.namelist()) == ["zpkg/__init__.pyc", "zpkg/mod.pyc"]
    out = _run(
        "import zpkg, zpkg.mod\n"
        "print(zpkg.f(), zpkg.mod.__file__, zpkg.mod.__spec__.loader.get_source('zpkg.mod'))",
        archive,
    )
    assert out.split() == ["7", f"{archive}/zpkg/mod.pyc", "None"]


def test_same_input_gives_the_same_bytes() -> None:
    """Compiling twice gives identical archives, so build caches and lock hashes hold."""
    first = bytecode.compile_wheel(_wheel(), "demo_pkg-1.0-py3-none-any.whl", "p", "/s/")
    assert first == bytecode.compile_wheel(_wheel(), "demo_pkg-1.0-py3-none-any.whl", "p", "/s/")
