// A form generated from a JSON Schema object, filled with a tool call's arguments and checked
// in the page before anything is sent: required fields, types, enum, lengths, ranges, patterns.
// Each field has a bound label (naming it required), its description and its own error line.

import { make } from "./dom.js";

/**
 * A JSON Schema, as parsed JSON: each use checks the keywords it reads.
 * @typedef {{ [keyword: string]: any }} Schema
 * What a field read: its value, that it was left empty (not present), or the problem.
 * @typedef {{ present?: boolean, value?: unknown, error?: string }} FieldResult
 * @typedef {HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement} Control
 * @typedef {{ element: HTMLElement, read: () => FieldResult, input?: Control }} Field
 * @typedef {{ error: string } | { error?: undefined, present: true, value: Record<string, unknown> }} ObjectResult
 * @typedef {{ ok: true, value: unknown } | { ok: false, error: string }} FormResult
 */

const LONG_TEXT = /^(body|text|content|message|description|notes?)$/i;

const typeOf = (/** @type {Schema | undefined} */ schema) =>
  Array.isArray(schema?.type)
    ? schema.type.find((/** @type {unknown} */ t) => t !== "null")
    : schema?.type;
const isStringList = (/** @type {Schema} */ schema) =>
  typeOf(schema) === "array" &&
  ["string", undefined].includes(typeOf(schema.items ?? {})) &&
  !schema.items?.properties;

let formCount = 0;

/** @param {Schema} schema */
function describe(schema) {
  const notes = [];
  if (typeof schema.description === "string") notes.push(schema.description);
  if (isStringList(schema)) notes.push("One per line.");
  if (typeOf(schema) === "object" && !schema.properties) notes.push("As JSON.");
  return notes.join(" ");
}

/** @param {string} id @param {string} name @param {boolean} required */
function labelFor(id, name, required) {
  const label = make("label", "field-label", name);
  label.htmlFor = id;
  if (required) label.append(" ", make("span", "field-required", "(required)"));
  return label;
}

/**
 * @param {string} id
 * @param {Schema} schema
 * @param {unknown} value
 * @returns {Control}
 */
function control(id, schema, value) {
  const type = typeOf(schema);
  /** @type {Control} */
  let input;
  if (Array.isArray(schema.enum)) {
    const select = make("select");
    if (value === undefined) select.append(new Option("Choose…", ""));
    for (const option of schema.enum)
      select.append(new Option(String(option), JSON.stringify(option)));
    if (value !== undefined) select.value = JSON.stringify(value);
    input = select;
  } else if (type === "boolean") {
    const box = make("input");
    box.type = "checkbox";
    box.checked = value === true;
    input = box;
  } else if (type === "integer" || type === "number") {
    const number = make("input");
    number.type = "number";
    number.step = type === "integer" ? "1" : "any";
    if (typeof schema.minimum === "number") number.min = String(schema.minimum);
    if (typeof schema.maximum === "number") number.max = String(schema.maximum);
    number.value = typeof value === "number" ? String(value) : "";
    input = number;
  } else if (isStringList(schema)) {
    const lines = make("textarea");
    lines.rows = 3;
    lines.value = Array.isArray(value) ? value.map(String).join("\n") : "";
    input = lines;
  } else if (type === "string") {
    const long =
      (typeof value === "string" && value.includes("\n")) || (schema.maxLength ?? 0) > 200;
    const text = make(long || LONG_TEXT.test(id.split("-").pop() ?? "") ? "textarea" : "input");
    if (text instanceof HTMLTextAreaElement) text.rows = 4;
    else text.type = "text";
    text.value = typeof value === "string" ? value : "";
    input = text;
  } else {
    const json = make("textarea", "json-field");
    json.rows = 4;
    json.spellcheck = false;
    json.value = value === undefined ? "" : JSON.stringify(value, null, 2);
    input = json;
  }
  input.id = id;
  input.name = id;
  return input;
}

/**
 * A field for one property.
 * @param {string} id
 * @param {string} name
 * @param {Schema} schema
 * @param {unknown} value
 * @param {boolean} required
 * @returns {Field}
 */
function field(id, name, schema, value, required) {
  if (typeOf(schema) === "object" && schema.properties) {
    const values = /** @type {Record<string, unknown>} */ (value ?? {}); // an object's, as given
    const nested = objectFields(id, schema, values, name);
    return { element: nested.element, read: () => nested.read() };
  }
  const wrap = make("div", "form-field");
  wrap.dataset.field = name;
  const input = control(id, schema, value);
  const help = describe(schema);
  const helpEl = make("p", "field-help", help);
  helpEl.id = `${id}-help`;
  const error = make("p", "field-error");
  error.id = `${id}-error`;
  error.hidden = true;
  input.setAttribute("aria-describedby", help ? `${helpEl.id} ${error.id}` : error.id);
  if (required) input.setAttribute("aria-required", "true");
  if (input.type === "checkbox") {
    const label = labelFor(id, name, false);
    label.prepend(input, " ");
    label.classList.add("checkbox");
    wrap.append(label);
  } else {
    wrap.append(labelFor(id, name, required), input);
  }
  if (help) wrap.append(helpEl);
  wrap.append(error);
  const read = () => {
    const result = parse(input, schema, required, name);
    error.textContent = result.error ?? "";
    error.hidden = !result.error;
    if (result.error) input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
    return result;
  };
  return { element: wrap, read, input };
}

/**
 * @param {Control} input
 * @param {Schema} schema
 * @param {boolean} required
 * @param {string} name
 * @returns {FieldResult}
 */
function parse(input, schema, required, name) {
  const type = typeOf(schema);
  const raw = input.value;
  /** @type {unknown} */
  let value;
  if (Array.isArray(schema.enum)) {
    if (raw === "") return required ? { error: `Choose a value for ${name}.` } : { present: false };
    value = JSON.parse(raw);
  } else if (type === "boolean") {
    return { present: true, value: input instanceof HTMLInputElement && input.checked };
  } else if (type === "integer" || type === "number") {
    if (raw.trim() === "") return required ? { error: `${name} is required.` } : { present: false };
    value = Number(raw);
    if (!Number.isFinite(value)) return { error: `${name} must be a number.` };
    if (type === "integer" && !Number.isInteger(value))
      return { error: `${name} must be a whole number.` };
  } else if (isStringList(schema)) {
    const lines = raw
      .split("\n")
      .map((line) => line.trim())
      .filter(Boolean);
    if (!lines.length && required) return { error: `${name} needs at least one entry.` };
    if (!lines.length && !required) return { present: false };
    value = lines;
  } else if (type === "string") {
    if (raw.trim() === "" && required) return { error: `${name} is required.` };
    if (raw === "" && !required) return { present: false };
    value = raw;
  } else {
    if (raw.trim() === "") return required ? { error: `${name} is required.` } : { present: false };
    try {
      value = JSON.parse(raw);
    } catch {
      return { error: `${name} must be valid JSON.` };
    }
  }
  const problem = check(value, schema, name);
  return problem ? { error: problem } : { present: true, value };
}

// An address: a name, "@" and a domain with a dot (the demo's tools assert the same pattern).
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/u;

// Why matching `pattern` can take exponential time (the browser's engine backtracks: ^(a+)+$
// froze the page for minutes), or null. The same rule as pyctx_web's schema check: a group
// repeated more than once that holds a quantifier, or whose alternatives can start alike (two
// equal literal characters, or anything but a literal), and any backreference are refused.
const QUANTIFIER = /[*+?]|\{(\d+)(,(\d*))?\}/y;
const GROUP_OPENING = /\?(:|<?[=!]|<[^>]*>)/y;
const LITERAL = /^(?:[^\\[\]().*+?{}|^$]|\\[^A-Za-z0-9])$/u;

/** @param {RegExp} re @param {string} text @param {number} at */
const sticky = (re, text, at) => {
  re.lastIndex = at;
  return re.exec(text);
};
const repeats = (/** @type {RegExpExecArray} */ q) =>
  q[1] === undefined
    ? q[0] !== "?"
    : q[2] === undefined
      ? Number(q[1]) > 1
      : !q[3] || Number(q[3]) > 1;
const overlap = (/** @type {(string | null)[]} */ firsts) =>
  firsts.length > 1 && (firsts.includes(null) || new Set(firsts).size < firsts.length);

/** @param {string} pattern @param {number} i */
function atomEnd(pattern, i) {
  if (pattern[i] === "\\") return i + 2;
  if (pattern[i] !== "[") return i + 1;
  i += pattern.startsWith("[^", i) ? 2 : 1;
  if (pattern[i] === "]") i += 1;
  while (i < pattern.length && pattern[i] !== "]") i += pattern[i] === "\\" ? 2 : 1;
  return i + 1;
}

/** @param {string} pattern */
export function patternProblem(pattern) {
  const named = `the pattern '${pattern}'`;
  const exponential = "which can take exponential time to match";
  /** @returns {{ quantified: boolean, firsts: (string | null)[], started: boolean }} */
  const group = () => ({ quantified: false, firsts: [null], started: false });
  const stack = [group()];
  let i = 0;
  while (i < pattern.length) {
    const char = pattern[i];
    let top = stack[stack.length - 1];
    if (char === "\\" && /^\\([1-9]|k<)/.test(pattern.slice(i, i + 3)))
      return `${named} uses a backreference, ${exponential}`;
    if (char === "(") {
      stack.push(group());
      const opening = sticky(GROUP_OPENING, pattern, i + 1);
      i = opening ? i + 1 + opening[0].length : i + 1;
      continue;
    }
    if (char === "|") {
      top.firsts.push(null);
      top.started = false;
      i += 1;
      continue;
    }
    const end = char === ")" ? i + 1 : atomEnd(pattern, i);
    const quantifier = sticky(QUANTIFIER, pattern, end);
    if (char === ")" && stack.length > 1) {
      const inner = top;
      stack.pop();
      top = stack[stack.length - 1];
      if (quantifier && repeats(quantifier) && (inner.quantified || overlap(inner.firsts))) {
        const shape = inner.quantified
          ? "repeats a group that contains a quantifier"
          : "repeats a group whose alternatives can start alike";
        return `${named} ${shape}, ${exponential}`;
      }
      top.quantified ||= inner.quantified;
    } else if (!top.started && LITERAL.test(pattern.slice(i, end))) {
      top.firsts[top.firsts.length - 1] = pattern[end - 1];
    }
    if (char !== "^" && char !== "$") top.started = true;
    top.quantified ||= quantifier !== null;
    i = quantifier ? end + quantifier[0].length : end;
    if (quantifier && pattern[i] === "?") i += 1;
  }
  return null;
}

// The constraints a person can fix in the field; the worker checks the full schema again.
/**
 * @param {unknown} value
 * @param {Schema} schema
 * @param {string} name
 * @returns {string | null}
 */
function check(value, schema, name) {
  if (
    Array.isArray(schema.enum) &&
    !schema.enum.some((v) => JSON.stringify(v) === JSON.stringify(value))
  ) {
    return `${name} must be one of: ${schema.enum.join(", ")}.`;
  }
  if (typeof value === "string") {
    if (schema.format === "email" && !EMAIL.test(value)) {
      return `${name} must be an email address, such as ana@example.com.`;
    }
    if (typeof schema.minLength === "number" && value.length < schema.minLength) {
      return `${name} needs at least ${schema.minLength} characters.`;
    }
    if (typeof schema.maxLength === "number" && value.length > schema.maxLength) {
      return `${name} takes at most ${schema.maxLength} characters.`;
    }
    if (typeof schema.pattern === "string") {
      const problem = patternProblem(schema.pattern);
      if (problem) return `${name} cannot be checked: ${problem}.`;
      try {
        if (!new RegExp(schema.pattern, "u").test(value))
          return `${name} does not have the expected form.`;
      } catch {
        // A pattern the browser cannot read is left to the worker.
      }
    }
  }
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum)
      return `${name} must be at least ${schema.minimum}.`;
    if (typeof schema.maximum === "number" && value > schema.maximum)
      return `${name} must be at most ${schema.maximum}.`;
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === "number" && value.length < schema.minItems) {
      return `${name} needs at least ${schema.minItems} entries.`;
    }
    if (typeof schema.maxItems === "number" && value.length > schema.maxItems) {
      return `${name} takes at most ${schema.maxItems} entries.`;
    }
    for (const item of value) {
      const problem = schema.items ? check(item, schema.items, `Each entry of ${name}`) : null;
      if (problem) return problem;
    }
  }
  return null;
}

/**
 * @param {string} prefix
 * @param {Schema} schema
 * @param {Record<string, unknown>} values
 * @param {string | null} legend
 * @returns {{ element: HTMLElement, read: () => ObjectResult }}
 */
function objectFields(prefix, schema, values, legend) {
  const box = make(legend ? "fieldset" : "div", legend ? "form-fieldset" : "form-fields");
  if (legend) box.append(make("legend", null, legend));
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  /** @type {[string, Field][]} */
  const fields = Object.entries(schema.properties ?? {}).map(([name, sub]) => {
    const f = field(`${prefix}-${name}`, name, sub ?? {}, values[name], required.has(name));
    box.append(f.element);
    return [name, f];
  });
  /** @returns {ObjectResult} */
  const read = () => {
    /** @type {Record<string, unknown>} */
    const value = {};
    /** @type {string | null} */
    let error = null;
    for (const [name, f] of fields) {
      const result = f.read();
      if (result.error) error ??= result.error;
      else if (result.present) value[name] = result.value;
      else if (name in values) value[name] = values[name] === null ? null : emptyOf(values[name]);
    }
    return error ? { error } : { present: true, value };
  };
  return { element: box, read };
}

const emptyOf = (/** @type {unknown} */ value) =>
  Array.isArray(value) ? [] : typeof value === "string" ? "" : value;

// A form for `arguments` under `schema` (an object schema; without properties, one JSON field).
// read() -> {ok: true, value} or {ok: false, error} after marking every field's problem.
/**
 * @param {unknown} schema
 * @param {unknown} args
 * @returns {{ element: HTMLElement, read: () => FormResult }}
 */
export function schemaForm(schema, args) {
  formCount += 1;
  const prefix = `arg${formCount}`;
  const values = /** @type {Record<string, unknown>} */ (
    args && typeof args === "object" ? args : {}
  );
  const objectSchema =
    schema && typeof schema === "object" && "properties" in schema && schema.properties
      ? schema
      : { type: "object", properties: { arguments: { type: "object" } }, required: ["arguments"] };
  const wrapped = objectSchema === schema ? values : { arguments: values };
  const form = objectFields(prefix, objectSchema, wrapped, null);
  /** @returns {FormResult} */
  const read = () => {
    const result = form.read();
    if (result.error !== undefined) return { ok: false, error: result.error };
    return { ok: true, value: objectSchema === schema ? result.value : result.value.arguments };
  };
  return { element: form.element, read };
}
