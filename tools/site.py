"""The demo as a static site: content-hashed names, precompressed siblings, a ``_headers`` file.

usage: python tools/site.py DIST_DIR APP_DIR OUT_DIR [--api-origin ORIGIN]...

``./build.sh dist`` runs it with ``build/dist``, ``build/demo-app`` and ``build/site``. The
site holds only what the demo page loads::

    index.html                 the one entry, revalidated on every visit
    _headers                   every file's headers, for Netlify and Cloudflare Pages
    page-<hash>/               demo/index.html's modules, style sheet and worker
    pyodide-<hash>/            the Pyodide files the worker loads, pyctx_web.mjs and its wheel
    app-<hash>.zip             demo/app compiled to bytecode
    demo-<hash>.snapshot       the worker's memory snapshot

``<hash>`` is the start of the SHA-256 of the folder's or file's content, so a name never
changes content and is cached for a year (:mod:`tools.site_headers`); index.html names one
build's folders, and the worker in ``page-<hash>/`` names the other files (its URLs are
rewritten here), so two builds never mix. Every file that compresses has ``.br`` and
``.gz`` siblings (:func:`precompress`). Files whose hash is unchanged are taken, siblings and
all, from the site that ``OUT_DIR`` held before, so a rebuild compresses only what changed.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import shutil
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tools.site_headers import (  # noqa: E402
    ENCODINGS,
    HASH_LENGTH,
    api_origin,
    content_security_policy,
    headers_file,
)

DEMO = ROOT / "demo"

PYODIDE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "python_stdlib.stock.zip",
    "pyodide-lock.json",
    "pyctx_web.mjs",
)
"""The files of the distribution that the worker loads, besides the pyctx-web wheel that
``pyodide-lock.json`` registers (a worker restored from the snapshot loads the stock
standard library after ready, one started without it the compiled one)."""

API_MODEL_PACKAGES = ("openai",)
"""The packages the demo's API model loads when a person chooses it (``SDK_PACKAGES`` of
demo/app/sdk_transport.py): their wheels and those of their dependencies, as
``pyodide-lock.json`` lists them, join the Pyodide folder, where ``loadPackage`` finds them."""

PAGE_FILES = ("main.js", "worker.js", "style.css", "js/*.js")
"""The files of ``demo/`` that index.html loads, as globs."""

VENDOR_FILES = ("langgraph-sdk.mjs",)
"""The bundles of ``build/vendor`` (beside the distribution) that the page imports: they join
the page's folder under ``vendor/``, where js/api.js finds them as it does unbuilt."""

MIN_SIZE = 256
"""Files smaller than this many bytes get no compressed sibling: the headers would cost more."""

KEEP_RATIO = 0.9
"""A sibling is kept only when at most this fraction of its file (a zip of deflated members,
such as python_stdlib.zip, gains almost nothing and is sent as it is)."""

BROTLI_QUALITY = 11
"""Brotli's best (and slowest) quality: a site is compressed once and sent many times."""

BROTLI_LARGE_SIZE = 16 * 1024 * 1024
"""Above this size brotli gets its largest window, :data:`BROTLI_LARGE_WINDOW`."""

BROTLI_LARGE_WINDOW = 24
"""16 MiB, the largest that browsers decode: on a 31 MB snapshot 4.19 MB where the default
4 MiB window gives 4.29 MB, in less time; on the 9.6 MB wasm it gains nothing."""

GZIP_FIRST_RATIO = 0.95
"""Brotli is tried only when gzip got at least this close: a file gzip cannot shrink by 5 %
will not shrink by the 10 % of :data:`KEEP_RATIO` (brotli at its best quality takes 10 s on
the 4.5 MB python_stdlib.zip for 0.6 %)."""


class SiteError(Exception):
    """The site cannot be assembled from what it was given."""


def _brotli(data: bytes) -> bytes:
    import brotli  # type: ignore[import-untyped]  # the tooling's, not pyctx_web's dependency

    window = BROTLI_LARGE_WINDOW if len(data) > BROTLI_LARGE_SIZE else 22
    return bytes(brotli.compress(data, quality=BROTLI_QUALITY, lgwin=window))


def _gzip(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=9, mtime=0)


def _is_sibling(path: Path) -> bool:
    return any(path.name.endswith(suffix) for _coding, suffix in ENCODINGS)


def precompress(folder: Path) -> None:
    """Write a ``.br`` and a ``.gz`` sibling beside every file under ``folder`` that compresses.

    A sibling is written when it is at most :data:`KEEP_RATIO` of its file, and removed when
    it is not; one with the same modification time as its file is already up to date. Files
    named ``_headers`` and files under :data:`MIN_SIZE` bytes get none. Gzip at level 9
    (reproducible: no name, no time), brotli at :data:`BROTLI_QUALITY`.
    """
    if not folder.is_dir():
        raise SiteError(f"{folder} is not a folder to precompress")
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not _is_sibling(path) and path.name != "_headers":
            _compress_beside(path)


def _compress_beside(path: Path) -> None:
    stat = path.stat()
    siblings = {coding: path.with_name(path.name + suffix) for coding, suffix in ENCODINGS}
    if all(
        sibling.is_file() and sibling.stat().st_mtime_ns == stat.st_mtime_ns
        for sibling in siblings.values()
    ):
        return
    data = path.read_bytes()
    packed = {"gzip": _gzip(data)} if len(data) >= MIN_SIZE else {}
    if packed and len(packed["gzip"]) <= GZIP_FIRST_RATIO * len(data):
        packed["br"] = _brotli(data)
    for coding, sibling in siblings.items():
        if coding not in packed or len(packed[coding]) > KEEP_RATIO * len(data):
            sibling.unlink(missing_ok=True)
            continue
        sibling.write_bytes(packed[coding])
        os.utime(sibling, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def content_hash(files: Iterable[tuple[str, bytes]]) -> str:
    """The first :data:`HASH_LENGTH` hex digits of the SHA-256 of named contents, in name order."""
    digest = hashlib.sha256()
    for name, data in sorted(files):
        digest.update(f"{name}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()[:HASH_LENGTH]


def _replace_once(text: str, old: str, new: str, where: str) -> str:
    count = text.count(old)
    if count != 1:
        raise SiteError(f"{where} holds {old} {count} times, not once: the site cannot rename it")
    return text.replace(old, new)


@dataclass(frozen=True)
class Names:
    """The hashed names of one build's assets, as URL paths relative to the site's root."""

    pyodide: str
    app: str
    snapshot: str


def worker_urls(names: Names) -> dict[str, str]:
    """The URL literals of demo/worker.js (the unbuilt layout's) and what the site names instead,
    relative to the worker in ``page-<hash>/``."""
    return {
        '"/pyodide/pyodide.mjs"': f'"../{names.pyodide}/pyodide.mjs"',
        '"/pyctx_web.mjs"': f'"../{names.pyodide}/pyctx_web.mjs"',
        '"/pyodide/"': f'"../{names.pyodide}/"',
        '"/app.zip"': f'"../{names.app}"',
        '"/demo.snapshot"': f'"../{names.snapshot}"',
    }


def page_urls(names: Names) -> dict[str, str]:
    """The URL literals of demo/js/api.js (the unbuilt layout's) and what the site names
    instead, relative to it in ``page-<hash>/js/``."""
    return {'"../pyctx_web.mjs"': f'"../../{names.pyodide}/pyctx_web.mjs"'}


def page_files(demo: Path, names: Names, vendor: Path | None = None) -> dict[str, bytes]:
    """demo/'s files that index.html loads, by path relative to ``demo``, the worker's and the
    page's URLs rewritten to ``names``, and the bundles of ``vendor`` (:data:`VENDOR_FILES`)
    under ``vendor/``."""
    found = sorted({path for pattern in PAGE_FILES for path in demo.glob(pattern)})
    files = {path.relative_to(demo).as_posix(): path.read_bytes() for path in found}
    if "worker.js" not in files or "main.js" not in files:
        raise SiteError(f"{demo} has no main.js or worker.js: it is not the demo's folder")
    if vendor is not None:
        for name in VENDOR_FILES:
            if not (vendor / name).is_file():
                raise SiteError(f"{vendor / name} is missing: run ./build.sh setup")
            files[f"vendor/{name}"] = (vendor / name).read_bytes()
    if "js/api.js" in files:
        api = files["js/api.js"].decode("utf-8")
        for old, new in page_urls(names).items():
            api = _replace_once(api, old, new, f"{demo / 'js' / 'api.js'}")
        files["js/api.js"] = api.encode("utf-8")
    worker = files["worker.js"].decode("utf-8")
    for old, new in worker_urls(names).items():
        worker = _replace_once(worker, old, new, f"{demo / 'worker.js'}")
    files["worker.js"] = worker.encode("utf-8")
    return files


WORKER_MODULES = ("pyodide.mjs", "pyctx_web.mjs")
"""The modules of the Pyodide folder that the worker imports statically."""


def index_html(demo: Path, page: str, modules: Sequence[str] = ()) -> str:
    """demo/index.html loading its style sheet and modules from the folder ``page``, with a
    ``modulepreload`` link for each URL of ``modules``.

    The links let the browser fetch every module at once, as soon as it reads the head,
    instead of one level of imports after another, and the worker's own (already in the
    HTTP cache when it starts): measured on a 10 Mbit/s, 40 ms link, ready about 5 % sooner.
    """
    text = (demo / "index.html").read_text(encoding="utf-8")
    style = f'<link rel="stylesheet" href="{page}/style.css">'
    links = "".join(f'<link rel="modulepreload" href="{url}">\n  ' for url in modules)
    text = _replace_once(
        text, '<link rel="stylesheet" href="style.css">', links + style, "index.html"
    )
    return _replace_once(text, 'src="main.js"', f'src="{page}/main.js"', "index.html")


def pyodide_files(dist: Path) -> dict[str, Path]:
    """The distribution's files that the worker loads (:data:`PYODIDE_FILES` and the wheel)."""
    try:
        lock = json.loads((dist / "pyodide-lock.json").read_text(encoding="utf-8"))
        wheel = lock["packages"]["pyctx-web"]["file_name"]
    except (OSError, ValueError, KeyError) as error:
        raise SiteError(f"{dist} has no pyodide-lock.json registering pyctx-web: {error}") from None
    wheels = package_wheels(lock["packages"], API_MODEL_PACKAGES)
    files = {name: dist / name for name in (*PYODIDE_FILES, wheel, *wheels)}
    missing = sorted(name for name, path in files.items() if not path.is_file())
    if missing:
        raise SiteError(f"{dist} lacks {', '.join(missing)}: run ./build.sh setup")
    return files


def package_wheels(registered: dict[str, Any], names: Iterable[str]) -> list[str]:
    """The wheels of the packages ``names`` and of all they depend on, as the lock file's
    ``registered`` packages list them; ``SiteError`` names a package it does not register."""
    wheels: list[str] = []
    seen: set[str] = set()
    pending = list(names)
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        entry = registered.get(name)
        if not isinstance(entry, dict) or "file_name" not in entry:
            raise SiteError(
                f"pyodide-lock.json registers no {name}, which the demo's API model loads: "
                "run ./build.sh setup"
            )
        wheels.append(entry["file_name"])
        pending.extend(entry.get("depends", ()))
    return sorted(wheels)


def _place(staging: Path, previous: Path, name: str, write: dict[str, bytes | Path]) -> None:
    """Put the hashed file or folder ``name`` into ``staging``: the previous site's copy (with
    its compressed siblings) when it has one, else ``write``'s files."""
    old = previous / name
    if old.is_dir():
        shutil.copytree(old, staging / name)
        return
    if old.is_file():
        for path in previous.glob(f"{name}*"):
            shutil.copy2(path, staging / path.name)
        return
    for relative, source in write.items():
        target = staging / name / relative if relative else staging / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(source, Path):
            shutil.copy2(source, target)
        else:
            target.write_bytes(source)


def _entry_first(name: str) -> tuple[int, str]:
    """The page's entry module first, its worker last, the others by name."""
    return ({"main.js": 0, "worker.js": 2}.get(name, 1), name)


def _hashed(stem: str, files: dict[str, bytes], suffix: str = "") -> str:
    return f"{stem}-{content_hash(files.items())}{suffix}"


def assemble(
    dist: Path,
    app_dir: Path,
    out: Path,
    *,
    demo: Path = DEMO,
    api_origins: Sequence[str] = (),
    compress: bool = True,
) -> Names:
    """Write the demo's static site into ``out`` (replacing what it held); its asset names.

    ``dist`` is the Pyodide distribution (build/dist), ``app_dir`` holds ``app.zip`` and
    ``demo.snapshot`` (build/demo-app), ``demo`` the page (demo/); ``api_origins`` join the
    ``connect-src`` of the policy in ``_headers``; without ``compress``, no compressed
    sibling is written (for a host that compresses on the fly), though the parts taken from
    the previous site keep theirs.
    """
    built = {name: app_dir / name for name in ("app.zip", "demo.snapshot")}
    for path in built.values():
        if not path.is_file():
            raise SiteError(f"{path} is missing: run ./build.sh setup")
    pyodide = pyodide_files(dist)
    pyodide_bytes = {name: path.read_bytes() for name, path in pyodide.items()}
    app, snapshot = built["app.zip"].read_bytes(), built["demo.snapshot"].read_bytes()
    names = Names(
        pyodide=_hashed("pyodide", pyodide_bytes),
        app=_hashed("app", {"": app}, ".zip"),
        snapshot=_hashed("demo", {"": snapshot}, ".snapshot"),
    )
    page = page_files(demo, names, dist.parent / "vendor")
    page_name = _hashed("page", page)
    staging = out.with_name(out.name + ".new")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    _place(staging, out, names.pyodide, dict(pyodide.items()))
    _place(staging, out, names.app, {"": built["app.zip"]})
    _place(staging, out, names.snapshot, {"": built["demo.snapshot"]})
    _place(staging, out, page_name, dict(page.items()))
    modules = [
        f"{page_name}/{name}" for name in sorted(page, key=_entry_first) if name.endswith(".js")
    ]
    modules += [f"{names.pyodide}/{name}" for name in WORKER_MODULES]
    (staging / "index.html").write_text(index_html(demo, page_name, modules), encoding="utf-8")
    rules = ["/", "/index.html", f"/{page_name}/*", f"/{names.pyodide}/*"]
    rules += [f"/{names.app}", f"/{names.snapshot}"]
    policy = content_security_policy(api_origins)
    (staging / "_headers").write_text(headers_file(rules, policy), encoding="utf-8")
    if compress:
        precompress(staging)
    shutil.rmtree(out, ignore_errors=True)
    staging.rename(out)
    return names


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dist", type=Path, help="the Pyodide distribution (build/dist)")
    parser.add_argument("app_dir", type=Path, help="app.zip and demo.snapshot (build/demo-app)")
    parser.add_argument("out", type=Path, help="the site's folder (build/site)")
    parser.add_argument(
        "--api-origin",
        dest="api_origins",
        action="append",
        type=api_origin,
        default=[],
        metavar="ORIGIN",
        help="a model API origin the page may connect to (repeatable)",
    )
    args = parser.parse_args(argv)
    try:
        assemble(args.dist, args.app_dir, args.out, api_origins=args.api_origins)
    except SiteError as error:
        print(f"site.py: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
