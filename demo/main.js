// The page: talks to the Python worker only through messages.
const $ = (id) => document.getElementById(id);
const STAGES = ["runtime", "packages", "app"];

function showError(message) {
  const banner = $("error-banner");
  banner.textContent = message;
  banner.hidden = false;
}

function onStatus(msg) {
  const index = STAGES.indexOf(msg.stage);
  $("load-stage").textContent = msg.label;
  $("load-progress").value = index;
  for (const li of document.querySelectorAll(".stages li")) {
    const i = STAGES.indexOf(li.dataset.stage);
    li.classList.toggle("done", i < index);
    li.classList.toggle("active", i === index);
  }
}

function onReady(msg) {
  $("load-progress").value = STAGES.length;
  $("loading").hidden = true;
  $("ready").hidden = false;
  $("versions").textContent = `Pyodide ${msg.pyodide} · pyctx_web ${msg.pyctx_web}`;
  $("ready-text").textContent = `Ready in ${(msg.elapsed_ms / 1000).toFixed(1)} s.`;
  document.body.dataset.state = "ready";
}

const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
worker.addEventListener("message", (event) => {
  const msg = event.data;
  if (msg.type === "status") onStatus(msg);
  else if (msg.type === "ready") onReady(msg);
  else if (msg.type === "error") showError(msg.message);
});
worker.addEventListener("error", (event) => showError(`Worker failed: ${event.message}`));
document.body.dataset.state = "loading";
