// Small DOM helpers shared by the page's modules. Text is only ever set with textContent.

export const $ = (id) => document.getElementById(id);

export function seconds(ms) {
  return `${(ms / 1000).toFixed(1)} s`;
}

// An element with a class and, optionally, text.
export function make(tag, className, text) {
  const el = document.createElement(tag);
  if (className) el.className = className;
  if (text !== undefined && text !== null) el.textContent = String(text);
  return el;
}

export function button(text, className, onClick, label) {
  const el = make("button", className, text);
  el.type = "button";
  if (label) el.setAttribute("aria-label", label);
  if (onClick) el.addEventListener("click", onClick);
  return el;
}

// Runs `draw` once, at the next animation frame, or within 250 ms in a hidden page, which
// draws no frames.
export function atNextFrame(draw) {
  const run = () => {
    cancelAnimationFrame(frame);
    clearTimeout(timer);
    draw();
  };
  const frame = requestAnimationFrame(run);
  const timer = setTimeout(run, 250);
}

export const isWide = () => window.matchMedia("(min-width: 1200px)").matches;

export function showError(message) {
  $("error-text").textContent = message;
  $("error-banner").hidden = false;
}

export function dismissError() {
  $("error-banner").hidden = true;
  $("error-text").textContent = "";
}
