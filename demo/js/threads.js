// The sidebar's thread list, the active thread, and the rendering of the active thread. The
// list is the server's (threads.search on the graph's metadata, titles in each thread's
// metadata); this browser also keeps it in localStorage with the active thread and the
// checkpoint shown of each, and a new chat is on the server from its first turn.

import { $, showError } from "./dom.js";
import { renderPending } from "./cards.js";
import { STATE_LABELS, renderControls } from "./controls.js";
import { renderInspector } from "./inspector.js";
import { deleteThread as deleteOnServer, listThreads, renameThread, statusOf } from "./api.js";
import { requestHistory } from "./history.js";
import { cancelRun } from "./runs.js";
import { app, loadStored, newId, saveThreads, thread, titleFrom, view } from "./store.js";
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
  renameThread(t.id, title).catch((error) => {
    if (statusOf(error) !== 404) showError(`The chat could not be renamed: ${error.message}`);
  });
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

// The threads this browser kept, and the server's that it did not (another browser's, or
// this one's before its storage was cleared), newest first.
/** @param {{ id: string }[]} threads @param {string | null} id */
const keeps = (threads, id) => id !== null && threads.some((t) => t.id === id);

/** @param {{ id: string, title: string }[]} listed */
function mergeThreads(listed) {
  const stored = loadStored();
  const kept = stored ? stored.threads : [];
  const byId = new Map(listed.map((t) => [t.id, t]));
  for (const t of kept) {
    const found = byId.get(t.id);
    if (found && t.title === "New chat") t.title = found.title;
  }
  const others = listed
    .filter((t) => !kept.some((k) => k.id === t.id))
    .map((t) => ({ id: t.id, title: t.title, head: null }));
  const active = stored && keeps(kept, stored.active) ? stored.active : (kept[0]?.id ?? null);
  return { threads: [...others, ...kept], active };
}

export async function restoreThreads() {
  let listed = /** @type {{ id: string, title: string }[]} */ ([]);
  try {
    listed = await listThreads();
  } catch (error) {
    showError(
      `The list of chats could not be read: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const stored = mergeThreads(listed);
  app.threads = stored.threads;
  for (const t of app.threads) void requestHistory(t.id);
  // A browser that kept no chat of its own starts a new one; the server's are listed.
  if (stored.active !== null) switchTo(stored.active, { history: false });
  else createThread();
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
  if (history) void requestHistory(threadId);
  closeSidebar();
}

/** @param {string} threadId */
function deleteThread(threadId) {
  const index = app.threads.findIndex((t) => t.id === threadId);
  if (index < 0) return;
  cancelRun(threadId);
  deleteOnServer(threadId).catch((error) =>
    showError(
      `The chat could not be deleted: ${error instanceof Error ? error.message : String(error)}`,
    ),
  );
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
