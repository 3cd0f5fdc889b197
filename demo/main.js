// The page's entry: it wires the modules under js/ to the page, to the Python worker
// (js/protocol.js) and to the LangGraph Server API the worker serves (js/api.js: LangGraph's
// SDK; with ?api=URL a real LangGraph Server). It sets every piece of text that comes from a
// person or from the model with textContent.

import { onBootStatus, onWorkerBack, onWorkerLost, showBootFailed, showReady } from "./js/boot.js";
import { initCards } from "./js/cards.js";
import { $, dismissError, isWide, showError } from "./js/dom.js";
import { initEntries } from "./js/entries.js";
import * as events from "./js/events.js";
import { initGraph, isGraphNode, onGraph, setGraphOpen } from "./js/graph.js";
import { initHistory } from "./js/history.js";
import { initInspector, setInspectorOpen } from "./js/inspector.js";
import { connect, post } from "./js/protocol.js";
import { initRuns, setNodeTest } from "./js/runs.js";
import { initSettings, onModel, setModelBadge } from "./js/settings.js";
import { active, app, loadStored, STORE_KEY } from "./js/store.js";
import { listenToOtherTabs } from "./js/tabs.js";
import {
  closeSidebar,
  createThread,
  openSidebar,
  renderThreads,
  restoreThreads,
} from "./js/threads.js";
import {
  answer,
  cancelTurn,
  decide,
  editMessage,
  regenerate,
  sendChat,
  switchBranch,
  twoChatsAtOnce,
} from "./js/turns.js";

/** @param {import("./js/store.js").WorkerMessage} msg */
function onReady(msg) {
  app.ready = true;
  showReady(msg);
  setModelBadge({ kind: "offline" });
  if (isWide()) setInspectorOpen(true);
  restoreThreads().then(() => {
    document.body.dataset.state = "ready";
    $("chat-input", HTMLTextAreaElement).focus();
    post({ op: "settled" }); // the worker may now rehearse a first turn (worker.js)
  });
}

const onError = events.makeOnError({ bootFailed: showBootFailed });

connect(
  {
    boot: (msg) => (msg.type === "status" ? onBootStatus(msg) : onReady(msg)),
    failed: (message) => {
      showError(message);
      if (!app.ready) document.body.dataset.state = "error";
    },
    lost: onWorkerLost,
    back: onWorkerBack,
  },
  { model: onModel, graph: onGraph, error: onError },
);

initRuns({
  status: events.onStatus,
  token: events.onToken,
  tool: events.onTool,
  inspect: events.onInspect,
  needs_input: events.onNeedsInput,
  done: events.onDone,
  error: onError,
});
setNodeTest(isGraphNode);
initHistory(events.onHistory, showError);

initCards({ answer, decide });
initEntries({ edit: editMessage, regenerate, branch: switchBranch });
initInspector();
initGraph();
initSettings();
listenToOtherTabs();

$("composer", HTMLFormElement).addEventListener("submit", (event) => {
  event.preventDefault();
  const input = $("chat-input", HTMLTextAreaElement);
  const text = input.value;
  const v = active();
  if (!text.trim() || v.state === "running" || v.state === "waiting") return;
  input.value = "";
  sendChat(text);
});
$("chat-input", HTMLTextAreaElement).addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    $("composer", HTMLFormElement).requestSubmit();
  }
});
$("cancel-turn").addEventListener("click", cancelTurn);
$("new-thread").addEventListener("click", () => {
  if (!app.ready) return;
  createThread();
  $("chat-input", HTMLTextAreaElement).focus();
});
$("two-chats").addEventListener("click", () => {
  twoChatsAtOnce();
  if (isWide()) setInspectorOpen(true);
});
$("toggle-sidebar").addEventListener("click", () => {
  if (!closeSidebar()) openSidebar();
});
$("scrim").addEventListener("click", closeSidebar);
$("error-dismiss").addEventListener("click", dismissError);

document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape" || event.defaultPrevented || $("settings", HTMLDialogElement).open)
    return;
  if (closeSidebar()) {
    $("toggle-sidebar").focus();
  } else if (!$("graph-panel").hidden && $("graph-panel").contains(document.activeElement)) {
    setGraphOpen(false);
    $("toggle-graph").focus();
  } else if (!$("inspector").hidden && $("inspector").contains(document.activeElement)) {
    setInspectorOpen(false);
    $("toggle-inspector").focus();
  } else if (!$("inspector").hidden && !isWide()) {
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
