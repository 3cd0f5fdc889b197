// The model settings dialog and the header's model badge. The API key stays in this page's
// memory and goes only to the worker; the base URL and model name are kept in this browser
// (localStorage), so a reload keeps the model and asks for the key again.

import { $, showError } from "./dom.js";
import { post } from "./protocol.js";

export const MODEL_KEY = "pyctx_web.demo.model";
export const KEY_NEEDED =
  "Enter the API key again to go on with this model: the page keeps its base URL and name, never its key.";

let offlineDelay = null; // the offline model's delay, as the worker last described it
let sent = null; // the settings posted from the dialog, without the key, until answered
let keyNeeded = null; // the kept OpenAI-compatible settings whose key this page lacks
let afterKey = null; // the action that waits for the key

function saveModel(model) {
  try {
    localStorage.setItem(MODEL_KEY, JSON.stringify(model));
  } catch {
    // Storage may be full or disabled: the model lasts until the next reload.
  }
}

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
  if (offlineDelay !== null) $("token-delay").value = String(offlineDelay);
  syncSettingsFields();
  $("settings-apply").disabled = false;
  if (!$("settings").open) $("settings").showModal();
}

// Whether a turn must wait for the API key of the kept model: then the settings open and ask
// for it, and `then` runs once the model is set (never on another model).
export function needsKey(then) {
  if (!keyNeeded) return false;
  afterKey = then;
  openSettings();
  showSettingsError(KEY_NEEDED);
  $("api-key").focus();
  return true;
}

export function setModelBadge(model) {
  const badge = $("model-badge");
  if (model.kind === "openai") {
    let host = "";
    try {
      host = new URL($("base-url").value).host;
    } catch {
      host = "";
    }
    badge.textContent = `Model: ${$("model-name").value || "OpenAI-compatible"}${host ? ` at ${host}` : ""}`;
  } else {
    const delay = model.token_delay_ms === undefined ? NaN : Number(model.token_delay_ms);
    badge.textContent = Number.isFinite(delay)
      ? `Model: offline · ${delay} ms per token`
      : "Model: offline";
    // The worker's model is the one truth: the delay field shows what the badge shows (not
    // under the person's hands while the dialog is open).
    if (Number.isFinite(delay)) offlineDelay = delay;
    if (Number.isFinite(delay) && !$("settings").open) $("token-delay").value = String(delay);
  }
  badge.dataset.kind = model.kind ?? "offline";
  badge.hidden = false;
}

function syncSettingsFields() {
  const kind = new FormData($("settings-form")).get("kind");
  $("openai-fields").hidden = kind !== "openai";
  $("offline-fields").hidden = kind !== "offline";
  $("base-url").required = kind === "openai";
  $("model-name").required = kind === "openai";
}

function applySettings(event) {
  event.preventDefault();
  const form = $("settings-form");
  if (!form.reportValidity()) return;
  const data = new FormData(form);
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
  $("settings-apply").disabled = true;
  sent =
    model.kind === "openai"
      ? {
          kind: "openai",
          base_url: model.base_url,
          model: model.model,
          keyless: model.api_key === "",
        }
      : { kind: "offline" };
  post({ op: "configure_model", model });
}

function showSettingsError(message) {
  $("settings-error").textContent = message;
  $("settings-error").hidden = !message;
}

// The worker's answer to configure_model: the dialog closes once the model is in use, or
// shows why it is not (a URL the page's policy blocks names the --api-origin flag).
export function onModel(msg) {
  // Apply is disabled while the dialog's settings are on their way: this is their answer.
  const answering = $("settings-apply").disabled;
  $("settings-apply").disabled = false;
  if (msg.ok === false) {
    const message = msg.message || "The model settings were not accepted.";
    showSettingsError(message);
    if (!$("settings").open) showError(message);
    return;
  }
  showSettingsError("");
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
  if (answering && $("settings").open) {
    $("settings").close();
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
  $("settings-form").querySelector('input[name="kind"][value="openai"]').checked = true;
  $("base-url").value = kept.base_url;
  $("model-name").value = kept.model;
  syncSettingsFields();
  if (kept.keyless) {
    sent = kept;
    $("settings-apply").disabled = true;
    post({
      op: "configure_model",
      model: { kind: "openai", base_url: kept.base_url, model: kept.model, api_key: "" },
    });
    return true;
  }
  keyNeeded = kept;
  return false;
}

export function initSettings() {
  $("open-settings").addEventListener("click", openSettings);
  $("settings-cancel").addEventListener("click", () => $("settings").close());
  // Closed without a model set: the action that waited for the key is dropped.
  $("settings").addEventListener("close", () => {
    if (!$("settings-apply").disabled) afterKey = null;
  });
  $("settings-form").addEventListener("change", syncSettingsFields);
  $("settings-form").addEventListener("submit", applySettings);
  // The worker starts with the offline model; its answer fills the badge and the delay field
  // (the worker holds this until it is ready).
  if (!restoreModel()) post({ op: "configure_model", model: { kind: "offline" } });
}
