// The Python side of the demo: Pyodide, pyctx_web and the assistant run here, off the page's thread.
// The worker serves the LangGraph Server API (pyctx_web.server's AgentServer over the assistant,
// graph id "agent") to the page's fetch (createAgentServerFetch), through serveAgentServer: its
// requests come as messages of type "pyctx_web/agent-fetch", each with its own port, which the
// listener below leaves to it. A few plain messages stay outside the API (see
// demo/app/worker_main.py): the boot's status, ready and error, configure_model and graph.
//
// Two messages are this file's own, never Python's: {op: "ping"} gets {type: "pong"} (the page
// watches that its worker still answers), and a fatal error of Pyodide, after which this
// worker's Python can do nothing more, is reported as {type: "fatal", message} (once it
// happens, and again for every later message) so that the page starts another worker.
//
// The URLs below are those of demo/serve.py's unbuilt layout: tools/site.py rewrites each
// (the two imports' and the three constants') to the content-hashed names of one build of
// the static site. The server's Cache-Control decides what is revalidated, so the fetches
// use the HTTP cache as it says.
import { loadPyodide } from "/pyodide/pyodide.mjs";
import {
  createAgentServerFetch,
  loadPyctxWeb,
  resumePyctxWeb,
  serveAgentServer,
} from "/pyctx_web.mjs";

// The Pyodide distribution, for loadPyodide's indexURL.
const PYODIDE_URL = "/pyodide/";
// demo/app compiled to bytecode by ./build.sh setup, whose code names APP_DIR as its folder.
const APP_ARCHIVE = "/app.zip";
// The memory snapshot of this worker's Pyodide with pyctx_web and the app imported (taken
// by tools/snapshot.py in ./build.sh setup); without it, all of that is imported here.
const SNAPSHOT = "/demo.snapshot";
const APP_DIR = "/home/pyodide/demo_app";
// A restored worker's Pyodide starts with this stand-in for the standard library's zip (see
// deferStdlib): Pyodide's request for it is answered here, never sent.
const STDLIB_STAND_IN = "pyctx-web-stand-in:python_stdlib.zip";
// Pyodide's own standard library, kept beside the compiled one in the distribution.
const STOCK_STDLIB = "python_stdlib.stock.zip";
// An empty zip archive: only its end-of-central-directory record.
const EMPTY_ZIP = new Uint8Array([0x50, 0x4b, 0x05, 0x06, ...new Array(18).fill(0)]);
// The snapshot file's own header (tools/snapshot_worker.mjs writes it, and says its form).
const DELTA_MAGIC = 0x64786370;

/**
 * @import { PyodideAPI, PyodideConfig } from "pyodide"
 * @import { PyProxy } from "pyodide/ffi"
 */

const started = performance.now();
/** @type {Record<string, number>} */
const stages = {};
// serveAgentServer's own messages: one per request of the page's fetch.
const AGENT_FETCH = "pyctx_web/agent-fetch";

// What follows ready (a rehearsal, writing the files of a restored worker) waits until the
// page's fetch has sent nothing for this long: the page's first requests go first.
const QUIET_MS = 500;
let lastFetch = 0;

/** @type {() => void} */
let settle = () => {};
// The page posts {op: "settled"} once it has drawn what it restores after ready: its first
// requests are answered, and the rehearsal starts then rather than after QUIET_MS more.
const settled = new Promise((resolve) => {
  settle = () => resolve(undefined);
});

/** Resolves once the page's fetch has sent nothing for QUIET_MS. */
async function quiet() {
  for (;;) {
    const wait = lastFetch + QUIET_MS - performance.now();
    if (wait <= 0) return;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/** @type {MessageEvent[] | null} */
let earlyFetches = []; // requests of the page's fetch before the server is served; then null

/** @type {((text: string) => unknown) | null} */
let receive = null; // worker_main.receive, once the app has booted
/** @type {(() => void) | null} */
let prepareWorker = null; // worker_main.prepare: what follows the ready message
/** @type {unknown[]} */
const queued = []; // page messages that arrived before that
/** @type {string | null} */
let fatal = null; // the text of Pyodide's fatal error, once there was one

// Only a worker started as worker.js?test-hooks (the page passes its own ?test-hooks on)
// takes {op: "test_fatal"}, which drives this worker's Python into a real fatal error, and
// {op: "test_hang"}, which makes it stop answering for good, and {op: "test_import", module},
// answered {type: "test_imported", module, imported_before, file, stdlib} (or with error).
const TEST_HOOKS = new URL(self.location.href).searchParams.has("test-hooks");
/** @type {PyodideAPI | null} */
let testPyodide = null;
/** @type {(() => string) | null} */
let stdlibState = null; // a restored worker's standard library: "pending", "background", "at once"

/** @param {string} stage @param {string} label */
const status = (stage, label) => postMessage({ type: "status", stage, label });

/**
 * Python calls post(json_text) for every message it sends to the page.
 * @param {string | PyProxy} payload
 */
function post(payload) {
  if (typeof payload === "string") {
    postMessage(JSON.parse(payload));
    return;
  }
  // A Python object instead of JSON text: convert it and free the proxy.
  const value =
    payload && typeof payload.toJs === "function"
      ? payload.toJs({ dict_converter: Object.fromEntries, create_pyproxies: false })
      : payload;
  if (payload && typeof payload.destroy === "function") payload.destroy();
  postMessage(value);
}

/**
 * What a thrown value says: an Error's message, or the value as text.
 * @param {unknown} error
 */
function reasonOf(error) {
  const message =
    typeof error === "object" && error !== null && "message" in error ? error.message : undefined;
  return String(message ?? error);
}

/**
 * Whether Pyodide marked this error fatal: its Python can do nothing more.
 * @param {unknown} error
 */
const isFatal = (error) =>
  typeof error === "object" &&
  error !== null &&
  "pyodide_fatal_error" in error &&
  Boolean(error.pyodide_fatal_error);

/**
 * The exception line of a Python traceback is the part a person can read.
 * @param {unknown} error
 */
function lastLine(error) {
  const lines = reasonOf(error)
    .trim()
    .split("\n")
    .map((line) => line.trim());
  const exception = lines
    .filter((line) => /^[A-Za-z_][\w.]*(Error|Exception|Exit)\b/.test(line))
    .pop();
  return exception ?? lines.filter(Boolean).pop() ?? "unknown error";
}

/**
 * Pyodide failed for good (its on_fatal hook, or an error it marked fatal): the page is told.
 * @param {unknown} [error]
 */
function reportFatal(error) {
  if (fatal === null) {
    fatal =
      reasonOf(error ?? "unknown error")
        .trim()
        .split("\n")[0] || "unknown error";
  }
  postMessage({ type: "fatal", message: fatal });
}

/** @param {unknown} data a message of the page */
function forward(data) {
  if (fatal !== null) {
    reportFatal();
    return;
  }
  let text;
  try {
    text = JSON.stringify(data);
  } catch {
    text = undefined; // a cycle or a BigInt: not plain data, reported below
  }
  if (typeof text !== "string") {
    postMessage({ type: "error", message: "The worker got a message that is not plain data." });
    return;
  }
  if (receive === null) throw new Error("forward() before the app booted");
  try {
    const result = receive(text);
    if (result && typeof (/** @type {PyProxy} */ (result).destroy) === "function")
      /** @type {PyProxy} */ (result).destroy();
  } catch (error) {
    if (fatal !== null || isFatal(error)) {
      reportFatal(error);
      return;
    }
    postMessage({
      type: "error",
      message: `The worker could not take that message: ${lastLine(error)}`,
    });
  }
}

// A JSON text nested this deep overflows the stack of json.loads: Pyodide's fatal error,
// raised in a callback of Python's event loop, where a running turn would meet it.
function provokeFatal() {
  if (!testPyodide) return;
  testPyodide.runPython(
    'import asyncio, json; asyncio.get_event_loop().call_soon(json.loads, "[" * 100000 + "]" * 100000)',
  );
}

// Imports a module in this worker's Python, as a page message that needs it would.
/** @param {string} name */
function testImport(name) {
  if (!testPyodide) return { type: "test_imported", module: name, error: "not started" };
  const modules = testPyodide.pyimport("sys").modules;
  const importedBefore = modules.has(name);
  modules.destroy();
  try {
    const module = testPyodide.pyimport(name);
    const file = module.__file__;
    module.destroy();
    const stdlib = stdlibState?.() ?? null;
    return { type: "test_imported", module: name, imported_before: importedBefore, file, stdlib };
  } catch (error) {
    return { type: "test_imported", module: name, error: lastLine(error) };
  }
}

addEventListener("message", (event) => {
  const data = event.data && typeof event.data === "object" ? event.data : undefined;
  if (data?.type === AGENT_FETCH) {
    lastFetch = performance.now();
    // serveAgentServer's, once it listens: until then kept, then dispatched to it again.
    if (fatal !== null) reportFatal();
    else if (earlyFetches) earlyFetches.push(event);
    return;
  }
  const op = data?.op;
  if (op === "ping") {
    postMessage({ type: "pong" });
    return;
  }
  if (op === "settled") {
    settle();
    return;
  }
  if (op === "test_hang" && TEST_HOOKS) {
    // This worker stops answering anything, as a worker stuck in a loop would.
    for (;;);
  }
  if (op === "test_import" && TEST_HOOKS) {
    postMessage(testImport(String(event.data.module)));
    return;
  }
  if (op === "test_fatal" && TEST_HOOKS) {
    try {
      provokeFatal();
    } catch (error) {
      if (fatal === null) reportFatal(error);
    }
    return;
  }
  if (receive) forward(event.data);
  else queued.push(event.data);
});

// What escapes Python's event loop: a fatal error is reported; any other is the console's.
addEventListener("unhandledrejection", (event) => {
  if (isFatal(event.reason)) {
    event.preventDefault();
    reportFatal(event.reason);
  }
});

/**
 * @template T
 * @param {string} stage
 * @param {string} label
 * @param {() => Promise<T>} work
 * @returns {Promise<T>}
 */
async function timed(stage, label, work) {
  status(stage, label);
  const t0 = performance.now();
  const result = await work();
  stages[stage] = Math.round(performance.now() - t0);
  return result;
}

async function fetchApp() {
  const response = await fetch(new URL(APP_ARCHIVE, import.meta.url));
  if (!response.ok) {
    throw new Error(
      `could not fetch app.zip: HTTP ${response.status} (./build.sh setup builds it)`,
    );
  }
  return response.arrayBuffer();
}

/**
 * The snapshot's response once its headers came, or why there is none to use: a build without
 * a snapshot answers 404; a request that failed is tried once more, since the worker started
 * without its snapshot is several times slower to be ready.
 * @returns {Promise<{ response: Response | null, missing: string | null }>}
 */
async function fetchSnapshot() {
  const url = new URL(SNAPSHOT, import.meta.url);
  let failure = "";
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const response = await fetch(url);
      if (response.ok) return { response, missing: null };
      return { response: null, missing: `${SNAPSHOT} answered HTTP ${response.status}` };
    } catch (error) {
      failure = `${SNAPSHOT} could not be fetched (${error})`;
    }
  }
  return { response: null, missing: failure };
}

/** The snapshot does not fit this worker's Pyodide: the worker starts without it. */
class SnapshotMismatch extends Error {}

/**
 * The snapshot file's parts: Pyodide's snapshot (a view of the file), where its memory starts,
 * the checksum of the initial memory's XORed words, the XORed and the volatile byte ranges.
 * @param {ArrayBuffer} file
 */
function openSnapshot(file) {
  const words = new Uint32Array(file, 0, Math.floor(file.byteLength / 4));
  if (words.length < 4 || words[0] !== DELTA_MAGIC) {
    throw new SnapshotMismatch("the memory snapshot is not in the form this worker reads");
  }
  const [xoredCount, sum, volatileCount] = words.subarray(1, 4);
  const at = 4 * (4 + 2 * (xoredCount + volatileCount));
  const snapshot = new Uint8Array(file, Math.min(at, file.byteLength));
  const memoryAt = snapshot.length >= 8 ? new Uint32Array(file, at, 2)[1] : -1;
  /** @param {number} from @param {number} count */
  const ranges = (from, count) =>
    Array.from({ length: count }, (_, i) => words.subarray(from + 2 * i, from + 2 * i + 2));
  const xored = ranges(4, xoredCount);
  const end = xored.length ? xored[xored.length - 1][1] : 0;
  if (memoryAt < 0 || memoryAt % 4 !== 0 || memoryAt + end > snapshot.length) {
    throw new SnapshotMismatch("the memory snapshot is cut short");
  }
  return { snapshot, memoryAt, sum, xored, volatile: ranges(4 + 2 * xoredCount, volatileCount) };
}

/**
 * Pyodide's module maker, wrapped: once the module has made its memory (the wasm's data and
 * what its start-up wrote, before the snapshot replaces it), the snapshot's XORed words are
 * XORed with that memory again, which makes them the memory the snapshot was taken of.
 * @param {Promise<any>} maker pyodide.asm.mjs's default export
 * @param {Promise<ReturnType<typeof openSnapshot>>} opened
 */
function restoringModule(maker, opened) {
  /** @param {any} settings */
  return async (settings) => {
    const module = await (await maker)(settings);
    const { snapshot, memoryAt, sum, xored, volatile } = await opened;
    // Restoring writes the whole memory: its volatile words may be zeroed first.
    const heap = new Uint8Array(module.HEAP8.buffer);
    for (const [start, end] of volatile) heap.fill(0, start, end);
    const initial = new Uint32Array(module.HEAP8.buffer);
    const words = Math.floor((snapshot.length - memoryAt) / 4);
    const memory = new Uint32Array(snapshot.buffer, snapshot.byteOffset + memoryAt, words);
    let hash = 0x811c9dc5; // FNV-1a, as tools/snapshot_worker.mjs computes it
    for (const [start, end] of xored) {
      for (let i = start / 4; i < end / 4; i++) hash = Math.imul(hash ^ initial[i], 16777619);
    }
    if (hash >>> 0 !== sum) {
      throw new SnapshotMismatch("the memory snapshot was taken against another initial memory");
    }
    for (const [start, end] of xored) {
      for (let i = start / 4; i < end / 4; i++) memory[i] ^= initial[i];
    }
    return module;
  };
}

/**
 * Pyodide restored from the snapshot `response`, its standard library a stand-in.
 * @param {PyodideConfig} options
 * @param {Response} response
 * @param {string} base the distribution's URL
 */
async function restore(options, response, base) {
  const maker = import(new URL("pyodide.asm.mjs", base).href).then((module) => module.default);
  // Promises, so that Pyodide fetches its wasm while the snapshot downloads.
  const opened = response.arrayBuffer().then(openSnapshot);
  options._loadSnapshot = opened.then(({ snapshot }) => snapshot);
  options.createPyodideModule = restoringModule(maker, opened);
  options.stdLibURL = STDLIB_STAND_IN;
  const unanswer = answerStandIn();
  try {
    return await loadPyodide(options);
  } finally {
    unanswer();
  }
}

// The Content-Security-Policy this worker was served with: its connect-src decides which model
// APIs the worker may fetch, so the model settings can say so before a fetch fails.
async function servedPolicy() {
  try {
    const response = await fetch(self.location.href, { method: "HEAD", cache: "no-store" });
    return response.headers.get("content-security-policy");
  } catch {
    return null;
  }
}

// The distribution's lock file, the policy and the snapshot, requested at once: they download
// while Pyodide loads. The wheel's URL is in the lock file.
/** @param {string} base the distribution's URL */
function prefetch(base) {
  const lockFile = fetch(new URL("pyodide-lock.json", base)).then((response) => {
    if (!response.ok) throw new Error(`could not fetch pyodide-lock.json: HTTP ${response.status}`);
    return response.json();
  });
  const wheelURL = lockFile.then((lock) => {
    const entry = lock.packages["pyctx-web"];
    if (!entry) throw new Error("pyodide-lock.json registers no pyctx-web wheel");
    return new URL(entry.file_name, base).href;
  });
  const policy = servedPolicy();
  const snapshot = fetchSnapshot();
  // Its error is reported where it is awaited (or by loadPyodide, for the lock file).
  wheelURL.catch(() => {});
  return { lockFile, wheelURL, policy, snapshot };
}

/**
 * A worker restored from the snapshot needs no standard library to be ready: every module it
 * runs is in the snapshot's memory, and Pyodide started with an empty stand-in for the zip.
 * The stock zip (modules as source, 2.5 MB, where the compiled one that the snapshot was
 * taken with is 4.5 MB even compressed: a restored worker imports few modules more) is
 * written over it by `load()`, which the worker calls after ready; zipimport then reads its
 * listing afresh. Until then, an import of a module that the snapshot's listing holds fetches
 * the zip at once, synchronously as a worker may, so no import fails for its absence.
 * @param {PyodideAPI} pyodide
 * @param {string} url the standard library's zip
 */
function deferStdlib(pyodide, url) {
  const sys = pyodide.pyimport("sys");
  const zipimport = pyodide.pyimport("zipimport");
  const zipPath = sys.path.toJs().find((/** @type {string} */ folder) => folder.endsWith(".zip"));
  if (!zipPath) throw new Error("sys.path names no standard library zip");
  // zipimport's listing of the zip, as the snapshot holds it: which names the zip can import.
  const listing = zipimport._zip_directory_cache.get(zipPath);
  /** @type {"pending" | "background" | "at once"} */
  let state = "pending";
  /** @param {string} name */
  const holds = (name) => {
    if (!listing) return true; // no listing: any new import may need the zip
    const stem = name.replaceAll(".", "/");
    return [".pyc", "/__init__.pyc", ".py", "/__init__.py"].some((end) => listing.has(stem + end));
  };
  /** @param {Uint8Array} bytes @param {"background" | "at once"} how */
  const write = (bytes, how) => {
    if (state !== "pending") return;
    pyodide.FS.writeFile(zipPath, bytes);
    state = how;
    // The listing in memory is the compiled zip's (or the stand-in's, if something dropped
    // it meanwhile): zipimport reads this zip's at the next import.
    const cache = zipimport._zip_directory_cache;
    if (cache.has(zipPath)) cache.pop(zipPath);
    cache.destroy();
  };
  const finder = {
    /** @param {string} name */
    find_spec(name) {
      if (state === "pending" && holds(name)) write(fetchAtOnce(url), "at once");
      return undefined; // the standard finders import it, from the zip now written
    },
  };
  sys.meta_path.insert(0, finder);
  /** @param {() => Promise<void>} when resolves when the zip may be written */
  const load = async (when) => {
    if (state === "pending") {
      const response = await fetch(url);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const bytes = new Uint8Array(await response.arrayBuffer());
      await when();
      write(bytes, "background");
    }
    // Not from within an import (find_spec), which walks sys.meta_path.
    const metaPath = sys.meta_path;
    for (let i = metaPath.length - 1; i >= 0; i--) if (metaPath.get(i) === finder) metaPath.pop(i);
    for (const proxy of [metaPath, listing, zipimport, sys]) proxy?.destroy?.();
  };
  return { load, state: () => state };
}

// The whole file at once, for an import that cannot wait (a worker may block on a request).
/** @param {string} url */
function fetchAtOnce(url) {
  const request = new XMLHttpRequest();
  request.open("GET", url, false);
  request.responseType = "arraybuffer";
  request.send();
  if (request.status !== 200) {
    throw new Error(`could not fetch the standard library ${url}: HTTP ${request.status}`);
  }
  return new Uint8Array(request.response);
}

// Pyodide fetches the standard library's zip itself: in a restored worker, its request for
// the stand-in is answered with an empty zip, and fetch is itself again after that request.
function answerStandIn() {
  const native = self.fetch;
  /** @type {typeof fetch} */
  const answering = (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url !== STDLIB_STAND_IN) return native(input, init);
    self.fetch = native;
    return Promise.resolve(new Response(EMPTY_ZIP));
  };
  self.fetch = answering;
  return () => {
    if (self.fetch === answering) self.fetch = native;
  };
}

// What the rehearsal sends: a first message that asks a question, on the offline model.
const REHEARSAL = {
  assistant_id: "agent",
  input: { messages: [{ role: "user", content: "help me with email" }] },
  stream_mode: ["values", "updates", "custom"],
  on_disconnect: "cancel",
  multitask_strategy: "reject",
  if_not_exists: "create",
  metadata: { title: "rehearsal" },
  context: { model: { kind: "offline", token_delay_ms: 0 } },
};

/**
 * Once ready, the worker runs a first turn that nobody sees, on a server in memory, through
 * the page's way in (createAgentServerFetch to serveAgentServer, over a channel of its own):
 * the browser compiles the WebAssembly and JavaScript of that path once, on first use, which
 * the page's first turn then finds done. The memory snapshot keeps Python's state of such a
 * rehearsal, not the browser's compiled code.
 * @param {PyodideAPI} pyodide
 */
async function rehearse(pyodide) {
  const workerMain = pyodide.pyimport("worker_main");
  const server = workerMain.make_server();
  const { port1, port2 } = new MessageChannel();
  const host = serveAgentServer(pyodide, server, { endpoint: port2 });
  try {
    const send = createAgentServerFetch(port1, { base: "http://rehearsal/" });
    const response = await send(`/threads/${crypto.randomUUID()}/runs/stream`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(REHEARSAL),
    });
    await response.arrayBuffer();
  } finally {
    host.close();
    port1.close();
    port2.close();
    server.destroy();
    workerMain.destroy();
  }
}

async function boot() {
  // packageBaseUrl also replaces the CDN that Pyodide would otherwise fall back to.
  const base = new URL(PYODIDE_URL, import.meta.url).href;
  const { lockFile, wheelURL, policy, snapshot } = prefetch(base);
  let restored = false;
  /** @type {string | null} why the worker started without its snapshot */
  let snapshotMissing = null;
  /** @type {Promise<Response | ArrayBuffer> | undefined} */
  let wheel;
  /** @type {Promise<ArrayBuffer> | undefined} */
  let app;
  const pyodide = await timed("runtime", "Loading the Python runtime…", async () => {
    /** @type {() => PyodideConfig} */
    const options = () => ({ indexURL: base, packageBaseUrl: base, lockFileContents: lockFile });
    const { response, missing } = await snapshot;
    snapshotMissing = missing;
    if (response) {
      try {
        const restoredPyodide = await restore(options(), response, base);
        restored = true;
        return restoredPyodide;
      } catch (error) {
        if (!(error instanceof SnapshotMismatch)) throw error;
        snapshotMissing = error.message;
        console.warn(`The worker starts without its memory snapshot: ${error.message}.`);
      }
    } else if (missing && !missing.includes("HTTP 404")) {
      console.warn(`The worker starts without its memory snapshot: ${missing}.`);
    }
    // Without the snapshot, the wheel and the app come before ready: they download now, and
    // their bodies are read while Pyodide loads (a response that failed goes to the loader
    // as it is, which names its status).
    wheel = wheelURL
      .then((url) => fetch(url))
      .then(
        /** @returns {Promise<Response | ArrayBuffer>} */
        async (response) => (response.ok ? response.arrayBuffer() : response),
      );
    app = fetchApp();
    for (const pending of [wheel, app]) pending.catch(() => {});
    return loadPyodide(options());
  });
  const loaded = performance.now();
  // Called by Pyodide when its interpreter can no longer be used.
  // (Through _api, Pyodide's internal API, which its types leave out.)
  const internal = /** @type {PyodideAPI & { _api: { on_fatal: (e: unknown) => void } }} */ (
    pyodide
  );
  internal._api.on_fatal = (error) => reportFatal(error);
  if (TEST_HOOKS) testPyodide = pyodide;
  const stdlib = restored ? deferStdlib(pyodide, new URL(STOCK_STDLIB, base).href) : null;
  stdlibState = stdlib?.state ?? null;

  // The wheel goes straight into site-packages, without Pyodide's package loader; the loader
  // also registers pyctx_web's JavaScript module, so that the library needs no eval. A
  // restored worker has every pyctx_web module in memory: it writes the files after ready.
  const install = async () => loadPyctxWeb(pyodide, { wheelURL: await wheelURL, wheel });
  const pyctxVersion = await timed("packages", "Installing pyctx_web…", () =>
    restored ? resumePyctxWeb(pyodide) : install(),
  );

  await timed("app", "Starting the assistant…", async () => {
    // A restored worker has imported every module of the app already (worker_main.preload).
    // app.zip itself goes where the app's folder would be, on sys.path: zipimport reads its
    // bytecode from it, and nothing is unpacked (Pyodide's unpackArchive imports zipfile,
    // shutil and tempfile, and writes each file).
    if (app) pyodide.FS.writeFile(APP_DIR, new Uint8Array(await app));
    pyodide.registerJsModule("demo_bridge", { post, content_security_policy: await policy });
    // Through proxies, not runPython: no source to parse on the way to ready.
    const sys = pyodide.pyimport("sys");
    const path = sys.path;
    if (!path.has(APP_DIR)) path.insert(0, APP_DIR);
    path.destroy();
    sys.destroy();
    // The module proxy lives as long as the worker: receive is borrowed from it.
    const importing = performance.now();
    const workerMain = pyodide.pyimport("worker_main");
    const booting = workerMain.boot(post);
    const booted = performance.now();
    /** @type {PyProxy} */
    let server;
    try {
      server = await booting;
    } finally {
      booting.destroy();
    }
    // The server's proxy lives as long as the worker: every request of the page reaches it.
    serveAgentServer(pyodide, server);
    const early = earlyFetches ?? [];
    earlyFetches = null;
    for (const event of early) {
      dispatchEvent(new MessageEvent("message", { data: event.data, ports: [...event.ports] }));
    }
    // The stage's two parts, for the benchmark's notes (the page shows the three stages).
    stages.app_import = Math.round(booted - importing);
    stages.app_boot = Math.round(performance.now() - booted);
    receive = workerMain.receive;
    prepareWorker = workerMain.prepare;
  });

  postMessage({
    type: "ready",
    pyodide: pyodide.version,
    snapshot: restored,
    snapshot_missing: snapshotMissing,
    pyctx_web: pyctxVersion,
    elapsed_ms: Math.round(performance.now() - started),
    after_load_ms: Math.round(performance.now() - loaded),
    stages: { ...stages },
  });
  for (const data of queued.splice(0)) forward(data);
  prepareWorker?.();
  lastFetch = performance.now(); // the page's first requests follow the ready message
  // Then the rehearsal, once the page has settled (or, from a page that never says so, once
  // its fetch is quiet); then, whenever the fetch is quiet, a restored worker's files (the
  // standard library's zip, then pyctx_web's wheel, for the modules the snapshot has not
  // imported; the app's are all imported: it needs none). Each writes many files at once,
  // which a request arriving meanwhile would wait for.
  const rehearsed = Promise.race([settled.then(() => "settled"), quiet().then(() => "quiet")])
    .then(async (after) => {
      await rehearse(pyodide);
      postMessage({ type: "rehearsed", after }); // what started it: for tests and benchmarks
    })
    .catch((error) =>
      console.warn(`The worker's rehearsal of a first turn failed: ${reasonOf(error)}`),
    );
  // The zip downloads now; each file is written once the fetch is quiet.
  if (stdlib) {
    const files = stdlib
      .load(() => rehearsed.then(quiet))
      .catch((error) => {
        postMessage({
          type: "error",
          message: `The worker could not load the standard library: ${reasonOf(error)}`,
        });
      })
      .then(async () => {
        const bytes = await wheelURL
          .then((url) => fetch(url))
          .then(
            /** @returns {Promise<Response | ArrayBuffer>} */
            async (response) => (response.ok ? response.arrayBuffer() : response),
          );
        await quiet();
        return loadPyctxWeb(pyodide, { wheelURL: await wheelURL, wheel: Promise.resolve(bytes) });
      });
    files.catch((error) =>
      postMessage({
        type: "error",
        message: `The worker could not write pyctx_web's files: ${reasonOf(error)}`,
      }),
    );
  }
}

boot().catch((error) =>
  postMessage({ type: "error", message: `The Python worker could not start: ${lastLine(error)}` }),
);
