// createAgentServerFetch and serveAgentServer: a pyctx_web.server AgentServer (the LangGraph
// Server API) running in a Web Worker or in the same thread, behind a function with fetch's
// contract, for LangGraph's SDK: new Client({ apiUrl, callerOptions: { fetch } }).
//
// Each request travels over a MessageChannel of its own. The page posts
//   { type: "pyctx_web/agent-fetch", method, path, query, headers, body } with one port,
// and the server answers on that port with { type: "head", status, headers }, then
// { type: "chunk", chunk } for each part of the body, then { type: "end" } (or
// { type: "error", message } when the server failed). The page posts { type: "abort" } on the
// port when the fetch is aborted: the server sees an HTTP client disconnect
// (pyctx_web/server/_jsfetch.py drives its ASGI application).

const AGENT_FETCH = "pyctx_web/agent-fetch";

/** The statuses whose response has no body (the Response constructor refuses one). */
const NULL_BODY_STATUSES = [101, 103, 204, 205, 304];

/**
 * @import { PyodideAPI } from "pyodide"
 *
 * A request as createAgentServerFetch posts it.
 * @typedef {object} AgentFetchRequest
 * @property {typeof AGENT_FETCH} type
 * @property {string} method
 * @property {string} path the URL's path, percent-encoded as the URL has it
 * @property {string} query the URL's query, without its "?"
 * @property {[string, string][]} headers
 * @property {Uint8Array | null} body
 *
 * What the server answers on a request's port.
 * @typedef {{ type: "head", status: number, headers: [string, string][] }
 *   | { type: "chunk", chunk: Uint8Array }
 *   | { type: "end" }
 *   | { type: "error", message: string }} AgentFetchReply
 *
 * Where createAgentServerFetch sends its requests: a Worker, a MessagePort, or what
 * serveAgentServer returned.
 * @typedef {{ postMessage(message: AgentFetchRequest, transfer: Transferable[]): void }} AgentFetchTarget
 *
 * @typedef {(input: RequestInfo | URL, init?: RequestInit) => Promise<Response>} AgentFetch
 *
 * createAgentServerFetch's options.
 * @typedef {object} AgentFetchOptions
 * @property {string | URL} [base] what a relative URL is resolved against (the page's or
 *   worker's location, or http://localhost/ where there is none); only its path and query
 *   reach the server
 * @property {string} [basePath] a path prefix such as "/api" that the server does not see:
 *   "/api/threads" reaches it as "/threads" (for an apiUrl with a path, as a service worker
 *   answering a same-origin path has)
 * @property {AbortSignal} [signal] closes the fetch for good once aborted: its pending
 *   requests fail (and the server sees their clients leave), later ones are refused; for a
 *   page whose worker died, since a terminated worker's channels tell the page nothing
 *
 * What serveAgentServer returns: a target for createAgentServerFetch in the same thread.
 * @typedef {object} AgentServerHost
 * @property {(message: AgentFetchRequest, transfer: Transferable[]) => void} postMessage
 *   answers one request (as a message on the endpoint would be)
 * @property {() => void} close stops listening on the endpoint and releases the server
 *
 * serveAgentServer's options.
 * @typedef {object} ServeOptions
 * @property {MessagePort | null} [endpoint] where requests arrive; by default the worker's
 *   own scope in a worker, and nowhere elsewhere (requests then come through the host)
 */

/**
 * What a thrown value says: an Error's message, or the value as text.
 * @param {unknown} error
 */
function agentFetchReason(error) {
  const message =
    typeof error === "object" && error !== null && "message" in error ? error.message : undefined;
  return String(message ?? error);
}

/**
 * The request fetch(input, init) would send, with relative URLs resolved against `base`.
 * @param {RequestInfo | URL} input
 * @param {RequestInit | undefined} init
 * @param {string} base
 */
function agentFetchRequest(input, init, base) {
  if (input instanceof Request) return init === undefined ? input : new Request(input, init);
  return new Request(new URL(String(input), base), init);
}

/**
 * A function with fetch's contract that sends each request to the pyctx_web.server AgentServer
 * behind `target` instead of the network: a Worker (or a MessagePort) whose other side called
 * serveAgentServer, or what serveAgentServer returned in this thread.
 *
 * The URL's origin is ignored (any apiUrl works); its path and query, the method, headers and
 * body reach the server. The promise resolves with a Response as soon as the server's status
 * and headers arrive; its body streams the server's chunks. Aborting the request's signal
 * rejects the promise with the signal's reason (or errors the body with it once the response
 * came) and tells the server, which sees an HTTP client disconnect. A server that fails
 * rejects the promise (or errors the body) with a TypeError, as fetch does on a network error.
 *
 * @param {AgentFetchTarget} target
 * @param {AgentFetchOptions} [options]
 * @returns {AgentFetch}
 */
export function createAgentServerFetch(target, { base, basePath = "", signal: lifetime } = {}) {
  if (target === null || typeof target !== "object" || typeof target.postMessage !== "function") {
    throw new TypeError(
      "createAgentServerFetch: the target must be a Worker or MessagePort whose other side " +
        "called serveAgentServer, or what serveAgentServer returned",
    );
  }
  const resolvedBase = String(base ?? globalThis.location?.href ?? "http://localhost/");
  const prefix = basePath.replace(/\/+$/, "");
  if (prefix !== "" && !prefix.startsWith("/")) {
    throw new TypeError(
      `createAgentServerFetch: basePath must start with "/", not ${JSON.stringify(basePath)}`,
    );
  }
  return async (input, init) => {
    if (lifetime?.aborted) throw agentFetchClosed(lifetime);
    const request = agentFetchRequest(input, init, resolvedBase);
    const signal = request.signal;
    signal.throwIfAborted();
    const body = await agentFetchBody(request, input, init);
    signal.throwIfAborted();
    if (lifetime?.aborted) throw agentFetchClosed(lifetime);
    const url = new URL(request.url);
    if (prefix !== "" && url.pathname !== prefix && !url.pathname.startsWith(`${prefix}/`)) {
      throw new TypeError(`createAgentServerFetch: ${request.url} is not under ${prefix}`);
    }
    const { port1, port2 } = new MessageChannel();
    /** @type {AgentFetchRequest} */
    const message = {
      type: AGENT_FETCH,
      method: request.method,
      path: url.pathname.slice(prefix.length) || "/",
      query: url.search.slice(1),
      headers: [...request.headers],
      body,
    };
    const answer = agentFetchAnswer(port1, signal, request.url, lifetime);
    target.postMessage(message, body === null ? [port2] : [port2, body.buffer]);
    return answer;
  };
}

/**
 * The request's body as bytes, or null. A text body given in `init` (the SDK's JSON) is
 * encoded here, as the Request would: reading the Request's body instead waits for a task of
 * its own, which lets the page draw a frame before the request leaves.
 * @param {Request} request
 * @param {RequestInfo | URL} input
 * @param {RequestInit | undefined} init
 * @returns {Promise<Uint8Array | null>}
 */
async function agentFetchBody(request, input, init) {
  if (request.body === null) return null;
  if (!(input instanceof Request) && typeof init?.body === "string") {
    return new TextEncoder().encode(init.body);
  }
  return new Uint8Array(await request.arrayBuffer());
}

/**
 * The error of a request to a fetch whose lifetime signal was aborted.
 * @param {AbortSignal} lifetime
 */
function agentFetchClosed(lifetime) {
  return new TypeError("createAgentServerFetch: this fetch was closed", { cause: lifetime.reason });
}

/**
 * The response that arrives on `port`, until it ends, fails, `signal` aborts it or `lifetime`
 * closes the fetch.
 * @param {MessagePort} port
 * @param {AbortSignal} signal
 * @param {string} url
 * @param {AbortSignal | undefined} lifetime
 * @returns {Promise<Response>}
 */
function agentFetchAnswer(port, signal, url, lifetime) {
  return new Promise((resolve, reject) => {
    /** @type {JoinedChunks | null} */
    let body = null;
    let answered = false;
    let open = true;
    const finish = () => {
      open = false;
      signal.removeEventListener("abort", onAbort);
      lifetime?.removeEventListener("abort", onClose);
      port.onmessage = null;
      port.close();
    };
    // The server learns that the page left; its side closes the channel once it has read it.
    const leave = () => {
      if (!open) return;
      open = false;
      signal.removeEventListener("abort", onAbort);
      lifetime?.removeEventListener("abort", onClose);
      port.onmessage = null;
      port.postMessage({ type: "abort" });
    };
    /** @param {unknown} reason */
    const fail = (reason) => {
      if (!answered) reject(reason);
      else body?.error(reason);
    };
    const onAbort = () => {
      fail(signal.reason);
      leave();
    };
    const onClose = () => {
      if (lifetime) fail(agentFetchClosed(lifetime));
      leave();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    lifetime?.addEventListener("abort", onClose, { once: true });
    port.onmessage = (/** @type {MessageEvent<AgentFetchReply>} */ event) => {
      const reply = event.data;
      if (reply.type === "head") {
        answered = true;
        body = NULL_BODY_STATUSES.includes(reply.status) ? null : new JoinedChunks(leave);
        const stream = body === null ? null : body.stream;
        const response = new Response(stream, { status: reply.status, headers: reply.headers });
        Object.defineProperty(response, "url", { value: url });
        resolve(response);
      } else if (reply.type === "chunk") {
        body?.push(reply.chunk);
      } else if (reply.type === "end") {
        finish();
        body?.end();
      } else {
        finish();
        fail(new TypeError(`the agent server failed: ${reply.message}`));
      }
    };
  });
}

/**
 * A response body fed with the server's chunks: each read gets every chunk that arrived since
 * the last read, joined into one, so a reader slower than the stream (an SDK parsing events)
 * pays its per-read costs once per batch instead of once per chunk. Nothing waits for a batch
 * to fill: a chunk that finds a read waiting is handed over at once.
 */
class JoinedChunks {
  /** @param {() => void} onCancel called when the reader cancels the body */
  constructor(onCancel) {
    /** @type {Uint8Array[]} */
    this.pending = [];
    this.ended = false;
    /** @type {ReadableStreamDefaultController<Uint8Array> | null} */
    this.controller = null;
    /** @type {(() => void) | null} */
    this.wake = null;
    /** @type {ReadableStream<Uint8Array>} */
    this.stream = new ReadableStream(
      {
        start: (controller) => void (this.controller = controller),
        pull: () => this.pull(),
        cancel: onCancel,
      },
      { highWaterMark: 0 },
    );
  }

  /**
   * A read is waiting: give it what arrived, or wait for the next chunk or the end.
   * @returns {Promise<void> | undefined}
   */
  pull() {
    if (this.pending.length === 0 && !this.ended) {
      return new Promise((resolve) => void (this.wake = () => resolve(undefined))).then(() =>
        this.pull(),
      );
    }
    if (this.pending.length > 0) this.controller?.enqueue(joined(this.pending.splice(0)));
    if (this.ended) this.controller?.close();
    return undefined;
  }

  /** @param {Uint8Array} chunk */
  push(chunk) {
    this.pending.push(chunk);
    this.awaken();
  }

  /** The body is complete (closed once its last chunks are read). */
  end() {
    this.ended = true;
    this.awaken();
  }

  /** @param {unknown} reason */
  error(reason) {
    this.pending = [];
    this.wake = null;
    this.controller?.error(reason);
  }

  awaken() {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}

/**
 * The chunks as one (the chunk itself when alone).
 * @param {Uint8Array[]} chunks
 */
function joined(chunks) {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(chunks.reduce((size, chunk) => size + chunk.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/**
 * Answers the requests of createAgentServerFetch with `server`, a PyProxy of a
 * pyctx_web.server.AgentServer, in this Pyodide. In a worker, requests that the page posts to
 * the worker arrive on the worker's scope (other messages are left alone); `endpoint` names
 * another MessagePort to listen on. The host returned is a target for createAgentServerFetch in
 * this same thread.
 *
 * @param {PyodideAPI} pyodide
 * @param {any} server a PyProxy of a pyctx_web.server.AgentServer
 * @param {ServeOptions} [options]
 * @returns {AgentServerHost}
 */
export function serveAgentServer(pyodide, server, { endpoint } = {}) {
  if (!pyodide || typeof pyodide.pyimport !== "function") {
    throw new TypeError(
      "serveAgentServer: the first argument must be the Pyodide that loadPyodide() resolved with",
    );
  }
  if (!server || typeof server.handle !== "function") {
    throw new TypeError("serveAgentServer: the server must be a PyProxy of an AgentServer");
  }
  const bridge = pyodide.pyimport("pyctx_web.server._jsfetch");
  const encoder = new TextEncoder();
  const open = bridge.open_exchange;
  /** @param {AgentFetchRequest} request @param {MessagePort} port */
  const answer = (request, port) => {
    /** @type {{ disconnect(): void, destroy(): void } | null} */
    let exchange = null;
    let done = false;
    const close = () => {
      done = true;
      port.onmessage = null;
      port.close();
      exchange?.destroy();
      exchange = null;
    };
    /** @param {string} kind @param {any[]} args */
    const post = (kind, ...args) => {
      if (done) return;
      if (kind === "head") {
        port.postMessage({ type: "head", status: args[0], headers: JSON.parse(args[1]) });
      } else if (kind === "text") {
        const chunk = encoder.encode(args[0]);
        port.postMessage({ type: "chunk", chunk }, [chunk.buffer]);
      } else if (kind === "chunk") {
        // A Python bytes object, proxied for this call only: copied out before it returns.
        const view = args[0].getBuffer("u8");
        let chunk;
        try {
          chunk = view.data.slice();
        } finally {
          view.release();
        }
        port.postMessage({ type: "chunk", chunk }, [chunk.buffer]);
      } else if (kind === "end") {
        port.postMessage({ type: "end" });
        close();
      } else {
        port.postMessage({ type: "error", message: String(args[0]) });
        close();
      }
    };
    port.onmessage = (/** @type {MessageEvent<{ type?: string }>} */ event) => {
      if (event.data?.type !== "abort") return;
      exchange?.disconnect();
      // Nothing more goes to a page that left; the exchange goes on to its end in Python.
      close();
    };
    try {
      const { method, path, query, headers, body } = request;
      const bytes = body ?? new Uint8Array(0);
      exchange = open(server, method, path, query, JSON.stringify(headers), bytes, post);
    } catch (error) {
      port.postMessage({ type: "error", message: agentFetchReason(error) });
      close();
    }
  };
  /** @param {Event} event */
  const listener = (event) => {
    const { data, ports } = /** @type {MessageEvent} */ (event);
    if (data?.type === AGENT_FETCH && ports[0]) answer(data, ports[0]);
  };
  const scope = /** @type {any} */ (globalThis);
  const inWorker =
    typeof scope.WorkerGlobalScope === "function" && globalThis instanceof scope.WorkerGlobalScope;
  /** @type {EventTarget | null} */
  const source = endpoint ?? (inWorker ? globalThis : null);
  source?.addEventListener("message", listener);
  endpoint?.start();
  return {
    postMessage: (message, transfer) => {
      const port = transfer.find((item) => item instanceof MessagePort);
      if (message?.type !== AGENT_FETCH || port === undefined) {
        throw new TypeError(
          "serveAgentServer: the message is not a request of createAgentServerFetch",
        );
      }
      answer(message, port);
    },
    close: () => {
      source?.removeEventListener("message", listener);
      bridge.destroy(); // and open_exchange, borrowed from it
    },
  };
}

/**
 * Passes the requests of createAgentServerFetch that arrive on `source` on to `target`, with
 * their ports: a page passes what its service worker sends it (`navigator.serviceWorker`) to
 * the Worker that called serveAgentServer, so the service worker's fetch handler can answer a
 * same-origin path with `createAgentServerFetch(client, { basePath })`. Returns a function
 * that stops it.
 *
 * @param {EventTarget & { startMessages?(): void }} source
 * @param {AgentFetchTarget} target
 * @returns {() => void}
 */
export function forwardAgentFetch(source, target) {
  /** @param {Event} event */
  const listener = (event) => {
    const { data, ports } = /** @type {MessageEvent} */ (event);
    if (data?.type === AGENT_FETCH && ports[0]) target.postMessage(data, [ports[0]]);
  };
  source.addEventListener("message", listener);
  // A ServiceWorkerContainer holds its messages until told to deliver them.
  source.startMessages?.();
  return () => source.removeEventListener("message", listener);
}
