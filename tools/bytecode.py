"""Compile a wheel or a zip of Python modules to sourceless bytecode (``.pyc``).

``./build.sh setup`` runs this inside Pyodide (``tools/bytecode.mjs``), so that the
bytecode is the one Pyodide's own CPython reads: the host's Python may be another
version. Each ``.py`` becomes a ``.pyc`` beside where it was, an unchecked-hash pyc
(PEP 552): it carries the source's hash and no timestamp, so it stays valid however
the archive is unpacked, and the import system never reads a source to check it.
Every other entry is copied as it is, and the output is the same for the same input.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import io
import marshal
import sys
import zipfile
from collections.abc import Iterator

__all__ = ["compile_folder", "compile_source", "compile_stdlib", "compile_wheel", "wheel_tag"]

UNCHECKED_HASH = 0b01
"""The pyc flags of PEP 552: hash-based (bit 0), without checking the source (bit 1 clear)."""

FIXED_TIME = (1980, 1, 1, 0, 0, 0)
"""The date of every entry written, so that the same input gives the same bytes."""


def compile_source(source: bytes, filename: str) -> bytes:
    """The unchecked-hash pyc of ``source``; its tracebacks name ``filename``."""
    code = compile(source, filename, "exec", dont_inherit=True)
    header = importlib.util.MAGIC_NUMBER + UNCHECKED_HASH.to_bytes(4, "little")
    return header + importlib.util.source_hash(source) + marshal.dumps(code)


def _entry(name: str, like: zipfile.ZipInfo, compress_type: int | None = None) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, FIXED_TIME)
    info.compress_type = like.compress_type if compress_type is None else compress_type
    info.external_attr = like.external_attr
    return info


def _compiled(archive: zipfile.ZipFile, prefix: str) -> Iterator[tuple[str, bytes]]:
    """Each entry of ``archive`` as (name, bytes), every module compiled; the code of
    ``a/b.py`` names ``prefix + "a/b.py"``, where the archive's files will be.
    """
    for info in archive.infolist():
        data = archive.read(info)
        if info.filename.endswith(".py"):
            yield info.filename + "c", compile_source(data, prefix + info.filename)
        elif not info.filename.endswith(".pyc"):
            yield info.filename, data


def compile_stdlib(stock: bytes, prefix: str) -> bytes:
    """``python_stdlib.zip`` with every module compiled: the zip importer reads the pycs.

    ``prefix`` is where the zip is mounted, such as ``/lib/python314.zip/``.
    """
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(stock)) as archive, zipfile.ZipFile(out, "w") as target:
        infos = {info.filename: info for info in archive.infolist()}
        for name, data in _compiled(archive, prefix):
            like = infos.get(name) or infos[name[:-1]]
            target.writestr(_entry(name, like), data)
    return out.getvalue()


def compile_folder(modules: dict[str, bytes], prefix: str) -> bytes:
    """A zip of ``modules`` (file name to source, such as ``{"app.py": b"..."}``) compiled,
    stored uncompressed like :func:`compile_wheel`'s.

    Each ``name.py`` becomes ``name.pyc`` at the zip's top, for unpacking into a folder on
    ``sys.path``; its code names ``prefix + name.py``, where the folder will be.
    """
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for name in sorted(modules):
            if "/" in name or not name.endswith(".py"):
                raise ValueError(f"{name!r} is not a module file name such as app.py")
            info = zipfile.ZipInfo(name + "c", FIXED_TIME)
            info.external_attr = 0o644 << 16
            target.writestr(info, compile_source(modules[name], prefix + name))
    return out.getvalue()


def wheel_tag(platform: str) -> str:
    """The tag of a wheel compiled by this interpreter for ``platform`` (such as
    ``emscripten_5_0_3_wasm32``): ``cp314-cp314-emscripten_5_0_3_wasm32`` on CPython 3.14.
    """
    python = f"cp{sys.version_info.major}{sys.version_info.minor}"
    return f"{python}-{python}-{platform}"


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _retagged(data: bytes, tag: str) -> bytes:
    """The wheel's ``WHEEL`` file with ``tag`` as its one tag."""
    lines = [line for line in data.decode().splitlines() if not line.startswith("Tag:")]
    return ("\n".join([*lines, f"Tag: {tag}"]) + "\n").encode()


def compile_wheel(wheel: bytes, filename: str, platform: str, prefix: str) -> tuple[str, bytes]:
    """The wheel ``filename`` with its modules compiled, and its new name.

    The tag becomes :func:`wheel_tag`'s and ``RECORD`` lists the compiled files, so
    that installers accept it; only this interpreter's version can import it. Entries are
    stored uncompressed: ``loadPyctxWeb`` then writes them out without inflating each one,
    and a server's gzip still compresses the download as a whole. ``prefix``
    is the site-packages folder the code names, such as ``/lib/python3.14/site-packages/``.
    """
    stem = filename.removesuffix(".whl").split("-")
    if len(stem) != 5:
        raise ValueError(f"{filename!r} is not a wheel name such as name-1.0-py3-none-any.whl")
    tag = wheel_tag(platform)
    out = io.BytesIO()
    record_name = ""
    records: list[str] = []
    with zipfile.ZipFile(io.BytesIO(wheel)) as archive, zipfile.ZipFile(out, "w") as target:
        infos = {info.filename: info for info in archive.infolist()}
        for name, data in _compiled(archive, prefix):
            if name.endswith(".dist-info/RECORD"):
                record_name = name
                continue
            if name.endswith(".dist-info/WHEEL"):
                data = _retagged(data, tag)
            like = infos.get(name) or infos[name[:-1]]
            target.writestr(_entry(name, like, zipfile.ZIP_STORED), data)
            records.append(_record_line(name, data))
        if not record_name:
            raise ValueError(f"{filename!r} has no .dist-info/RECORD: it is not a wheel")
        record = "\n".join([*records, f"{record_name},,"]) + "\n"
        target.writestr(
            _entry(record_name, infos[record_name], zipfile.ZIP_STORED), record.encode()
        )
    return f"{stem[0]}-{stem[1]}-{tag}.whl", out.getvalue()
