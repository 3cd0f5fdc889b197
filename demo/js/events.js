// What the worker reports about a thread: status, tokens, questions, answers, history, errors.

import { $, showError } from "./dom.js";
import { renderPending } from "./cards.js";
import { setState } from "./controls.js";
import { addRecord, renderInspectorSummary } from "./inspector.js";
import { app, known, saveThreads, thread, titleFrom, view } from "./store.js";
import { onBusyElsewhere } from "./tabs.js";
import { renderActive, renderThreads } from "./threads.js";
import { appendToken, finishStreaming } from "./transcript.js";

const threadOf = (msg) => (typeof msg.thread_id === "string" ? msg.thread_id : null);

// A turn that streams or moves on is past its question, whatever an older history said.
function leavePending(threadId) {
  const v = view(threadId);
  if (!v.pending) return;
  v.pending = null;
  if (threadId === app.activeId) renderPending();
}

export function onStatus(msg) {
  const id = threadOf(msg);
  if (!id) return;
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

export function onToken(msg) {
  const id = threadOf(msg);
  if (!id || typeof msg.token !== "string") return;
  const v = view(id);
  v.streaming = (v.streaming ?? "") + msg.token;
  leavePending(id);
  if (v.state !== "running") setState(id, "running");
  if (id === app.activeId) appendToken(msg.token);
}

export function onNeedsInput(msg) {
  const id = threadOf(msg);
  if (!id) return;
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

export function onDone(msg) {
  const id = threadOf(msg);
  if (!id) return;
  finishStreaming(id, typeof msg.text === "string" ? msg.text : undefined);
  view(id).pending = null;
  setState(id, "done");
  if (id !== app.activeId) return;
  renderPending();
  const focused = document.activeElement;
  if (!focused || focused === document.body || focused.id === "answer-input") $("chat-input").focus();
}

function settleHistoryState(v) {
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
}

export function onHistory(msg) {
  const id = threadOf(msg);
  if (!id) return;
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
  settleHistoryState(v);
  if (known(id)) {
    const t = thread(id);
    const firstUser = v.messages.find((m) => m.role === "user");
    if (t.title === "New chat" && firstUser) {
      t.title = titleFrom(firstUser.content);
      saveThreads();
    }
    renderThreads();
  }
  if (id === app.activeId) renderActive();
  else renderInspectorSummary();
}

export function onInspect(msg) {
  const id = threadOf(msg);
  if (!id || !msg.record || typeof msg.record !== "object") return;
  addRecord(id, msg.record);
}

// hooks: {bootFailed()}: called for an error before the worker is ready.
export function makeOnError(hooks) {
  return (msg) => {
    if (msg.code === "thread_busy" && typeof msg.thread_id === "string") {
      onBusyElsewhere(msg.thread_id);
      return;
    }
    if (!app.ready && !("thread_id" in msg)) hooks.bootFailed();
    showError(msg.message || "Something went wrong.");
    const id = threadOf(msg);
    if (id && app.views.has(id) && view(id).state === "running") {
      finishStreaming(id, undefined, "stopped");
      setState(id, "error");
    }
  };
}
