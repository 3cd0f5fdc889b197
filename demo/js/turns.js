// What the person starts: a new message, an answer to a question, decisions on an approval,
// an edited message, a regenerated answer, another branch, cancel, two chats at once. Each is
// a run of the graph (runs.js): a turn starts from the thread's head checkpoint, the one the
// page shows; an edit or a regeneration from the checkpoint before its message; an answer is
// a resume command for the interrupt that asked.

import { $ } from "./dom.js";
import { renderPending } from "./cards.js";
import { initControls, setState } from "./controls.js";
import { requestHistory, treeOf } from "./history.js";
import { cancelRun, runTurn } from "./runs.js";
import { needsKey } from "./settings.js";
import { activeId, app, headOf, setHead, setTitle, thread, titleFrom, view } from "./store.js";

/** @import { Entry, View } from "./store.js" */
import { createThread, renderThreads, switchTo } from "./threads.js";
import { appendMessage, truncateAt } from "./transcript.js";

const TWO_CHATS = ["help me with email", "help me with a meeting"];
const CLOSED = ["running", "waiting", "busy", "outdated"];

/**
 * @param {string} id
 * @param {{ input?: unknown, command?: unknown, checkpointId?: string | null, decisions?: boolean }} turn
 */
function start(id, turn) {
  const v = view(id);
  v.stage = "started";
  v.cardError = null;
  setState(id, "running");
  const checkpointId = "checkpointId" in turn ? turn.checkpointId : headOf(id);
  void runTurn(id, { ...turn, checkpointId, title: thread(id)?.title ?? "New chat" });
}

/** @param {string} text */
const userInput = (text) => ({ messages: [{ role: "user", content: text }] });

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
  setTitle(id, text);
  start(id, { input: userInput(text) });
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
  const command = { resume: typeof interruptId === "string" ? { [interruptId]: text } : text };
  keepForRefusal(v);
  v.pending = null;
  renderPending();
  if (question) appendMessage(id, "assistant", question, "question");
  appendMessage(id, "user", text, "reply");
  start(id, { command });
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
  const interruptId = v.pending.interrupt_id;
  const answer = { decisions };
  const command = { resume: typeof interruptId === "string" ? { [interruptId]: answer } : answer };
  keepForRefusal(v);
  v.pending = null;
  renderPending();
  start(id, { command, decisions: true });
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

// The checkpoint before the entry's message on the branch shown: an edit or a regeneration
// runs again from there, which makes a new branch.
/** @param {string} id @param {Entry} entry */
function forkBefore(id, entry) {
  const tree = treeOf(id);
  const head =
    headOf(id) ?? (tree?.snapshots[0] ? String(tree.snapshots[0].checkpoint?.checkpoint_id) : null);
  const fork = tree && head && entry.id ? tree.forkPoint(head, entry.id) : null;
  return fork ? String(fork.checkpoint?.checkpoint_id) : null;
}

/** @param {Entry} entry @param {string} text */
export function editMessage(entry, text) {
  const id = activeId();
  const v = view(id);
  if (!editable(v) || !entry.id || !text.trim()) return;
  if (needsKey(() => editMessage(entry, text))) return;
  const fork = forkBefore(id, entry);
  if (!fork) return;
  v.pending = null;
  v.refusable = null;
  renderPending();
  truncateAt(id, entry);
  appendMessage(id, "user", text, entry.kind);
  renderThreads(); // the title follows an edited first message
  start(id, { input: userInput(text), checkpointId: fork });
}

/** @param {Entry} entry */
export function regenerate(entry) {
  const id = activeId();
  const v = view(id);
  if (!editable(v) || !entry.id) return;
  if (needsKey(() => regenerate(entry))) return;
  const fork = forkBefore(id, entry);
  if (!fork) return;
  v.pending = null;
  v.refusable = null;
  renderPending();
  truncateAt(id, entry);
  start(id, { input: null, checkpointId: fork });
}

// Runs a turn that stopped before its end (a reload cut it, an error stopped it) on from its
// last checkpoint, with no new input: as LangGraph's invoke(None).
export function continueTurn() {
  const id = activeId();
  const v = view(id);
  if (!(v.state === "unfinished" || (v.state === "error" && v.unfinished))) return;
  if (needsKey(continueTurn)) return;
  v.unfinished = false;
  start(id, { input: null });
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
  cancelRun(id);
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
  ids.forEach((id, i) => start(id, { input: userInput(TWO_CHATS[i]), checkpointId: null }));
}
