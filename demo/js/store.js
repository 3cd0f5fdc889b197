// The thread store: the thread list, the active thread and each thread's head checkpoint,
// kept in localStorage (titles and ids only: never a message, never the API key), and the
// in-memory view of each thread (its transcript, streaming text, pending card, state, records).

/**
 * A message of the worker (protocol.js lists them): parsed JSON, whose fields each
 * handler checks as it reads them.
 * @typedef {{ type?: string, thread_id?: string, [field: string]: any }} WorkerMessage
 *
 * A card waiting for the person: a question or an approval, with its message's fields.
 * @typedef {{ kind: "question" | "approval", [field: string]: any }} Pending
 *
 * An entry of a thread's transcript, as entries.js normalizes it and draws it.
 * @typedef {object} Entry
 * @property {string | null} id its id in the thread's history (null: added by this page)
 * @property {string} kind message, answer, question, reply, note or tool
 * @property {string} role user or assistant
 * @property {string} content
 * @property {string} [mark] streaming, cancelled or stopped: an answer that did not end
 * @property {{ index: number, count: number, heads: string[] }} [branch]
 * @property {unknown} [name] a tool's
 * @property {unknown} [arguments] a tool's
 * @property {unknown} [status] a tool's
 * @property {unknown} [reason]
 * @property {unknown} [choices]
 *
 * A row of the inspector (inspector.js): a run's start, or a record a callback posted, for
 * the thread `postedFor`, seen "live" or from the thread's "history".
 * @typedef {{ postedFor: string, source: string }} Posted
 * @typedef {Posted & { run: { run_id?: unknown, from_checkpoint?: unknown } }} RunRow
 * @typedef {Posted & { record: { [field: string]: any } }} RecordRow
 * @typedef {RunRow | RecordRow} InspectRecord
 *
 * The page's view of one thread.
 * @typedef {object} View
 * @property {Entry[]} messages
 * @property {string | null} streaming the answer streamed so far, while one is
 * @property {Pending | null} pending the card the thread waits on
 * @property {string} state idle, running, waiting, done, unfinished or error (controls.js)
 * @property {string | null} stage the running turn's stage
 * @property {InspectRecord[]} records
 * @property {{ pending: Pending | null, length: number } | null} [refusable] what a turn
 *   refused by the worker goes back to: the card and the transcript's length before it
 * @property {string | null} [cardError]
 * @property {string | null} [runningNode] the graph node running now
 * @property {string | null} [sent] the text sent last, for the message box to get back
 * @property {boolean} [busyElsewhere] another tab holds the thread
 * @property {boolean} [waitingForLock]
 * @property {string | null} [notice]
 * @property {boolean} [refusedAsOtherVersion] a run of it was refused: another version stored it
 * @property {boolean} [unfinished] the thread's last turn stopped before its end
 *
 * @typedef {{ id: string, title: string, head: string | null }} Thread
 */

export const STORE_KEY = "pyctx_web.demo.threads";

export const app = {
  ready: false,
  /** @type {Thread[]} */
  threads: [],
  /** @type {string | null} */
  activeId: null,
  /** @type {Map<string | null, View>} thread id -> view (null: before a thread is active) */
  views: new Map(),
  /** @type {HTMLElement | null} the bubble of the active thread's answer being streamed */
  streamingEl: null,
  /** What the page's runs and history reads tell it, as chat events (type: the event's). */
  events: new EventTarget(),
};

// A chat event the page acts on, announced on app.events (the end-to-end tests listen there).
/** @param {{ type: string, [field: string]: unknown }} msg */
export function announce(msg) {
  app.events.dispatchEvent(new CustomEvent(msg.type, { detail: msg }));
}

// A thread id the LangGraph Server takes: a UUID.
export function newId() {
  return self.crypto.randomUUID();
}

/**
 * @param {string | null} threadId
 * @returns {View}
 */
export function view(threadId) {
  let v = app.views.get(threadId);
  if (!v) {
    v = { messages: [], streaming: null, pending: null, state: "idle", stage: null, records: [] };
    app.views.set(threadId, v);
  }
  return v;
}

export const known = (/** @type {unknown} */ threadId) =>
  app.threads.some((t) => t.id === threadId);
export const active = () => view(app.activeId);

// The active thread's id, for what the person does: there is one from the page's boot on.
export function activeId() {
  if (app.activeId === null) throw new Error("no thread is active yet");
  return app.activeId;
}
export const thread = (/** @type {string | null} */ threadId) =>
  app.threads.find((t) => t.id === threadId);

export function saveThreads() {
  const data = {
    threads: app.threads.map(({ id, title, head }) => (head ? { id, title, head } : { id, title })),
    active: app.activeId,
  };
  try {
    localStorage.setItem(STORE_KEY, JSON.stringify(data));
  } catch {
    // Storage may be full or disabled; the threads still live in the worker's checkpoints.
  }
}

/** @returns {{ threads: Thread[], active: string | null } | null} */
export function loadStored() {
  try {
    const data = JSON.parse(localStorage.getItem(STORE_KEY) || "null");
    if (!data || !Array.isArray(data.threads)) return null;
    /** @type {Thread[]} */
    const threads = data.threads
      .filter((/** @type {any} */ t) => t && typeof t.id === "string" && t.id)
      .map((/** @type {any} */ t) => ({
        id: t.id,
        title: typeof t.title === "string" && t.title ? t.title : "New chat",
        head: typeof t.head === "string" && t.head ? t.head : null,
      }));
    return { threads, active: typeof data.active === "string" ? data.active : null };
  } catch {
    return null;
  }
}

/**
 * The checkpoint the page shows for a thread: later turns continue from it.
 * @param {string} threadId
 */
export function headOf(threadId) {
  return thread(threadId)?.head ?? null;
}

// A new head for a thread; null: its latest checkpoint (a run is moving it on).
/** @param {string} threadId @param {unknown} head */
export function setHead(threadId, head) {
  const t = thread(threadId);
  const value = typeof head === "string" && head ? head : null;
  if (!t || t.head === value) return;
  t.head = value;
  saveThreads();
}

/** @param {string} text */
export function titleFrom(text) {
  const line = text.trim().split("\n")[0];
  return line.length > 40 ? `${line.slice(0, 39)}…` : line || "New chat";
}

/** @param {string} threadId @param {string} text */
export function setTitle(threadId, text) {
  const t = thread(threadId);
  if (t && t.title === "New chat") {
    t.title = titleFrom(text);
    saveThreads();
  }
}
