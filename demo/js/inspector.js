// The context inspector: what each node, tool and timer callback saw (run, thread, correlation).

import { $, atNextFrame, isWide } from "./dom.js";
import { app, view } from "./store.js";

/** @import { InspectRecord, RecordRow, RunRow } from "./store.js" */

const MAX_RECORDS_SHOWN = 400;

/** @param {unknown} value */
function shortId(value) {
  const text = value === null || value === undefined ? "—" : String(value);
  return text.length > 12 ? `${text.slice(0, 6)}…${text.slice(-4)}` : text;
}

/** @param {string} label @param {unknown} value */
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

// Where a run started: the checkpoint it continued from (none: the thread's beginning).
/** @param {RunRow} row */
function runItem({ postedFor, run, source }) {
  const li = document.createElement("li");
  li.className = "run-start";
  li.dataset.postedFor = postedFor;
  li.dataset.source = source;
  li.dataset.runId = String(run.run_id ?? "");
  li.dataset.fromCheckpoint = String(run.from_checkpoint ?? "");
  const head = document.createElement("div");
  head.className = "rec-head";
  const kind = document.createElement("span");
  kind.className = "rec-kind rec-kind-run";
  kind.textContent = "run";
  const text = document.createElement("span");
  text.className = "rec-name";
  text.textContent = run.from_checkpoint ? "started from checkpoint" : "started from the beginning";
  head.append(kind, text);
  li.append(head);
  const ids = document.createElement("div");
  ids.className = "rec-ids";
  if (run.from_checkpoint) ids.append(idCell("checkpoint", run.from_checkpoint));
  if (run.run_id) ids.append(idCell("run", run.run_id));
  if (ids.childElementCount) li.append(ids);
  return li;
}

/** @param {InspectRecord} entry */
function recordItem(entry) {
  if ("run" in entry) return runItem(entry);
  const { postedFor, record, source } = entry;
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

export function renderInspector() {
  const all = $("inspector-all", HTMLInputElement).checked;
  const entries = [];
  if (all) {
    for (const thread of app.threads) entries.push(...view(thread.id).records);
  } else if (app.activeId) {
    entries.push(...view(app.activeId).records);
  }
  $("inspector-list").replaceChildren(...entries.slice(-MAX_RECORDS_SHOWN).map(recordItem));
  renderInspectorSummary();
}

export function renderInspectorSummary() {
  let total = 0;
  let crossings = 0;
  const scope = $("inspector-all", HTMLInputElement).checked
    ? app.threads.map((t) => t.id)
    : [app.activeId];
  for (const id of scope) {
    if (!id || !app.views.has(id)) continue;
    // Every row the list shows counts, run rows too; only records can cross.
    for (const entry of view(id).records) {
      total += 1;
      if (!("run" in entry) && entry.record.thread_id !== entry.postedFor) crossings += 1;
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

// A record posted live: kept in its thread's view, listed when the inspector shows that thread.
/** @param {string} threadId @param {RecordRow["record"]} record */
export function addRecord(threadId, record) {
  show(threadId, { postedFor: threadId, record, source: "live" });
}

// A run of the thread started (status "started" with from_checkpoint).
/** @param {string} threadId @param {{ [field: string]: unknown }} status its "started" status */
export function addRunStart(threadId, status) {
  const run = { run_id: status.run_id ?? null, from_checkpoint: status.from_checkpoint ?? null };
  show(threadId, { postedFor: threadId, run, source: "live" });
}

/** @param {string} threadId @param {InspectRecord} entry */
function show(threadId, entry) {
  view(threadId).records.push(entry);
  if ($("inspector-all", HTMLInputElement).checked || threadId === app.activeId) {
    const list = $("inspector-list");
    const item = recordItem(entry);
    list.append(item);
    while (list.childElementCount > MAX_RECORDS_SHOWN) list.firstElementChild?.remove();
    if (!$("inspector").hidden) scrollToNewest();
  }
  renderInspectorSummary();
}

let scrollQueued = false;

// The newest record is scrolled into view once per frame, however many came: a scroll in each
// record's handler would lay the page out once per record, while the worker's messages wait.
function scrollToNewest() {
  if (scrollQueued) return;
  scrollQueued = true;
  atNextFrame(() => {
    scrollQueued = false;
    const newest = $("inspector-list").lastElementChild;
    if (!$("inspector").hidden && newest) newest.scrollIntoView({ block: "nearest" });
  });
}

/** @param {boolean} open */
export function setInspectorOpen(open) {
  $("inspector").hidden = !open;
  $("toggle-inspector").setAttribute("aria-expanded", String(open));
  document.body.classList.toggle("inspector-open", open);
  if (open) renderInspector();
}

export function initInspector() {
  $("toggle-inspector").addEventListener("click", () => {
    const opening = $("inspector").hidden !== false;
    setInspectorOpen(opening);
    // Below the wide layout the inspector covers the page: take the focus into it.
    if (opening && !isWide()) $("close-inspector").focus();
  });
  $("close-inspector").addEventListener("click", () => {
    setInspectorOpen(false);
    $("toggle-inspector").focus();
  });
  $("inspector-all", HTMLInputElement).addEventListener("change", renderInspector);
}
