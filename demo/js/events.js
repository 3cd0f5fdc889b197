// What a thread's runs and history tell the page (runs.js and history.js make these chat
// events from the LangGraph Server API): status, tokens, tools, questions and approvals,
// answers, history, errors. done and needs_input carry the thread's new head: it is kept, and
// the history from it gives the entries their ids and branches.

import { $, showError } from "./dom.js";
import { normalizeEntry } from "./entries.js";
import { renderPending } from "./cards.js";
import { setState } from "./controls.js";
import { firstNode, nextNode, renderGraph } from "./graph.js";
import { addRecord, addRunStart, renderInspectorSummary } from "./inspector.js";
import { OTHER_VERSION, requestHistory } from "./history.js";
import { app, saveThreads, setHead, thread, titleFrom, view } from "./store.js";
import { onBusyElsewhere } from "./tabs.js";
import { renderActive, renderThreads } from "./threads.js";
import { appendEntry, appendToken, finishStreaming, renderTranscript } from "./transcript.js";
import { refused } from "./turns.js";

/** @import { RecordRow, RunRow, View, WorkerMessage } from "./store.js" */

const threadOf = (/** @type {WorkerMessage} */ msg) =>
  typeof msg.thread_id === "string" ? msg.thread_id : null;

// A turn that streams or moves on is past its question, whatever an older history said.
/** @param {string} threadId */
function leavePending(threadId) {
  const v = view(threadId);
  if (!v.pending) return;
  v.pending = null;
  if (threadId === app.activeId) renderPending();
}

/** @param {string} id @param {string | null} node */
function running(id, node) {
  view(id).runningNode = node;
  if (id === app.activeId) renderGraph();
}

/** @param {WorkerMessage} msg */
export function onStatus(msg) {
  const id = threadOf(msg);
  if (!id) return;
  const v = view(id);
  if (msg.stage === "cancelled") {
    finishStreaming(id, undefined, "cancelled");
    v.pending = null;
    if (id === app.activeId) renderPending();
    setState(id, "cancelled");
    running(id, null);
    return;
  }
  if (msg.stage === "running") {
    if (typeof msg.node === "string") running(id, msg.node);
    return;
  }
  if (msg.stage === "started") {
    // The run moves the thread on from here: its latest checkpoint is the page's head.
    setHead(id, null);
    if ("from_checkpoint" in msg) addRunStart(id, msg);
    running(id, v.pending?.node ?? v.refusable?.pending?.node ?? firstNode());
  } else {
    running(id, nextNode(msg.stage));
  }
  v.stage = msg.stage;
  leavePending(id);
  setState(id, "running");
}

/** @param {WorkerMessage} msg */
export function onToken(msg) {
  const id = threadOf(msg);
  if (!id || typeof msg.token !== "string") return;
  const v = view(id);
  v.streaming = (v.streaming ?? "") + msg.token;
  leavePending(id);
  if (v.state !== "running") setState(id, "running");
  if (id === app.activeId) appendToken();
}

/** @param {WorkerMessage} msg */
export function onTool(msg) {
  const id = threadOf(msg);
  if (!id) return;
  const content =
    typeof msg.content === "string"
      ? msg.content
      : typeof msg.result === "string"
        ? msg.result
        : "";
  appendEntry(id, normalizeEntry({ ...msg, id: null, kind: "tool", role: "assistant", content }));
}

/** @param {WorkerMessage} msg */
export function onNeedsInput(msg) {
  const id = threadOf(msg);
  if (!id) return;
  const v = view(id);
  finishStreaming(id);
  const { type: _type, thread_id: _thread, refused, messages, ...pending } = msg;
  if (Array.isArray(messages)) showMessages(v, messages);
  v.pending = { kind: "question", ...pending };
  v.refusable = null;
  // Decisions the assistant refused: the card asks again, with its words.
  v.cardError = typeof refused === "string" ? refused : null;
  v.runningNode = null;
  setState(id, "waiting");
  if (id === app.activeId) {
    if (Array.isArray(messages)) renderTranscript();
    renderPending();
    renderGraph();
  }
  refreshFrom(id, msg.checkpoint_id);
}

/**
 * The thread's messages as its run streamed them with a question (the history read after the
 * run gives the same, and the branches): each keeps the branch switch its entry had.
 * @param {View} v
 * @param {unknown[]} messages transcript entries
 */
function showMessages(v, messages) {
  const branches = new Map(v.messages.filter((m) => m.id && m.branch).map((m) => [m.id, m.branch]));
  v.messages = messages.map((m) => {
    const entry = normalizeEntry(m);
    const branch = entry.id ? branches.get(entry.id) : undefined;
    return branch && !entry.branch ? { ...entry, branch } : entry;
  });
}

/** @param {string} id @param {unknown} head */
function refreshFrom(id, head) {
  if (typeof head !== "string" || !head) return;
  setHead(id, head);
  void requestHistory(id, head);
}

/** @param {WorkerMessage} msg */
export function onDone(msg) {
  const id = threadOf(msg);
  if (!id) return;
  finishStreaming(id, typeof msg.text === "string" ? msg.text : undefined);
  const v = view(id);
  v.pending = null;
  v.refusable = null;
  v.runningNode = null;
  setState(id, "done");
  refreshFrom(id, msg.checkpoint_id);
  if (id !== app.activeId) return;
  renderPending();
  renderGraph();
  const focused = document.activeElement;
  if (!focused || focused === document.body || focused.id === "answer-input")
    $("chat-input", HTMLTextAreaElement).focus();
}

/** @param {View} v */
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
  } else if (v.unfinished) {
    // Nodes still to run and no question: the turn stopped (a reload, an error) before its
    // answer; it is never "Answered.". An error keeps its own state (Retry).
    v.streaming = null;
    if (v.state !== "error") v.state = "unfinished";
  } else {
    const last = v.messages[v.messages.length - 1];
    if (["idle", "waiting", "done", "unfinished"].includes(v.state))
      v.state = last && last.role === "assistant" ? "done" : "idle";
  }
}

/** @param {WorkerMessage} msg */
export function onHistory(msg) {
  const id = threadOf(msg);
  if (!id) return;
  const v = view(id);
  // A turn running here is newer than any history asked for before it started.
  if (v.state === "running" && !v.busyElsewhere) return;
  v.messages = (Array.isArray(msg.messages) ? msg.messages : []).map(normalizeEntry);
  const samePending =
    v.pending && msg.pending && v.pending.interrupt_id === msg.pending.interrupt_id;
  v.pending =
    msg.pending && typeof msg.pending === "object" ? { kind: "question", ...msg.pending } : null;
  if (!samePending) v.cardError = null;
  if (typeof msg.checkpoint_id === "string" && !v.busyElsewhere) setHead(id, msg.checkpoint_id);
  if (Array.isArray(msg.trace)) {
    // Without the history's runs, the run starts seen live stay listed.
    const runs = Array.isArray(msg.runs)
      ? msg.runs.map((/** @type {RunRow["run"]} */ run) => ({
          postedFor: id,
          run,
          source: "history",
        }))
      : v.records.filter((entry) => "run" in entry);
    v.records = [
      ...runs,
      ...msg.trace.map((/** @type {RecordRow["record"]} */ record) => ({
        postedFor: id,
        record,
        source: "history",
      })),
    ];
  }
  v.notice =
    typeof msg.notice === "string" ? msg.notice : v.refusedAsOtherVersion ? OTHER_VERSION : null;
  v.unfinished = msg.unfinished === true;
  settleHistoryState(v);
  const t = thread(id);
  if (t) {
    const firstUser = v.messages.find((m) => m.role === "user");
    if (t.title === "New chat" && firstUser) {
      t.title = titleFrom(firstUser.content);
      saveThreads();
    }
    renderThreads();
  }
  if (id === app.activeId) {
    renderActive();
    renderGraph(); // the node that asked: the history names it, the run's stream does not
  } else renderInspectorSummary();
}

/** @param {WorkerMessage} msg */
export function onInspect(msg) {
  const id = threadOf(msg);
  if (!id || !msg.record || typeof msg.record !== "object") return;
  addRecord(id, msg.record);
}

/**
 * @param {{ bootFailed(): void }} hooks bootFailed: called for an error before the worker is ready
 * @returns {(msg: WorkerMessage) => void}
 */
export function makeOnError(hooks) {
  return (msg) => {
    const id = threadOf(msg);
    if (msg.code === "thread_busy" && id) {
      onBusyElsewhere(id);
      return;
    }
    if (msg.code === "other_version" && id && app.views.has(id)) {
      // Shown read only from now on, as what it stores (the refused answer is not).
      const v = view(id);
      finishStreaming(id, undefined, "stopped");
      Object.assign(v, { refusedAsOtherVersion: true, notice: OTHER_VERSION, pending: null });
      running(id, null);
      setState(id, "outdated");
      if (id === app.activeId) renderActive();
      void requestHistory(id, null);
      return;
    }
    if (
      msg.code === "bad_decision" &&
      id &&
      refused(id, msg.message || "That answer was refused.")
    ) {
      running(id, null);
      if (id === app.activeId) renderActive();
      return;
    }
    if (!app.ready && !("thread_id" in msg)) hooks.bootFailed();
    showError(msg.message || "Something went wrong.");
    if (id && app.views.has(id) && view(id).state === "running") {
      finishStreaming(id, undefined, "stopped");
      setState(id, "error");
      running(id, null);
      // What the failed turn stored: the message gets its Edit, an unfinished turn its Retry.
      void requestHistory(id, null);
    }
  };
}
