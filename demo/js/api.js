// The page's LangGraph client: LangGraph's own SDK (its Client, bundled at build time) over the
// LangGraph Server API that the page's worker serves (createAgentServerFetch), or, with
// ?api=URL, a real LangGraph Server at URL. Threads, their history, their runs and the graph
// are read and written only through it.

import { Tree } from "./conversation.js";

/** The graph the page talks to: its assistant id on either server. */
export const GRAPH_ID = "agent";

const SDK_URL = new URL("../vendor/langgraph-sdk.mjs", import.meta.url).href;
const FETCH_URL = new URL("../pyctx_web.mjs", import.meta.url).href;

/**
 * The server the page talks to: null for its worker, else the URL of a LangGraph Server.
 * @returns {string | null}
 */
function serverUrl() {
  const given = new URLSearchParams(self.location.search).get("api");
  if (!given) return null;
  const url = new URL(given, self.location.href);
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new Error(`?api must be an http(s) URL, not ${given}`);
  return url.href.replace(/\/+$/, "");
}

export const API_URL = serverUrl();

/** @type {() => Worker} */
let currentWorker = () => {
  throw new Error("the page has no worker to talk to");
};

/** The worker the page's client sends its requests to (the one running now). @param {() => Worker} get */
export function useWorker(get) {
  currentWorker = get;
}

/** @type {Promise<{ sdk: any, options: Record<string, unknown> }> | null} */
let made = null;

/**
 * Each worker's fetch, and what ends it when the worker is lost.
 * @type {WeakMap<Worker, { send: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>,
 *   lifetime: AbortController }>}
 */
const lines = new WeakMap();

/** The name of the reason a lost worker's requests fail with. */
const WORKER_LOST = "WorkerLostError";

/**
 * The worker is gone (a crash gives its ports no event): its requests still under way fail
 * now, with a reason that workerLost recognizes, instead of waiting for ever.
 * @param {Worker} worker
 * @param {string} why
 */
export function loseWorker(worker, why) {
  const line = lines.get(worker);
  if (!line) return;
  lines.delete(worker);
  line.lifetime.abort(
    Object.assign(new Error(`the worker was lost: ${why}`), { name: WORKER_LOST }),
  );
}

/** Whether a request failed because its worker was lost (the page says so once). @param {unknown} error */
export function workerLost(error) {
  const cause = error && typeof error === "object" ? /** @type {any} */ (error).cause : null;
  return Boolean(cause && cause.name === WORKER_LOST);
}

// The SDK and the options of the page's clients: over the worker's fetch, or at ?api=URL.
function setup() {
  made ??= (async () => {
    const sdk = await import(SDK_URL);
    if (API_URL) return { sdk, options: { apiUrl: API_URL } };
    const { createAgentServerFetch } = await import(FETCH_URL);
    // A replaced worker gets a fetch of its own: each request goes to the worker running now.
    const fetch = (/** @type {RequestInfo | URL} */ input, /** @type {RequestInit} */ init) => {
      const worker = currentWorker();
      let line = lines.get(worker);
      if (!line) {
        const lifetime = new AbortController();
        line = { send: createAgentServerFetch(worker, { signal: lifetime.signal }), lifetime };
        lines.set(worker, line);
      }
      return line.send(input, init);
    };
    return { sdk, options: { apiUrl: self.location.origin, callerOptions: { fetch } } };
  })();
  return made;
}

/** @type {Promise<any> | null} */
let retrying = null;
/** @type {Promise<any> | null} */
let once = null;

/**
 * The SDK's Client, made once: over the worker's fetch, or at ?api=URL.
 * @returns {Promise<any>}
 */
export function client() {
  retrying ??= setup().then(({ sdk, options }) => new sdk.Client(options));
  return retrying;
}

/**
 * A Client that asks once, never again after a failure (the SDK retries a failed GET four
 * times, with growing waits): for what the page can do without.
 * @returns {Promise<any>}
 */
function clientAskingOnce() {
  once ??= setup().then(
    ({ sdk, options }) =>
      new sdk.Client({
        ...options,
        callerOptions: { .../** @type {any} */ (options).callerOptions, maxRetries: 0 },
      }),
  );
  return once;
}

/** @param {unknown} error @returns {number | null} the HTTP status an SDK call failed with */
export function statusOf(error) {
  const status = error && typeof error === "object" ? /** @type {any} */ (error).status : null;
  return typeof status === "number" ? status : null;
}

/**
 * What a failed SDK call says: the server's detail ({"detail": ...}) when it gave one.
 * @param {unknown} error
 */
export function errorText(error) {
  const text = error instanceof Error ? error.message : String(error);
  const found = /^HTTP (\d+): (\{.*\})$/s.exec(text);
  if (!found) return text;
  try {
    const detail = JSON.parse(found[2]).detail;
    if (detail !== undefined)
      return `${typeof detail === "string" ? detail : JSON.stringify(detail)} (HTTP ${found[1]})`;
  } catch {
    // Not JSON after all: the text as the SDK gave it.
  }
  return text;
}

/** The threads this page has seen on the server (listed, read, or made by it). */
const onServer = new Set();

/** Whether the page knows the thread is on the server. @param {string} threadId */
export const onServerAlready = (threadId) => onServer.has(threadId);

/** The thread is on the server (its first run made it). @param {string} threadId */
export function markOnServer(threadId) {
  onServer.add(threadId);
}

/**
 * The threads of this graph on the server, newest first: {id, title}.
 * @returns {Promise<{ id: string, title: string }[]>}
 */
export async function listThreads() {
  const api = await client();
  const found = await api.threads.search({ metadata: { graph_id: GRAPH_ID }, limit: 100 });
  for (const t of found) onServer.add(String(t.thread_id));
  return found.map((/** @type {any} */ t) => ({
    id: String(t.thread_id),
    title:
      typeof t.metadata?.title === "string" && t.metadata.title ? t.metadata.title : "New chat",
  }));
}

/** @param {string} threadId @param {string} title */
export async function renameThread(threadId, title) {
  const api = await client();
  await api.threads.update(threadId, { metadata: { title } });
}

/** @param {string} threadId */
export async function deleteThread(threadId) {
  onServer.delete(threadId);
  const api = await client();
  try {
    await api.threads.delete(threadId);
  } catch (error) {
    if (statusOf(error) !== 404) throw error; // never stored: nothing to delete
  }
}

const HISTORY_LIMIT = 1000;

/**
 * Every checkpoint of the thread as a tree (empty for a thread the server does not have yet).
 * @param {string} threadId
 */
export async function loadTree(threadId) {
  const api = await client();
  try {
    const tree = new Tree(await api.threads.getHistory(threadId, { limit: HISTORY_LIMIT }));
    onServer.add(threadId);
    return tree;
  } catch (error) {
    if (statusOf(error) === 404) return new Tree([]);
    throw error;
  }
}

/** @param {string} threadId the thread's state now (its newest checkpoint) */
export async function threadState(threadId) {
  const api = await client();
  return api.threads.getState(threadId);
}

/** @type {Promise<string> | null} */
let assistant = null;

/** The assistant id of the graph (the server's /assistants/{id} take no graph name). */
export function assistantId() {
  assistant ??= client().then(async (api) => {
    const found = await api.assistants.search({ graphId: GRAPH_ID, limit: 1 });
    if (!found.length) throw new Error(`the server has no assistant for the graph ${GRAPH_ID}`);
    return String(found[0].assistant_id);
  });
  return assistant;
}

/** The graph's nodes and edges, as GET /assistants/{id}/graph gives them. */
export async function graphOf() {
  const api = await client();
  return api.assistants.getGraph(await assistantId());
}

/** @type {Promise<Set<string> | null> | null} */
let nodes = null;

/** The graph's nodes, as far as the server describes them (null: it does not); read once. */
export function graphNodes() {
  nodes ??= (async () => {
    const api = await clientAskingOnce();
    const listed = (await api.assistants.getGraph(await assistantId()))?.nodes;
    return Array.isArray(listed)
      ? new Set(listed.map((/** @type {any} */ n) => String(n?.id)))
      : null;
  })();
  return nodes;
}

/** Whether the server answers (GET /ok); the page's boot waits for it under ?api. */
export async function serverOk() {
  const response = await fetch(`${API_URL}/ok`);
  if (!response.ok) throw new Error(`GET ${API_URL}/ok answered ${response.status}`);
}
