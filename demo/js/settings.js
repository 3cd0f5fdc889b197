// The model settings dialog and the header's model badge. The API key stays in this page's
// memory and goes only to the worker; the base URL and model name are kept in this browser
// (localStorage), so a reload keeps the model and asks for the key again.

import { API_URL } from "./api.js";
import { $, child, showError } from "./dom.js";
import { post } from "./protocol.js";
import { setRunModel } from "./runs.js";

/**
 * The model settings a page keeps (never the key): an OpenAI-compatible model, or the
 * offline one.
 * @typedef {{ kind: string, base_url?: string, model?: string, keyless?: boolean }} KeptModel
 * @typedef {KeptModel & { api_key?: string, token_delay_ms?: number }} ModelSettings
 */

export const MODEL_KEY = "pyctx_web.demo.model";
export const KEY_NEEDED =
  "Enter the API key again to go on with this model: the page keeps its base URL and name, never its key.";

/** @type {number | null} */
let offlineDelay = null; // the offline model's delay, as the worker last described it
/** @type {KeptModel | null} */
let sent = null; // the settings posted from the dialog, without the key, until answered
/** @type {KeptModel | null} */
let keyNeeded = null; // the kept OpenAI-compatible settings whose key this page lacks
/** @type {(() => void) | null} */
let afterKey = null; // the action that waits for the key

// The settings go to the worker, which checks them and keeps the key; each run names the
// model in its context, without the key. A LangGraph Server at ?api=URL takes them as they
// are (it holds its own key).
/** @param {ModelSettings} model */
function configure(model) {
  if (!API_URL) {
    post({ op: "configure_model", model });
    return;
  }
  const { api_key: _key, ...described } = model;
  queueMicrotask(() => onModel({ type: "model", ok: true, ...described }));
}

/** @param {KeptModel} model */
function saveModel(model) {
  try {
    localStorage.setItem(MODEL_KEY, JSON.stringify(model));
  } catch {
    // Storage may be full or disabled: the model lasts until the next reload.
  }
}

/** @returns {{ kind: "openai", base_url: string, model: string, keyless: boolean } | null} */
function loadModel() {
  try {
    const data = JSON.parse(localStorage.getItem(MODEL_KEY) || "null");
    if (
      data &&
      data.kind === "openai" &&
      typeof data.base_url === "string" &&
      typeof data.model === "string"
    ) {
      return {
        kind: "openai",
        base_url: data.base_url,
        model: data.model,
        keyless: data.keyless === true,
      };
    }
  } catch {
    // A malformed entry is ignored: the page starts with the offline model.
  }
  return null;
}

function openSettings() {
  if (offlineDelay !== null) $("token-delay", HTMLInputElement).value = String(offlineDelay);
  syncSettingsFields();
  $("settings-apply", HTMLButtonElement).disabled = false;
  if (!$("settings", HTMLDialogElement).open) $("settings", HTMLDialogElement).showModal();
}

// Whether a turn must wait for the API key of the kept model: then the settings open and ask
// for it, and `then` runs once the model is set (never on another model).
/** @param {() => void} then */
export function needsKey(then) {
  if (!keyNeeded) return false;
  afterKey = then;
  openSettings();
  showSettingsError(KEY_NEEDED);
  $("api-key", HTMLInputElement).focus();
  return true;
}

/** @param {{ kind?: string, token_delay_ms?: unknown, [field: string]: unknown }} model as the worker describes it */
export function setModelBadge(model) {
  const badge = $("model-badge");
  if (model.kind === "openai") {
    let host = "";
    try {
      host = new URL($("base-url", HTMLInputElement).value).host;
    } catch {
      host = "";
    }
    badge.textContent = `Model: ${$("model-name", HTMLInputElement).value || "OpenAI-compatible"}${host ? ` at ${host}` : ""}`;
  } else {
    const delay = model.token_delay_ms === undefined ? NaN : Number(model.token_delay_ms);
    badge.textContent = Number.isFinite(delay)
      ? `Model: offline · ${delay} ms per token`
      : "Model: offline";
    // The worker's model is the one truth: the delay field shows what the badge shows (not
    // under the person's hands while the dialog is open).
    if (Number.isFinite(delay)) offlineDelay = delay;
    if (Number.isFinite(delay) && !$("settings", HTMLDialogElement).open)
      $("token-delay", HTMLInputElement).value = String(delay);
  }
  badge.dataset.kind = model.kind ?? "offline";
  badge.hidden = false;
}

function syncSettingsFields() {
  const kind = new FormData($("settings-form", HTMLFormElement)).get("kind");
  $("openai-fields").hidden = kind !== "openai";
  $("offline-fields").hidden = kind !== "offline";
  $("base-url", HTMLInputElement).required = kind === "openai";
  $("model-name", HTMLInputElement).required = kind === "openai";
}

/** @param {SubmitEvent} event */
function applySettings(event) {
  event.preventDefault();
  const form = $("settings-form", HTMLFormElement);
  if (!form.reportValidity()) return;
  const data = new FormData(form);
  /** @type {ModelSettings} */
  let model;
  if (data.get("kind") === "openai") {
    model = {
      kind: "openai",
      base_url: String(data.get("base_url")).trim(),
      model: String(data.get("model")).trim(),
      api_key: String(data.get("api_key")),
    };
  } else {
    model = { kind: "offline" };
    const raw = String(data.get("token_delay_ms") ?? "").trim();
    const delay = Number(raw);
    if (raw !== "" && Number.isFinite(delay) && delay >= 0)
      model.token_delay_ms = Math.round(delay);
  }
  showSettingsError("");
  $("settings-apply", HTMLButtonElement).disabled = true;
  sent =
    model.kind === "openai"
      ? {
          kind: "openai",
          base_url: model.base_url,
          model: model.model,
          keyless: model.api_key === "",
        }
      : { kind: "offline" };
  configure(model);
}

/** @param {string} message */
function showSettingsError(message) {
  $("settings-error").textContent = message;
  $("settings-error").hidden = !message;
}

// The worker's answer to configure_model: the dialog closes once the model is in use, or
// shows why it is not (a URL the page's policy blocks names the --api-origin flag).
/** @param {import("./store.js").WorkerMessage} msg */
export function onModel(msg) {
  // Apply is disabled while the dialog's settings are on their way: this is their answer.
  const answering = $("settings-apply", HTMLButtonElement).disabled;
  $("settings-apply", HTMLButtonElement).disabled = false;
  if (msg.ok === false) {
    const message = msg.message || "The model settings were not accepted.";
    showSettingsError(message);
    if (!$("settings", HTMLDialogElement).open) showError(message);
    return;
  }
  showSettingsError("");
  const { type: _type, ok: _ok, ...described } = msg;
  setRunModel(described);
  if (keyNeeded && !answering) {
    // The worker runs the offline model until the key comes: the badge names the kept one.
    showKeyNeededBadge();
    return;
  }
  setModelBadge(msg);
  if (answering && sent) {
    saveModel(sent);
    keyNeeded = null;
    sent = null;
  }
  if (answering && $("settings", HTMLDialogElement).open) {
    $("settings", HTMLDialogElement).close();
    $("open-settings").focus();
  }
  const then = afterKey;
  afterKey = null;
  if (answering && then) then();
}

function showKeyNeededBadge() {
  setModelBadge({ kind: "openai" });
  $("model-badge").textContent += " · API key needed";
}

// A reload keeps the OpenAI-compatible model: its fields are filled again; without a key it
// waits for one (needsKey), a model that needs none is set at once.
function restoreModel() {
  const kept = loadModel();
  if (!kept) return false;
  const openai = 'input[name="kind"][value="openai"]';
  child($("settings-form"), openai, HTMLInputElement).checked = true;
  $("base-url", HTMLInputElement).value = kept.base_url;
  $("model-name", HTMLInputElement).value = kept.model;
  syncSettingsFields();
  if (kept.keyless) {
    sent = kept;
    $("settings-apply", HTMLButtonElement).disabled = true;
    configure({ kind: "openai", base_url: kept.base_url, model: kept.model, api_key: "" });
    return true;
  }
  keyNeeded = kept;
  return false;
}

export function initSettings() {
  $("open-settings").addEventListener("click", openSettings);
  $("settings-cancel").addEventListener("click", () => $("settings", HTMLDialogElement).close());
  // Closed without a model set: the action that waited for the key is dropped.
  $("settings", HTMLDialogElement).addEventListener("close", () => {
    if (!$("settings-apply", HTMLButtonElement).disabled) afterKey = null;
  });
  $("settings-form", HTMLFormElement).addEventListener("change", syncSettingsFields);
  $("settings-form", HTMLFormElement).addEventListener("submit", applySettings);
  // The worker starts with the offline model; its answer fills the badge and the delay field
  // (the worker holds this until it is ready).
  if (!restoreModel()) configure({ kind: "offline" });
}
