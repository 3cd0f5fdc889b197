// The page: it talks to the Python worker only through plain messages and renders what comes back.
//
// page -> worker: {op: "send", thread_id, message}, {op: "configure_model", model},
//                 {op: "delete_thread", thread_id}, {op: "two_chats", thread_ids, texts}
// worker -> page: boot {type: "status" | "ready" | "error"}, chat events with a thread_id
//                 (status, token, needs_input, done, error, history), {type: "inspect"},
//                 {type: "model"}, {type: "deleted"}.
//
// Every piece of text that comes from a person or from the model is set with textContent.

const $ = (id) => document.getElementById(id);
const STAGES = ["runtime", "packages", "app"];
const STORE_KEY = "pyctx_web.demo.threads";
const MAX_RECORDS_SHOWN = 400;
const TWO_CHATS = ["help me with email", "help me with a meeting"];
// Status stages name the node that has just finished.
const STAGE_LABELS = {
  started: "Reading your request",
  intake: "Checking what is needed",
  enrich: "Planning",
  plan: "Writing the answer",
  respond: "Finishing",
};
const STATE_LABELS = {
  idle: "",
  running: "Working",
  waiting: "Needs your answer",
  done: "Done",
  cancelled: "Cancelled",
  error: "Error",
  busy: "In another tab",
  outdated: "Read only",
};
// The worker's IndexedDB database; a run of a thread holds the Web Lock
// "pyctx_web:<database>:<thread id>" and posts its checkpoints and its end on the
// BroadcastChannel "pyctx_web:<database>" (pyctx_web.graph.checkpoint._tabs).
const DATABASE = "pyctx-demo";

const app = {
  ready: false,
  threads: [], // [{id, title}], the only thing kept in localStorage
  activeId: null,
  views: new Map(), // thread id -> view (messages, streaming text, pending question, state, records)
  streamingEl: null, // the bubble of the active thread's answer being streamed
};

// --- worker ---------------------------------------------------------------------------------

const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
const send = (message) => worker.postMessage(message);
window.__demo = {
  worker,
  get activeThreadId() {
    return app.activeId;
  },
};

worker.addEventListener("message", (event) => handle(event.data));
worker.addEventListener("error", (event) => {
  event.preventDefault();
  showError(`The Python worker failed: ${event.message || "unknown error"}`);
  if (!app.ready) document.body.dataset.state = "error";
});

function handle(msg) {
  if (!msg || typeof msg !== "object") return;
  if (!app.ready && (msg.type === "status" || msg.type === "ready") && !("thread_id" in msg)) {
    if (msg.type === "status") onBootStatus(msg);
    else onReady(msg);
    return;
  }
  switch (msg.type) {
    case "status": return onStatus(msg);
    case "token": return onToken(msg);
    case "needs_input": return onNeedsInput(msg);
    case "done": return onDone(msg);
    case "history": return onHistory(msg);
    case "inspect": return onInspect(msg);
    case "model": return onModel(msg);
    case "deleted": return onDeleted(msg);
    case "error": return onError(msg);
    default: return undefined;
  }
}

// --- loading --------------------------------------------------------------------------------

const loadStarted = performance.now();
const loadTicker = setInterval(() => {
  $("load-elapsed").textContent = seconds(performance.now() - loadStarted);
}, 100);

function seconds(ms) {
  return `${(ms / 1000).toFixed(1)} s`;
}

function onBootStatus(msg) {
  const index = STAGES.indexOf(msg.stage);
  if (index < 0) return;
  $("load-stage").textContent = msg.label || msg.stage;
  $("load-progress").value = index + 0.2;
  document.body.dataset.loadStage = msg.stage;
  for (const li of document.querySelectorAll(".stages li")) {
    const i = STAGES.indexOf(li.dataset.stage);
    li.classList.toggle("done", i < index);
    li.classList.toggle("active", i === index);
  }
}

function onReady(msg) {
  clearInterval(loadTicker);
  app.ready = true;
  $("load-progress").value = STAGES.length;
  for (const li of document.querySelectorAll(".stages li")) {
    li.classList.add("done");
    li.classList.remove("active");
    const ms = msg.stages?.[li.dataset.stage];
    if (typeof ms === "number") li.querySelector(".stage-time").textContent = seconds(ms);
  }
  $("versions").textContent = `Pyodide ${msg.pyodide} · pyctx_web ${msg.pyctx_web}`;
  $("load-time").textContent = `ready in ${seconds(msg.elapsed_ms)}`;
  $("load-time").title = `Loaded in ${seconds(msg.elapsed_ms)}${stageSummary(msg.stages)}`;
  $("load-time").hidden = false;
  $("load-elapsed").textContent = `Ready in ${seconds(msg.elapsed_ms)}`;
  $("loading").hidden = true;
  $("app").hidden = false;
  setModelBadge({ kind: "offline" });
  restoreThreads();
  if (window.matchMedia("(min-width: 1200px)").matches) setInspectorOpen(true);
  document.body.dataset.state = "ready";
  $("chat-input").focus();
}

function stageSummary(stages) {
  if (!stages) return "";
  const parts = STAGES.filter((s) => typeof stages[s] === "number").map((s) => `${s} ${seconds(stages[s])}`);
  return parts.length ? ` (${parts.join(" · ")})` : "";
}

// --- threads --------------------------------------------------------------------------------

function newId() {
  const random = self.crypto?.randomUUID
    ? self.crypto.randomUUID().replaceAll("-", "")
    : Math.random().toString(16).slice(2) + Date.now().toString(16);
  return `t-${random.slice(0, 12)}`;
}

function view(threadId) {
  let v = app.views.get(threadId);
  if (!v) {
    v = { messages: [], streaming: null, pending: null, state: "idle", stage: null, records: [] };
    app.views.set(threadId, v);
  }
  return v;
}

const known = (threadId) => app.threads.some((t) => t.id === threadId);
const active = () => view(app.activeId);

function saveThreads() {
  const data = { threads: app.threads.map(({ id, title }) => ({ id, title })), active: app.activeId };
  try {
    localStorage.setItem(STORE_KEY, JSON.stringify(data));
  } catch {
    // Storage may be full or disabled; the threads still live in the worker's checkpoints.
  }
}

function loadStored() {
  try {
    const data = JSON.parse(localStorage.getItem(STORE_KEY) || "null");
    if (!data || !Array.isArray(data.threads)) return null;
    const threads = data.threads
      .filter((t) => t && typeof t.id === "string" && t.id)
      .map((t) => ({ id: t.id, title: typeof t.title === "string" && t.title ? t.title : "New chat" }));
    return { threads, active: typeof data.active === "string" ? data.active : null };
  } catch {
    return null;
  }
}

function restoreThreads() {
  const stored = loadStored();
  if (stored && stored.threads.length) {
    app.threads = stored.threads;
    const activeId = known(stored.active) ? stored.active : app.threads[0].id;
    for (const t of app.threads) requestHistory(t.id);
    switchTo(activeId, { history: false });
  } else {
    createThread();
  }
}

function createThread(title = "New chat", { activate = true } = {}) {
  const thread = { id: newId(), title };
  app.threads.unshift(thread);
  view(thread.id);
  if (activate) switchTo(thread.id, { history: false });
  saveThreads();
  renderThreads();
  return thread;
}

function requestHistory(threadId) {
  send({ op: "send", thread_id: threadId, message: { type: "history" } });
}

function switchTo(threadId, { history = true } = {}) {
  app.activeId = threadId;
  saveThreads();
  renderThreads();
  renderActive();
  if (history) requestHistory(threadId);
  closeSidebar();
}

function deleteThread(threadId) {
  const index = app.threads.findIndex((t) => t.id === threadId);
  if (index < 0) return;
  send({ op: "delete_thread", thread_id: threadId }); // the worker cancels a running turn first
  app.threads.splice(index, 1);
  app.views.delete(threadId);
  if (app.activeId === threadId) {
    if (app.threads.length) switchTo(app.threads[Math.min(index, app.threads.length - 1)].id);
    else createThread();
  }
  saveThreads();
  renderThreads();
  renderInspector();
  $("new-thread").focus();
}

function titleFrom(text) {
  const line = text.trim().split("\n")[0];
  return line.length > 40 ? `${line.slice(0, 39)}…` : line || "New chat";
}

function setTitle(threadId, text) {
  const thread = app.threads.find((t) => t.id === threadId);
  if (thread && thread.title === "New chat") {
    thread.title = titleFrom(text);
    saveThreads();
  }
}

function setState(threadId, state) {
  const v = view(threadId);
  v.state = state;
  const li = document.querySelector(`#thread-list li[data-thread-id="${CSS.escape(threadId)}"]`);
  if (li) {
    li.dataset.threadState = state;
    li.querySelector(".thread-state").textContent = STATE_LABELS[state] || "";
  }
  if (threadId === app.activeId) renderControls();
}

function renderThreads() {
  const list = $("thread-list");
  list.replaceChildren();
  for (const thread of app.threads) {
    const v = view(thread.id);
    const li = document.createElement("li");
    li.dataset.threadId = thread.id;
    li.dataset.threadState = v.state;
    const open = document.createElement("button");
    open.type = "button";
    open.className = "thread-open";
    open.title = thread.id;
    if (thread.id === app.activeId) open.setAttribute("aria-current", "true");
    const name = document.createElement("span");
    name.className = "thread-name";
    name.textContent = thread.title;
    const badge = document.createElement("span");
    badge.className = "thread-state";
    badge.textContent = STATE_LABELS[v.state] || "";
    open.append(name, badge);
    open.addEventListener("click", () => switchTo(thread.id));
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "thread-delete icon-button";
    remove.setAttribute("aria-label", `Delete “${thread.title}”`);
    remove.title = "Delete this thread";
    remove.textContent = "✕";
    remove.addEventListener("click", () => deleteThread(thread.id));
    li.append(open, remove);
    list.append(li);
  }
}

// --- transcript -----------------------------------------------------------------------------

function bubble(role, text, kind) {
  const el = document.createElement("div");
  el.className = `msg msg-${role === "user" ? "user" : role === "assistant" ? "assistant" : "other"}`;
  if (kind) el.classList.add(`msg-${kind}`);
  el.dataset.role = role;
  const who = document.createElement("p");
  who.className = "msg-role";
  who.textContent = role === "user" ? "You" : role === "assistant" ? (kind === "question" ? "Assistant asked" : "Assistant") : role;
  const body = document.createElement("div");
  body.className = "msg-body";
  body.textContent = text;
  el.append(who, body);
  return el;
}

function renderActive() {
  const v = active();
  const thread = app.threads.find((t) => t.id === app.activeId);
  $("thread-title").textContent = thread ? thread.title : "New chat";
  const transcript = $("transcript");
  transcript.replaceChildren();
  app.streamingEl = null;
  for (const m of v.messages) transcript.append(bubble(m.role, m.content, m.kind));
  if (v.streaming !== null) startStreamingBubble(v.streaming);
  if (!v.messages.length && v.streaming === null) {
    const hint = document.createElement("p");
    hint.className = "empty-hint";
    hint.textContent = "Ask for something, for example “help me with email”.";
    transcript.append(hint);
  }
  renderPending();
  renderControls();
  renderInspector();
  scrollToEnd();
}

function startStreamingBubble(text) {
  $("transcript").querySelector(".empty-hint")?.remove();
  const el = bubble("assistant", text, "streaming");
  el.querySelector(".msg-body").setAttribute("aria-busy", "true");
  $("transcript").append(el);
  app.streamingEl = el;
  return el;
}

function appendMessage(threadId, role, content, kind) {
  const v = view(threadId);
  v.messages.push({ role, content, kind });
  if (threadId === app.activeId) {
    $("transcript").querySelector(".empty-hint")?.remove();
    const el = bubble(role, content, kind);
    if (app.streamingEl) app.streamingEl.before(el);
    else $("transcript").append(el);
    scrollToEnd();
  }
}

function finishStreaming(threadId, finalText, kind) {
  const v = view(threadId);
  const text = finalText ?? v.streaming;
  v.streaming = null;
  if (text === null || text === undefined) return;
  if (text === "" && finalText === undefined) return;
  v.messages.push({ role: "assistant", content: text, kind });
  if (threadId !== app.activeId) return;
  if (app.streamingEl) {
    const el = app.streamingEl;
    app.streamingEl = null;
    el.classList.remove("msg-streaming");
    if (kind) el.classList.add(`msg-${kind}`);
    const body = el.querySelector(".msg-body");
    body.textContent = text;
    body.setAttribute("aria-busy", "false");
  } else {
    $("transcript").append(bubble("assistant", text, kind));
  }
  scrollToEnd();
}

function scrollToEnd() {
  const transcript = $("transcript");
  transcript.scrollTop = transcript.scrollHeight;
}

function renderControls() {
  const v = active();
  const state = v.state;
  $("transcript").dataset.threadState = state;
  document.body.dataset.threadState = state;
  const running = state === "running";
  const waiting = state === "waiting";
  $("cancel-turn").hidden = !running;
  $("send").disabled = running || waiting || state === "busy" || state === "outdated";
  $("chat-input").placeholder = waiting
    ? "Answer the question above first"
    : running
      ? "The assistant is working…"
      : "Message the assistant";
  let status = "";
  if (running) status = `${STAGE_LABELS[v.stage] || v.stage || "Working"}…`;
  else if (waiting) status = "Waiting for your answer.";
  else if (state === "done") status = "Answered.";
  else if (state === "cancelled") status = "Cancelled.";
  else if (state === "error") status = "Stopped by an error.";
  else if (state === "busy") status = "This chat is running in another tab: it refreshes when that tab is done.";
  else if (state === "outdated") status = v.notice || "";
  $("turn-status").textContent = status;
}

function renderPending() {
  const v = active();
  const card = $("needs-input");
  const pending = v.pending;
  if (!pending) {
    card.hidden = true;
    delete card.dataset.interruptId;
    return;
  }
  const wasShown = !card.hidden && card.dataset.interruptId === String(pending.interrupt_id ?? "");
  $("needs-input-question").textContent = pending.question ?? "";
  $("needs-input-reason").textContent = pending.reason ?? "";
  const choices = $("needs-input-choices");
  choices.replaceChildren();
  for (const choice of Array.isArray(pending.choices) ? pending.choices : []) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "chip-button";
    button.textContent = String(choice);
    button.addEventListener("click", () => answer(String(choice)));
    choices.append(button);
  }
  choices.hidden = choices.childElementCount === 0;
  card.dataset.interruptId = String(pending.interrupt_id ?? "");
  card.hidden = false;
  if (!wasShown) {
    $("answer-input").value = "";
    $("answer-input").focus();
  }
}

// --- sending --------------------------------------------------------------------------------

function sendChat(text) {
  if (!app.ready || !text.trim()) return;
  const id = app.activeId;
  const v = view(id);
  if (["running", "waiting", "busy", "outdated"].includes(v.state)) return;
  setTitle(id, text);
  renderThreads();
  $("thread-title").textContent = app.threads.find((t) => t.id === id)?.title ?? "New chat";
  v.sent = text;
  appendMessage(id, "user", text);
  v.stage = "started";
  setState(id, "running");
  send({ op: "send", thread_id: id, message: { type: "chat", text } });
}

function answer(text) {
  const id = app.activeId;
  const v = view(id);
  if (!v.pending || !text.trim()) return;
  const { question, interrupt_id: interruptId } = v.pending;
  const message = { type: "resume_chat", resume_value: text };
  if (interruptId !== undefined && interruptId !== null) message.interrupt_id = interruptId;
  v.pending = null;
  renderPending();
  if (question) appendMessage(id, "assistant", question, "question");
  appendMessage(id, "user", text);
  v.stage = "started";
  setState(id, "running");
  send({ op: "send", thread_id: id, message });
  $("chat-input").focus();
}

function cancelTurn() {
  const id = app.activeId;
  if (view(id).state !== "running") return;
  $("turn-status").textContent = "Cancelling…";
  send({ op: "send", thread_id: id, message: { type: "cancel" } });
}

function twoChatsAtOnce() {
  if (!app.ready) return;
  const second = createThread(titleFrom(TWO_CHATS[1]), { activate: false });
  const first = createThread(titleFrom(TWO_CHATS[0]), { activate: false });
  const ids = [first.id, second.id];
  ids.forEach((id, i) => {
    view(id).messages.push({ role: "user", content: TWO_CHATS[i] });
    view(id).stage = "started";
    view(id).state = "running";
  });
  $("inspector-all").checked = true;
  switchTo(first.id, { history: false });
  send({ op: "two_chats", thread_ids: ids, texts: [...TWO_CHATS] });
}

// --- worker events --------------------------------------------------------------------------

function onStatus(msg) {
  const id = msg.thread_id;
  if (typeof id !== "string") return;
  const v = view(id);
  if (msg.stage === "cancelled") {
    finishStreaming(id, undefined, "cancelled");
    v.pending = null;
    if (id === app.activeId) renderPending();
    setState(id, "cancelled");
    return;
  }
  v.stage = msg.stage;
  leavePending(id);
  setState(id, "running");
}

// A turn that streams or moves on is past its question, whatever an older history said.
function leavePending(threadId) {
  const v = view(threadId);
  if (!v.pending) return;
  v.pending = null;
  if (threadId === app.activeId) renderPending();
}

function onToken(msg) {
  const id = msg.thread_id;
  if (typeof id !== "string" || typeof msg.token !== "string") return;
  const v = view(id);
  v.streaming = (v.streaming ?? "") + msg.token;
  leavePending(id);
  if (v.state !== "running") setState(id, "running");
  if (id !== app.activeId) return;
  if (!app.streamingEl) startStreamingBubble(v.streaming);
  else app.streamingEl.querySelector(".msg-body").append(msg.token);
  scrollToEnd();
}

function onNeedsInput(msg) {
  const id = msg.thread_id;
  if (typeof id !== "string") return;
  const v = view(id);
  finishStreaming(id);
  v.pending = {
    question: msg.question,
    reason: msg.reason,
    interrupt_id: msg.interrupt_id,
    choices: msg.choices,
  };
  setState(id, "waiting");
  if (id === app.activeId) renderPending();
}

function onDone(msg) {
  const id = msg.thread_id;
  if (typeof id !== "string") return;
  finishStreaming(id, typeof msg.text === "string" ? msg.text : undefined);
  view(id).pending = null;
  setState(id, "done");
  if (id === app.activeId) {
    renderPending();
    if (!document.activeElement || document.activeElement === document.body || document.activeElement.id === "answer-input") {
      $("chat-input").focus();
    }
  }
}

function onHistory(msg) {
  const id = msg.thread_id;
  if (typeof id !== "string") return;
  const v = view(id);
  v.messages = (Array.isArray(msg.messages) ? msg.messages : []).map((m) => ({
    role: String(m?.role ?? "assistant"),
    content: typeof m?.content === "string" ? m.content : JSON.stringify(m?.content ?? ""),
  }));
  // A turn running here is newer than any question the history still shows.
  const running = v.state === "running";
  v.pending = !running && msg.pending && typeof msg.pending === "object" ? { ...msg.pending } : null;
  if (Array.isArray(msg.trace)) {
    v.records = msg.trace.map((record) => ({ postedFor: id, record, source: "history" }));
  }
  v.notice = typeof msg.notice === "string" ? msg.notice : null;
  if (v.notice) {
    // Saved by another version of the assistant: shown, not continued.
    v.pending = null;
    v.streaming = null;
    v.state = "outdated";
  } else if (v.busyElsewhere) {
    // Another tab runs it: what it has stored so far is shown, its question is its own.
    v.pending = null;
    v.streaming = null;
  } else if (v.pending) {
    v.streaming = null;
    v.state = "waiting";
  } else if (v.state !== "running") {
    const last = v.messages[v.messages.length - 1];
    if (v.state === "idle" || v.state === "waiting") v.state = last && last.role === "assistant" ? "done" : "idle";
  }
  if (known(id)) {
    const thread = app.threads.find((t) => t.id === id);
    const firstUser = v.messages.find((m) => m.role === "user");
    if (thread.title === "New chat" && firstUser) {
      thread.title = titleFrom(firstUser.content);
      saveThreads();
    }
    renderThreads();
  }
  if (id === app.activeId) renderActive();
  else renderInspectorSummary();
}

function onInspect(msg) {
  const id = msg.thread_id;
  if (typeof id !== "string" || !msg.record || typeof msg.record !== "object") return;
  const entry = { postedFor: id, record: msg.record, source: "live" };
  view(id).records.push(entry);
  if ($("inspector-all").checked || id === app.activeId) {
    const list = $("inspector-list");
    list.append(recordItem(entry));
    while (list.childElementCount > MAX_RECORDS_SHOWN) list.firstElementChild.remove();
    if (!$("inspector").hidden) list.lastElementChild.scrollIntoView({ block: "nearest" });
  }
  renderInspectorSummary();
}

function onModel(msg) {
  if (msg.ok === false) {
    showError(msg.message || "The model settings were not accepted.");
    return;
  }
  setModelBadge(msg);
}

function onDeleted(msg) {
  if (known(msg.thread_id)) {
    app.threads = app.threads.filter((t) => t.id !== msg.thread_id);
    saveThreads();
    renderThreads();
  }
}

function onError(msg) {
  if (msg.code === "thread_busy" && typeof msg.thread_id === "string") {
    onBusyElsewhere(msg.thread_id);
    return;
  }
  if (!app.ready && !("thread_id" in msg)) {
    document.body.dataset.state = "error";
    $("load-stage").textContent = "The Python worker could not start.";
    clearInterval(loadTicker);
  }
  showError(msg.message || "Something went wrong.");
  const id = msg.thread_id;
  if (typeof id === "string" && app.views.has(id) && view(id).state === "running") {
    finishStreaming(id, undefined, "stopped");
    setState(id, "error");
  }
}

// --- a thread that another tab runs ----------------------------------------------------------

// The worker refused the turn before writing anything: what was sent from here is taken
// back (its text returns to the message box), the thread shows what is stored, and it
// refreshes as the other tab's checkpoints arrive and once that tab is done or closed.
function onBusyElsewhere(id) {
  const v = view(id);
  if (v.state === "running" && typeof v.sent === "string" && id === app.activeId) {
    if (!$("chat-input").value) $("chat-input").value = v.sent;
  }
  v.sent = null;
  v.busyElsewhere = true;
  setState(id, "busy");
  requestHistory(id);
  const locks = navigator.locks;
  // The other tab's lock is freed when its run ends, and also when the tab is closed,
  // which no message announces: waiting for the lock covers both.
  if (locks && !v.waitingForLock) {
    v.waitingForLock = true;
    locks.request(`pyctx_web:${DATABASE}:${id}`, () => undefined).then(() => {
      v.waitingForLock = false;
      freedElsewhere(id);
    });
  }
}

function freedElsewhere(id) {
  const v = view(id);
  if (!v.busyElsewhere) return;
  v.busyElsewhere = false;
  setState(id, "idle");
  requestHistory(id);
}

if (typeof BroadcastChannel === "function") {
  const news = new BroadcastChannel(`pyctx_web:${DATABASE}`);
  news.onmessage = (event) => {
    const id = event.data && event.data.thread_id;
    if (typeof id !== "string" || !app.views.has(id) || !view(id).busyElsewhere) return;
    if (event.data.event === "released") freedElsewhere(id);
    else requestHistory(id);
  };
}

// --- inspector ------------------------------------------------------------------------------

function shortId(value) {
  const text = value === null || value === undefined ? "—" : String(value);
  return text.length > 12 ? `${text.slice(0, 6)}…${text.slice(-4)}` : text;
}

function idCell(label, value) {
  const wrap = document.createElement("span");
  wrap.className = "rec-id";
  const name = document.createElement("span");
  name.className = "rec-id-label";
  name.textContent = label;
  const code = document.createElement("code");
  code.textContent = shortId(value);
  code.title = value === null || value === undefined ? "none" : String(value);
  wrap.append(name, code);
  return wrap;
}

function recordItem({ postedFor, record, source }) {
  const li = document.createElement("li");
  const crossing = record.thread_id !== postedFor;
  li.className = "record";
  li.dataset.kind = String(record.kind ?? "");
  li.dataset.name = String(record.name ?? "");
  li.dataset.threadId = String(record.thread_id ?? "");
  li.dataset.runId = String(record.run_id ?? "");
  li.dataset.correlationId = String(record.correlation_id ?? "");
  li.dataset.postedFor = postedFor;
  li.dataset.source = source;
  li.dataset.crossing = String(crossing);
  const head = document.createElement("div");
  head.className = "rec-head";
  const kind = document.createElement("span");
  kind.className = `rec-kind rec-kind-${String(record.kind ?? "other").replace(/[^a-z]/g, "")}`;
  kind.textContent = String(record.kind ?? "?");
  const name = document.createElement("span");
  name.className = "rec-name";
  name.textContent = String(record.name ?? "");
  head.append(kind, name);
  if (record.step !== undefined && record.step !== null) {
    const step = document.createElement("span");
    step.className = "rec-step";
    step.textContent = `step ${record.step}`;
    head.append(step);
  }
  if (crossing) {
    const flag = document.createElement("span");
    flag.className = "rec-flag";
    flag.textContent = `crossing: posted for ${shortId(postedFor)}`;
    flag.title = `This record belongs to ${postedFor} but saw ${record.thread_id}`;
    head.append(flag);
  }
  const ids = document.createElement("div");
  ids.className = "rec-ids";
  ids.append(
    idCell("run", record.run_id),
    idCell("thread", record.thread_id),
    idCell("corr", record.correlation_id),
  );
  li.append(head, ids);
  return li;
}

function renderInspector() {
  const all = $("inspector-all").checked;
  const entries = [];
  if (all) {
    for (const thread of app.threads) entries.push(...view(thread.id).records);
  } else if (app.activeId) {
    entries.push(...view(app.activeId).records);
  }
  $("inspector-list").replaceChildren(...entries.slice(-MAX_RECORDS_SHOWN).map(recordItem));
  renderInspectorSummary();
}

function renderInspectorSummary() {
  let total = 0;
  let crossings = 0;
  const scope = $("inspector-all").checked ? app.threads.map((t) => t.id) : [app.activeId];
  for (const id of scope) {
    if (!id || !app.views.has(id)) continue;
    for (const entry of view(id).records) {
      total += 1;
      if (entry.record.thread_id !== entry.postedFor) crossings += 1;
    }
  }
  const summary = $("inspector-summary");
  summary.dataset.records = String(total);
  summary.dataset.crossings = String(crossings);
  summary.classList.toggle("has-crossing", crossings > 0);
  const noun = total === 1 ? "record" : "records";
  summary.textContent = crossings
    ? `${total} ${noun} · ${crossings} crossing!`
    : `${total} ${noun} · no crossing`;
}

function setInspectorOpen(open) {
  $("inspector").hidden = !open;
  $("toggle-inspector").setAttribute("aria-expanded", String(open));
  document.body.classList.toggle("inspector-open", open);
  if (open) renderInspector();
}

// --- settings -------------------------------------------------------------------------------

function setModelBadge(model) {
  const badge = $("model-badge");
  if (model.kind === "openai") {
    let host = "";
    try {
      host = new URL($("base-url").value).host;
    } catch {
      host = "";
    }
    badge.textContent = `Model: ${$("model-name").value || "OpenAI-compatible"}${host ? ` at ${host}` : ""}`;
  } else {
    const delay = Number(model.token_delay_ms);
    badge.textContent = Number.isFinite(delay) ? `Model: offline · ${delay} ms per token` : "Model: offline";
  }
  badge.dataset.kind = model.kind ?? "offline";
  badge.hidden = false;
}

function syncSettingsFields() {
  const kind = new FormData($("settings-form")).get("kind");
  $("openai-fields").hidden = kind !== "openai";
  $("offline-fields").hidden = kind !== "offline";
  $("base-url").required = kind === "openai";
  $("model-name").required = kind === "openai";
}

function applySettings(event) {
  event.preventDefault();
  const form = $("settings-form");
  if (!form.reportValidity()) return;
  const data = new FormData(form);
  let model;
  if (data.get("kind") === "openai") {
    model = {
      kind: "openai",
      base_url: String(data.get("base_url")).trim(),
      model: String(data.get("model")).trim(),
      api_key: String(data.get("api_key")),
    };
  } else {
    model = { kind: "offline" };
    const delay = Number(data.get("token_delay_ms"));
    if (Number.isFinite(delay) && delay > 0) model.token_delay_ms = Math.round(delay);
  }
  send({ op: "configure_model", model });
  $("settings").close();
  $("open-settings").focus();
}

// --- panels and keyboard --------------------------------------------------------------------

function openSidebar() {
  document.body.classList.add("sidebar-open");
  $("scrim").hidden = false;
  $("toggle-sidebar").setAttribute("aria-expanded", "true");
  $("new-thread").focus();
}

function closeSidebar() {
  if (!document.body.classList.contains("sidebar-open")) return false;
  document.body.classList.remove("sidebar-open");
  $("scrim").hidden = true;
  $("toggle-sidebar").setAttribute("aria-expanded", "false");
  return true;
}

function showError(message) {
  $("error-text").textContent = message;
  $("error-banner").hidden = false;
}

function dismissError() {
  $("error-banner").hidden = true;
  $("error-text").textContent = "";
}

$("composer").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = $("chat-input");
  const text = input.value;
  const v = active();
  if (!text.trim() || v.state === "running" || v.state === "waiting") return;
  input.value = "";
  sendChat(text);
});
$("chat-input").addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    $("composer").requestSubmit();
  }
});
$("answer-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = $("answer-input").value;
  if (!text.trim()) return;
  $("answer-input").value = "";
  answer(text);
});
$("cancel-turn").addEventListener("click", cancelTurn);
$("new-thread").addEventListener("click", () => {
  if (!app.ready) return;
  createThread();
  $("chat-input").focus();
});
$("two-chats").addEventListener("click", () => {
  twoChatsAtOnce();
  if (window.matchMedia("(min-width: 1200px)").matches) setInspectorOpen(true);
});
$("toggle-inspector").addEventListener("click", () => {
  const opening = $("inspector").hidden;
  setInspectorOpen(opening);
  // Below the wide layout the inspector covers the page: take the focus into it.
  if (opening && !window.matchMedia("(min-width: 1200px)").matches) $("close-inspector").focus();
});
$("close-inspector").addEventListener("click", () => {
  setInspectorOpen(false);
  $("toggle-inspector").focus();
});
$("inspector-all").addEventListener("change", renderInspector);
$("toggle-sidebar").addEventListener("click", () => {
  if (!closeSidebar()) openSidebar();
});
$("scrim").addEventListener("click", closeSidebar);
$("error-dismiss").addEventListener("click", dismissError);
$("open-settings").addEventListener("click", () => {
  syncSettingsFields();
  $("settings").showModal();
});
$("settings-cancel").addEventListener("click", () => $("settings").close());
$("settings-form").addEventListener("change", syncSettingsFields);
$("settings-form").addEventListener("submit", applySettings);

document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape" || event.defaultPrevented || $("settings").open) return;
  if (closeSidebar()) {
    $("toggle-sidebar").focus();
  } else if (!$("inspector").hidden && $("inspector").contains(document.activeElement)) {
    setInspectorOpen(false);
    $("toggle-inspector").focus();
  } else if (!$("inspector").hidden && !window.matchMedia("(min-width: 1200px)").matches) {
    setInspectorOpen(false);
  } else if (!$("error-banner").hidden) {
    dismissError();
  }
});

window.addEventListener("storage", (event) => {
  if (event.key === STORE_KEY && app.ready) {
    const stored = loadStored();
    if (stored) {
      app.threads = stored.threads;
      renderThreads();
    }
  }
});
