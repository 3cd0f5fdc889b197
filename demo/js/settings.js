// The model settings dialog and the header's model badge. The API key stays in this page's
// memory and goes only to the worker.

import { $, showError } from "./dom.js";
import { post } from "./protocol.js";

let offlineDelay = null; // the offline model's delay, as the worker last described it

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
    badge.textContent = Number.isFinite(delay) ? `Model: offline · ${delay} ms per token` : "Model: offline";
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
    if (raw !== "" && Number.isFinite(delay) && delay >= 0) model.token_delay_ms = Math.round(delay);
  }
  showSettingsError("");
  $("settings-apply").disabled = true;
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
  setModelBadge(msg);
  if (answering && $("settings").open) {
    $("settings").close();
    $("open-settings").focus();
  }
}

export function initSettings() {
  $("open-settings").addEventListener("click", () => {
    if (offlineDelay !== null) $("token-delay").value = String(offlineDelay);
    syncSettingsFields();
    $("settings-apply").disabled = false;
    $("settings").showModal();
  });
  $("settings-cancel").addEventListener("click", () => $("settings").close());
  $("settings-form").addEventListener("change", syncSettingsFields);
  $("settings-form").addEventListener("submit", applySettings);
  // The worker starts with the offline model; its answer fills the badge and the delay field
  // (the worker holds this until it is ready).
  post({ op: "configure_model", model: { kind: "offline" } });
}
