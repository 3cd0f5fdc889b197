// Small DOM helpers shared by the page's modules. Text is only ever set with textContent.

/**
 * The page's element with this id, of this class (HTMLElement unless given). The page
 * always has it: a missing element, or one of another kind, is thrown as the page's error.
 * @template {Element} [T=HTMLElement]
 * @param {string} id
 * @param {{ new (): T, prototype: T }} [type]
 * @returns {T}
 */
export function $(id, type) {
  const el = document.getElementById(id);
  const want = type ?? HTMLElement;
  if (!(el instanceof want)) throw new Error(`the page has no ${want.name} #${id}`);
  return /** @type {T} */ (/** @type {Element} */ (el));
}

/**
 * The element under `root` that `selector` names, of this class (HTMLElement unless given),
 * which the page put there: a missing one is thrown as the page's error.
 * @template {Element} [T=HTMLElement]
 * @param {Element} root
 * @param {string} selector
 * @param {{ new (): T, prototype: T }} [type]
 * @returns {T}
 */
export function child(root, selector, type) {
  const el = root.querySelector(selector);
  const want = type ?? HTMLElement;
  if (!(el instanceof want)) throw new Error(`no ${want.name} ${selector} in ${root.className}`);
  return /** @type {T} */ (/** @type {Element} */ (el));
}

/**
 * The page's HTML elements that `selector` matches.
 * @param {string} selector
 */
export const all = (selector) =>
  [...document.querySelectorAll(selector)].filter((el) => el instanceof HTMLElement);

/** @param {number} ms */
export function seconds(ms) {
  return `${(ms / 1000).toFixed(1)} s`;
}

/**
 * An element with a class and, optionally, text.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {string | null} [className]
 * @param {unknown} [text]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function make(tag, className, text) {
  const el = document.createElement(tag);
  if (className) el.className = className;
  if (text !== undefined && text !== null) el.textContent = String(text);
  return el;
}

/**
 * @param {string} text
 * @param {string} [className]
 * @param {((event: MouseEvent) => void) | null} [onClick]
 * @param {string} [label] its aria-label
 */
export function button(text, className, onClick, label) {
  const el = make("button", className, text);
  el.type = "button";
  if (label) el.setAttribute("aria-label", label);
  if (onClick) el.addEventListener("click", onClick);
  return el;
}

// Runs `draw` once, at the next animation frame, or within 250 ms in a hidden page, which
// draws no frames.
/** @param {() => void} draw */
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

/** @param {string} message */
export function showError(message) {
  $("error-text").textContent = message;
  $("error-banner").hidden = false;
}

export function dismissError() {
  $("error-banner").hidden = true;
  $("error-text").textContent = "";
}
