// The thread store: the thread list, the active thread and each thread's head checkpoint,
// kept in localStorage (titles and ids only: never a message, never the API key), and the
// in-memory view of each thread (its transcript, streaming text, pending card, state, records).

export const STORE_KEY = "pyctx_web.demo.threads";

export const app = {
  ready: false,
  threads: [], // [{id, title, head}]
  activeId: null,
  views: new Map(), // thread id -> view
  streamingEl: null, // the bubble of the active thread's answer being streamed
};

export function newId() {
  const random = self.crypto?.randomUUID
    ? self.crypto.randomUUID().replaceAll("-", "")
    : Math.random().toString(16).slice(2) + Date.now().toString(16);
  return `t-${random.slice(0, 12)}`;
}

export function view(threadId) {
  let v = app.views.get(threadId);
  if (!v) {
    v = { messages: [], streaming: null, pending: null, state: "idle", stage: null, records: [] };
    app.views.set(threadId, v);
  }
  return v;
}

export const known = (threadId) => app.threads.some((t) => t.id === threadId);
export const active = () => view(app.activeId);
export const thread = (threadId) => app.threads.find((t) => t.id === threadId);

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

export function loadStored() {
  try {
    const data = JSON.parse(localStorage.getItem(STORE_KEY) || "null");
    if (!data || !Array.isArray(data.threads)) return null;
    const threads = data.threads
      .filter((t) => t && typeof t.id === "string" && t.id)
      .map((t) => ({
        id: t.id,
        title: typeof t.title === "string" && t.title ? t.title : "New chat",
        head: typeof t.head === "string" && t.head ? t.head : null,
      }));
    return { threads, active: typeof data.active === "string" ? data.active : null };
  } catch {
    return null;
  }
}

// The checkpoint the page shows for a thread: later turns continue from it.
export function headOf(threadId) {
  return thread(threadId)?.head ?? null;
}

// A new head for a thread; null: its latest checkpoint (a run is moving it on).
export function setHead(threadId, head) {
  const t = thread(threadId);
  const value = typeof head === "string" && head ? head : null;
  if (!t || t.head === value) return;
  t.head = value;
  saveThreads();
}

export function titleFrom(text) {
  const line = text.trim().split("\n")[0];
  return line.length > 40 ? `${line.slice(0, 39)}…` : line || "New chat";
}

export function setTitle(threadId, text) {
  const t = thread(threadId);
  if (t && t.title === "New chat") {
    t.title = titleFrom(text);
    saveThreads();
  }
}
