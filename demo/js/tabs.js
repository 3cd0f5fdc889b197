// A thread that another tab runs. The worker refused the turn before writing anything: what
// was sent from here is taken back (its text returns to the message box), the thread shows
// what is stored, and it refreshes as the other tab's checkpoints arrive and once that tab is
// done or closed (when this page gets the thread's lock). What another tab runs is the
// thread's latest checkpoint: the refreshes ask for that, not for this page's head.

import { $, atNextFrame } from "./dom.js";
import { setState } from "./controls.js";
import { requestHistory } from "./history.js";
import { app, view } from "./store.js";

// The worker's IndexedDB database; a run of a thread holds the Web Lock
// "pyctx_web:<database>:<thread id>" and posts its checkpoints and its end on the
// BroadcastChannel "pyctx_web:<database>" (pyctx_web.graph.checkpoint._tabs).
const DATABASE = "pyctx-demo";

/** @param {string} id */
export function onBusyElsewhere(id) {
  const v = view(id);
  if (v.state === "running" && typeof v.sent === "string" && id === app.activeId) {
    if (!$("chat-input", HTMLTextAreaElement).value)
      $("chat-input", HTMLTextAreaElement).value = v.sent;
  }
  v.sent = null;
  v.busyElsewhere = true;
  setState(id, "busy");
  void requestHistory(id, null);
  const locks = navigator.locks;
  // The other tab's lock is freed when its run ends, and also when the tab is closed,
  // which no message announces: waiting for the lock covers both.
  if (locks && !v.waitingForLock) {
    v.waitingForLock = true;
    locks
      .request(`pyctx_web:${DATABASE}:${id}`, () => undefined)
      .then(() => {
        v.waitingForLock = false;
        freedElsewhere(id);
      });
  }
}

/** @param {string} id */
function freedElsewhere(id) {
  const v = view(id);
  if (!v.busyElsewhere) return;
  v.busyElsewhere = false;
  setState(id, "idle");
  void requestHistory(id, null);
}

// News on the channel is a hint, not a fact: any script of this origin can post there. It
// only asks for the stored history (what storage holds is what the page shows), at most
// once per frame for a thread however many arrive (or per 250 ms in a hidden tab, which
// draws no frames); only the thread's lock, granted to this page, says that the other tab
// is done.
const refreshing = new Set();

/** @param {string} id */
function refreshSoon(id) {
  if (refreshing.has(id)) return;
  refreshing.add(id);
  atNextFrame(() => {
    refreshing.delete(id);
    if (app.views.has(id) && view(id).busyElsewhere) void requestHistory(id, null);
  });
}

export function listenToOtherTabs() {
  if (typeof BroadcastChannel !== "function") return;
  const news = new BroadcastChannel(`pyctx_web:${DATABASE}`);
  news.onmessage = (event) => {
    const id = event.data && event.data.thread_id;
    if (typeof id !== "string" || !app.views.has(id) || !view(id).busyElsewhere) return;
    refreshSoon(id);
  };
}
