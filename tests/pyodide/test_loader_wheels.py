"""loadPyctxWeb (build/dist/pyctx_web.mjs) against hostile wheels, where it runs: Node and Chromium.

Each wheel is built here with Python's ``zipfile`` and handed to the loader as bytes, in a
Pyodide that has pyctx_web installed already (so a wheel that got through would be reported
installed). Every hostile wheel starts with a harmless entry: a refused wheel must not have
written it, nor anything else.
"""

from __future__ import annotations

import io
import json
import struct
import zipfile
from dataclasses import dataclass, field
from typing import Any

import pytest

import pyctx_web

URL = "https://wheels.example/hostile-0.1-py3-none-any.whl"
PREFIX = f"loadPyctxWeb: {URL} did not install pyctx_web: "
SYMLINK = 0o120777
ZEROS = b"\0" * (2 << 20)  # 2 MB that deflate to about 2 KB
DECLARED_BIG = 65 << 20  # over the default cap of 64 MB

# Imports the loader as a page or worker serves it: build/dist/pyctx_web.mjs (pytest-pyodide's
# Node driver runs in build/dist; its Chromium page is served from there). Hands the wheel to
# it and reports the outcome and which of the given paths (site-packages relative, or
# absolute) exist afterwards.
LOAD = """
const where = typeof location === "object"
  ? new URL("pyctx_web.mjs", location.href).href
  : `file://${process.cwd()}/pyctx_web.mjs`;
const { loadPyctxWeb } = await import(where);
const sitePackages = pyodide.runPython(
  "import sys; next(p for p in sys.path if p.endswith('/site-packages'))");
const wheel = new Uint8Array(%(bytes)s);
let outcome;
try {
  outcome = "resolved " + await loadPyctxWeb(pyodide, { wheelURL: %(url)s, wheel, ...%(options)s });
} catch (error) {
  outcome = error.message;
}
const full = (path) => path.startsWith("/") ? path : `${sitePackages}/${path}`;
const written = %(paths)s.filter((path) => pyodide.FS.analyzePath(full(path)).exists);
const size = (path) => pyodide.FS.readFile(full(path)).length;
return { outcome, written, sizes: Object.fromEntries(written.map((path) => [path, size(path)])) };
"""


@dataclass
class Outcome:
    """What loadPyctxWeb did with a wheel."""

    outcome: str
    """``resolved <version>``, or the rejection's message."""
    written: list[str] = field(default_factory=list)
    """Which of the paths asked about exist afterwards."""
    sizes: dict[str, int] = field(default_factory=dict)
    """The size of each of them."""


def wheel(*entries: tuple[str, bytes] | tuple[str, bytes, int]) -> bytearray:
    """A zip archive of deflated entries (name, data[, unix mode]), as zipfile writes it."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data, *mode in entries:
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            if mode:
                info.external_attr = mode[0] << 16
            archive.writestr(info, data)
    return bytearray(buffer.getvalue())


def declare_size(archive: bytearray, name: str, size: int, *, central: bool = True) -> bytearray:
    """The archive with entry ``name``'s uncompressed size changed in its local header, and
    in the central directory too when ``central``."""
    encoded = name.encode()
    struct.pack_into("<I", archive, archive.index(encoded) - 30 + 22, size)
    if central:
        struct.pack_into("<I", archive, archive.rindex(encoded) - 46 + 24, size)
    return archive


def load(selenium: Any, data: bytes | bytearray, paths: list[str], **options: int) -> Outcome:
    """loadPyctxWeb given ``data`` as the wheel, in the runtime's Pyodide."""
    code = LOAD % {
        "bytes": json.dumps(list(data)),
        "url": json.dumps(URL),
        "options": json.dumps(options),
        "paths": json.dumps(paths),
    }
    return Outcome(**selenium.run_js(code))


HARMLESS = b"harmless = True\n"
DIST_INFO = f"pyctx_web-{pyctx_web.__version__}.dist-info"

REFUSED = {
    "deflated-traversal": (
        wheel(("harmless_traversal.py", HARMLESS), ("../escape_traversal.py", HARMLESS)),
        {},
        ["/lib/python3.14/escape_traversal.py"],
        'the wheel\'s entry "../escape_traversal.py" names a file outside its folder',
    ),
    "absolute-name": (
        wheel(("harmless_absolute.py", HARMLESS), ("/tmp/escape_absolute.py", HARMLESS)),
        {},
        ["/tmp/escape_absolute.py"],
        'the wheel\'s entry "/tmp/escape_absolute.py" is an absolute path',
    ),
    "drive-letter": (
        wheel(("harmless_drive.py", HARMLESS), ("C:/escape_drive.py", HARMLESS)),
        {},
        ["C:"],
        'the wheel\'s entry "C:/escape_drive.py" is an absolute path',
    ),
    "backslash": (
        wheel(("harmless_backslash.py", HARMLESS), ("..\\escape_backslash.py", HARMLESS)),
        {},
        ["..\\escape_backslash.py"],
        'the wheel\'s entry "..\\\\escape_backslash.py" has a backslash in its name '
        "(zip names separate folders with /)",
    ),
    "symlink": (
        wheel(("harmless_symlink.py", HARMLESS), ("link_symlink.py", b"/etc/passwd", SYMLINK)),
        {},
        ["link_symlink.py"],
        'the wheel\'s entry "link_symlink.py" is a symbolic link',
    ),
    "inflates-past-its-size": (
        declare_size(
            wheel(("harmless_lie_small.py", HARMLESS), ("lie_small.bin", ZEROS)),
            "lie_small.bin",
            100,
        ),
        {},
        ["lie_small.bin"],
        'the wheel\'s entry "lie_small.bin" inflates to more than its declared 100 bytes',
    ),
    "inflates-short-of-its-size": (
        declare_size(
            wheel(("harmless_lie_big.py", HARMLESS), ("lie_big.bin", b"\0" * 1000)),
            "lie_big.bin",
            2000,
        ),
        {},
        ["lie_big.bin"],
        'the wheel\'s entry "lie_big.bin" inflates to 1000 bytes, not its declared 2000',
    ),
    "local-header-disagrees": (
        declare_size(
            wheel(("harmless_local.py", HARMLESS), ("local.bin", b"\0" * 1000)),
            "local.bin",
            10,
            central=False,
        ),
        {},
        ["local.bin"],
        'the wheel\'s entry "local.bin" has a local header whose size (10) is not the '
        "central directory's (1000)",
    ),
    "over-the-default-cap": (
        declare_size(
            wheel(("harmless_default_cap.py", HARMLESS), ("declared_big.bin", b"\0" * 1000)),
            "declared_big.bin",
            DECLARED_BIG,
        ),
        {},
        ["declared_big.bin"],
        'the wheel\'s entry "declared_big.bin" takes the wheel past 67108864 bytes unpacked '
        "(options.maxUnpackedBytes)",
    ),
    # pyctx_web is installed already: its folder and its dist-info's files are in the way.
    "file-over-a-folder": (
        wheel(("harmless_over_folder.py", HARMLESS), ("pyctx_web", HARMLESS)),
        {},
        [],
        'the wheel\'s entry "pyctx_web" would replace the folder '
        "/lib/python3.14/site-packages/pyctx_web",
    ),
    "folder-over-a-file": (
        wheel(
            ("harmless_over_file.py", HARMLESS),
            (f"{DIST_INFO}/METADATA/inner.py", HARMLESS),
        ),
        {},
        [],
        f'the wheel\'s entry "{DIST_INFO}/METADATA/inner.py" needs a folder where the file '
        f"/lib/python3.14/site-packages/{DIST_INFO}/METADATA is",
    ),
    "zip-bomb-over-a-lower-cap": (
        wheel(("harmless_bomb.py", HARMLESS), ("bomb.bin", ZEROS)),
        {"maxUnpackedBytes": 1 << 20},
        ["bomb.bin"],
        'the wheel\'s entry "bomb.bin" takes the wheel past 1048576 bytes unpacked '
        "(options.maxUnpackedBytes)",
    ),
}


@pytest.mark.parametrize(
    ("data", "options", "escapes", "message"), REFUSED.values(), ids=list(REFUSED)
)
def test_hostile_wheel_is_refused_and_writes_nothing(
    pyctx_module: Any, data: bytes, options: dict[str, int], escapes: list[str], message: str
) -> None:
    """A wheel with a traversing, absolute or backslashed name, a symbolic link, a size that lies,
    more than maxUnpackedBytes unpacked, or a file where a folder is (or the other way round)
    is refused with the entry and the problem named,
    and none of its files is written, not even the harmless one before it."""
    harmless = zipfile.ZipFile(io.BytesIO(data)).namelist()[0]
    result = load(pyctx_module, data, [harmless, *escapes], **options)
    assert result.outcome == PREFIX + message
    assert result.written == []


def test_deflated_wheel_installs_its_files_whole(pyctx_module: Any) -> None:
    """A deflated wheel's files are inflated and written as they were, a large one included."""
    text = "".join(f"line = {n}  # {n * n:x}\n" for n in range(20_000)).encode()
    data = wheel(("deflated_small.py", HARMLESS), ("deflated_pkg/large.py", text))
    result = load(pyctx_module, data, ["deflated_small.py", "deflated_pkg/large.py"])
    assert result.outcome == f"resolved {pyctx_web.__version__}"
    assert result.sizes == {"deflated_small.py": len(HARMLESS), "deflated_pkg/large.py": len(text)}
    imported = pyctx_module.run("import deflated_pkg.large as m; [m.line, len(m.__file__) > 0]")
    assert imported == [19_999, True]


def test_max_unpacked_bytes_raises_the_cap(pyctx_module: Any) -> None:
    """A wheel that unpacks to exactly maxUnpackedBytes installs, and a higher cap lets a wheel
    over the default one past the cap (this one is then refused for its lying size)."""
    exact = load(
        pyctx_module,
        wheel(("raised_cap.bin", ZEROS)),
        ["raised_cap.bin"],
        maxUnpackedBytes=len(ZEROS),
    )
    assert exact.outcome == f"resolved {pyctx_web.__version__}"
    assert exact.sizes == {"raised_cap.bin": len(ZEROS)}
    big = declare_size(
        wheel(("declared_big_raised.bin", b"\0" * 1000)), "declared_big_raised.bin", DECLARED_BIG
    )
    raised = load(pyctx_module, big, [], maxUnpackedBytes=2 * DECLARED_BIG)
    assert raised.outcome == PREFIX + (
        f'the wheel\'s entry "declared_big_raised.bin" inflates to 1000 bytes, not its declared '
        f"{DECLARED_BIG}"
    )


def test_max_unpacked_bytes_must_be_a_positive_count(pyctx_module: Any) -> None:
    """A maxUnpackedBytes that is no positive whole number is refused before anything is fetched."""
    result = load(
        pyctx_module, bytes(wheel(("never.py", HARMLESS))), ["never.py"], maxUnpackedBytes=0
    )
    assert result.outcome == (
        "loadPyctxWeb: options.maxUnpackedBytes must be a positive whole number of bytes"
    )
    assert result.written == []
