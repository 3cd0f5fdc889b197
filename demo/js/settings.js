// The model settings dialog and the header's model badge. The API key stays in this page's
// memory and goes only to the worker.

import { $, showError } from "./dom.js";
import { post } from "./protocol.js";

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
    const delay = Number(model.token_delay_ms);
    badge.textContent = Number.isFinite(delay) ? `Model: offline · ${delay} ms per token` : "Model: offline";
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
    const delay = Number(data.get("token_delay_ms"));
    if (Number.isFinite(delay) && delay > 0) model.token_delay_ms = Math.round(delay);
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
  $("settings-apply").disabled = false;
  if (msg.ok === false) {
    const message = msg.message || "The model settings were not accepted.";
    showSettingsError(message);
    if (!$("settings").open) showError(message);
    return;
  }
  showSettingsError("");
  setModelBadge(msg);
  if ($("settings").open) {
    $("settings").close();
    $("open-settings").focus();
  }
}

export function initSettings() {
  $("open-settings").addEventListener("click", () => {
    syncSettingsFields();
    $("settings-apply").disabled = false;
    $("settings").showModal();
  });
  $("settings-cancel").addEventListener("click", () => $("settings").close());
  $("settings-form").addEventListener("change", syncSettingsFields);
  $("settings-form").addEventListener("submit", applySettings);
}
