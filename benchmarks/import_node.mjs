// One fresh Pyodide under Node: the time of one import, the modules it added, and optionally
// the modules whose code ran during the demo app's first message ("help me with email", up to
// its question): a first run streamed by its agent server, or a chat protocol's send.
// usage: node import_node.mjs DIST_DIR SITE_DIR MODULE [APP_DIR]
// SITE_DIR holds an unpacked wheel; its files are written into site-packages without running
// any Python, so that nothing but MODULE's own imports is timed and listed. Prints JSON.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [dist, site, module, appDir] = process.argv.slice(2);
const distDir = resolve(dist) + "/";
/** @type {typeof import("pyodide")} */
const { loadPyodide } = await import(pathToFileURL(distDir + "pyodide.mjs").href);
const pyodide = await loadPyodide({ indexURL: distDir, packageBaseUrl: distDir });

/**
 * @param {string} from a folder on disk
 * @param {string} to its copy in Pyodide's file system
 */
function copyTree(from, to) {
  pyodide.FS.mkdirTree(to);
  for (const name of readdirSync(from)) {
    const path = join(from, name);
    if (statSync(path).isDirectory()) copyTree(path, `${to}/${name}`);
    else pyodide.FS.writeFile(`${to}/${name}`, readFileSync(path));
  }
}

const sitePackages = pyodide.runPython(
  "import sys; [p for p in sys.path if p.endswith('site-packages')][0]",
);
copyTree(resolve(site), sitePackages);
if (appDir) copyTree(resolve(appDir), "/home/pyodide/bench_app");

pyodide.globals.set("bench_module", module);
pyodide.globals.set("bench_importers", Boolean(appDir));
// With APP_DIR, builtins.__import__ is wrapped to learn which module imported which (the time
// of that run is not a sample): each new module goes to the innermost import statement.
const timed = pyodide.runPython(`
import importlib, sys, time
importlib.invalidate_caches()
_importers = {}
if bench_importers:
    import builtins
    _plain_import = builtins.__import__

    def _import(name, globals=None, locals=None, fromlist=(), level=0):
        before = set(sys.modules)
        module = _plain_import(name, globals, locals, fromlist, level)
        for new in set(sys.modules) - before - _importers.keys():
            _importers[new] = (globals or {}).get("__name__")
        return module

    builtins.__import__ = _import
_before = set(sys.modules)
_start = time.perf_counter()
importlib.import_module(bench_module)
_elapsed = time.perf_counter() - _start
if bench_importers:
    builtins.__import__ = _plain_import
import json
json.dumps({"ms": _elapsed * 1e3, "modules": sorted(set(sys.modules) - _before), "importers": _importers})
`);
const result = JSON.parse(timed);
pyodide.globals.set("bench_imported", JSON.stringify(result.modules));

if (appDir) {
  // The demo app's boot and first message. A module counts as used when code of it runs, or
  // when code that ran names one of its functions, classes or values (a constant, an exception
  // class in an except clause): the names a code object loads are looked up in its globals.
  const used = await pyodide.runPythonAsync(`
import asyncio, json, sys
_codes = {}
_used = set()
_posted = []

def _profile(frame, event, arg):
    if event == "call":
        _codes[frame.f_code] = frame.f_globals
    elif event == "c_call":
        owner = getattr(arg, "__self__", None)
        name = getattr(arg, "__module__", None) or getattr(owner, "__name__", None)
        _used.add(name if isinstance(name, str) else type(owner).__module__)

sys.path.insert(0, "/home/pyodide/bench_app")
sys.setprofile(_profile)
import worker_main
if hasattr(worker_main, "GRAPH_ID"):
    # An app served as a LangGraph Server API: the page's requests of a first message (its
    # thread made, its run streamed to the question, the thread's state read), each answered
    # as the worker answers its page's fetch (pyctx_web/js/agentfetch.mjs).
    from pyctx_web.server._jsfetch import open_exchange

    _server = await worker_main.boot(_posted.append)

    async def _call(method, path, body=None):
        data = b"" if body is None else json.dumps(body).encode()
        parts, errors = [], []

        def _post(kind, *args):
            if kind in ("text", "chunk"):
                parts.append(args[0].encode() if isinstance(args[0], str) else args[0])
            elif kind == "error":
                errors.append(args[0])

        headers = json.dumps([["content-type", "application/json"]])
        await open_exchange(_server, method, path, "", headers, data, _post).task
        if errors:
            raise RuntimeError(f"{method} {path}: {errors[0]}")
        return b"".join(parts)

    _TID = "00000000-0000-4000-8000-0000000000be"
    _thread = {"thread_id": _TID, "if_exists": "do_nothing", "metadata": {"graph_id": worker_main.GRAPH_ID}}
    await _call("POST", "/threads", _thread)
    _run = {
        "assistant_id": worker_main.GRAPH_ID,
        "input": {"messages": [{"role": "user", "content": "help me with email"}]},
        "stream_mode": ["values", "updates", "custom"],
        "on_disconnect": "cancel",
        "multitask_strategy": "reject",
        "context": {"model": {"kind": "offline"}},
    }
    _body = await _call("POST", f"/threads/{_TID}/runs/stream", _run)
    _state = json.loads(await _call("GET", f"/threads/{_TID}/state"))
    _asked = b'"__interrupt__"' in _body and bool(_state.get("interrupts"))
else:
    # An app of the chat protocol: its send message, then its needs_input answer.
    await worker_main.boot(_posted.append)
    worker_main.receive('{"op": "send", "thread_id": "bench", "message": {"type": "chat", "text": "help me with email"}}')
    for _ in range(2000):
        if any('"needs_input"' in text for text in _posted):
            break
        await asyncio.sleep(0.005)
    _asked = any('"needs_input"' in t for t in _posted)
sys.setprofile(None)

_missing = object()
_imported = [sys.modules[n] for n in json.loads(bench_imported) if n in sys.modules]
for _code, _globals in _codes.items():
    _used.add(_globals.get("__name__"))
    for _name in _code.co_names:
        _value = _globals.get(_name, _missing)
        if _value is _missing or _name.startswith("__") or type(_value).__module__ == "__future__":
            continue
        if type(_value) is type(sys):
            _used.add(_value.__name__)
        elif isinstance(getattr(_value, "__module__", None), str) and (
            isinstance(_value, type) or callable(_value)
        ):
            _used.add(_value.__module__)
        else:
            _used.update(m.__name__ for m in _imported if getattr(m, _name, _missing) is _value)
json.dumps({"used": sorted(n for n in _used if isinstance(n, str)), "asked": _asked})
`);
  Object.assign(result, JSON.parse(used));
}
// Exits once the line is written: the app's first message leaves timers pending (its turn
// deadline), and Pyodide's event loop does not clear a cancelled timer's setTimeout.
process.stdout.write(JSON.stringify(result) + "\n", () => process.exit(0));
