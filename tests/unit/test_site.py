"""tools/site.py: the static site (hashed names, rewritten URLs, _headers) and precompress."""

from __future__ import annotations

import gzip
import json
import os
import random
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from tools import site
from tools.site_headers import HASHED_NAME

ROOT = Path(__file__).resolve().parents[2]
WHEEL = "pyctx_web-0.1.0-cp314-cp314-emscripten_5_0_3_wasm32.whl"
TEXT = b"the same line of text, many times over\n" * 200
API_PACKAGES: dict[str, dict[str, Any]] = {
    "openai": {"file_name": "openai-3.57.0-py3-none-any.whl", "depends": ["jiter", "anyio"]},
    "jiter": {"file_name": "jiter-0.19.0-cp314-cp314-pyemscripten_2026_0_wasm32.whl"},
    "anyio": {"file_name": "anyio-4.16.0-py3-none-any.whl", "depends": ["jiter"]},
}
"""The API model's packages (site.API_MODEL_PACKAGES) and their dependencies, as locked."""
API_WHEELS = sorted(entry["file_name"] for entry in API_PACKAGES.values())
NOT_LOADED = ("pyodide.mjs.map", "pyodide.d.ts", "console.html", "pytest-9.0.2-py3-none-any.whl")


@pytest.fixture
def brotli() -> Any:
    """The brotli module: the tooling's (.venv), which the oldest supported CPython's lacks."""
    return pytest.importorskip("brotli")


@pytest.fixture
def dist(tmp_path: Path) -> Path:
    """A distribution folder with the files the worker loads and some it does not."""
    folder = tmp_path / "dist"
    folder.mkdir()
    for name in (*site.PYODIDE_FILES, WHEEL, *API_WHEELS, *NOT_LOADED, ".stamp"):
        (folder / name).write_bytes(name.encode() + TEXT)
    lock = {"packages": {"pyctx-web": {"file_name": WHEEL}, **API_PACKAGES}}
    (folder / "pyodide-lock.json").write_text(json.dumps(lock), encoding="utf-8")
    vendor = tmp_path / "vendor"  # the page's bundles, beside the distribution as in build/
    vendor.mkdir()
    for name in site.VENDOR_FILES:
        (vendor / name).write_bytes(name.encode() + TEXT)
    return folder


@pytest.fixture
def app_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "demo-app"
    folder.mkdir()
    (folder / "app.zip").write_bytes(b"app" + TEXT)
    (folder / "demo.snapshot").write_bytes(b"snapshot" + TEXT)
    return folder


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    """A copy of demo/, to change."""
    folder = tmp_path / "demo"
    shutil.copytree(ROOT / "demo", folder, ignore=shutil.ignore_patterns("app", "__pycache__"))
    return folder


def listing(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def test_site_holds_what_the_page_loads_under_hashed_names_and_nothing_else(
    dist: Path, app_dir: Path, demo: Path, tmp_path: Path
) -> None:
    """index.html, _headers, then hashed page, Pyodide, app and snapshot: no map, types or tests."""
    out = tmp_path / "site"
    names = site.assemble(dist, app_dir, out, demo=demo, compress=False)
    files = listing(out)
    (page,) = {f.split("/")[0] for f in files if f.startswith("page-")}
    assert {f.split("/")[0] for f in files} == {
        "index.html",
        "_headers",
        page,
        names.pyodide,
        names.app,
        names.snapshot,
    }
    for name in (page, names.pyodide, names.app, names.snapshot):
        assert HASHED_NAME.match(f"/{name}/" if "." not in name else f"/{name}")
    assert sorted(f for f in files if f.startswith(names.pyodide)) == sorted(
        f"{names.pyodide}/{name}" for name in (*site.PYODIDE_FILES, WHEEL, *API_WHEELS)
    )
    page_files = {f.removeprefix(page + "/") for f in files if f.startswith(page)}
    assert page_files == {"main.js", "worker.js", "style.css"} | {
        f"js/{p.name}" for p in (demo / "js").glob("*.js")
    } | {f"vendor/{name}" for name in site.VENDOR_FILES}
    assert (out / names.app).read_bytes() == (app_dir / "app.zip").read_bytes()
    # The page imports pyctx_web's fetch from its own build's Pyodide folder.
    api = (out / page / "js" / "api.js").read_text(encoding="utf-8")
    assert f'"../../{names.pyodide}/pyctx_web.mjs"' in api


def test_index_and_worker_name_the_hashed_files_of_their_own_build(
    dist: Path, app_dir: Path, demo: Path, tmp_path: Path
) -> None:
    """index.html loads the hashed page folder and preloads every module of the page and the
    worker; the worker imports and fetches hashed names."""
    out = tmp_path / "site"
    names = site.assemble(dist, app_dir, out, demo=demo, compress=False)
    index = (out / "index.html").read_text(encoding="utf-8")
    page = next(p.name for p in out.glob("page-*"))
    assert f'<script type="module" src="{page}/main.js">' in index
    assert f'<link rel="stylesheet" href="{page}/style.css">' in index
    preloaded = re.findall(r'<link rel="modulepreload" href="([^"]+)">', index)
    assert preloaded[0] == f"{page}/main.js"
    assert preloaded[-3:] == [
        f"{page}/worker.js",
        f"{names.pyodide}/pyodide.mjs",
        f"{names.pyodide}/pyctx_web.mjs",
    ]
    modules = {p.relative_to(out).as_posix() for p in (out / page).rglob("*.js")}
    assert set(preloaded) == modules | set(preloaded[-2:])
    assert len(preloaded) == len(set(preloaded))
    assert all((out / url).is_file() for url in preloaded)
    worker = (out / page / "worker.js").read_text(encoding="utf-8")
    for url in (
        f'from "../{names.pyodide}/pyodide.mjs"',
        f'from "../{names.pyodide}/pyctx_web.mjs"',
        f'"../{names.pyodide}/"',
        f'"../{names.app}"',
        f'"../{names.snapshot}"',
    ):
        assert url in worker
    assert '"/pyodide/' not in worker
    assert '"/app.zip"' not in worker


def test_a_change_renames_only_what_changed_and_what_names_it(
    dist: Path, app_dir: Path, demo: Path, tmp_path: Path
) -> None:
    """A new app.zip renames the app and the page folder (whose worker names it), not Pyodide."""
    out = tmp_path / "site"
    first = site.assemble(dist, app_dir, out, demo=demo, compress=False)
    first_page = next(p.name for p in out.glob("page-*"))
    assert site.assemble(dist, app_dir, out, demo=demo, compress=False) == first
    (app_dir / "app.zip").write_bytes(b"another app" + TEXT)
    second = site.assemble(dist, app_dir, out, demo=demo, compress=False)
    assert second.pyodide == first.pyodide
    assert second.snapshot == first.snapshot
    assert second.app != first.app
    assert next(p.name for p in out.glob("page-*")) != first_page
    assert not (out / first.app).exists()  # the previous build's files are gone


def test_precompressed_site_has_siblings_that_decode_to_each_file_and_headers(
    dist: Path, app_dir: Path, demo: Path, tmp_path: Path, brotli: Any
) -> None:
    """Every compressible file of the site gets .br and .gz siblings; _headers names each part."""
    out = tmp_path / "site"
    names = site.assemble(dist, app_dir, out, demo=demo, api_origins=["https://api.example.com"])
    for name in ("index.html", f"{names.pyodide}/pyodide.asm.wasm", names.snapshot):
        data = (out / name).read_bytes()
        assert brotli.decompress((out / f"{name}.br").read_bytes()) == data
        assert gzip.decompress((out / f"{name}.gz").read_bytes()) == data
    rules = [line for line in (out / "_headers").read_text().splitlines() if line[:1] == "/"]
    page = next(p.name for p in out.glob("page-*") if p.is_dir())
    assert rules == [
        "/",
        "/index.html",
        f"/{page}/*",
        f"/{names.pyodide}/*",
        f"/{names.app}",
        f"/{names.snapshot}",
    ]
    assert "https://api.example.com" in (out / "_headers").read_text()


def test_precompress_skips_what_does_not_shrink_small_files_and_headers(
    tmp_path: Path, brotli: Any
) -> None:
    """Random bytes, a file under MIN_SIZE, _headers: no sibling; a stale one is removed."""
    noise = tmp_path / "python_stdlib.zip"
    noise.write_bytes(random.Random(1).randbytes(50_000))
    (tmp_path / "python_stdlib.zip.gz").write_bytes(b"a sibling of an older file")
    (tmp_path / "tiny.js").write_bytes(b"x" * (site.MIN_SIZE - 1))
    (tmp_path / "_headers").write_bytes(TEXT)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "big.json").write_bytes(TEXT)
    site.precompress(tmp_path)
    assert listing(tmp_path) == [
        "_headers",
        "python_stdlib.zip",
        "sub/big.json",
        "sub/big.json.br",
        "sub/big.json.gz",
        "tiny.js",
    ]
    sibling = tmp_path / "sub" / "big.json.br"
    assert sibling.stat().st_mtime_ns == (tmp_path / "sub" / "big.json").stat().st_mtime_ns
    (tmp_path / "sub" / "big.json").write_bytes(TEXT + b"more\n")
    os.utime(tmp_path / "sub" / "big.json", ns=(1, 10**18))
    site.precompress(tmp_path)
    assert gzip.decompress((tmp_path / "sub" / "big.json.gz").read_bytes()) == TEXT + b"more\n"


def test_precompress_of_a_missing_folder_says_so(tmp_path: Path) -> None:
    """precompress names the folder that is not one."""
    with pytest.raises(
        site.SiteError, match=rf"^{tmp_path / 'nope'} is not a folder to precompress$"
    ):
        site.precompress(tmp_path / "nope")


def test_a_worker_whose_urls_changed_is_refused_by_name(
    dist: Path, app_dir: Path, demo: Path, tmp_path: Path
) -> None:
    """A worker.js without exactly one of the URLs the site renames stops the build, naming it."""
    worker = demo / "worker.js"
    worker.write_text(worker.read_text().replace('"/app.zip"', '"/other.zip"'), encoding="utf-8")
    with pytest.raises(
        site.SiteError,
        match=rf'^{worker} holds "/app.zip" 0 times, not once: the site cannot rename it$',
    ):
        site.assemble(dist, app_dir, tmp_path / "site", demo=demo, compress=False)


def test_missing_inputs_are_named(dist: Path, app_dir: Path, tmp_path: Path) -> None:
    """A missing snapshot or distribution file stops the build with what to run."""
    (dist / "pyodide.asm.wasm").unlink()
    with pytest.raises(
        site.SiteError, match=rf"^{dist} lacks pyodide.asm.wasm: run ./build.sh setup$"
    ):
        site.assemble(dist, app_dir, tmp_path / "site", compress=False)
    (app_dir / "demo.snapshot").unlink()
    with pytest.raises(
        site.SiteError, match=rf"^{app_dir / 'demo.snapshot'} is missing: run ./build.sh setup$"
    ):
        site.assemble(dist, app_dir, tmp_path / "site", compress=False)


def test_a_package_of_the_api_model_missing_from_the_lock_is_named(
    dist: Path, app_dir: Path, tmp_path: Path
) -> None:
    """A lock file without a dependency of the API model's packages stops the build, naming it."""
    lock = {"packages": {"pyctx-web": {"file_name": WHEEL}, **API_PACKAGES}}
    del lock["packages"]["jiter"]
    (dist / "pyodide-lock.json").write_text(json.dumps(lock), encoding="utf-8")
    with pytest.raises(
        site.SiteError,
        match=r"^pyodide-lock\.json registers no jiter, which the demo's API model loads: "
        r"run \./build\.sh setup$",
    ):
        site.assemble(dist, app_dir, tmp_path / "site", compress=False)
