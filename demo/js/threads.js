// The sidebar's thread list, the active thread, and the rendering of the active thread.

import { $ } from "./dom.js";
import { renderPending } from "./cards.js";
import { STATE_LABELS, renderControls } from "./controls.js";
import { renderInspector } from "./inspector.js";
import { post, requestHistory } from "./protocol.js";
import { app, known, loadStored, newId, saveThreads, thread, titleFrom, view } from "./store.js";
import { renderTranscript } from "./transcript.js";

export function renderActive() {
  const t = thread(app.activeId);
  $("thread-title").textContent = t ? t.title : "New chat";
  renderTranscript();
  renderPending();
  renderControls();
  renderInspector();
}

// A thread is named by the first line of its first message, the one shown (an edit of that
// message, or another branch, renames it); a thread not loaded yet keeps its stored title.
/** @param {import("./store.js").Thread} t */
function followFirstMessage(t) {
  const first = view(t.id).messages.find((m) => m.role === "user" && m.content);
  const title = first ? titleFrom(first.content) : t.title;
  if (title === t.title) return false;
  t.title = title;
  return true;
}

export function renderThreads() {
  const list = $("thread-list");
  list.replaceChildren();
  let renamed = false;
  for (const t of app.threads) {
    renamed = followFirstMessage(t) || renamed;
    const v = view(t.id);
    const li = document.createElement("li");
    li.dataset.threadId = t.id;
    li.dataset.threadState = v.state;
    const open = document.createElement("button");
    open.type = "button";
    open.className = "thread-open";
    open.title = t.id;
    if (t.id === app.activeId) open.setAttribute("aria-current", "true");
    const name = document.createElement("span");
    name.className = "thread-name";
    name.textContent = t.title;
    const badge = document.createElement("span");
    badge.className = "thread-state";
    badge.textContent = STATE_LABELS[v.state] || "";
    open.append(name, badge);
    open.addEventListener("click", () => switchTo(t.id));
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "thread-delete icon-button";
    remove.setAttribute("aria-label", `Delete “${t.title}”`);
    remove.title = "Delete this thread";
    remove.textContent = "✕";
    remove.addEventListener("click", () => deleteThread(t.id));
    li.append(open, remove);
    list.append(li);
  }
  if (renamed) saveThreads();
  $("thread-title").textContent = thread(app.activeId)?.title ?? "New chat";
}

export function restoreThreads() {
  const stored = loadStored();
  if (stored && stored.threads.length) {
    app.threads = stored.threads;
    const activeId =
      stored.active !== null && known(stored.active) ? stored.active : app.threads[0].id;
    for (const t of app.threads) requestHistory(t.id);
    switchTo(activeId, { history: false });
  } else {
    createThread();
  }
}

export function createThread(title = "New chat", { activate = true } = {}) {
  const t = { id: newId(), title, head: null };
  app.threads.unshift(t);
  view(t.id);
  if (activate) switchTo(t.id, { history: false });
  saveThreads();
  renderThreads();
  return t;
}

/** @param {string} threadId @param {{ history?: boolean }} [options] */
export function switchTo(threadId, { history = true } = {}) {
  app.activeId = threadId;
  saveThreads();
  renderThreads();
  renderActive();
  if (history) requestHistory(threadId);
  closeSidebar();
}

/** @param {string} threadId */
function deleteThread(threadId) {
  const index = app.threads.findIndex((t) => t.id === threadId);
  if (index < 0) return;
  post({ op: "delete_thread", thread_id: threadId }); // the worker cancels a running turn first
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

// The worker deleted a thread (perhaps for another tab): it leaves the list.
/** @param {import("./store.js").WorkerMessage} msg */
export function onDeleted(msg) {
  if (known(msg.thread_id)) {
    app.threads = app.threads.filter((t) => t.id !== msg.thread_id);
    saveThreads();
    renderThreads();
  }
}

export function openSidebar() {
  document.body.classList.add("sidebar-open");
  $("scrim").hidden = false;
  $("toggle-sidebar").setAttribute("aria-expanded", "true");
  $("new-thread").focus();
}

export function closeSidebar() {
  if (!document.body.classList.contains("sidebar-open")) return false;
  document.body.classList.remove("sidebar-open");
  $("scrim").hidden = true;
  $("toggle-sidebar").setAttribute("aria-expanded", "false");
  return true;
}
