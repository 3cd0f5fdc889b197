// The page's Web Worker running Python: it serves the LangGraph Server API, which the page
// reaches through LangGraph's SDK (api.js, over createAgentServerFetch). Beside the API, the
// worker and the page exchange a few plain messages:
//
// page -> worker: {op: "configure_model", model} (the API key stays in the worker's memory),
//                 {op: "graph"}, {op: "ping"}
// worker -> page: boot {type: "status" | "ready" | "error"}, {type: "model"}, {type: "graph"},
//                 {type: "pong"}, {type: "fatal", message}.
//
// With ?api=URL the page starts no worker: it talks to the LangGraph Server at URL.
//
// A worker whose Python is gone (a fatal error of Pyodide, an uncaught error of the worker,
// or no pong for WATCHDOG_MS) is replaced: the page is told (hooks.lost), a new worker
// starts, gets the model last configured, and the page is told again once it is ready
// (hooks.back). Everything stored is in IndexedDB, which the new worker opens.

import { API_URL, client, loseWorker, serverOk, useWorker } from "./api.js";
import { readHistory } from "./history.js";
import { app } from "./store.js";

/**
 * @import { WorkerMessage } from "./store.js"
 * A message the page posts to the worker.
 * @typedef {{ op: string, [field: string]: unknown }} PageMessage
 * The page's handlers of the worker's boot messages (see connect).
 * @typedef {object} BootHooks
 * @property {(msg: WorkerMessage) => void} boot
 * @property {(text: string) => void} failed
 * @property {(reason: string) => void} lost
 * @property {() => void} back
 */

const WORKER_URL = new URL("../worker.js", import.meta.url);
// A page loaded with ?test-hooks starts its workers with it, which lets the tests provoke a
// fatal error; no message can turn that on.
if (new URLSearchParams(self.location.search).has("test-hooks")) WORKER_URL.search = "?test-hooks";

const PING_MS = 5000;
const WATCHDOG_MS = 20000;

/** @type {Worker} */
export let worker = /** @type {any} */ (null);
useWorker(() => worker);
/** @type {PageMessage | null} */
let lastModel = null; // the last configure_model message: a new worker gets it again

/** @param {PageMessage} message */
export function post(message) {
  if (message && message.op === "configure_model") lastModel = message;
  if (worker) worker.postMessage(message);
}

window.__demo = {
  get worker() {
    return worker;
  },
  get activeThreadId() {
    return app.activeId;
  },
  restarts: 0,
  events: app.events,
  client,
  history: async (/** @type {string} */ threadId) => {
    const { tree: _tree, ...shown } = await readHistory(threadId);
    return shown;
  },
};

// Boot status and ready (before app.ready) go to boot.boot(msg), a worker failure before
// ready to boot.failed(text), the loss of a ready worker to boot.lost(reason) and the
// readiness of its replacement to boot.back(), every other message to the handler of
// `handlers` named by its type.
/**
 * @param {BootHooks} boot
 * @param {Record<string, (msg: WorkerMessage) => void>} handlers
 */
export function connect(boot, handlers) {
  if (API_URL) {
    connectServer(boot);
    return;
  }
  let restarting = false;
  /** @type {number | null} */
  let pingSent = null; // when the unanswered ping was posted
  /** @type {ReturnType<typeof setInterval> | undefined} */
  let watchdog;

  const lose = (/** @type {string} */ reason) => {
    if (restarting) return;
    restarting = true;
    clearInterval(watchdog);
    worker.terminate();
    loseWorker(worker, reason);
    window.__demo.restarts += 1;
    boot.lost(reason);
    start();
  };

  const watch = () => {
    clearInterval(watchdog);
    pingSent = null;
    watchdog = setInterval(() => {
      if (pingSent !== null && performance.now() - pingSent > WATCHDOG_MS) {
        lose("it stopped answering");
        return;
      }
      if (pingSent === null) {
        pingSent = performance.now();
        worker.postMessage({ op: "ping" });
      }
    }, PING_MS);
  };

  const onMessage = (/** @type {MessageEvent} */ event) => {
    const msg = event.data;
    if (!msg || typeof msg !== "object") return;
    if (msg.type === "pong") {
      pingSent = null;
      return;
    }
    if (msg.type === "fatal") {
      const detail = typeof msg.message === "string" && msg.message ? ` (${msg.message})` : "";
      if (app.ready) lose(`its Python suffered a fatal error${detail}`);
      else boot.failed(`The Python worker could not start: a fatal error${detail}.`);
      return;
    }
    if ((msg.type === "status" || msg.type === "ready") && !("thread_id" in msg)) {
      if (msg.type === "ready") watch();
      if (!app.ready) {
        boot.boot(msg);
      } else if (msg.type === "ready" && restarting) {
        restarting = false;
        if (lastModel) worker.postMessage(lastModel);
        boot.back();
      }
      return;
    }
    const handler = Object.hasOwn(handlers, msg.type) ? handlers[msg.type] : null;
    if (handler) handler(msg);
  };

  const onError = (/** @type {ErrorEvent} */ event) => {
    event.preventDefault();
    const reason = event.message || "unknown error";
    if (app.ready) lose(`it failed: ${reason}`);
    else boot.failed(`The Python worker failed: ${reason}`);
  };

  function start() {
    worker = new Worker(WORKER_URL, { type: "module" });
    worker.addEventListener("message", onMessage);
    worker.addEventListener("error", onError);
  }
  start();
}

// A LangGraph Server at ?api=URL: the page is ready once it answers.
/** @param {BootHooks} boot */
function connectServer(boot) {
  const started = performance.now();
  serverOk().then(
    () =>
      boot.boot({
        type: "ready",
        server: API_URL,
        elapsed_ms: performance.now() - started,
      }),
    (error) => boot.failed(`The LangGraph Server at ${API_URL} did not answer: ${error.message}`),
  );
}
