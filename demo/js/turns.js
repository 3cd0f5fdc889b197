// What the person starts: a new message, an answer to a question, decisions on an approval,
// an edited message, a regenerated answer, another branch, cancel, two chats at once. Every
// turn names the thread's head checkpoint, the one the page shows.

import { $ } from "./dom.js";
import { renderPending } from "./cards.js";
import { initControls, setState } from "./controls.js";
import { post, requestHistory, sendTo } from "./protocol.js";
import { needsKey } from "./settings.js";
import { activeId, app, setHead, setTitle, thread, titleFrom, view } from "./store.js";

/** @import { Entry, View } from "./store.js" */
import { createThread, renderThreads, switchTo } from "./threads.js";
import { appendMessage, truncateAt } from "./transcript.js";

const TWO_CHATS = ["help me with email", "help me with a meeting"];
const CLOSED = ["running", "waiting", "busy", "outdated"];

/** @param {string} id @param {{ type: string, [field: string]: unknown }} message */
function start(id, message) {
  const v = view(id);
  v.stage = "started";
  v.cardError = null;
  setState(id, "running");
  sendTo(id, message, { head: true });
}

/** @param {string} text */
export function sendChat(text) {
  if (!app.ready || !text.trim()) return;
  const id = activeId();
  const v = view(id);
  if (CLOSED.includes(v.state)) return;
  if (needsKey(() => sendChat(text))) {
    $("chat-input", HTMLTextAreaElement).value = text; // kept in the composer if the settings are closed
    return;
  }
  v.sent = text;
  // Posted first: the worker starts on it while this thread draws it.
  start(id, { type: "chat", text });
  setTitle(id, text);
  renderThreads();
  $("thread-title").textContent = thread(id)?.title ?? "New chat";
  appendMessage(id, "user", text);
}

// What to put back if the worker refuses the answer (error code bad_decision).
/** @param {View} v */
function keepForRefusal(v) {
  v.refusable = { pending: v.pending, length: v.messages.length };
}

/** @param {string} text */
export function answer(text) {
  const id = activeId();
  const v = view(id);
  if (!v.pending || v.pending.kind === "approval" || !text.trim()) return;
  if (needsKey(() => answer(text))) return;
  const { question, interrupt_id: interruptId } = v.pending;
  /** @type {{ type: string, resume_value: string, interrupt_id?: unknown }} */
  const message = { type: "resume_chat", resume_value: text };
  if (interruptId !== undefined && interruptId !== null) message.interrupt_id = interruptId;
  keepForRefusal(v);
  v.pending = null;
  renderPending();
  if (question) appendMessage(id, "assistant", question, "question");
  appendMessage(id, "user", text, "reply");
  start(id, message);
  $("chat-input", HTMLTextAreaElement).focus();
}

/** @param {unknown[]} decisions */
export function decide(decisions) {
  const id = activeId();
  const v = view(id);
  if (!v.pending || v.pending.kind !== "approval") return;
  // After a reload the kept model has no key: the decision waits for it, never runs the rest
  // of the turn on another model.
  if (needsKey(() => decide(decisions))) return;
  const message = { type: "resume_chat", interrupt_id: v.pending.interrupt_id, decisions };
  keepForRefusal(v);
  v.pending = null;
  renderPending();
  start(id, message);
  $("chat-input", HTMLTextAreaElement).focus();
}

// The worker refused the answer or the decisions: the card comes back with its message.
/** @param {string} id @param {string} message */
export function refused(id, message) {
  const v = view(id);
  if (!v.refusable) return false;
  v.messages.length = Math.min(v.messages.length, v.refusable.length);
  v.pending = v.refusable.pending;
  v.refusable = null;
  v.streaming = null;
  v.cardError = message;
  setState(id, "waiting");
  return true;
}

const editable = (/** @type {View} */ v) => !["running", "busy", "outdated"].includes(v.state);

/** @param {Entry} entry @param {string} text */
export function editMessage(entry, text) {
  const id = activeId();
  const v = view(id);
  if (!editable(v) || !entry.id || !text.trim()) return;
  if (needsKey(() => editMessage(entry, text))) return;
  v.pending = null;
  v.refusable = null;
  renderPending();
  truncateAt(id, entry);
  appendMessage(id, "user", text, entry.kind);
  renderThreads(); // the title follows an edited first message
  start(id, { type: "edit", message_id: entry.id, text });
}

/** @param {Entry} entry */
export function regenerate(entry) {
  const id = activeId();
  const v = view(id);
  if (!editable(v) || !entry.id) return;
  if (needsKey(() => regenerate(entry))) return;
  v.pending = null;
  v.refusable = null;
  renderPending();
  truncateAt(id, entry);
  start(id, { type: "regenerate", message_id: entry.id });
}

// Runs a turn that stopped before its end (a reload cut it, an error stopped it) on from its
// last checkpoint, with no new input: as LangGraph's invoke(None).
export function continueTurn() {
  const id = activeId();
  const v = view(id);
  if (!(v.state === "unfinished" || (v.state === "error" && v.unfinished))) return;
  if (needsKey(continueTurn)) return;
  v.unfinished = false;
  start(id, { type: "continue" });
}

initControls({ continueTurn });

// Shows another branch: its head becomes the thread's (kept across reloads).
/** @param {unknown} head */
export function switchBranch(head) {
  const id = activeId();
  const v = view(id);
  if (typeof head !== "string" || !editable(v)) return;
  setHead(id, head);
  requestHistory(id, head);
}

export function cancelTurn() {
  const id = activeId();
  if (view(id).state !== "running") return;
  $("turn-status").textContent = "Cancelling…";
  sendTo(id, { type: "cancel" });
}

export function twoChatsAtOnce() {
  if (!app.ready) return;
  if (needsKey(twoChatsAtOnce)) return;
  const second = createThread(titleFrom(TWO_CHATS[1]), { activate: false });
  const first = createThread(titleFrom(TWO_CHATS[0]), { activate: false });
  const ids = [first.id, second.id];
  ids.forEach((id, i) => {
    view(id).messages.push({ id: null, role: "user", kind: "message", content: TWO_CHATS[i] });
    view(id).stage = "started";
    view(id).state = "running";
  });
  $("inspector-all", HTMLInputElement).checked = true;
  switchTo(first.id, { history: false });
  post({ op: "two_chats", thread_ids: ids, texts: [...TWO_CHATS] });
}
