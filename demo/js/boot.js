// The loading screen: the worker's boot stages, then the ready state; and what the page says
// and does when its worker is lost and replaced.

import { setState } from "./controls.js";
import { $, all, child, seconds, showError } from "./dom.js";
import { requestHistory } from "./history.js";
import { activeId, app } from "./store.js";
import { renderActive, renderThreads } from "./threads.js";
import { finishStreaming } from "./transcript.js";

/** @import { WorkerMessage } from "./store.js" */

const STAGES = ["runtime", "packages", "app"];
const loadStarted = performance.now();
const loadTicker = setInterval(() => {
  $("load-elapsed").textContent = seconds(performance.now() - loadStarted);
}, 100);

/** @param {WorkerMessage} msg */
export function onBootStatus(msg) {
  const index = STAGES.indexOf(msg.stage);
  if (index < 0) return;
  $("load-stage").textContent = msg.label || msg.stage;
  $("load-progress", HTMLProgressElement).value = index + 0.2;
  document.body.dataset.loadStage = msg.stage;
  for (const li of all(".stages li")) {
    const i = STAGES.indexOf(li.dataset.stage ?? "");
    li.classList.toggle("done", i < index);
    li.classList.toggle("active", i === index);
  }
}

/** @param {Record<string, unknown> | undefined} stages */
function stageSummary(stages) {
  if (!stages) return "";
  const parts = STAGES.flatMap((s) => {
    const ms = stages[s];
    return typeof ms === "number" ? [`${s} ${seconds(ms)}`] : [];
  });
  return parts.length ? ` (${parts.join(" · ")})` : "";
}

// The worker is ready: the loading screen gives way to the app.
/** @param {WorkerMessage} msg */
export function showReady(msg) {
  clearInterval(loadTicker);
  $("load-progress", HTMLProgressElement).value = STAGES.length;
  for (const li of all(".stages li")) {
    li.classList.add("done");
    li.classList.remove("active");
    const ms = msg.stages?.[li.dataset.stage ?? ""];
    if (typeof ms === "number") child(li, ".stage-time").textContent = seconds(ms);
  }
  $("versions").textContent =
    typeof msg.server === "string"
      ? `LangGraph Server at ${msg.server}`
      : `Pyodide ${msg.pyodide} · pyctx_web ${msg.pyctx_web}`;
  $("load-time").textContent = `ready in ${seconds(msg.elapsed_ms)}`;
  $("load-time").title = `Loaded in ${seconds(msg.elapsed_ms)}${stageSummary(msg.stages)}`;
  $("load-time").hidden = false;
  $("load-elapsed").textContent = `Ready in ${seconds(msg.elapsed_ms)}`;
  $("loading").hidden = true;
  $("app").hidden = false;
}

// The worker could not start: the loading screen says so.
export function showBootFailed() {
  document.body.dataset.state = "error";
  $("load-stage").textContent = "The Python worker could not start.";
  clearInterval(loadTicker);
}

let lostReason = "";

// The worker is gone (protocol.js starts another): a turn it was running is stopped where it
// stood; what it had checkpointed is in IndexedDB.
/** @param {string} reason */
export function onWorkerLost(reason) {
  lostReason = reason;
  document.body.dataset.worker = "restarting";
  showError(
    `The Python worker stopped: ${reason}. A new one is starting; your saved chats are kept.`,
  );
  for (const [id, v] of app.views) {
    if (id === null || v.state !== "running") continue;
    finishStreaming(id, undefined, "stopped");
    v.runningNode = null;
    setState(id, "error");
  }
  renderThreads();
}

// The new worker is ready: the active thread is read again from its last checkpoint.
export function onWorkerBack() {
  document.body.dataset.worker = "ready";
  showError(
    `The Python worker stopped (${lostReason}) and was restarted; ` +
      "this chat was reopened from its last saved step.",
  );
  renderActive();
  void requestHistory(activeId());
}
